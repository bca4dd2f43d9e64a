"""Reading an index folder: the live generation's manifest, BM25 index and chunks.

Readers take no lock: they follow CURRENT once and keep their files open, and retry if a
writer retired the generation before they opened it.
"""

from __future__ import annotations

import hashlib
import os
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from policy_assistant.errors import IndexError_
from policy_assistant.index.bm25 import BM25Index
from policy_assistant.index.bm25_files import load_array
from policy_assistant.index.folder import (
    DEFAULT_INDEX_DIR,
    checksum,
    damaged,
    ingest_hint,
    live_generation,
    read_current,
)
from policy_assistant.index.manifest import FORMAT_VERSION, Manifest
from policy_assistant.index.search import Index
from policy_assistant.index.tokenize import TOKENIZER_SETTINGS
from policy_assistant.records import Chunk

_CHUNKS = "chunks.jsonl"


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
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        # orjson.JSONDecodeError (bad JSON or bytes) is a ValueError
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
        """Return the chunk at row, reading only its line; raise IndexError_ if damaged."""
        start, end = int(self._offsets[row]), int(self._offsets[row + 1])
        try:
            return Chunk.from_dict(orjson.loads(os.pread(self._fd, end - start, start)))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise damaged(self.index_dir, f"chunks.jsonl row {row}: {exc}") from exc

    def chunks(self) -> list[Chunk]:
        """Return every chunk, in row order, the file checked against its checksum first."""
        try:
            data = os.pread(self._fd, int(self._offsets[-1]), 0)
        except OSError as exc:
            raise damaged(self.index_dir, f"chunks.jsonl: {exc}") from exc
        if hashlib.sha256(data).hexdigest() != self.manifest.files.get(_CHUNKS):
            raise damaged(self.index_dir, f"{_CHUNKS} does not match its checksum")
        try:
            lines = (data[a:b] for a, b in pairwise(self._offsets.tolist()))
            return [Chunk.from_dict(orjson.loads(line)) for line in lines]
        except (ValueError, KeyError, TypeError) as exc:
            raise damaged(self.index_dir, f"{_CHUNKS}: {exc}") from exc

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
                    f"index at {self.index_dir} holds no retrieval units (an `index` of chunk "
                    f"records or `ingest --no-units` stores none): run `policy-assistant ingest "
                    f"CORPUS{extra}` with the folder you indexed as CORPUS"
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
    return load_array(path, "r")


def verify_files(index_dir: Path, generation: Path, manifest: Manifest) -> None:
    """Raise IndexError_ unless every file the manifest lists has its recorded SHA-256."""
    if not manifest.files:
        raise damaged(index_dir, "manifest.json records no file checksums")
    for name, expected in manifest.files.items():
        try:
            with (generation / name).open("rb") as handle:
                found = checksum(handle)
        except OSError as exc:
            raise damaged(index_dir, f"{name}: {exc.strerror or exc}") from exc
        if found != expected:
            raise damaged(index_dir, f"{name} does not match its checksum")
    _verify_name(index_dir, generation)


def _verify_name(index_dir: Path, generation: Path) -> None:
    """Raise IndexError_ unless the generation's name is the hash of its chunks and manifest.

    The writer names a generation after that hash, so this checks the manifest itself, which
    holds the other files' checksums and so cannot hold its own.
    """
    digest = hashlib.sha256()
    try:
        for name in (_CHUNKS, "manifest.json"):
            digest.update((generation / name).read_bytes())
    except OSError as exc:
        raise damaged(index_dir, f"{exc.filename}: {exc.strerror or exc}") from exc
    if generation.name.removesuffix("-b") != f"gen-{digest.hexdigest()[:16]}":
        raise damaged(index_dir, "manifest.json does not match the generation's name")


def open_index(index_dir: Path, check_tokenizer: bool = True, verify: bool = False) -> LoadedIndex:
    """Open the live generation for search; raise IndexError_ if missing, stale or damaged.

    An index built with other tokenizer settings is stale for search (check_tokenizer);
    its chunks can still be read. verify reads every file and checks its checksum.
    """
    while True:
        generation = live_generation(index_dir)
        try:
            manifest = _read_manifest(index_dir, generation)
            if check_tokenizer and manifest.tokenizer != TOKENIZER_SETTINGS:
                hint = ingest_hint(index_dir)
                raise IndexError_(f"index at {index_dir} was built with another tokenizer: {hint}")
            if verify:
                verify_files(index_dir, generation, manifest)
            try:
                return LoadedIndex(index_dir, generation, manifest)
            except (OSError, ValueError) as exc:
                raise damaged(index_dir, exc) from exc
        except IndexError_:
            if read_current(index_dir) == generation.name:
                raise  # not a writer swapping generations under us
