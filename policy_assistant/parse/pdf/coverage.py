"""The no-silent-loss check: every word of a PDF's text layer is in a block or in `dropped`.

Words are compared by their letters and digits only, case-folded and NFKC-normalized, so
that mending a line-end hyphen ("equip-" "ment"), joining a split URL, dropping a bullet
glyph or a wrap arrow, and turning ligatures into letters never counts as a loss. A word
of the text layer is *found* when its letters occur, in order and unbroken, in the
normalized text of the document's blocks or of its dropped records; the letters of all
words together must also be there as often as the text layer has them, so a word that
appears twice on the page but once in the blocks is a loss too.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from policy_assistant.records import Document
from policy_assistant.text import count_words

_NOT_ALNUM = re.compile(r"[\W_]+")


@dataclass(frozen=True, slots=True)
class Coverage:
    """How the words of a PDF's text layer were accounted for by one parse."""

    words: int
    """Words of the text layer that hold a letter or a digit."""
    lost: tuple[tuple[int, str], ...]
    """(page, word) of the words found neither in a block nor in a dropped record."""
    missing_characters: int
    """Letters and digits the text layer has more often than blocks and dropped together."""
    dropped_words: int
    """Words the parser dropped on purpose, by its records."""


def normalize(text: str) -> str:
    """Return the letters and digits of text, case-folded and NFKC-normalized, unspaced."""
    return _NOT_ALNUM.sub("", unicodedata.normalize("NFKC", text).casefold())


def coverage(document: Document, page_words: list[list[str]]) -> Coverage:
    """Check a parsed document against the words of each page of its text layer."""
    kept = "\n".join(normalize(block.text) for block in document.blocks)
    dropped = "\n".join(normalize(record.text) for record in document.dropped)
    haystack = kept + "\n" + dropped
    lost: list[tuple[int, str]] = []
    source: Counter[str] = Counter()
    total = 0
    for page, words in enumerate(page_words, start=1):
        for word in words:
            key = normalize(word)
            if not key:
                continue
            total += 1
            source.update(key)
            if key not in haystack:
                lost.append((page, word))
    missing = source - Counter(haystack.replace("\n", ""))
    dropped_words = sum(count_words(record.text) for record in document.dropped)
    return Coverage(total, tuple(lost), sum(missing.values()), dropped_words)
