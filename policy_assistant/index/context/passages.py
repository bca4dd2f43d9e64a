"""Passages of an assembled context: a run of whole units of one document, behind its prefix."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from policy_assistant.codec import OMIT_EMPTY, to_json_dict
from policy_assistant.index.context.units import HEADING, ROW, UNIT_KINDS, UnitSet
from policy_assistant.records import PageBox
from policy_assistant.text import count_words

PATH_SEPARATOR = " > "
"""Joins the heading path in a prefix, as the chunkers do."""


@dataclass(frozen=True, slots=True)
class Span:
    """A run of consecutive units of one document, while the context is being assembled."""

    doc: int
    """Document row in the unit set."""
    first: int
    """First unit row."""
    last: int
    """Last unit row (inclusive)."""
    score: float
    """The passage's score: what it ranks by in the context."""


@dataclass(frozen=True, slots=True)
class ContextPassage:
    """One passage of an assembled context, citable like a chunk."""

    rank: int
    """Position in the context, from 1."""
    score: float
    """The passage's score (its hits' scores, summed with decay)."""
    source: str
    """The document's source path."""
    title: str
    """The document's title."""
    version: str
    """The document's version label."""
    access: str
    """The document's access label."""
    start: int
    """Offset of the body's first character in the document's text."""
    end: int
    """Offset one past the body's last character."""
    pages: tuple[int, ...]
    """PDF pages the body touches; empty for Markdown."""
    sections: tuple[tuple[str, ...], ...]
    """Every section path the body touches, in order."""
    text: str
    """The prefix (title, heading path), then the body: what the model reads."""
    words: int
    """Words of text, prefix included: what the budget counts."""
    boxes: tuple[PageBox, ...] = field(default=(), metadata=OMIT_EMPTY)
    """Where the body is: per page, the union of its blocks' whole boxes; empty for other
    formats (records.Chunk.boxes)."""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return to_json_dict(self)


def _prefix_of(units: UnitSet, doc: int, section: int, at_heading: bool = False) -> str:
    """Return the prefix of a passage that starts in section: the title, then the nearest
    heading the body does not show (at the section's heading, which the body shows: its
    parent; no title that it repeats)."""
    title = units.docs[doc].title.strip()
    path = units.paths[section]
    heading = path[-1].strip() if at_heading and path else None
    if heading is not None:
        path = path[:-1]
    if path and path[0].strip() == title:
        path = path[1:]
    # The nearest heading alone: the whole path is the passage's `sections`, and every word
    # of a prefix repeated per passage is a word of evidence the budget cannot hold.
    shown = "" if heading == title else title
    lines = [line for line in (shown, path[-1] if path else "") if line]
    return "\n".join(lines) + "\n\n" if lines else ""


PREFIX_WORDS = "section_prefix_words"
"""The column of each section's prefix words, where a unit set stores it (unit segments)."""


def prefix_words(units: UnitSet, section: int, at_heading: bool = False) -> int:
    """Return the words of the prefix of a passage starting in section (on its heading)."""
    stored = units.columns.get(PREFIX_WORDS)
    if stored is not None and not at_heading:
        return int(stored[section])
    key = ~section if at_heading else section  # one cache, both prefixes: ~s is negative
    words = units.cache.get(key)
    if words is None:
        doc = int(units.col("section_doc")[section])
        words = units.cache[key] = count_words(_prefix_of(units, doc, section, at_heading))
    return words


def _opens_on_heading(units: UnitSet, first: int) -> bool:
    """Return whether a passage starting at unit `first` opens on its section's heading."""
    return int(units.col("unit_kind")[first]) == HEADING


def passage_prefix_words(units: UnitSet, first: int) -> int:
    """Return the words of the prefix of a passage starting at unit `first`."""
    section = int(units.col("unit_section")[first])
    return prefix_words(units, section, _opens_on_heading(units, first))


def _lead_header(units: UnitSet, first: int) -> int:
    """Return the header row a passage starting at unit `first` repeats (below a table's
    header row: so its cells keep their column names), or -1."""
    header = int(units.col("unit_header")[first])
    return header if header >= 0 and units.header_rows else -1


def span_words(units: UnitSet, span: Span) -> int:
    """Return the words a span takes in the context, its prefix included."""
    header = _lead_header(units, span.first)
    extra = int(units.col("unit_words")[header]) if header >= 0 else 0
    return passage_prefix_words(units, span.first) + extra + units.words(span.first, span.last)


def to_passage(units: UnitSet, span: Span, rank: int) -> ContextPassage:
    """Return the citable passage of a span."""
    cols = units.columns
    info = units.docs[span.doc]
    start, end = int(cols["unit_start"][span.first]), int(cols["unit_end"][span.last])
    first_section = int(cols["unit_section"][span.first])
    prefix = _prefix_of(units, span.doc, first_section, _opens_on_heading(units, span.first))
    header = _lead_header(units, span.first)
    if header >= 0:
        prefix += units.unit_text(header) + "\n"
    sections = sorted({int(s) for s in cols["unit_section"][span.first : span.last + 1]})
    pages = pages_of(info.pages, start, end)
    return ContextPassage(
        rank=rank,
        score=span.score,
        source=info.source,
        title=info.title,
        version=info.version,
        access=info.access,
        start=start,
        end=end,
        pages=pages,
        # Each path once where the parts of a long section repeat it.
        sections=tuple(path for path, _ in groupby(units.paths[s] for s in sections)),
        text=prefix + units.texts[span.doc][start:end],
        words=count_words(prefix) + units.words(span.first, span.last),
        boxes=info.boxes_of(start, end, pages),
    )


def pages_of(page_starts: tuple[int, ...], start: int, end: int) -> tuple[int, ...]:
    """Return the 1-based pages a span [start, end) touches, from each page's start offset."""
    if not page_starts:
        return ()
    first = max(1, bisect.bisect_right(page_starts, start))
    last = max(first, bisect.bisect_right(page_starts, max(start, end - 1)))
    return tuple(range(first, last + 1))


LISTED = (UNIT_KINDS.index("item"), ROW)
"""Unit kinds a lead-in line ending in ":" introduces."""


def _ends_on_lead_in(units: UnitSet, last: int) -> bool:
    """Return whether unit `last` only introduces the list or table that follows it."""
    if last + 1 >= len(units) or int(units.col("unit_kind")[last + 1]) not in LISTED:
        return False
    return units.unit_text(last).rstrip().endswith(":")


def is_bare_lead_in(units: UnitSet, span: Span) -> bool:
    """Return whether a span is nothing but a lead-in line, its list or table left out."""
    return span.first == span.last and _ends_on_lead_in(units, span.last)


def without_lead_in(units: UnitSet, span: Span) -> Span:
    """Return the span without a last line that only introduces a list or table it leaves out."""
    if span.last <= span.first or not _ends_on_lead_in(units, span.last):
        return span
    return Span(span.doc, span.first, span.last - 1, span.score)
