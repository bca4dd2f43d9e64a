"""What a new generation holds: which segments it keeps, which rows it deletes, what it merges.

The policy: docs/index-format.md, "Segments and merges". It bounds the work a search does and is
tiered, so a chunk is rewritten about log(corpus / change) times over its life, not at every
ingest; it depends only on the segments' sizes and names, so the same ingests give the same bytes.
"""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from policy_assistant.errors import BadIndex, PolicyAssistantError
from policy_assistant.index.chunks.segment import Segment
from policy_assistant.index.chunks.segment_build import SegmentInfo, write_segment
from policy_assistant.index.chunks.segment_search import okapi_mean_idf
from policy_assistant.index.store.entries import (
    ENTRIES_FILE,
    SEGMENTS_DIR,
    Merging,
    entries_bytes,
    load_mask,
    read_empty,
    segment_entries,
)
from policy_assistant.index.store.manifest import DocumentEntry, LiveSegment, Manifest
from policy_assistant.records import Chunk

if TYPE_CHECKING:
    from policy_assistant.index.store.vectors import Embedding

MAX_SEGMENTS = 8
"""More live segments than this after a write, and the smallest are merged."""
MERGED_TO = 4
"""How many segments a merge leaves (the new one included)."""
MAX_DELETED = 1 / 3
"""A segment with a larger share of its rows deleted is rewritten."""


@dataclass
class Generation:
    """What a new generation holds besides the segments written into its segments/ folder."""

    manifest: Manifest
    """Its manifest, segments and statistics filled in, files not yet."""
    empty: Sequence[DocumentEntry]
    """The entries of documents without chunks (those of the others are in their segments)."""
    deleted: dict[str, npt.NDArray[np.bool_]] = field(default_factory=dict)
    """Deletion masks by segment name, for the segments with deleted rows."""
    reuse: dict[str, Path] = field(default_factory=dict)
    """Segments of an older generation to hard-link, by name: their folder there."""


MakeGeneration = Callable[[Path], Generation]
"""Writes the new segments into the folder it is given and says what else goes in."""


def link_tree(source: Path, target: Path) -> None:
    """Hard-link every file of a segment folder into target (a copy across file systems)."""
    target.mkdir()
    for path in sorted(source.iterdir()):
        if path.is_dir():  # a unit segment's fields
            link_tree(path, target / path.name)
            continue
        try:
            os.link(path, target / path.name)
        except OSError as exc:
            if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK):
                raise
            shutil.copy2(path, target / path.name)


def cold_generation(
    chunks: Sequence[Chunk],
    manifest: Manifest,
    entries: Sequence[DocumentEntry],
    vectors: Embedding | None = None,
) -> MakeGeneration:
    """Return the maker of a generation holding chunks (in row order) as one segment (with
    their vectors when given an embedding)."""

    def make(folder: Path) -> Generation:
        by_source = {e.source: e for e in entries}
        live = []
        if chunks:
            live.append(LiveSegment(_write(folder, chunks, by_source, manifest, vectors)))
        _check_given(by_source, list(by_source), chunks)
        empty = _empty(by_source, by_source)
        return _finish(folder, manifest, live, {}, empty, {}, len(by_source))

    return make


@dataclass(frozen=True)
class Change:
    """What a write changes of the live generation, by source."""

    old: Manifest
    """The live generation's manifest (read from disk, so it knows its folder)."""
    before: dict[str, DocumentEntry]
    """The live generation's entries."""
    entries: dict[str, DocumentEntry]
    """Every document's new entry."""
    written: Sequence[str]
    """Sources added or changed: their entries are written again."""
    replaced: Sequence[str]
    """Sources changed or removed: their old chunks and entries are deleted."""


def incremental_generation(
    change: Change, fresh: Sequence[Chunk], manifest: Manifest, vectors: Embedding | None = None
) -> MakeGeneration:
    """Return the maker of a generation that replaces the chunks of the replaced sources;
    fresh holds (in row order) the chunks of the sources written."""
    old, before = change.old, change.before

    def make(folder: Path) -> Generation:
        assert old.folder is not None  # a manifest read from disk knows its generation
        opened = {s.info.name: _open(old.folder, s) for s in old.segments}
        try:
            counts = {s.info.name: s for s in old.segments}
            for source in change.replaced:
                entry = before.get(source)
                if entry is not None and entry.chunks:
                    counts[entry.segment] = _delete(
                        opened[entry.segment], counts[entry.segment], entry
                    )
            kept, merged = choose_merges([s for s in counts.values() if s.live], bool(fresh))
            moved = [c for name in merged for c in opened[name].live_records()]
            rows = sorted([*fresh, *moved], key=lambda c: (c.source, c.position))
            live = [counts[name] for name in kept]
            if rows:
                live.append(LiveSegment(_write(folder, rows, change.entries, manifest, vectors)))
            _check_given(change.entries, change.written, rows)
            masks = {
                n: m for n in kept if (m := opened[n].deleted) is not None and counts[n].deleted
            }
            reuse = {name: old.folder / SEGMENTS_DIR / name for name in kept}
            empty = _empty_after(change, read_empty(old.folder))
            count = len(change.entries)
            return _finish(folder, manifest, live, masks, empty, reuse, count, opened)
        finally:
            for segment in opened.values():
                segment.close()

    return make


def _write(
    folder: Path,
    rows: Sequence[Chunk],
    entries: dict[str, DocumentEntry],
    manifest: Manifest,
    vectors: Embedding | None,
) -> SegmentInfo:
    """Write rows as a segment with the entries of their documents (and their vectors)."""
    files = {ENTRIES_FILE: entries_bytes(segment_entries(rows, entries))}
    if vectors is not None:
        files.update(vectors.segment_files(rows))
    return write_segment(folder, rows, manifest.access_labels, files)


def _check_given(
    entries: dict[str, DocumentEntry], written: Sequence[str], rows: Sequence[Chunk]
) -> None:
    """Raise unless every written document with chunks has them among the new rows."""
    present = {c.source for c in rows}
    for source in written:
        entry = entries[source]
        if entry.chunks and source not in present:
            raise PolicyAssistantError(f"{source}: its {entry.chunks} chunks were not given")


def _empty(entries: dict[str, DocumentEntry], chosen: Iterable[str]) -> list[DocumentEntry]:
    """Return the entries of the chosen documents that have no chunks, by source."""
    picked = (entries[s] for s in sorted(chosen))
    return [e.placed("", 0, 0) for e in picked if e.chunks == 0]


def _empty_after(change: Change, empty: Sequence[DocumentEntry]) -> list[DocumentEntry]:
    """Return the entries of documents without chunks after the change, by source."""
    gone = set(change.replaced)
    kept = {e.source: e for e in empty if e.source not in gone}
    added = _empty(change.entries, change.written)
    return sorted([*kept.values(), *added], key=lambda e: e.source)


def _open(generation: Path, live: LiveSegment) -> Segment:
    """Open a segment of a generation with a writable copy of its deletion mask."""
    mask = load_mask(generation, live, writable=True, error=BadIndex)
    return Segment(generation / SEGMENTS_DIR / live.info.name, live.info, mask)


def _delete(segment: Segment, live: LiveSegment, entry: DocumentEntry) -> LiveSegment:
    """Mark an entry's rows deleted in its segment; return the segment's new counts."""
    if segment.deleted is None:
        segment.deleted = np.zeros(segment.info.rows, np.bool_)
    rows = slice(entry.first, entry.first + entry.chunks)
    if segment.deleted[rows].any():
        raise PolicyAssistantError(f"{entry.source}: its chunks were deleted twice")
    segment.deleted[rows] = True
    lengths = np.asarray(segment.dl[rows], np.int64)
    return LiveSegment(
        live.info,
        live.deleted + entry.chunks,
        live.deleted_nonempty + int((lengths > 0).sum()),
        live.deleted_length + int(lengths.sum()),
    )


def choose_merges(segments: Sequence[Merging], fresh: bool) -> tuple[list[str], list[str]]:
    """Return the segments kept as they are (in order) and those merged into the new one."""
    merged = [s.info.name for s in segments if s.deleted > MAX_DELETED * s.info.rows]
    rest = [s for s in segments if s.info.name not in merged]
    count = len(rest) + (1 if fresh or merged else 0)
    if count > MAX_SEGMENTS:
        smallest = sorted(rest, key=lambda s: (s.live, s.info.name))
        merged += [s.info.name for s in smallest[: count - MERGED_TO + 1]]
    return [s.info.name for s in segments if s.info.name not in merged], merged


def _finish(
    folder: Path,
    manifest: Manifest,
    live: list[LiveSegment],
    masks: dict[str, npt.NDArray[np.bool_]],
    empty: list[DocumentEntry],
    reuse: dict[str, Path],
    count: int,
    opened: dict[str, Segment] | None = None,
) -> Generation:
    """Return the generation, with okapi's mean idf computed over its live segments."""
    mean_idf = 0.0
    if manifest.bm25.variant == "okapi":
        segments = [
            (opened or {}).get(s.info.name) or Segment(folder / s.info.name, s.info, None)
            for s in live
        ]
        mean_idf = okapi_mean_idf(segments, sum(s.live for s in live))
    found = replace(manifest, segments=tuple(live), mean_idf=mean_idf, document_count=count)
    return Generation(found, empty, masks, reuse)
