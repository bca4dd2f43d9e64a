"""Word spans: the one definition of a word, used for sizes and budgets."""

from __future__ import annotations

import re

WORD_RE = re.compile(r"\S+")
"""A word is any run of text between whitespace; ' | ' between cells counts as one."""


def word_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Return the half-open [start, end) span of every word in text[start:end]."""
    stop = len(text) if end is None else end
    return [m.span() for m in WORD_RE.finditer(text, start, stop)]


_SPACE = re.compile(r"\s")
_PIECE = 1 << 20
"""Characters counted at a time in a long text: a list of all its words took gigabytes."""


def count_words(text: str) -> int:
    """Return how many words text holds."""
    if len(text) <= _PIECE:
        return len(text.split())
    total, start = 0, 0
    while start < len(text):
        space = _SPACE.search(text, start + _PIECE)  # cut at a space: no word is split
        end = space.start() if space else len(text)
        total += len(text[start:end].split())
        start = end
    return total


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_BIDI = frozenset([*range(0x202A, 0x202F), *range(0x2066, 0x206A)])
"""Bidirectional overrides, which can make a name read as another on a terminal."""


def printable(text: str) -> str:
    """Return `text` with control characters and undecodable bytes escaped, safe for a terminal.

    A backslash is left as it is, so escaping twice changes nothing: the library escapes the
    names it puts in messages and the command line escapes every line it prints.
    """
    out: list[str] = []
    for char in text:
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif 0xDC80 <= code <= 0xDCFF:  # a byte of a non-UTF-8 file name (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code <= 0xDFFF or code in _BIDI:
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """Return `1 chunk`, `2 chunks`: a count and its noun in the right number."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
