"""Hybrid ranking: BM25's and the dense ranker's lists fused into one.

The candidates are the union of both lists' top max(k, depth), so a paraphrase BM25 misses
entirely (score 0) still reaches the results on its dense score alone. `weighted` scales each
list (by its best score, or from its worst to its best: `norm`) and sums BM25's share with
`weight` times the dense one; `rrf` sums 1 / (rrf_k + rank) over the lists a candidate is in.
bench/bench_rankers.py measured the choices; settings.HYBRID_RANKER holds what won.

A BM25-only candidate's dense score is its exact inner product (every row has a vector); a
dense-only candidate's BM25 score is taken as 0, a lower bound (it is below the list's last).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from policy_assistant.index.chunks.segment_search import Found
from policy_assistant.index.settings import RankerSettings

Key = tuple[int, int]
"""A row: segment index, local row."""


def scaled(scores: Sequence[float], norm: str) -> tuple[float, float]:
    """Return (offset, scale) so (score - offset) / scale maps a list's best to 1 and, under
    minmax, its worst to 0 (under max, 0 stays 0); a list of one value maps it to 1."""
    if not scores:
        return 0.0, 1.0
    best, worst = max(scores), min(scores)
    if norm == "max":
        return (0.0, best) if best > 0 else (best - 1.0, 1.0)
    return (worst, best - worst) if best > worst else (best - 1.0, 1.0)


def weighted(
    bm25: Sequence[Found], dense: Sequence[Found], dense_more: Mapping[Key, float],
    settings: RankerSettings,
) -> dict[Key, float]:  # fmt: skip
    """Return each candidate's BM25 share plus weight times its dense share, each share
    clipped to [0, 1]; dense_more holds the dense scores of BM25 candidates not in dense."""
    b_offset, b_scale = scaled([s for *_, s in bm25], settings.norm)
    d_offset, d_scale = scaled([s for *_, s in dense], settings.norm)
    fused: dict[Key, float] = {}
    for seg, row, score in bm25:
        fused[seg, row] = _clip((score - b_offset) / b_scale)
    dense_scores = {**dense_more, **{(seg, row): score for seg, row, score in dense}}
    for key, score in dense_scores.items():
        fused[key] = fused.get(key, 0.0) + settings.weight * _clip((score - d_offset) / d_scale)
    return fused


def reciprocal(
    bm25: Sequence[Found], dense: Sequence[Found], settings: RankerSettings
) -> dict[Key, float]:
    """Return each candidate's sum of 1 / (rrf_k + rank) over the lists holding it (ranks
    from 1), the dense list's share times weight."""
    fused: dict[Key, float] = {}
    for rank, (seg, row, _) in enumerate(bm25, 1):
        fused[seg, row] = 1.0 / (settings.rrf_k + rank)
    for rank, (seg, row, _) in enumerate(dense, 1):
        share = settings.weight / (settings.rrf_k + rank)
        fused[seg, row] = fused.get((seg, row), 0.0) + share
    return fused


def fuse(
    bm25: Sequence[Found], dense: Sequence[Found], dense_more: Mapping[Key, float],
    settings: RankerSettings, k: int,
) -> list[Found]:  # fmt: skip
    """Return the k best candidates by fused score, equal scores by (segment, row)."""
    if settings.fusion == "rrf":
        fused = reciprocal(bm25, dense, settings)
    else:
        fused = weighted(bm25, dense, dense_more, settings)
    ranked = sorted(fused.items(), key=lambda item: (-item[1], item[0]))[: max(k, 0)]
    return [(seg, row, score) for (seg, row), score in ranked]


def _clip(share: float) -> float:
    """Return a share within [0, 1]: a score outside the list's range counts as its end, and
    a NaN (a damaged vector) as nothing."""
    return min(max(share, 0.0), 1.0) if share == share else 0.0
