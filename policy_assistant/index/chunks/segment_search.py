"""The chunk ranker, search_segments: BM25 over segments (an index folder's, or eval's one
MemorySegment) with N, avgdl and df of the live rows only, so scores equal a cold build's.

A row's weights are summed highest repeats * idf first (then term bytes), an order that
depends only on the live chunks. MaxScore: once the k-th best partial score beats the bounds
(idf * (k1 + 1)) of the terms left, the rows still in reach get those terms by bisection; the
top k are picked among touched rows only. Row length norms are kept per segment and stats.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from policy_assistant.index.chunks.bm25_types import Floats, Ints
from policy_assistant.index.chunks.segment import Segment
from policy_assistant.index.settings import BM25Settings

SLICE = 1 << 18
"""Postings whose weights are computed at once: bounds a query's temporary memory."""
CHECK_RATIO = 4
"""MaxScore tries to stop only while postings read * this <= postings left to read."""
SPARSE_RATIO = 8
"""Rows seen are sorted out of their postings while postings * this < rows."""
PRUNE_MIN_POSTINGS = 50_000
"""Below this many postings a query adds every one: checking where to stop costs more."""
KTH_DIRECT = 512
"""Scores up to which kth_largest partitions them directly."""
KTH_SAMPLE = 8
"""kth_largest's sample holds about this many times k scores."""
_SLACK = 1e-9
_T = TypeVar("_T")

Found = tuple[int, int, float]
"""A hit: segment index, local row, score."""
Tie = Callable[[int, int], Any]
"""(segment index, local row) -> what orders hits of equal score, ascending."""


@dataclass(frozen=True, slots=True)
class Statistics:
    """The collection statistics BM25 scores with, over live rows only."""

    variant: str
    """lucene or okapi."""
    k1: float
    """Term frequency saturation."""
    b: float
    """Length normalization."""
    counted: int
    """N: live rows with a term (lucene) or every live row (okapi)."""
    avgdl: float
    """Average length over the counted rows."""
    mean_idf: float
    """okapi: the mean idf over every live term (its floor is epsilon times this)."""
    epsilon: float
    """okapi's floor, as a fraction of mean_idf."""


def idf(stats: Statistics, df: Floats) -> Floats:
    """Return each df's idf under the variant (okapi's negative ones floored)."""
    n_docs = stats.counted
    if stats.variant == "lucene":
        return np.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
    values = np.log(n_docs - df + 0.5) - np.log(df + 0.5)
    values[values < 0] = stats.epsilon * stats.mean_idf
    return values


def statistics(
    params: BM25Settings, rows: int, nonempty: int, length: int, mean_idf: float
) -> Statistics:
    """Return the statistics of live rows: how many, how many with a term, their terms."""
    counted = nonempty if params.variant == "lucene" else rows
    avgdl = float(length) / counted if counted else 0.0
    return Statistics(params.variant, params.k1, params.b, counted, avgdl, mean_idf,
                      params.epsilon)  # fmt: skip


def row_norms(stats: Statistics, lengths: Any) -> Floats:
    """Return rows' BM25 length norms from their lengths (the part of a weight each row shares)."""
    k1, b, avgdl = stats.k1, stats.b, stats.avgdl or 1.0
    result: Floats = k1 * (1 - b + b * lengths.astype(np.float64) / avgdl)
    return result


def saturation(stats: Statistics, norms: Any, tf: Any, reuse_norms: bool = False) -> Floats:
    """Return postings' BM25 weights before their idf, in rank_bm25's operations; with
    reuse_norms norms (float64) is overwritten: a large batch costs two arrays, not four."""
    freq: Floats = tf.astype(np.float64)  # a copy: the sums below may write into it
    denominator = np.add(freq, norms, out=norms if reuse_norms else None)
    np.multiply(freq, stats.k1 + 1, out=freq)
    np.divide(freq, denominator, out=freq)
    return freq


@dataclass(slots=True)  # not frozen: a frozen one's __init__ costs a call per field
class Planned:
    """A query term as it is summed."""

    repeats: float
    """Its weight in the query (how often it occurs)."""
    idf: float
    """Its idf over every live segment."""
    parts: list[tuple[int, Any, Any]]
    """Per segment holding a live posting: segment index, rows, term frequencies."""
    size: int
    """Its postings, deleted ones included."""


def plan_terms(
    segments: Sequence[Segment], stats: Statistics, terms: Iterable[str] | Mapping[str, float]
) -> list[Planned]:
    """Return the query terms with a live posting, in the order their weights are summed."""

    def found(term: str) -> tuple[int, list[tuple[int, Any, Any]]] | None:
        parts, df = [], 0
        for i, segment in enumerate(segments):
            start, stop = segment.span(term)
            rows, tf = segment.rows[start:stop], segment.tf[start:stop]
            live = segment.live_count(rows) if len(rows) else 0
            if live:
                parts.append((i, rows, tf))
                df += live
        return (df, parts) if parts else None

    return [
        Planned(repeats, term_idf, parts, sum(len(rows) for _, rows, _ in parts))
        for repeats, term_idf, parts in _in_order(stats, terms, found)
    ]


def _in_order(
    stats: Statistics,
    terms: Iterable[str] | Mapping[str, float],
    found: Callable[[str], tuple[int, _T] | None],
) -> list[tuple[float, float, _T]]:
    """Return (repeats, idf, postings) of each query term found gives (df, postings) for, in
    the order weights are summed: highest repeats * idf first, then term bytes (a mapping
    gives each term its repeats)."""
    counts = terms if isinstance(terms, Mapping) else Counter(terms)
    kept = []
    for term, repeats in counts.items():
        got = found(term)
        if got is not None:
            kept.append((term, float(repeats), *got))
    idfs = idf(stats, np.array([df for _, _, df, _ in kept], np.float64)).tolist()
    keyed = [
        (-repeats * term_idf, term.encode("utf-8"), repeats, term_idf, postings)
        for (term, repeats, _, postings), term_idf in zip(kept, idfs, strict=True)
    ]
    keyed.sort(key=lambda item: (item[0], item[1]))
    return [(repeats, term_idf, postings) for _, _, repeats, term_idf, postings in keyed]


def search_segments(
    segments: Sequence[Segment],
    stats: Statistics,
    terms: Sequence[str] | Mapping[str, float],
    k: int,
    level: int,
    tie: Tie,
) -> list[Found]:
    """Return up to k (segment, row, score) with score > 0 among rows with access <= level,
    best first, equal scores ordered by tie(segment, row) (read only for the last few)."""
    if len(segments) == 1 and segments[0].deleted is None:
        found = _search_one(segments[0], stats, terms, k, level)
        if found is not None:
            return found
    planned = plan_terms(segments, stats, terms)
    if k <= 0 or not planned:
        return []
    ranker = _Ranker(segments, stats, level, k)
    rows, scores = ranker.run(planned)
    return _top(rows, scores, k, ranker.bases, tie if len(segments) > 1 else None)


def keep_weights(segment: Segment, stats: Statistics) -> None:
    """Keep every posting's saturation under stats on a segment whose statistics never change
    (eval's MemorySegment: one segment, no deletions), for search_segments to read."""
    norms = _norms(segment, stats)
    segment.weighed = (stats, saturation(stats, norms[np.asarray(segment.rows)], segment.tf))


def _search_one(
    segment: Segment, stats: Statistics, terms: Sequence[str] | Mapping[str, float], k: int,
    level: int,
) -> list[Found] | None:  # fmt: skip
    """Return what search_segments does over one segment without deletions, in fewer steps
    (eval's sizes, where each step's Python cost counts); None above PRUNE_MIN_POSTINGS."""

    def found(term: str) -> tuple[int, tuple[int, int]] | None:
        start, stop = segment.span(term)
        return (stop - start, (start, stop)) if stop > start else None

    per_term = _in_order(stats, terms, found)  # every posting is live: df is their count
    if k <= 0 or not per_term:
        return []
    spans = [span for _, _, span in per_term]
    sizes = [stop - start for start, stop in spans]
    if sum(sizes) >= PRUNE_MIN_POSTINGS:
        return None
    rows = np.concatenate([segment.rows[start:stop] for start, stop in spans])
    # Arrays' own repeat and nonzero: np.repeat and np.flatnonzero add a Python call each.
    idfs = np.array([term_idf for _, term_idf, _ in per_term]).repeat(sizes)
    weights = idfs * _saturations(segment, stats, rows, spans)
    if any(repeats != 1 for repeats, _, _ in per_term):
        weights = weights * np.array([repeats for repeats, _, _ in per_term]).repeat(sizes)
    sums = np.bincount(rows, weights=weights, minlength=segment.info.rows)
    rows = (sums > 0).nonzero()[0]
    rows = rows[segment.access[rows] <= level]
    rows, scores = best_first(rows, sums[rows], k)
    return list(zip([0] * len(rows), rows.tolist(), scores.tolist(), strict=True))


def _saturations(
    segment: Segment, stats: Statistics, rows: Any, spans: list[tuple[int, int]]
) -> Floats:
    """Return the saturations of the postings in spans (at rows): the segment's kept ones
    when stats are the very statistics they were kept for, else computed."""
    weighed = segment.weighed
    if weighed is not None and weighed[0] is stats:
        return np.concatenate([weighed[1][start:stop] for start, stop in spans])
    tf = np.concatenate([segment.tf[start:stop] for start, stop in spans])
    return saturation(stats, _norms(segment, stats)[rows], tf)


class _Ranker:
    """One query's MaxScore pass: a score per row, the rows seen, the segments' norms."""

    def __init__(self, segments: Sequence[Segment], stats: Statistics, level: int, k: int):
        self.segments, self.stats, self.level, self.k = segments, stats, level, k
        self.bases = np.array([0, *accumulate(s.info.rows for s in segments)])
        self.norms = [_norms(segment, stats) for segment in segments]
        self.scores = np.zeros(int(self.bases[-1]))
        self.seen: list[Ints] = []

    def run(self, planned: list[Planned]) -> tuple[Ints, Floats]:
        """Return the rows (ascending) that can reach the top k and their scores."""
        # saturation stays below k1 + 1: the bound of a term's weight at any row
        bounds = [t.repeats * t.idf * (self.stats.k1 + 1) for t in planned]
        done, left = 0, sum(term.size for term in planned)
        # okapi's idf floor can be negative; below PRUNE_MIN_POSTINGS checks cost more
        prune = left >= PRUNE_MIN_POSTINGS and all(bound >= 0 for bound in bounds)
        for j, term in enumerate(planned):
            done, left = done + term.size, left - term.size
            check = prune and left > 0 and done * CHECK_RATIO <= left  # else it costs more
            self._add(term)
            if check:
                rows = self._touched(done)
                found = self._stop(planned, bounds, j, rows, self.scores[rows])
                if found is not None:
                    return found
        rows = self._touched(done)
        return rows, self.scores[rows]

    def _stop(
        self, planned: list[Planned], bounds: list[float], j: int, rows: Ints, partial: Floats
    ) -> tuple[Ints, Floats] | None:
        """Finish by bisection when the k-th best partial score (of rows, after term j)
        beats the bounds of the terms left; None when it does not yet."""
        if len(rows) < self.k:
            return None
        theta, rest = kth_largest(partial, self.k), _loose(sum(bounds[j + 1 :]))
        if theta <= rest:
            return None
        keep = partial >= theta - rest
        return self._finish(planned[j + 1 :], bounds[j + 1 :], rows[keep], partial[keep])

    def _add(self, term: Planned) -> None:
        """Add a term's weight at each of its live postings to the rows' scores."""
        for i, rows, tf in term.parts:
            for some, freq in _live(self.segments[i], rows, tf):
                weights = _term_weights(self.stats, term, self.norms[i][some], freq)
                # Each row once per term: the sums run in term order.
                at = some.astype(np.int64) + int(self.bases[i])
                self.scores[at] += weights
                self.seen.append(at)

    def _touched(self, done: int) -> Ints:
        """Return the rows (ascending) with a positive score that the reader may see."""
        if len(self.seen) == 1:  # one term's postings in one segment: ascending already
            rows = self.seen[0]
            rows = rows[self.scores[rows] > 0]
        elif done * SPARSE_RATIO < len(self.scores):
            rows = _unique(np.concatenate(self.seen))
            rows = rows[self.scores[rows] > 0]
        else:  # cheaper than sorting that many postings
            rows = np.flatnonzero(self.scores > 0)
        return rows[self._allowed(rows)]

    def _allowed(self, rows: Ints) -> npt.NDArray[np.bool_]:
        """Return whether the reader may see each row (rows ascending)."""
        if len(self.segments) == 1:
            allowed: npt.NDArray[np.bool_] = self.segments[0].access[rows] <= self.level
            return allowed
        allowed = np.empty(len(rows), np.bool_)
        edges = np.searchsorted(rows, self.bases)
        for i, segment in enumerate(self.segments):
            lo, hi = int(edges[i]), int(edges[i + 1])
            allowed[lo:hi] = segment.access[rows[lo:hi] - self.bases[i]] <= self.level
        return allowed

    def _finish(
        self, planned: list[Planned], bounds: list[float], rows: Ints, scores: Floats
    ) -> tuple[Ints, Floats]:
        """Add the remaining terms' weights to the rows' partial scores by bisection,
        dropping after each term the rows that can no longer reach the k-th best score."""
        for j, term in enumerate(planned):
            edges = np.searchsorted(rows, self.bases)
            for i, term_rows, tf in term.parts:
                lo, hi = int(edges[i]), int(edges[i + 1])
                local = rows[lo:hi] - self.bases[i]
                pos = np.minimum(np.searchsorted(term_rows, local), len(term_rows) - 1)
                hit = np.flatnonzero(term_rows[pos] == local)  # rows seen are live
                norms = self.norms[i][local[hit]]
                scores[lo + hit] += _term_weights(self.stats, term, norms, tf[pos[hit]])
            if len(scores) > self.k:
                keep = scores >= kth_largest(scores, self.k) - _loose(sum(bounds[j + 1 :]))
                rows, scores = rows[keep], scores[keep]
        return rows, scores


def _norms(segment: Segment, stats: Statistics) -> Floats:
    """Return every row's length norm under stats, computed once per segment and stats."""
    norms: Floats | None = segment.memo.get(stats)
    if norms is None:
        segment.memo.clear()  # one set of statistics at a time: an index is one generation
        norms = segment.memo[stats] = row_norms(stats, np.asarray(segment.dl))
    return norms


def _term_weights(stats: Statistics, term: Planned, norms: Floats, tf: Any) -> Floats:
    """Return a term's weights (repeats included) at rows with these norms and tf."""
    weights: Floats = np.float64(term.idf) * saturation(stats, norms, tf)
    return weights * term.repeats if term.repeats != 1 else weights


def _live(segment: Segment, rows: Any, tf: Any) -> Iterable[tuple[Any, Any]]:
    """Return a term's live postings in one segment, SLICE postings at a time, its few
    deleted ones (if any) found by bisection rather than by reading a flag per posting."""
    if segment.deleted is None and len(rows) <= SLICE:
        return ((rows, tf),)  # the common case, without a generator's cost
    dead = segment.dead_positions(rows)
    if dead is None:
        return live_slices(segment.deleted, rows, tf)
    if len(dead):
        rows, tf = np.delete(rows, dead), np.delete(tf, dead)
    return [(rows[at : at + SLICE], tf[at : at + SLICE]) for at in range(0, len(rows), SLICE)]


def live_slices(deleted: Any, rows: Any, tf: Any) -> Iterator[tuple[Any, Any]]:
    """Yield a term's live postings in one segment (deleted: its bool per row, or None),
    SLICE postings at a time."""
    for at in range(0, len(rows), SLICE):
        some, freq = rows[at : at + SLICE], tf[at : at + SLICE]
        if deleted is not None:
            keep = ~deleted[some]
            some, freq = some[keep], freq[keep]
        if len(some):
            yield some, freq


def kth_largest(scores: Floats, k: int) -> float:
    """Return the k-th largest score (len(scores) >= k), first cutting to the scores above
    a sample's (np.partition crawls on many equal values, as one term's scores are)."""
    while len(scores) > KTH_DIRECT:
        sample = scores[:: len(scores) // (KTH_SAMPLE * k) or 1]
        if len(sample) == len(scores):
            break
        low = kth_largest(sample, k)
        above = scores[scores > low]
        if len(above) < k:
            return low  # k scores are at least low, fewer than k above it
        scores = above
    return float(np.partition(scores, len(scores) - k)[len(scores) - k])


def _loose(bound: float) -> float:
    """Return bound widened by far more than float rounding, so pruning never drops a tie."""
    return bound * (1 + _SLACK) + _SLACK


def _unique(rows: Ints) -> Ints:
    """Return the distinct rows, ascending: a stable sort (timsort) merges their ascending
    runs (each term's postings) rather than sorting afresh."""
    ordered = np.sort(rows, kind="stable")
    return ordered[np.diff(ordered, prepend=-1) != 0] if len(ordered) else ordered


def _top(rows: Ints, scores: Floats, k: int, bases: Any, tie: Tie | None) -> list[Found]:
    """Return the k best of rows (ascending, with their scores): score descending, then by
    tie(segment, row), or by row when tie is None (one segment, whose rows are in tie order)."""
    if tie is None:
        rows, scores = best_first(rows, scores, k)
        return list(zip([0] * len(rows), rows.tolist(), scores.tolist(), strict=True))
    if len(rows) > k:
        kth = kth_largest(scores, k)
        above = np.flatnonzero(scores > kth)
        tied = np.flatnonzero(scores == kth)
        room = k - len(above)
        # Within a segment rows are in tie order: each segment's first few tied rows are the
        # only ones that can win a place.
        seg_of = np.searchsorted(bases, rows[tied], side="right") - 1
        firsts = [tied[seg_of == s][:room] for s in np.unique(seg_of)]
        chosen = np.concatenate([above, *firsts])
        rows, scores = rows[chosen], scores[chosen]
    segs = np.searchsorted(bases, rows, side="right") - 1
    local = rows - bases[segs]
    found = [
        (-score, tie(seg, row), seg, row, score)
        for seg, row, score in zip(segs.tolist(), local.tolist(), scores.tolist(), strict=True)
    ]
    found.sort(key=lambda item: item[:4])
    return [(seg, row, score) for _, _, seg, row, score in found[:k]]


def best_first(rows: Ints, scores: Floats, k: int) -> tuple[Ints, Floats]:
    """Return the k best of rows (ascending) and their scores, score descending, then row
    (the chunk ranker's hits, the unit ranker's)."""
    if len(rows) > k:
        kth = kth_largest(scores, k)
        above = (scores > kth).nonzero()[0]
        tied = (scores == kth).nonzero()[0][: k - len(above)]
        chosen = np.concatenate([above, tied])
        rows, scores = rows[chosen], scores[chosen]
    order = np.lexsort((rows, -scores))[:k]
    return rows[order], scores[order]


def okapi_mean_idf(segments: Sequence[Any], counted: int) -> float:
    """Return the mean okapi idf over every term with a live posting, as a cold build has it
    (segments: anything with ptr, rows, deleted and term_list(), as Segment has)."""
    df: dict[bytes, int] = {}
    for seg in segments:
        sizes = np.diff(np.asarray(seg.ptr))
        if seg.deleted is not None and len(seg.rows):
            dead = seg.deleted[np.asarray(seg.rows)].astype(np.int64)
            starts = np.asarray(seg.ptr[:-1])
            sizes = sizes - np.add.reduceat(dead, starts) * (sizes > 0)
        terms = seg.term_list()
        for term, size in zip(terms, sizes.tolist(), strict=True):
            if size:
                df[term] = df.get(term, 0) + size
    if not df:
        return 0.0
    values = np.array([df[t] for t in sorted(df)], np.float64)
    return float((np.log(counted - values + 0.5) - np.log(values + 0.5)).mean())
