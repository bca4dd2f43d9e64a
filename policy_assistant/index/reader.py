"""Reading an index folder: the live generation's manifest, BM25 index and chunks.

Readers take no lock: they follow CURRENT once and keep their files open, and retry if a
writer retired the generation before they opened it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from policy_assistant.errors import IndexError_, UsageError
from policy_assistant.index.bm25 import BM25Index
from policy_assistant.index.context import ContextSettings, context_for
from policy_assistant.index.folder import damaged, ingest_hint, live_generation, read_current
from policy_assistant.index.manifest import FORMAT_VERSION, Manifest
from policy_assistant.index.passages import ContextPassage
from policy_assistant.index.tokenize import TOKENIZER_SETTINGS, tokenize
from policy_assistant.index.unit_search import UnitIndex
from policy_assistant.index.unit_store import UNITS_DIR, close_units, load_units
from policy_assistant.records import Chunk


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result."""

    rank: int
    """Position in the results, from 1."""
    score: float
    """BM25 score."""
    chunk: Chunk
    """The chunk found."""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {"rank": self.rank, "score": self.score, "chunk": self.chunk.to_dict()}


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


class LoadedIndex:
    """An open generation: manifest, BM25 arrays (memory-mapped), chunks read on demand."""

    def __init__(self, index_dir: Path, generation: Path, manifest: Manifest) -> None:
        self.index_dir = index_dir
        self.manifest = manifest
        self.generation = generation
        self._units: UnitIndex | None = None
        try:
            self.bm25 = BM25Index.load(generation / "bm25")
        except IndexError_ as exc:
            raise damaged(index_dir, exc) from exc
        self._offsets: npt.NDArray[np.int64] = _load_array(generation / "chunk_offsets.npy")
        self._access: npt.NDArray[np.uint8] = _load_array(generation / "chunk_access.npy")
        self._fd = os.open(generation / "chunks.jsonl", os.O_RDONLY)
        self._masks: dict[str, npt.NDArray[np.bool_]] = {}
        rows, size = len(self._access), os.fstat(self._fd).st_size
        agree = self._offsets.shape == (rows + 1,) and int(self._offsets[-1]) == size
        agree &= rows == self.bm25.num_docs == len(manifest.chunk_ids)
        if not agree or self.bm25.params() != manifest.bm25:
            self.close()
            raise damaged(index_dir, "its files disagree")

    def __len__(self) -> int:
        return len(self._access)

    def __enter__(self) -> LoadedIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the chunks file."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self._units is not None:
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

    def allowed(self, access: str | None) -> npt.NDArray[np.bool_]:
        """Return the mask of rows a reader with this access level may see.

        None is the least restricted label ("public"): a caller that names no access gets
        public rows only (fail closed).
        """
        labels = self.manifest.access_labels
        level = labels[0] if access is None else access
        if level not in labels:
            raise UsageError(f"unknown access level {level!r}; expected one of {list(labels)}")
        if level not in self._masks:
            self._masks[level] = np.asarray(self._access) <= labels.index(level)
        return self._masks[level]

    def search(self, query: str, k: int = 10, access: str | None = None) -> list[SearchHit]:
        """Return the top k chunks for query that access may see, best first.

        Labels are ordered least restricted first: "public" (also what None means) sees public
        chunks only, "staff" sees public and staff ones. Each returned record's own label is
        checked again, so a damaged label array cannot leak a chunk.
        """
        mask = self.allowed(access)
        rank = self.manifest.access_labels.index(access or self.manifest.access_labels[0])
        pairs = self.bm25.search(tokenize(query), k, mask)
        hits = [(row, score, self.chunk(row)) for row, score in pairs]
        if any(self._rank(chunk.access) > rank for _, _, chunk in hits):
            raise damaged(self.index_dir, "chunk_access.npy disagrees with chunks.jsonl")
        return [SearchHit(i, score, chunk) for i, (_, score, chunk) in enumerate(hits, 1)]

    def context(
        self, query: str, budget: int, access: str | None = None,
        settings: ContextSettings | None = None,
    ) -> list[ContextPassage]:  # fmt: skip
        """Return the context for query: whole passages within budget words, best first.

        Access as in search (None is public); each passage's label is checked again.
        """
        self.allowed(access)  # an unknown label is a usage error
        if self._units is None:
            try:
                self._units = load_units(self.generation / UNITS_DIR)
            except IndexError_ as exc:
                raise damaged(self.index_dir, exc) from exc
        passages = context_for(self._units, query, budget, access, settings)
        rank = self.manifest.access_labels.index(access or self.manifest.access_labels[0])
        if any(self._rank(p.access) > rank for p in passages):
            raise damaged(self.index_dir, "units disagree with their documents' labels")
        return passages

    def _rank(self, label: str) -> int:
        labels = self.manifest.access_labels
        return labels.index(label) if label in labels else len(labels)


Index = LoadedIndex
"""The public name of an open index."""


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
