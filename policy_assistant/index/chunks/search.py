"""Search over one index, on disk or in memory: the one place access is enforced.

An `Index` has BM25 rows, one access code per row and a way to read a row's chunk. Whoever
searches (the `search` command, `eval`, a Python caller) goes through `Index.search`, so the
filter eval measures is the filter users get.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Self

import numpy as np
import numpy.typing as npt

from policy_assistant.codec import to_json_dict
from policy_assistant.errors import BadIndex, UsageError
from policy_assistant.index.chunks.bm25 import BM25_DEFAULTS, BM25Index
from policy_assistant.index.settings import DEFAULT_ACCESS, DEFAULT_K
from policy_assistant.index.tokenize import tokenize, word_terms
from policy_assistant.records import ACCESS_LABELS, Chunk


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result."""

    rank: int
    """Position in the results, from 1."""
    score: float
    """BM25 score."""
    chunk: Chunk
    """The chunk found."""
    row: int = -1
    """The chunk's row in the index (what eval keys its figures by)."""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        out = to_json_dict(self)
        del out["row"]  # where the chunk sits in this index: not part of a hit's JSON
        return out


class Index:
    """BM25 rows with their access codes and chunks; subclasses say where chunks live."""

    def __init__(
        self, bm25: BM25Index, access: npt.NDArray[np.uint8], labels: Sequence[str]
    ) -> None:
        self.bm25 = bm25
        self.access_labels = tuple(labels)
        self._access = access
        self._masks: dict[str, npt.NDArray[np.bool_]] = {}

    def __len__(self) -> int:
        return len(self._access)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release what the index holds open (nothing, in memory)."""

    def chunk(self, row: int) -> Chunk:
        """Return the chunk at row."""
        raise NotImplementedError

    def chunks(self) -> list[Chunk]:
        """Return every chunk, in row order."""
        return [self.chunk(row) for row in range(len(self))]

    def level(self, access: str | None) -> int:
        """Return the rank of an access label (None: the least restricted one)."""
        label = DEFAULT_ACCESS if access is None else access
        if label not in self.access_labels:
            known = ", ".join(self.access_labels)
            raise UsageError(f"unknown access level {label!r}; expected one of {known}")
        return self.access_labels.index(label)

    def allowed(self, access: str | None) -> npt.NDArray[np.bool_]:
        """Return the mask of rows a reader with this access level may see."""
        level = self.level(access)
        label = self.access_labels[level]
        if label not in self._masks:
            self._masks[label] = np.asarray(self._access) <= level
        return self._masks[label]

    def search(self, query: str, k: int = DEFAULT_K, access: str | None = None) -> list[SearchHit]:
        """Return the top k chunks for query that access may see, best first.

        Labels are ordered least restricted first: "public" (also what None means) sees public
        chunks only, "staff" sees public and staff ones. Each returned record's own label is
        checked again, so a damaged label array cannot leak a chunk.
        """
        return self.search_terms(tokenize(query), k, access)

    def search_terms(
        self, terms: Sequence[str], k: int = DEFAULT_K, access: str | None = None
    ) -> list[SearchHit]:
        """Return the top k chunks for already tokenized query terms (see search)."""
        level = self.level(access)
        pairs = self.bm25.search(terms, k, self.allowed(access))
        hits = [
            SearchHit(i, score, self.chunk(row), row) for i, (row, score) in enumerate(pairs, 1)
        ]
        for hit in hits:
            if self._rank(hit.chunk.access) > level:
                raise self.damage("the segments' access.npy disagrees with the chunk records")
        return hits

    def damage(self, problem: str) -> BadIndex:
        """Return the error for an index whose files disagree."""
        return BadIndex(f"index is damaged: {problem}")

    def _rank(self, label: str) -> int:
        labels = self.access_labels
        return labels.index(label) if label in labels else len(labels)


class MemoryIndex(Index):
    """An index built in memory over chunks, searched exactly as an index on disk is."""

    def __init__(self, chunks: Sequence[Chunk], bm25: BM25Index) -> None:
        unknown = sorted({c.access for c in chunks} - set(ACCESS_LABELS))
        if unknown:
            raise UsageError(f"unknown access labels {unknown}; expected one of {ACCESS_LABELS}")
        codes = np.array([ACCESS_LABELS.index(c.access) for c in chunks], np.uint8)
        super().__init__(bm25, codes, ACCESS_LABELS)
        self._chunks = tuple(chunks)

    def chunk(self, row: int) -> Chunk:
        """Return the chunk at row."""
        return self._chunks[row]

    def chunks(self) -> list[Chunk]:
        """Return every chunk, in row order."""
        return list(self._chunks)


def build_bm25(
    chunks: Sequence[Chunk],
    variant: str = BM25_DEFAULTS["variant"],
    k1: float = BM25_DEFAULTS["k1"],
    b: float = BM25_DEFAULTS["b"],
    progress: Any = None,
) -> BM25Index:
    """Return the BM25 index of the chunks' texts under tokenize(), one row per chunk."""
    texts = (chunk.text for chunk in chunks)
    return BM25Index.build(texts, variant, k1, b, word_terms=word_terms, progress=progress)


def memory_index(chunks: Sequence[Chunk], bm25: dict[str, Any] | None = None) -> MemoryIndex:
    """Return an in-memory index of chunks (in the order given) with these BM25 settings."""
    params = {**BM25_DEFAULTS, **(bm25 or {})}
    return MemoryIndex(chunks, build_bm25(chunks, params["variant"], params["k1"], params["b"]))
