"""The dense ranker: exact inner product of a query vector with every row's vector.

Vectors are unit length, so the inner product is the cosine. Every live row the reader may
see is scored by kernel.products (no approximate index: bench/bench_dense.py times the exact
product at 1M rows); equal scores rank by (segment, row). Retrieval units
(context/unit_rank.py) use the same search with their own scorer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from policy_assistant.errors import BadIndex
from policy_assistant.index.chunks.bm25_types import Ints
from policy_assistant.index.chunks.fusion import fuse
from policy_assistant.index.chunks.kernel import Floats, products
from policy_assistant.index.chunks.segment import Segment
from policy_assistant.index.chunks.segment_search import Found
from policy_assistant.index.settings import RankerSettings


class VectorRows(Protocol):
    """A segment whose rows may have vectors: a chunk segment or a unit segment."""

    info: Any

    def vectors(self) -> Any:
        """Return one vector per row, or None."""


Scorer = Callable[[Any, Floats, int], tuple[Ints, Floats]]
"""(segment, query, access level) -> the rows it may serve (ascending) and their products."""


def has_vectors(segments: Sequence[VectorRows]) -> bool:
    """Return whether every segment holds vectors (an empty index has none to rank by)."""
    return bool(segments) and all(segment.vectors() is not None for segment in segments)


def _segment_scores(segment: Segment, query: Floats, level: int) -> tuple[Ints, Floats]:
    """Return the live rows with access <= level (ascending) and their inner products."""
    vectors = segment.vectors()
    if vectors is None:
        raise BadIndex(f"segment {segment.info.name} holds no vectors")
    rows = segment.info.rows
    if vectors.ndim != 2 or vectors.shape[0] != rows or vectors.shape[1] != len(query):
        raise BadIndex(
            f"segment {segment.info.name}: vectors of shape {vectors.shape}, expected "
            f"({rows}, {len(query)})"
        )
    seen = np.asarray(segment.access) <= level
    if segment.deleted is not None:
        seen &= ~np.asarray(segment.deleted)
    return seen_products(vectors, query, seen)


def seen_products(
    vectors: npt.ArrayLike, query: Floats, seen: npt.NDArray[np.bool_]
) -> tuple[Ints, Floats]:
    """Return the rows seen marks (ascending) and their vectors' inner products with query;
    a row whose product is NaN (a damaged vector) ranks nowhere rather than everywhere."""
    scores = products(vectors, query)
    found = np.flatnonzero(seen & ~np.isnan(scores))
    return found, scores[found]


def top_rows(rows: Ints, scores: Floats, k: int) -> tuple[Ints, Floats]:
    """Return the k best (row, score), best first, equal scores by row (rows ascending)."""
    if len(rows) > k:
        # Every row tied with the k-th best is kept, so the cut never depends on partition.
        kth = np.partition(scores, len(scores) - k)[len(scores) - k]
        keep = scores >= kth
        rows, scores = rows[keep], scores[keep]
    order = np.lexsort((rows, -scores))[:k]
    return rows[order], scores[order]


def dense_search(
    segments: Sequence[Any], query: Floats, k: int, level: int, scored: Scorer | None = None
) -> list[Found]:
    """Return up to k (segment, row, score) by inner product with query among live rows with
    access <= level, best first, equal scores ordered by (segment, row). scored finds each
    segment's rows and products (None: a chunk segment's)."""
    if k <= 0:
        return []
    query = np.asarray(query, dtype=np.float32)
    scorer = scored or _segment_scores
    found: list[Found] = []
    for i, segment in enumerate(segments):
        rows, scores = top_rows(*scorer(segment, query, level), k)
        found += zip([i] * len(rows), rows.tolist(), scores.tolist(), strict=True)
    # Python's sort is stable and found is in (segment, row) order within each score.
    found.sort(key=lambda hit: -hit[2])
    return found[:k]


def fused(
    bm25: list[Found], dense: list[Found], segments: Sequence[VectorRows], query: Floats,
    settings: RankerSettings, k: int,
) -> list[Found]:  # fmt: skip
    """Return the k best of BM25's and the dense ranker's lists fused (fusion.fuse), each
    BM25 candidate the dense list lacks given its exact inner product."""
    in_dense = {(seg, row) for seg, row, _ in dense}
    missing = [(seg, row) for seg, row, _ in bm25 if (seg, row) not in in_dense]
    query = np.asarray(query, dtype=np.float32)
    more: dict[tuple[int, int], float] = {}
    for seg in dict.fromkeys(seg for seg, _ in missing):
        vectors = segments[seg].vectors()
        if vectors is None:
            raise BadIndex(f"segment {segments[seg].info.name} holds no vectors")
        rows = [row for at, row in missing if at == seg]
        # One call of the kernel that scored the dense list: a row's product is its own sum,
        # so these are the bits the dense list would give them.
        scores = products(np.asarray(vectors)[rows], query).tolist()
        more.update(zip([(seg, row) for row in rows], scores, strict=True))
    return fuse(bm25, dense, more, settings, k)
