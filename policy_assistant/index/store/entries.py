"""What a generation records of each document and each live segment, and the entries files.

A segment carries entries.json, the entries of the documents whose chunks it holds, as columns
(one JSON array per field, by source); documents without chunks sit in the generation's
empty.json. Why an entry needs no deletion record of its own: docs/index-format.md, "Entries".
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from itertools import compress, groupby, repeat
from operator import attrgetter
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from policy_assistant.codec import from_json_dict, to_json_dict
from policy_assistant.errors import PolicyAssistantError
from policy_assistant.index.chunks.bm25_files import load_array
from policy_assistant.index.chunks.segment_build import SegmentInfo
from policy_assistant.jsonio import json_line, loads
from policy_assistant.records import Chunk, Document

ENTRIES_FILE = "entries.json"
"""A segment's file of the entries of the documents whose chunks it holds."""
EMPTY_FILE = "empty.json"
"""A generation's file of the entries of documents without chunks (empty columns when none)."""
SEGMENTS_DIR = "segments"
"""A generation's segment folders (writer.py's, named here so reading imports no writer)."""
DELETED_DIR = "deleted"
"""A generation's deletion masks, one bool .npy per segment with deleted rows."""
COLUMNS = ("source", "sha256", "title", "version", "access", "language", "chunks", "digest")
"""The fields stored of every entry besides its placement (words, first)."""
_STORED = (*COLUMNS, "words", "first")
_BY_SOURCE = attrgetter("source")


def ids_digest(chunk_ids: Sequence[str]) -> str:
    """Return the 16-hex digest of a document's chunk IDs, in position order."""
    return hashlib.sha256("\n".join(chunk_ids).encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class DocumentEntry:
    """What the index keeps about one document: all of it read off its chunk records.

    Equality is the document's identity (bytes, metadata, chunk IDs); where its chunks sit
    (segment, first) and their words do not take part.
    """

    source: str
    """Corpus-relative POSIX path."""
    sha256: str
    """Hex SHA-256 of the file's bytes when it was indexed ("" when the chunks did not say)."""
    title: str
    """The document's title, as its chunks carry it."""
    version: str
    """Version label."""
    access: str
    """Access label."""
    language: str
    """ISO 639-1 language code."""
    chunks: int
    """How many chunks it has."""
    digest: str
    """ids_digest of its chunk IDs, by position."""
    words: int = field(default=0, compare=False)
    """Words in its chunks, prefixes included."""
    segment: str = field(default="", compare=False)
    """The segment holding its chunks ("" when it has none)."""
    first: int = field(default=0, compare=False)
    """Its first chunk's row in that segment; the others follow, by position."""

    @classmethod
    def from_document(cls, document: Document, chunk_ids: Sequence[str]) -> DocumentEntry:
        """Return the entry for a parsed document and the IDs of its chunks."""
        doc = document
        meta = (doc.sha256, doc.title, doc.version, doc.access, doc.language)
        return cls(doc.source, *meta, len(chunk_ids), ids_digest(chunk_ids))

    @classmethod
    def from_chunks(cls, chunks: Sequence[Chunk]) -> DocumentEntry:
        """Return the entry of one document's chunks (in position order); ValueError if mixed."""
        first = chunks[0]
        meta = (first.sha256, first.title, first.version, first.access, first.language)
        for chunk in chunks:
            if chunk.source != first.source:
                raise ValueError(f"chunks of {first.source} and {chunk.source} in one entry")
            if (chunk.sha256, chunk.title, chunk.version, chunk.access, chunk.language) != meta:
                raise ValueError(f"{first.source}: its chunks disagree on the document's metadata")
        digest = ids_digest([c.id for c in chunks])
        return cls(first.source, *meta, len(chunks), digest, sum(c.words for c in chunks))

    def same_document(self, document: Document) -> bool:
        """Whether a parsed document is the one this entry was made from (bytes and metadata)."""
        doc = document
        mine = (self.sha256, self.title, self.version, self.access, self.language)
        return (doc.sha256, doc.title, doc.version, doc.access, doc.language) == mine

    def placed(self, segment: str, first: int, words: int) -> DocumentEntry:
        """Return this entry with its chunks placed at first in segment."""
        return replace(self, segment=segment, first=first, words=words)

    @classmethod
    def from_columns(cls, columns: Sequence[Iterable[Any]], count: int) -> list[DocumentEntry]:
        """Return count entries from one iterable per field, in field order (entries.py)."""
        # Each slot filled across all entries by one C-level map: half the cost of count
        # calls of the frozen __init__, which sets each field through object.__setattr__.
        made = list(map(object.__new__, repeat(cls, count)))
        for slot, column in zip(_ENTRY_SLOTS, columns, strict=True):
            deque(map(slot.__set__, made, column), maxlen=0)
        return made


_ENTRY_SLOTS = tuple(DocumentEntry.__dict__[f.name] for f in fields(DocumentEntry))


@dataclass(frozen=True, slots=True)
class LiveSegment:
    """A segment of a generation and what of it is deleted there."""

    info: SegmentInfo
    """The segment itself, as it was written."""
    deleted: int = 0
    """Rows deleted (replaced or removed chunks); their mask is deleted/<name>.npy."""
    deleted_nonempty: int = 0
    """Of those, rows with at least one term."""
    deleted_length: int = 0
    """Terms in the deleted rows."""

    @property
    def live(self) -> int:
        """Rows not deleted."""
        return self.info.rows - self.deleted

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        # Hand-written: the segment's fields flattened beside the deleted counts, not nested.
        counts = {"deleted": self.deleted, "deleted_nonempty": self.deleted_nonempty}
        return {**to_json_dict(self.info), **counts, "deleted_length": self.deleted_length}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LiveSegment:
        """Rebuild from the JSON form."""
        # Hand-written: reads the flattened form to_dict writes.
        info = from_json_dict(SegmentInfo, data)
        counts = (data["deleted"], data["deleted_nonempty"], data["deleted_length"])
        return cls(info, *(int(c) for c in counts))


def entries_bytes(entries: Sequence[DocumentEntry]) -> bytes:
    """Return the columnar JSON of entries, in the order given (by source)."""
    columns = {name: [getattr(e, name) for e in entries] for name in _STORED}
    return json_line(columns)


def parse_entries(data: bytes, segment: str) -> list[DocumentEntry]:
    """Return the entries of an entries file placed in segment; ValueError when damaged."""
    return _parsed(data, segment)[0]


def _parsed(data: bytes, segment: str) -> tuple[list[DocumentEntry], Any]:
    """Return every entry of an entries file placed in segment, and their first rows."""
    columns = loads(data)
    if not isinstance(columns, dict) or sorted(columns) != sorted(_STORED):
        raise ValueError("not an entries file")
    values = [columns[name] for name in _STORED]
    if len({len(v) for v in values}) > 1 or not all(isinstance(v, list) for v in values):
        raise ValueError("its columns differ in length")
    *identity, words, first = values
    entries = DocumentEntry.from_columns([*identity, words, repeat(segment), first], len(first))
    try:
        return entries, np.asarray(first, np.int64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"a first row is not a row number: {exc}") from exc


SegmentEntries = dict[str, tuple[list[DocumentEntry], Any]]
"""Entries read from segments, kept by a long-lived caller: each segment's entries (deleted
ones too) and their first rows, by the segment's SHA-256 (a segment is immutable)."""


def read_entries(
    generation: Path, segments: Sequence[LiveSegment], known: SegmentEntries | None = None
) -> tuple[DocumentEntry, ...]:
    """Return every live entry of a generation, by source; ValueError or OSError if damaged.

    With `known`, a segment's entries found there are not read again, and those read are
    added (the segments no longer live are dropped from it)."""
    found = segments_entries(generation, segments, known)
    if known is not None:
        forget_gone(known, segments)
    found += read_empty(generation)
    found.sort(key=_BY_SOURCE)
    return tuple(found)


def forget_gone(known: SegmentEntries, segments: Sequence[LiveSegment]) -> None:
    """Drop from `known` the segments that are not among these (the live ones)."""
    live = {segment.info.sha256 for segment in segments}
    for gone in [sha for sha in known if sha not in live]:
        del known[gone]


def segments_entries(
    generation: Path, segments: Sequence[LiveSegment], known: SegmentEntries | None = None
) -> list[DocumentEntry]:
    """Return the live entries of these segments of a generation, segment by segment (each
    segment's by source), taking from and adding to `known` when given; ValueError if damaged."""
    found: list[DocumentEntry] = []
    for segment in segments:
        name, sha = segment.info.name, segment.info.sha256
        try:
            if known is not None and sha in known:
                every, first = known[sha]
            else:
                folder = generation / SEGMENTS_DIR / name
                every, first = _parsed((folder / ENTRIES_FILE).read_bytes(), name)
                if known is not None:
                    known[sha] = (every, first)
            if segment.deleted:  # an entry is live while its first row is
                live = ~load_mask(generation, segment)
                try:
                    keep = live[first].tolist()
                except (IndexError, TypeError, ValueError) as exc:  # a row the mask lacks
                    raise ValueError(f"an entry's first row is not in its segment: {exc}") from exc
                every = list(compress(every, keep))
            found += every
        except ValueError as exc:
            raise ValueError(f"{SEGMENTS_DIR}/{name}/{ENTRIES_FILE}: {exc}") from exc
    return found


def read_empty(generation: Path) -> list[DocumentEntry]:
    """Return the entries of a generation's documents without chunks."""
    data = (generation / EMPTY_FILE).read_bytes()
    try:
        return parse_entries(data, "")
    except ValueError as exc:
        raise ValueError(f"{EMPTY_FILE}: {exc}") from exc


class Merging(Protocol):
    """What the merge policy and load_mask read of a segment (a LiveSegment, or a unit
    segment's)."""

    @property
    def info(self) -> Any:
        """The segment as written: its name and rows."""

    @property
    def deleted(self) -> int:
        """Rows deleted."""

    @property
    def live(self) -> int:
        """Rows not deleted."""


def load_mask(
    folder: Path, live: Merging, writable: bool = False, error: type[Exception] = ValueError
) -> Any:
    """Return a segment's deletion mask in a generation or units folder, memory-mapped (a
    copy when writable), None when none of its rows is deleted; error when it is not one
    bool per row."""
    if not live.deleted:
        return None
    name, rows = live.info.name, live.info.rows
    mask = load_array(folder / DELETED_DIR / f"{name}.npy", None if writable else "r")
    if mask.dtype != np.bool_ or mask.shape != (rows,):
        raise error(f"{DELETED_DIR}/{name}.npy does not fit its segment")
    return mask


def save_masks(folder: Path, masks: Mapping[str, npt.NDArray[np.bool_]]) -> None:
    """Write each segment's deletion mask as folder/<name>.npy (no folder without masks)."""
    if masks:
        folder.mkdir()
        for name, mask in sorted(masks.items()):
            np.save(folder / f"{name}.npy", np.ascontiguousarray(mask, np.bool_))


def segment_entries(
    rows: Sequence[Chunk], entries: dict[str, DocumentEntry]
) -> list[DocumentEntry]:
    """Return the entries of a new segment's rows (in row order), placed at their first row;
    an error when a document's chunks disagree with its entry's count."""
    placed = []
    first = 0
    for source, group in groupby(rows, key=_BY_SOURCE):
        own = list(group)
        entry = entries.get(source)
        if entry is None or entry.chunks != len(own):
            count = "no entry" if entry is None else f"an entry of {entry.chunks} chunks"
            raise PolicyAssistantError(f"{source}: {len(own)} chunks given for {count}")
        placed.append(entry.placed("", first, sum(c.words for c in own)))
        first += len(own)
    return placed
