"""Word spans: the one definition of a word, used for sizes and budgets."""

from __future__ import annotations

import re

WORD_RE = re.compile(r"\S+")
"""A word is any run of text between whitespace; ' | ' between cells counts as one."""


def word_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Return the half-open [start, end) span of every word in text[start:end]."""
    stop = len(text) if end is None else end
    return [m.span() for m in WORD_RE.finditer(text, start, stop)]


def count_words(text: str) -> int:
    """Return how many words text holds."""
    return len(text.split())
