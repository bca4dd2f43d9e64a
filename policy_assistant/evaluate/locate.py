"""Find evidence quotes and sections in a document's text, as half-open character spans.

A quote is matched after collapsing every run of whitespace to one space, on both sides, so
a quote copied across a line or page break still matches; the span found is mapped back to
offsets in the original text. A section is named by its heading (or a heading path joined
with ' > '), compared case-insensitively after collapsing whitespace; its span runs from its
heading to the next heading of the same or a higher level.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from policy_assistant.records import Document

Span = tuple[int, int]
"""A half-open [start, end) range of character offsets into Document.text."""

PATH_SEPARATOR = ">"
"""Separates the headings of a section path in a question's `section` field."""

_SPACE = re.compile(r"\s+")
_LONG_SPACE = re.compile(r"\s{2,}")


def collapse_whitespace(text: str) -> str:
    """Return text with each run of whitespace turned into one space, ends stripped."""
    return _SPACE.sub(" ", text).strip()


def fold(text: str) -> str:
    """Return the form headings are compared in: whitespace collapsed, case folded."""
    return collapse_whitespace(text).casefold()


@dataclass(frozen=True)
class CollapsedText:
    """A text with whitespace runs collapsed, and the way back to the original offsets."""

    text: str
    """The collapsed text (not stripped, so offsets stay simple)."""
    anchors: tuple[int, ...]
    """Collapsed offsets where a piece that maps linearly to the original begins."""
    origins: tuple[int, ...]
    """Original offset of each anchor."""

    @classmethod
    def of(cls, original: str) -> CollapsedText:
        """Collapse `original`, remembering where each piece came from."""
        # A run of one whitespace character keeps every offset; only longer runs shift them,
        # so only those need an anchor (in prose, mostly the blank lines between blocks).
        anchors = [0]
        origins = [0]
        shift = 0
        for match in _LONG_SPACE.finditer(original):
            start, end = match.span()
            shift += end - start - 1
            anchors.append(end - shift)
            origins.append(end)
        return cls(_SPACE.sub(" ", original), tuple(anchors), tuple(origins))

    def original_offset(self, offset: int) -> int:
        """Return the original offset of the character at collapsed `offset`."""
        i = bisect.bisect_right(self.anchors, offset) - 1
        return self.origins[i] + (offset - self.anchors[i])

    def find_all(self, quote: str) -> list[Span]:
        """Return the original span of every occurrence of a (collapsed) quote."""
        spans: list[Span] = []
        at = self.text.find(quote)
        while at >= 0 and quote:
            last = at + len(quote) - 1
            spans.append((self.original_offset(at), self.original_offset(last) + 1))
            at = self.text.find(quote, at + 1)
        return spans


@dataclass(frozen=True)
class Section:
    """A heading and the span of text it governs."""

    path: tuple[str, ...]
    """The heading path, outermost first, ending with the heading itself."""
    span: Span
    """From the heading's first character to the next heading of the same or higher level."""


def sections_of(document: Document) -> list[Section]:
    """Return every section of a document, in reading order."""
    headings = [b for b in document.blocks if b.kind == "heading"]
    out: list[Section] = []
    for i, heading in enumerate(headings):
        level = heading.level or 1
        end = len(document.text)
        for later in headings[i + 1 :]:
            if (later.level or 1) <= level:
                end = later.start
                break
        out.append(Section(heading.section, (heading.start, end)))
    return out


def _section_queries(section: str) -> list[tuple[str, ...]]:
    """Return the folded heading paths a `section` field may mean: whole, then split on '>'."""
    whole = (fold(section),)
    parts = tuple(fold(p) for p in section.split(PATH_SEPARATOR))
    return [whole] if len(parts) == 1 else [whole, parts]


def match_sections(sections: list[Section], section: str) -> list[Section]:
    """Return the sections whose heading path ends with the given heading or path."""
    for query in _section_queries(section):
        if not all(query):
            continue
        found = [s for s in sections if tuple(fold(p) for p in s.path[-len(query) :]) == query]
        if found:
            return found
    return []


def show_path(path: tuple[str, ...]) -> str:
    """Return a heading path as a person would write it in a questions file."""
    return f" {PATH_SEPARATOR} ".join(path)
