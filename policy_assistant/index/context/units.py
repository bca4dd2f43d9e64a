"""Retrieval units below the chunk: sentences, list items, table rows, code lines, headings.

A unit is a half-open span of its document's text: a sentence of a paragraph, a whole list
item (its sentences when it is longer than LONG_SENTENCE_WORDS), a table row, a code line, or a
heading. A sentence or code line over LONG_SENTENCE_WORDS is cut into pieces of at most
UNIT_PIECE_WORDS, whole lines where it has line breaks (a chat log or a list without
punctuation or bullets is otherwise one unit that no budget holds). Every non-blank character
of every block lies in exactly one unit, so a run of consecutive units of one document is a
passage that cuts nothing.

Units are held as columns (numpy arrays) in a UnitSet, with their parents: each unit knows
its block, each block its section (a run of blocks under one heading path, at most
SECTION_PART_WORDS long: a longer one is several sections with the same path; a block longer
than that, such as a log without blank lines, is parted between its units) and each section
its document. Rows are in document order, documents sorted by source, so the units of a
block, a section or a document are one contiguous range of rows.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from policy_assistant.boxes import on_pages
from policy_assistant.codec import OMIT_EMPTY, from_json_dict, to_json_dict
from policy_assistant.index.chunks.bm25_types import Ints
from policy_assistant.index.settings import SECTION_PART_WORDS, UNIT_PIECE_WORDS
from policy_assistant.records import Access, Block, Document, PageBox
from policy_assistant.sentences import (
    LONG_SENTENCE_WORDS,
    bounded_spans,
    line_spans,
    sentence_spans,
)
from policy_assistant.text import count_words, word_spans

UNIT_KINDS = ("heading", "sentence", "item", "row", "line")
"""What a unit is: index of the name is the stored kind code."""
ROW, HEADING = UNIT_KINDS.index("row"), UNIT_KINDS.index("heading")
BlockBox = tuple[int, int, int, float, float, float, float]
"""(start, end, page, x0, y0, x1, y1): a block's text span and its box on one page."""


@dataclass(frozen=True, slots=True)
class DocInfo:
    """What a passage cites about its document."""

    source: str
    """The document's source path."""
    title: str
    """The document's title."""
    version: str
    """The document's version label."""
    access: Access
    """The document's access label."""
    language: str
    """The document's language."""
    pages: tuple[int, ...]
    """Character offset where each PDF page starts; empty for Markdown."""
    boxes: tuple[BlockBox, ...] = field(default=(), metadata=OMIT_EMPTY)
    """Where each block is: (start, end, page, x0, y0, x1, y1) a page it spans, in text
    order; empty where the format has no pages."""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return to_json_dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DocInfo:
        """Rebuild the record from its JSON form."""
        return from_json_dict(cls, data)

    @classmethod
    def of(cls, doc: Document) -> DocInfo:
        """Return a document's citation fields."""
        boxes = tuple((b.start, b.end, *box) for b in doc.blocks for box in b.boxes)
        return cls(doc.source, doc.title, doc.version, doc.access, doc.language, doc.pages, boxes)

    def boxes_of(self, start: int, end: int, pages: tuple[int, ...]) -> tuple[PageBox, ...]:
        """Return, per page of pages, the union of the boxes of the blocks [start, end) touches."""
        if not self.boxes:
            return ()
        # Blocks come in text order: the first that may touch is found by its start.
        first = max(bisect.bisect_right(self.boxes, (start,)) - 1, 0)
        while first > 0 and self.boxes[first - 1][0] == self.boxes[first][0]:
            first -= 1
        touched = []
        for row in self.boxes[first:]:
            if row[0] >= end:
                break
            if row[1] > start:
                touched.append((int(row[2]), row[3], row[4], row[5], row[6]))
        return on_pages(touched, pages)


class Text(Protocol):
    """A document's text as a context reads it: sliced by a start and a stop."""

    def __getitem__(self, span: slice, /) -> str:
        """Return text[start:stop]."""


@dataclass(frozen=True)
class UnitSet:
    """Every unit of a set of documents, as columns, with their blocks, sections, documents."""

    docs: Sequence[DocInfo]
    """The documents, sorted by source (a lazy sequence when read from disk)."""
    texts: Sequence[Text]
    """Each document's normalized text (read a frame at a time when from disk)."""
    paths: Sequence[tuple[str, ...]]
    """Each section's heading path (a lazy sequence when read from disk)."""
    columns: dict[str, Ints]
    """unit_start, unit_end, unit_words, unit_kind, unit_block, unit_section, unit_doc,
    unit_header (the header row's unit of a table row, else -1), block_first, section_first,
    section_doc, doc_first (first unit row; the *_first arrays end with the unit count)."""
    header_rows: bool = True
    """Whether a passage starting below a table's header row repeats it in its prefix."""
    cache: dict[int, int] = field(default_factory=dict, compare=False, repr=False)
    """Prefix words per section, filled as passages are sized."""

    def __len__(self) -> int:
        return len(self.columns["unit_start"])

    def col(self, name: str) -> Ints:
        """Return one column."""
        return self.columns[name]

    def words(self, first: int, last: int) -> int:
        """Return the words of units first..last inclusive."""
        cum = self.columns["cum_words"]
        return int(cum[last + 1] - cum[first])

    def section_range(self, section: int) -> tuple[int, int]:
        """Return the first and last unit rows of a section."""
        first = self.columns["section_first"]
        return int(first[section]), int(first[section + 1]) - 1

    def block_range(self, block: int) -> tuple[int, int]:
        """Return the first and last unit rows of a block."""
        first = self.columns["block_first"]
        return int(first[block]), int(first[block + 1]) - 1

    def unit_text(self, row: int) -> str:
        """Return one unit's text."""
        doc = int(self.columns["unit_doc"][row])
        start, end = self.columns["unit_start"][row], self.columns["unit_end"][row]
        return self.texts[doc][int(start) : int(end)]


def _block_units(text: str, block: Block) -> list[tuple[int, int, int]]:
    """Return (start, end, kind code) of each unit of one block."""
    kind = block.kind
    if kind == "heading":
        spans, code = _whole(text, block), HEADING
    elif kind == "table":
        spans, code = line_spans(text, block.start, block.end), ROW
    elif kind == "code":
        spans = _bounded(text, line_spans(text, block.start, block.end))
        code = UNIT_KINDS.index("line")
    elif kind == "list_item" and count_words(block.text) <= LONG_SENTENCE_WORDS:
        spans, code = _whole(text, block), UNIT_KINDS.index("item")
    else:
        spans = _bounded(text, sentence_spans(text, block.start, block.end))
        code = UNIT_KINDS.index("sentence")
    return [(start, end, code) for start, end in spans]


def _bounded(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Return the spans, each one over LONG_SENTENCE_WORDS cut into pieces of UNIT_PIECE_WORDS."""
    return bounded_spans(text, spans, LONG_SENTENCE_WORDS, UNIT_PIECE_WORDS)


def _whole(text: str, block: Block) -> list[tuple[int, int]]:
    """Return the block's span trimmed of whitespace, or none when it is blank."""
    lines = line_spans(text, block.start, block.end)
    return [(lines[0][0], lines[-1][1])] if lines else []


_COLUMNS = ("start", "end", "words", "kind", "block", "section", "doc")


class _Builder:
    """Collects columns document by document."""

    def __init__(self) -> None:
        self.units: dict[str, list[int]] = {n: [] for n in (*_COLUMNS, "header")}
        self.block_first: list[int] = []
        self.section_first: list[int] = []
        self.section_doc: list[int] = []
        self.doc_first: list[int] = []
        self.paths: list[tuple[str, ...]] = []
        self.path: tuple[str, ...] | None = None
        """The path of the section row being filled."""
        self.size = 0
        """Its words so far."""

    def add(self, doc_row: int, doc: Document) -> None:
        """Add one document's blocks and units."""
        self.doc_first.append(len(self.units["start"]))
        self.path, self.size = None, 0
        for block in doc.blocks:
            units = [
                (start, end, count_words(doc.text[start:end]), code)
                for start, end, code in _block_units(doc.text, block)
            ]
            self.block_first.append(len(self.units["start"]))
            words = sum(unit[2] for unit in units)  # the block's: its units hold all its text
            if words <= SECTION_PART_WORDS:
                self._part(doc_row, block.section, words)
                self._units(doc_row, units, -1)
                continue
            # A block longer than a part (a log or a record file read as one paragraph) is
            # parted between its units, else the part would be the whole block.
            header = -1
            for unit in units:
                self._part(doc_row, block.section, unit[2])
                header = self._units(doc_row, [unit], header)

    def _part(self, doc_row: int, path: tuple[str, ...], words: int) -> None:
        """Open a section row before words more of a section when it starts one: a new path,
        or a section over SECTION_PART_WORDS going on in another part under the same path."""
        # A heading's own path ends with itself: it opens the run of the section it names.
        if path != self.path or (self.size and self.size + words > SECTION_PART_WORDS):
            self.path, self.size = path, 0
            self.section_first.append(len(self.units["start"]))
            self.section_doc.append(doc_row)
            self.paths.append(path)
        self.size += words

    def _units(self, doc_row: int, units: list[tuple[int, int, int, int]], header: int) -> int:
        """Add units of the last block, each (start, end, words, kind code); return the
        block's table header row so far (-1: none)."""
        block_row, section_row = len(self.block_first) - 1, len(self.paths) - 1
        for start, end, words, code in units:
            row = len(self.units["start"])
            values = (start, end, words, code, block_row, section_row, doc_row)
            for name, value in zip(_COLUMNS, values, strict=True):
                self.units[name].append(value)
            self.units["header"].append(header if code == ROW else -1)
            if code == ROW and header < 0:
                header = row
        return header

    def finish(self, docs: Sequence[Document]) -> UnitSet:
        """Return the UnitSet."""
        total = len(self.units["start"])
        cols = {f"unit_{name}": np.array(v, np.int64) for name, v in self.units.items()}
        for name in ("block_first", "section_first", "doc_first"):
            cols[name] = np.array([*getattr(self, name), total], np.int64)
        cols["section_doc"] = np.array(self.section_doc, np.int64)
        cols["cum_words"] = starts_of(cols["unit_words"])
        infos = tuple(DocInfo.of(d) for d in docs)
        return UnitSet(infos, [d.text for d in docs], tuple(self.paths), cols)


def starts_of(sizes: Any) -> Ints:
    """Return where each of sizes starts when they are laid end to end, then the total."""
    return np.concatenate([[0], np.cumsum(np.asarray(sizes, np.int64))]).astype(np.int64)


def build_units(documents: Iterable[Document]) -> UnitSet:
    """Return the units of the documents, sorted by source."""
    docs = sorted(documents, key=lambda d: d.source)
    builder = _Builder()
    for row, doc in enumerate(docs):
        builder.add(row, doc)
    return builder.finish(docs)


def unit_index_text(units: UnitSet, row: int) -> str:
    """Return what BM25 indexes for a unit: its text, a table row behind its header row."""
    header = int(units.col("unit_header")[row])
    text = units.unit_text(row)
    return f"{units.unit_text(header)}\n{text}" if header >= 0 else text


def section_context(units: UnitSet, section: int) -> str:
    """Return a section's context field: its heading path."""
    return " \n".join(units.paths[section])


def section_text(units: UnitSet, section: int) -> str:
    """Return a section's passage field: its heading path and its units' text."""
    first, last = units.section_range(section)
    doc = int(units.col("section_doc")[section])
    if last < first:
        return section_context(units, section)
    start, end = int(units.col("unit_start")[first]), int(units.col("unit_end")[last])
    return section_context(units, section) + "\n" + units.texts[doc][start:end]


def document_identity(units: UnitSet, doc: int, lead_words: int = 50) -> str:
    """Return a document's identity field: title, version, source and its first words."""
    info = units.docs[doc]
    first, last = int(units.col("doc_first")[doc]), int(units.col("doc_first")[doc + 1])
    lead: list[str] = []
    wanted = lead_words
    for row in range(first, last):
        text = units.unit_text(row)
        spans = word_spans(text)[:wanted]  # text.py's words: a Japanese unit is no one word
        if spans:
            lead.extend(text[spans[0][0] : spans[-1][1]].split())
            wanted -= len(spans)
        if wanted <= 0:
            break
    name = info.source.rsplit("/", 1)[-1].rsplit(".", 1)[0].replace("-", " ")
    return "\n".join([info.title, info.version, name, " ".join(lead)])
