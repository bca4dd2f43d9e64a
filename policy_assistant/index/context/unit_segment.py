"""One unit segment: the retrieval units of some documents, their four BM25 fields as raw counts.

Its files are described in docs/index-format.md ("A unit segment").
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from policy_assistant.index.chunks.bm25_build import count_postings
from policy_assistant.index.chunks.segment_build import ZLIB_LEVEL, seal_segment
from policy_assistant.index.context.passages import PREFIX_WORDS, prefix_words
from policy_assistant.index.context.units import (
    DocInfo,
    UnitSet,
    build_units,
    document_identity,
    section_context,
    section_text,
    starts_of,
    unit_index_text,
)
from policy_assistant.jsonio import json_line
from policy_assistant.records import ACCESS_LABELS, Document

UNIT_SEGMENT_FORMAT = 3
"""Version of a unit segment's files; a reader refuses any other (1: one text stream per
document)."""
FRAME_CHARS = 2048
"""Characters of a document's text per compressed frame."""
FIELD_TEXTS: dict[str, Callable[[UnitSet], Iterator[str]]] = {
    "body": lambda u: (unit_index_text(u, row) for row in range(len(u))),
    "sections": lambda u: (section_context(u, s) for s in range(len(u.paths))),
    "documents": lambda u: (document_identity(u, d) for d in range(len(u.docs))),
    "passages": lambda u: (section_text(u, s) for s in range(len(u.paths))),
}
"""What each BM25 field indexes, one text per row, in row order: a unit's text (a table row
behind its header row), its section's heading path, its document's identity (title, version,
file name and first words) and its section's whole text."""
FIELDS = tuple(FIELD_TEXTS)
"""The four BM25 fields."""
FIELD_WEIGHTS: dict[str, float] = {"section": 0.3, "document": 0.3, "passage": 1.0}
"""Weight of the section (heading path), document (identity) and passage (the whole section's
text) fields beside the unit's own."""
FIELD_ARRAYS = ("term_offsets", "ptr", "rows", "tf", "dl", "front", "front_ptr")
"""The .npy files of one field."""
LINES = {"doc": "docs.jsonl", "path": "paths.jsonl"}
"""The JSON lines files read by line offset (<name>_offsets.npy), by name."""


@dataclass(frozen=True, slots=True)
class FieldCounts:
    """Rows of one field, those with a term, and their terms: what N and avgdl come from."""

    rows: int = 0
    """Rows (units, sections or documents)."""
    nonempty: int = 0
    """Rows with at least one term."""
    length: int = 0
    """Terms in all the rows."""

    def plus(self, other: FieldCounts) -> FieldCounts:
        """Return the counts of both."""
        return FieldCounts(*(a + b for a, b in zip(self.to_list(), other.to_list(), strict=True)))

    def to_list(self) -> list[int]:
        """Return the JSON form."""
        return [self.rows, self.nonempty, self.length]


def field_counts(lengths: Any) -> FieldCounts:
    """Return the counts of rows with these lengths."""
    values = np.asarray(lengths, np.int64)
    return FieldCounts(len(values), int((values > 0).sum()), int(values.sum()))


@dataclass(frozen=True, slots=True)
class UnitSegmentInfo:
    """What a generation keeps about one unit segment."""

    name: str
    """Folder name, useg-<16 hex>: the hash of its segment.json."""
    rows: int
    """Documents it holds, deleted ones included (named rows for the merge policy)."""
    fields: dict[str, FieldCounts]
    """Each field's counts, deleted rows included."""
    sha256: str
    """Hex SHA-256 of its segment.json."""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        # Hand-written: rows written as `docs`, each field's counts as a list.
        fields = {name: counts.to_list() for name, counts in sorted(self.fields.items())}
        return {"name": self.name, "docs": self.rows, "fields": fields, "sha256": self.sha256}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> UnitSegmentInfo:
        """Rebuild from the JSON form."""
        # Hand-written: reads `docs` and the counts lists to_dict writes.
        fields = {str(k): FieldCounts(*(int(x) for x in v)) for k, v in data["fields"].items()}
        return cls(str(data["name"]), int(data["docs"]), fields, str(data["sha256"]))


def _narrow(values: Any) -> Any:
    """Return integer values in the narrowest signed type that holds them all."""
    array = np.asarray(values, np.int64)
    for dtype in (np.int8, np.int16, np.int32):
        info = np.iinfo(dtype)
        if not len(array) or (info.min <= array.min() and array.max() <= info.max):
            return array.astype(dtype)
    return array


def _field_arrays(texts: Any) -> tuple[bytes, dict[str, Any]]:
    """Return one field's term list and raw postings, tf and lengths narrowed where they fit."""
    data, arrays = count_postings(texts)
    for name, dtype in (("tf", np.uint8), ("dl", np.uint16)):
        if int(arrays[name].max(initial=0)) <= np.iinfo(dtype).max:
            arrays[name] = arrays[name].astype(dtype)
    arrays["front"], arrays["front_ptr"] = _frontier(arrays)
    return data, arrays


def _frontier(arrays: dict[str, Any]) -> tuple[Any, Any]:
    """Return per term the positions of its postings that no other of its postings beats on
    both counts (a tf at least as high and a row at most as long), and each term's first.

    BM25's weight rises with tf and falls with the row's length, so a term's largest weight
    is at one of these, whatever N and the average length become: a search reads a few
    postings for a term's bound, not all (unit_terms._bounds)."""
    ptr, tf = arrays["ptr"], arrays["tf"].astype(np.int64)
    terms = np.repeat(np.arange(len(ptr) - 1, dtype=np.int64), np.diff(ptr))
    length = arrays["dl"][arrays["rows"]].astype(np.int64)
    # Terms last to first, tf high to low, length short to long: a posting is on the frontier
    # when it is shorter than every one before it of its term (the running minimum of
    # term * span + length restarts at each term, every earlier term's keys being larger).
    order = np.lexsort((length, -tf, -terms))
    keys = terms[order] * (int(length.max(initial=0)) + 1) + length[order]
    before = np.concatenate([[np.iinfo(np.int64).max], np.minimum.accumulate(keys)[:-1]])
    front = np.sort(order[keys < before]).astype(np.int64)
    return _narrow(front), np.searchsorted(front, ptr).astype(np.int64)


def _columns(units: UnitSet, docs: Sequence[Document]) -> dict[str, Any]:
    """Return the columns saved: units.py's, each document's first section and block, and
    each section's prefix words (what sizing a passage reads, without its path and title)."""
    columns = {name: _narrow(values) for name, values in units.columns.items()}
    prefixes = [prefix_words(units, section) for section in range(len(units.paths))]
    columns[PREFIX_WORDS] = _narrow(prefixes)
    section_doc = units.col("section_doc")
    columns["doc_sections"] = _narrow(np.searchsorted(section_doc, np.arange(len(docs) + 1)))
    columns["doc_blocks"] = _narrow(starts_of([len(d.blocks) for d in docs]))
    codes = [ACCESS_LABELS.index(d.access) for d in docs]
    columns["doc_access"] = np.array(codes, np.uint8)
    return columns


def _texts(docs: Sequence[Document]) -> tuple[bytes, Any, Any]:
    """Return every document's text in compressed frames, each frame's offset, and each
    document's first frame."""
    frames = [
        [d.text[at : at + FRAME_CHARS] for at in range(0, len(d.text), FRAME_CHARS)] for d in docs
    ]
    streams = [zlib.compress(f.encode("utf-8"), ZLIB_LEVEL) for doc in frames for f in doc]
    sizes = [len(s) for s in streams]
    return b"".join(streams), starts_of(sizes), starts_of([len(doc) for doc in frames])


def _blocks_line(doc: Document) -> bytes:
    blocks = [[b.kind, b.start, b.end, list(b.pages), list(b.section), b.level] for b in doc.blocks]
    return json_line({"blocks": blocks, "sha256": doc.sha256})


UnitFiles = Callable[[UnitSet], dict[str, bytes]]
"""More files of a unit segment made from its units (its vectors: index/store/vectors.py)."""


def write_unit_segment(
    parent: Path, documents: Sequence[Document], extra: UnitFiles | None = None
) -> UnitSegmentInfo:
    """Write the units of documents as a new segment folder under parent; return its info."""
    docs = sorted(documents, key=lambda d: d.source)
    units = build_units(docs)
    tmp = parent / f".useg-{os.getpid()}"
    tmp.mkdir(parents=True)
    counts = {}
    for name in FIELDS:
        data, arrays = _field_arrays(FIELD_TEXTS[name](units))
        (tmp / name).mkdir()
        (tmp / name / "terms.txt").write_bytes(data)
        for array in FIELD_ARRAYS:
            np.save(tmp / name / f"{array}.npy", np.ascontiguousarray(arrays[array]))
        counts[name] = field_counts(arrays["dl"])
    for name, column in sorted(_columns(units, docs).items()):
        np.save(tmp / f"{name}.npy", np.ascontiguousarray(column))
    texts, offsets, firsts = _texts(docs)
    (tmp / "texts.bin").write_bytes(texts)
    np.save(tmp / "text_offsets.npy", offsets)
    np.save(tmp / "text_frames.npy", firsts)
    _write_lines(tmp, "doc", [DocInfo.of(d).to_dict() for d in docs])
    _write_lines(tmp, "path", [list(p) for p in units.paths])
    (tmp / "blocks.jsonl").write_bytes(b"".join(_blocks_line(d) for d in docs))
    for name, data in (extra(units) if extra else {}).items():
        (tmp / name).write_bytes(data)
    fields = {name: c.to_list() for name, c in counts.items()}
    meta = {"format": UNIT_SEGMENT_FORMAT, "docs": len(docs), "fields": fields,
            "frame_chars": FRAME_CHARS}  # fmt: skip
    name, digest = seal_segment(parent, tmp, "useg", meta)  # checksum, fsync, rename
    return UnitSegmentInfo(name, len(docs), counts, digest)


def _write_lines(folder: Path, name: str, records: Sequence[Any]) -> None:
    """Write records as JSON lines (docs.jsonl, paths.jsonl) and each line's byte offset,
    so a search reads the lines it needs, not the file."""
    lines = [json_line(r) for r in records]
    (folder / LINES[name]).write_bytes(b"".join(lines))
    np.save(folder / f"{name}_offsets.npy", starts_of([len(line) for line in lines]))
