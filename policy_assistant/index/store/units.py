"""The units of a generation on disk, `gen-*/units/`: unit segments as the chunks have segments,
with plan.py's merge policy counted in documents (docs/index-format.md).

units.json's checksum is in the manifest, each segment's segment.json's in units.json, so every
file is checked (reader.verify_files). A units folder without units.json is the older layout.
"""

from __future__ import annotations

import bisect
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from policy_assistant.errors import BadIndex, StaleIndex
from policy_assistant.index.chunks.segment_search import Statistics, okapi_mean_idf, statistics
from policy_assistant.index.context.unit_open import Mask, SegmentSources, UnitSegment
from policy_assistant.index.context.unit_rank import SegmentedUnits
from policy_assistant.index.context.unit_segment import (
    FIELD_WEIGHTS,
    FIELDS,
    UNIT_SEGMENT_FORMAT,
    FieldCounts,
    UnitFiles,
    UnitSegmentInfo,
    field_counts,
    write_unit_segment,
)
from policy_assistant.index.settings import BM25_DEFAULTS, BM25Settings
from policy_assistant.index.store.entries import DELETED_DIR, load_mask, save_masks
from policy_assistant.index.store.plan import choose_merges, link_tree
from policy_assistant.jsonio import loads, pretty_json
from policy_assistant.records import Document

UNITS_DIR = "units"
"""The units folder's name inside a generation."""
UNITS_FILE = "units.json"
"""The units' own manifest inside the units folder."""
UNITS_FORMAT = 4
"""Version of units.json; another one (or none: the older layout) is written again (3: it did
not say its segments' format)."""


@dataclass(frozen=True, slots=True)
class LiveUnits:
    """A unit segment of a generation and what of it is deleted there."""

    info: UnitSegmentInfo
    """The segment as it was written."""
    deleted: int = 0
    """Documents deleted; their mask is deleted/<name>.npy."""
    removed: dict[str, FieldCounts] = field(default_factory=dict)
    """Per field, the counts of the deleted documents' rows."""

    @property
    def live(self) -> int:
        """Documents not deleted."""
        return self.info.rows - self.deleted

    def counts(self, name: str) -> tuple[int, int, int]:
        """Return a field's live (rows, nonempty, length)."""
        total, gone = self.info.fields[name], self.removed.get(name, FieldCounts())
        return total.rows - gone.rows, total.nonempty - gone.nonempty, total.length - gone.length

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        # Hand-written: the segment's fields flattened, each field's counts as a list.
        removed = {n: c.to_list() for n, c in sorted(self.removed.items())}
        return {**self.info.to_dict(), "deleted": self.deleted, "removed": removed}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LiveUnits:
        """Rebuild from the JSON form."""
        # Hand-written: reads the flattened form and the counts lists to_dict writes.
        removed = {str(k): FieldCounts(*(int(x) for x in v)) for k, v in data["removed"].items()}
        return cls(UnitSegmentInfo.from_dict(data), int(data["deleted"]), removed)


@dataclass(frozen=True)
class UnitsState:
    """What units.json holds."""

    segments: tuple[LiveUnits, ...]
    """The live unit segments, in the order they were added."""
    bm25: BM25Settings
    """The BM25 settings of the four fields (the chunks')."""
    weights: dict[str, float]
    """The field weights the context search uses."""
    mean_idf: dict[str, float]
    """okapi only: each field's mean idf over its live terms."""

    def to_bytes(self) -> bytes:
        """Return units.json's bytes."""
        data = {
            "format": UNITS_FORMAT,
            "segment_format": UNIT_SEGMENT_FORMAT,
            "segments": [s.to_dict() for s in self.segments],
            "bm25": self.bm25.to_dict(),
            "weights": self.weights,
            "mean_idf": self.mean_idf,
        }
        return pretty_json(data)


def has_units(folder: Path) -> bool:
    """Whether folder holds units in this layout (not missing, not the older one)."""
    return (folder / UNITS_FILE).is_file()


def read_state(folder: Path) -> UnitsState:
    """Return what a units folder's units.json says; BadIndex when it is missing or damaged."""
    if not folder.is_dir():
        raise StaleIndex(f"{folder.parent.name} holds no units (built by an older version)")
    if not has_units(folder):
        raise StaleIndex(f"{folder.parent.name} holds units in an older layout")
    try:
        data = loads((folder / UNITS_FILE).read_bytes())
        if data.get("format") != UNITS_FORMAT:
            raise StaleIndex(
                f"{UNITS_FILE} is in format {data.get('format')}, this version reads format "
                f"{UNITS_FORMAT}"
            )
        if data.get("segment_format") != UNIT_SEGMENT_FORMAT:
            # Checked here, where ingest looks, so an older segment is rebuilt, not reported.
            raise StaleIndex(
                f"its unit segments are in format {data.get('segment_format')}, this version "
                f"reads format {UNIT_SEGMENT_FORMAT}"
            )
        segments = tuple(LiveUnits.from_dict(s) for s in data["segments"])
        bm25 = BM25Settings.from_dict(data["bm25"])
        return UnitsState(segments, bm25, dict(data["weights"]), data["mean_idf"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BadIndex(f"units of {folder.parent.name}: {UNITS_FILE}: {exc}") from exc


def _open(folder: Path, live: LiveUnits) -> UnitSegment:
    """Open a unit segment of a units folder with its deletion mask."""
    return UnitSegment(folder / live.info.name, live.info, load_mask(folder, live, error=BadIndex))


def load_units(folder: Path) -> SegmentedUnits:
    """Open the live unit segments for search; raise BadIndex when missing or damaged."""
    state = read_state(folder)
    segments: list[UnitSegment] = []
    try:
        for live in state.segments:
            segments.append(_open(folder, live))
    except (BadIndex, OSError, ValueError) as exc:
        for segment in segments:
            segment.close()
        kind = StaleIndex if isinstance(exc, StaleIndex) else BadIndex  # not "damaged"
        raise kind(f"units of {folder.parent.name}: {exc}") from exc
    return SegmentedUnits(segments, _statistics(state), state.weights)


def _statistics(state: UnitsState) -> dict[str, Statistics]:
    """Return each field's global BM25 statistics over the live unit segments."""
    stats = {}
    for name in FIELDS:
        per = [s.counts(name) for s in state.segments]
        rows, nonempty, length = (sum(p[i] for p in per) for i in range(3))
        mean_idf = float(state.mean_idf.get(name, 0.0))
        stats[name] = statistics(state.bm25, rows, nonempty, length, mean_idf)
    return stats


def units_of(
    documents: Sequence[Document], bm25: BM25Settings = BM25_DEFAULTS,
    extra: UnitFiles | None = None,
) -> SegmentedUnits:  # fmt: skip
    """Return the documents' units as a one-segment store, ranked as an index folder's are:
    written (extra: its vector files) into a temporary folder, opened, and the folder removed
    (its files stay open, memory-mapped)."""
    # In RAM where there is a tmpfs: the writer's fsyncs cost nothing there (39 documents:
    # 37 ms against 186 ms on disk; UnitIndex built them in memory in 33 ms).
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="units-", dir=shm) as tmp:
        folder = Path(tmp) / UNITS_DIR
        write_units(documents, folder, bm25, extra)
        loaded = load_units(folder)
        for segment in loaded.segments:
            segment.vectors()  # read now, kept: the folder goes when this block ends
        return loaded


def write_units(
    documents: Sequence[Document], folder: Path, bm25: BM25Settings, extra: UnitFiles | None = None
) -> None:
    """Write the units of documents into folder as one unit segment (a cold build); extra
    makes more files of it (its vectors)."""
    folder.mkdir(parents=True)
    live = [LiveUnits(write_unit_segment(folder, documents, extra))] if documents else []
    _finish(folder, live, {}, bm25)


def update_units(
    old: Path, folder: Path, replaced: Sequence[str], fresh: Sequence[Document],
    bm25: BM25Settings, extra: UnitFiles | None = None,
) -> None:  # fmt: skip
    """Write into folder the units of old with the replaced sources' documents deleted and
    the fresh documents (added or changed) added as a new unit segment.

    A segment is opened whole only when a document of it is deleted or it is merged."""
    state = read_state(old)
    folder.mkdir(parents=True)
    counts = {s.info.name: s for s in state.segments}
    dead = {s.info.name: load_mask(old, s, True, BadIndex) for s in state.segments}
    opened: dict[str, UnitSegment] = {}

    def segment(name: str) -> UnitSegment:
        if name not in opened:
            opened[name] = UnitSegment(old / name, counts[name].info, dead[name])
        return opened[name]

    try:
        for name, row in _replaced_rows(old, state.segments, dead, replaced):
            counts[name] = _delete(segment(name), counts[name], row)
            dead[name] = opened[name].dead_docs
        kept, merged = choose_merges([s for s in counts.values() if s.live], bool(fresh))
        moved = [d for name in merged for d in segment(name).live_documents()]
        docs = [*fresh, *moved]
        live = [counts[name] for name in kept]
        if docs:
            live.append(LiveUnits(write_unit_segment(folder, docs, extra)))
        for name in kept:
            link_tree(old / name, folder / name)
        masks = {n: m for n in kept if (m := dead[n]) is not None and counts[n].deleted}
        _finish(folder, live, masks, bm25)
    finally:
        for opened_segment in opened.values():
            opened_segment.close()


def _replaced_rows(
    old: Path, segments: Sequence[LiveUnits], dead: dict[str, Mask | None], replaced: Sequence[str]
) -> list[tuple[str, int]]:
    """Return (segment, row) of each live document of the replaced sources."""
    found = []
    for live in segments:
        name = live.info.name
        listed = SegmentSources(old / name, live.info.rows)
        try:
            sources, mask = listed.sources, dead[name]  # its own sources, sorted
            for source in sorted(replaced):
                at = bisect.bisect_left(sources, source)
                if at < len(sources) and sources[at] == source and (mask is None or not mask[at]):
                    found.append((name, at))
        finally:
            listed.close()
    return found


def _delete(segment: UnitSegment, live: LiveUnits, doc: int) -> LiveUnits:
    """Mark a document deleted in its unit segment; return the segment's new counts."""
    if segment.dead_docs is None:
        segment.dead_docs = np.zeros(segment.info.rows, np.bool_)
    segment.dead_docs[doc] = True
    removed = dict(live.removed)
    rows = {
        "body": segment.doc_range("doc_first", doc),
        "sections": segment.doc_range("doc_sections", doc),
        "passages": segment.doc_range("doc_sections", doc),
        "documents": slice(doc, doc + 1),
    }
    for name, where in rows.items():
        gone = field_counts(segment.fields[name].dl[where])
        removed[name] = removed.get(name, FieldCounts()).plus(gone)
    return replace(live, deleted=live.deleted + 1, removed=removed)


def _finish(
    folder: Path, live: list[LiveUnits], masks: dict[str, npt.NDArray[np.bool_]],
    bm25: BM25Settings,
) -> None:  # fmt: skip
    """Write the deletion masks and units.json (okapi's mean idf computed over live rows)."""
    save_masks(folder / DELETED_DIR, masks)
    state = UnitsState(tuple(live), bm25, dict(FIELD_WEIGHTS), {})
    if bm25.variant == "okapi":
        state = replace(state, mean_idf=_mean_idf(folder, state))
    (folder / UNITS_FILE).write_bytes(state.to_bytes())


def _mean_idf(folder: Path, state: UnitsState) -> dict[str, float]:
    """Return each field's okapi mean idf over the live segments, as a cold build has it."""
    segments = [_open(folder, s) for s in state.segments]
    try:
        stats = _statistics(state)
        return {
            name: okapi_mean_idf([s.fields[name] for s in segments], stats[name].counted)
            for name in FIELDS
        }
    finally:
        for segment in segments:
            segment.close()


def stored_documents(folder: Path) -> dict[str, Document]:
    """Return the live documents a units folder stores, by source ({} when none)."""
    if not has_units(folder):
        return {}
    state = read_state(folder)
    out: dict[str, Document] = {}
    for live in state.segments:
        segment = _open(folder, live)
        try:
            out |= {d.source: d for d in segment.live_documents()}
        finally:
            segment.close()
    return out
