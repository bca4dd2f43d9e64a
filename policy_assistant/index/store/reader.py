"""Reading an index folder: the live generation's manifest, its segments, chunks and units.

Readers take no lock: they follow CURRENT once and keep their files open (a memory map
outlives its file's rename and unlink), and retry if a writer retired the generation first.
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from policy_assistant.errors import BadIndex, StaleIndex, UsageError
from policy_assistant.index.chunks.search import Index, no_vectors_message
from policy_assistant.index.chunks.segment import Segment
from policy_assistant.index.chunks.segment_search import Statistics, statistics
from policy_assistant.index.settings import BM25_RANKER, Ranker, RankerSettings, ranker_settings
from policy_assistant.index.store.entries import SEGMENTS_DIR, SegmentEntries, load_mask
from policy_assistant.index.store.folder import damaged, ingest_hint, live_generation, read_current
from policy_assistant.index.store.integrity import (
    check_file,
    check_name,
    check_on_open,
    segment_files,
)
from policy_assistant.index.store.manifest import FORMAT_VERSION, DocumentEntry, Manifest
from policy_assistant.index.tokenize import TOKENIZER_SETTINGS
from policy_assistant.jsonio import loads
from policy_assistant.records import Chunk

if TYPE_CHECKING:  # imported when a context is asked for, not when an index opens
    from policy_assistant.index.context.assembler import ContextSettings
    from policy_assistant.index.store.vectors import WindowScorer


def _read_manifest(index_dir: Path, generation: Path) -> Manifest:
    """Parse a generation's manifest; raise BadIndex if stale or damaged."""
    try:
        data = loads((generation / "manifest.json").read_bytes())
        found = data.get("format_version")
        if found != FORMAT_VERSION:
            raise StaleIndex(
                f"index at {index_dir} is in format {found}, this version reads format "
                f"{FORMAT_VERSION}: {ingest_hint(index_dir)}"
            )
        return Manifest.from_dict(data, generation)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        # JSONDecodeError (bad JSON or bytes) is a ValueError
        raise damaged(index_dir, f"manifest.json: {exc}") from exc


def load_manifest(index_dir: Path) -> Manifest:
    """Return the live generation's manifest (for a pipeline deciding what to reuse)."""
    return _read_manifest(index_dir, live_generation(index_dir))


def load_chunks(index_dir: Path) -> list[Chunk]:
    """Return every chunk of the live generation, in row order, whatever its tokenizer."""
    with open_index(index_dir, check_tokenizer=False) as index:
        return index.chunks()


def load_entries(
    index_dir: Path, manifest: Manifest, known: SegmentEntries | None = None
) -> tuple[DocumentEntry, ...]:
    """Return the per-document entries of a manifest's generation; BadIndex if damaged.

    known: a long-lived caller's entries of segments already read (Manifest.documents_through).
    """
    try:
        return manifest.documents if known is None else manifest.documents_through(known)
    except OSError as exc:
        where = Path(exc.filename).name if exc.filename else "entries"
        raise damaged(index_dir, f"{where}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise damaged(index_dir, f"entries: {exc}") from exc


class LoadedIndex(Index):
    """An open generation: manifest, segments (memory-mapped), chunks read on demand."""

    def __init__(self, index_dir: Path, generation: Path, manifest: Manifest) -> None:
        self.index_dir = index_dir
        self.manifest = manifest
        self.generation = generation
        self._units: Any = None
        segments: list[Segment] = []
        try:
            for live in manifest.segments:
                folder = generation / SEGMENTS_DIR / live.info.name
                segments.append(Segment(folder, live.info, load_mask(generation, live)))
        except (BadIndex, OSError, ValueError) as exc:
            for segment in segments:
                segment.close()
            raise damaged(index_dir, exc) from exc
        super().__init__(segments, _statistics(manifest), manifest.access_labels)
        # Opened now and kept: a writer's swap cannot take them. Search needs no units, so a
        # failure waits for context(), which opens them again and says what is wrong.
        with suppress(BadIndex, OSError):
            self._units = _load_units(index_dir, generation)

    def __len__(self) -> int:
        return self.manifest.rows

    @property
    def embedding(self) -> dict[str, Any] | None:
        """Return the model the segments' vectors were made with (its identity under
        "identity", as embed.ModelIdentity.as_dict gives it) and how, or None without vectors."""
        return self.manifest.embedding

    def embedding_model(self) -> str | None:
        """Return the model folder or cache name the index's vectors were made with."""
        return None if self.embedding is None else str(self.embedding["model"])

    def embedding_runtime(self) -> str:
        """Return the runtime the index's vectors were made with (queries run the same)."""
        return "auto" if self.embedding is None else str(self.embedding.get("runtime", "auto"))

    def close(self) -> None:
        """Close the segments' files and the units."""
        for segment in self.segments:
            segment.close()
        self.segments = []
        if self._units is not None:
            self._units.close()
            self._units = None

    def chunk(self, row: int) -> Chunk:
        """Return the chunk at a row of chunks() order, reading only its block."""
        if not 0 <= row < len(self):
            raise IndexError(f"row {row} out of range")
        seg = int(np.searchsorted(self._live, row, side="right") - 1)
        local = row - int(self._live[seg])
        deleted = self.segments[seg].deleted
        if deleted is not None:
            local = int(np.flatnonzero(~np.asarray(deleted))[local])
        return self.record(seg, local)

    def chunks(self) -> list[Chunk]:
        """Return every live chunk: segment by segment, each in (source, position) order."""
        chunks: list[Chunk] = []
        for segment in self.segments:
            try:
                chunks += segment.live_records()
            except BadIndex as exc:
                raise self.damage(str(exc)) from exc
        return chunks

    def find(self, chunk_id: str) -> Chunk | None:
        """Return the live chunk with this ID, or None."""
        for seg, segment in enumerate(self.segments):
            row = segment.find(chunk_id)
            if row >= 0:
                return self.record(seg, row)
        return None

    def damage(self, problem: str) -> BadIndex:
        """Return the error for this index's damaged files."""
        return damaged(self.index_dir, problem)

    def context(
        self, query: str, budget: int, access: str | None = None,
        settings: ContextSettings | None = None,
        ranker: Ranker | RankerSettings | None = None,
    ) -> list[Any]:  # fmt: skip
        """Return the context for query: whole passages within budget words, best first.

        Access as in search (None is public); each passage's label is checked again; settings
        is a ContextSettings. ranker as in search; None: the search default when the units hold
        vectors, else BM25.
        """
        from policy_assistant.index.context.assembler import context_for

        level = self.level(access)
        if self._units is None:
            self._units = _units_for(self.index_dir, self.generation)
        chosen = self._unit_ranker(query, ranker)
        vector = None if chosen.ranker == "bm25" else self.query_vector(query, chosen)
        label = self.access_labels[level]
        by = None if vector is None else chosen  # BM25 as eval names it: None
        windows = self._window_scorer(settings, vector)
        passages = context_for(self._units, query, budget, label, settings, by, vector, windows)
        if not {p.access for p in passages} <= set(self.access_labels[: level + 1]):
            raise self.damage("units disagree with their documents' labels")
        return passages

    def _window_scorer(self, settings: ContextSettings | None, vector: Any) -> WindowScorer | None:
        """Return the scorer of hit windows a context's settings ask for (dense_windows with
        a query vector), else None."""
        weight = 0.0 if settings is None else settings.dense_windows
        if not weight:
            return None
        if vector is None:
            raise UsageError(
                "--strategy window-dense orders hits by meaning: it needs units ranked by dense "
                "or hybrid (--ranker hybrid, on an index made with ingest --embed MODEL)"
            )
        from policy_assistant.index.store.vectors import window_scorer

        return window_scorer(weight, self.encoder, vector)

    def _unit_ranker(self, query: str, ranker: Ranker | RankerSettings | None) -> RankerSettings:
        """Return the ranker units are ranked by: the one named (UsageError when the units
        hold no vectors for it), else search's default when the units hold vectors too."""
        units_ready = self._units is not None and self._units.has_vectors()
        if ranker is None:
            return self.default_ranker(units=True) if units_ready else BM25_RANKER
        chosen = ranker_settings(ranker, units=True)
        if chosen.ranker != "bm25" and not units_ready:
            raise UsageError(no_vectors_message(chosen.ranker))
        return chosen


def verify_files(
    index_dir: Path, generation: Path, manifest: Manifest, checksums: bool = True
) -> None:
    """Raise BadIndex unless every file of the generation has its recorded SHA-256 (or,
    without checksums, is there)."""
    if not manifest.files:
        raise damaged(index_dir, "manifest.json records no file checksums")
    expected = dict(manifest.files)
    for live in manifest.segments:
        folder = f"{SEGMENTS_DIR}/{live.info.name}"
        files = segment_files(index_dir, generation, folder, live.info.sha256)
        expected.update({f"{folder}/{name}": digest for name, digest in files.items()})
    expected.update(_unit_files(index_dir, generation, manifest))
    for name, digest in expected.items():
        if checksums:
            check_file(index_dir, generation, name, digest)
        elif not os.path.isfile(generation / name):
            raise damaged(index_dir, f"{name}: missing")
    check_name(index_dir, generation)


def _unit_files(index_dir: Path, generation: Path, manifest: Manifest) -> dict[str, str]:
    """Return the SHA-256 of every unit segment file by generation path, as each segment.json
    lists them (units.json checked first, and each segment.json against it); {} without units."""
    from policy_assistant.index.store.units import UNITS_DIR, UNITS_FILE, read_state

    name = f"{UNITS_DIR}/{UNITS_FILE}"
    if name not in manifest.files:
        return {}
    check_file(index_dir, generation, name, manifest.files[name])
    try:
        segments = read_state(generation / UNITS_DIR).segments
    except BadIndex as exc:
        raise damaged(index_dir, exc) from exc
    out: dict[str, str] = {}
    for live in segments:
        folder = f"{UNITS_DIR}/{live.info.name}"
        files = segment_files(index_dir, generation, folder, live.info.sha256)
        out |= {f"{folder}/{file}": digest for file, digest in files.items()}
    return out


SWAPS = 20
"""Generations in a row a first context() follows before it gives up: writers this fast
would starve any reader."""


def _units_for(index_dir: Path, generation: Path) -> Any:
    """Return the units of the generation, or of the live one when a writer retired it."""
    for _ in range(SWAPS):
        try:
            return _load_units(index_dir, generation)
        except BadIndex:
            live = read_current(index_dir)
            if live is None or live == generation.name or not (index_dir / live).is_dir():
                raise
            generation = index_dir / live
    return _load_units(index_dir, generation)


def _load_units(index_dir: Path, generation: Path) -> Any:
    """Open the generation's units; BadIndex saying what to run when it has none."""
    from policy_assistant.index.store.units import UNITS_DIR, has_units, load_units

    folder = generation / UNITS_DIR
    if not has_units(folder):
        why = (
            "retrieval units in an older layout"
            if folder.is_dir()
            else "no retrieval units (an `index` of chunk records or `ingest "
            "--no-units` stores none)"
        )
        raise BadIndex(f"index at {index_dir} holds {why}: {ingest_hint(index_dir)}")
    try:
        return load_units(folder)
    except BadIndex as exc:
        raise damaged(index_dir, exc) from exc


def _statistics(manifest: Manifest) -> Statistics:
    """Return the global BM25 statistics of the live segments."""
    segments = manifest.segments
    rows = sum(s.live for s in segments)
    nonempty = sum(s.info.nonempty - s.deleted_nonempty for s in segments)
    length = sum(s.info.length - s.deleted_length for s in segments)
    return statistics(manifest.bm25, rows, nonempty, length, manifest.mean_idf)


def open_index(
    index_dir: Path | str, check_tokenizer: bool = True, verify: bool = False
) -> LoadedIndex:
    """Open the live generation for search; raise BadIndex if missing, stale or damaged.

    An index built with other tokenizer settings is stale for search (check_tokenizer);
    its chunks can still be read. verify reads every file and checks its checksum.
    """
    index_dir = Path(index_dir)  # a library caller may pass a str
    while True:
        generation = live_generation(index_dir)
        try:
            manifest = _read_manifest(index_dir, generation)
            if check_tokenizer and manifest.tokenizer != TOKENIZER_SETTINGS:
                hint = ingest_hint(index_dir)
                raise BadIndex(f"index at {index_dir} was built with another tokenizer: {hint}")
            if verify:
                verify_files(index_dir, generation, manifest)
            else:
                check_on_open(index_dir, generation, manifest)
            return LoadedIndex(index_dir, generation, manifest)
        except BadIndex:
            if read_current(index_dir) == generation.name:
                raise  # not a writer swapping generations under us
