"""The per-document entries of a generation, stored with the segments that hold their chunks.

Each segment carries entries.json: the entries of the documents whose chunks it holds, as
columns (one JSON array per field, by source), written with the segment and as immutable as
it, so a write adds the entries of what it wrote and links every other segment's. An entry
is live when its first row is live in its segment (a document's rows are deleted together),
so the deletion masks delete entries too, and a merge, which rewrites a segment's live rows,
rewrites their entries with them. Documents without chunks have no segment: their entries
sit in the generation's empty.json, in the same columns (written at every write, so every
generation has at least that file checksummed in its manifest).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress, groupby, repeat
from operator import attrgetter
from pathlib import Path
from typing import Any

import numpy as np

from policy_assistant.errors import PolicyAssistantError
from policy_assistant.index.store.documents import DocumentEntry, LiveSegment
from policy_assistant.jsonio import json_line, loads
from policy_assistant.records import Chunk

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
        name = segment.info.name
        try:
            found += _segment_entries(generation, segment, known)
        except ValueError as exc:
            raise ValueError(f"{SEGMENTS_DIR}/{name}/{ENTRIES_FILE}: {exc}") from exc
    return found


def _segment_entries(
    generation: Path, segment: LiveSegment, known: SegmentEntries | None
) -> list[DocumentEntry]:
    """Return a segment's live entries in this generation, from `known` when it has them."""
    name, sha = segment.info.name, segment.info.sha256
    if known is not None and sha in known:
        every, first = known[sha]
    else:
        every, first = _parsed((generation / SEGMENTS_DIR / name / ENTRIES_FILE).read_bytes(), name)
        if known is not None:
            known[sha] = (every, first)
    live = _live_rows(generation, segment)
    return every if live is None else _live_entries(every, first, live)


def _live_entries(every: list[DocumentEntry], first: Any, live: Any) -> list[DocumentEntry]:
    """Return the entries whose first row is live; ValueError when a first row is not a row."""
    try:
        keep = np.asarray(live)[first].tolist()
    except (IndexError, TypeError, ValueError) as exc:  # a first row the mask does not have
        raise ValueError(f"an entry's first row is not in its segment: {exc}") from exc
    return list(compress(every, keep))


def read_empty(generation: Path) -> list[DocumentEntry]:
    """Return the entries of a generation's documents without chunks."""
    data = (generation / EMPTY_FILE).read_bytes()
    try:
        return parse_entries(data, "")
    except ValueError as exc:
        raise ValueError(f"{EMPTY_FILE}: {exc}") from exc


def _live_rows(generation: Path, segment: LiveSegment) -> Any:
    """Return a segment's live-row mask in this generation (None: every row is live)."""
    if not segment.deleted:
        return None
    path = generation / DELETED_DIR / f"{segment.info.name}.npy"
    mask = np.load(path, mmap_mode="r", allow_pickle=False)
    if mask.dtype != np.bool_ or mask.shape != (segment.info.rows,):
        raise ValueError(f"{DELETED_DIR}/{segment.info.name}.npy does not fit its segment")
    return ~mask


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
