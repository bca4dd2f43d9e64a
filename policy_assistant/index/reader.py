"""Reading an index folder: the live generation's manifest, BM25 index and chunks.

Readers take no lock: they follow CURRENT once and keep their files open, and retry if a
writer retired the generation before they opened it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from policy_assistant.errors import IndexError_
from policy_assistant.index.bm25 import BM25Index
from policy_assistant.index.folder import (
    DEFAULT_INDEX_DIR,
    damaged,
    ingest_hint,
    live_generation,
    read_current,
)
from policy_assistant.index.manifest import FORMAT_VERSION, Manifest
from policy_assistant.index.search import Index
from policy_assistant.index.tokenize import TOKENIZER_SETTINGS
from policy_assistant.records import Chunk


def _read_manifest(index_dir: Path, generation: Path) -> Manifest:
    """Parse a generation's manifest; raise IndexError_ if stale or damaged."""
    try:
        data = orjson.loads((generation / "manifest.json").read_bytes())
        found = data.get("format_version")
        if found != FORMAT_VERSION:
            raise IndexError_(
                f"index at {index_dir} is in format {found}, this version reads format "
                f"{FORMAT_VERSION}: {ingest_hint(index_dir)}"
            )
        return Manifest.from_dict(data)
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
        raise damaged(index_dir, f"manifest.json: {exc}") from exc


def load_manifest(index_dir: Path) -> Manifest:
    """Return the live generation's manifest (for a pipeline deciding what to reuse)."""
    return _read_manifest(index_dir, live_generation(index_dir))


def load_chunks(index_dir: Path) -> list[Chunk]:
    """Return every chunk of the live generation, in row order, whatever its tokenizer."""
    with open_index(index_dir, check_tokenizer=False) as index:
        return index.chunks()


class LoadedIndex(Index):
    """An open generation: manifest, BM25 arrays (memory-mapped), chunks read on demand."""

    def __init__(self, index_dir: Path, generation: Path, manifest: Manifest) -> None:
        self.index_dir = index_dir
        self.manifest = manifest
        self.generation = generation
        self._units: Any = None
        try:
            bm25 = BM25Index.load(generation / "bm25")
        except IndexError_ as exc:
            raise damaged(index_dir, exc) from exc
        self._offsets: npt.NDArray[np.int64] = _load_array(generation / "chunk_offsets.npy")
        super().__init__(bm25, _load_array(generation / "chunk_access.npy"), manifest.access_labels)
        self._fd = os.open(generation / "chunks.jsonl", os.O_RDONLY)
        rows, size = len(self._access), os.fstat(self._fd).st_size
        agree = self._offsets.shape == (rows + 1,) and int(self._offsets[-1]) == size
        agree &= rows == self.bm25.num_docs == len(manifest.chunk_ids)
        if not agree or self.bm25.params() != manifest.bm25:
            self.close()
            raise damaged(index_dir, "its files disagree")

    def close(self) -> None:
        """Close the chunks file."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self._units is not None:
            from policy_assistant.index.unit_store import close_units

            close_units(self._units)
            self._units = None

    def chunk(self, row: int) -> Chunk:
        """Return the chunk at row, reading only its line."""
        start, end = int(self._offsets[row]), int(self._offsets[row + 1])
        return Chunk.from_dict(orjson.loads(os.pread(self._fd, end - start, start)))

    def chunks(self) -> list[Chunk]:
        """Return every chunk, in row order."""
        data = os.pread(self._fd, int(self._offsets[-1]), 0)
        return [Chunk.from_dict(orjson.loads(line)) for line in data.splitlines()]

    def damage(self, problem: str) -> IndexError_:
        """Return the error for this index's damaged files."""
        return damaged(self.index_dir, problem)

    def context(
        self, query: str, budget: int, access: str | None = None, settings: Any = None
    ) -> list[Any]:
        """Return the context for query: whole passages within budget words, best first.

        Access as in search (None is public); each passage's label is checked again. The
        units are read on first use (index/unit_store.py); settings is a ContextSettings.
        """
        from policy_assistant.index.context import context_for
        from policy_assistant.index.unit_store import UNITS_DIR, load_units

        level = self.level(access)
        if self._units is None:
            folder = self.generation / UNITS_DIR
            if not folder.is_dir():
                extra = "" if self.index_dir == DEFAULT_INDEX_DIR else f" --index {self.index_dir}"
                raise IndexError_(
                    f"index at {self.index_dir} holds no retrieval units: run "
                    f"`policy-assistant ingest corpus/ --units{extra}`"
                )
            try:
                self._units = load_units(folder)
            except IndexError_ as exc:
                raise damaged(self.index_dir, exc) from exc
        passages = context_for(self._units, query, budget, self.access_labels[level], settings)
        if any(self._rank(p.access) > level for p in passages):
            raise self.damage("units disagree with their documents' labels")
        return passages


def _load_array(path: Path) -> Any:
    return np.load(path, mmap_mode="r", allow_pickle=False)


def open_index(index_dir: Path, check_tokenizer: bool = True) -> LoadedIndex:
    """Open the live generation for search; raise IndexError_ if missing, stale or damaged.

    An index built with other tokenizer settings is stale for search (check_tokenizer);
    its chunks can still be read.
    """
    while True:
        generation = live_generation(index_dir)
        try:
            manifest = _read_manifest(index_dir, generation)
            if check_tokenizer and manifest.tokenizer != TOKENIZER_SETTINGS:
                hint = ingest_hint(index_dir)
                raise IndexError_(f"index at {index_dir} was built with another tokenizer: {hint}")
            try:
                return LoadedIndex(index_dir, generation, manifest)
            except (OSError, ValueError) as exc:
                raise damaged(index_dir, exc) from exc
        except IndexError_:
            if read_current(index_dir) == generation.name:
                raise  # not a writer swapping generations under us
