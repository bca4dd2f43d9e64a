"""BM25 over live segments, with statistics global across them, so scores equal a cold build's.

N, avgdl (from the manifest's per-segment counts, deleted rows taken out) and each query
term's df (its live postings in every segment) are those of one index holding only the live
chunks. Weights are computed from raw tf and row lengths with the operations, in the order,
of bm25_build._scatter, and a row's terms are summed in the order BM25Index.search sums them
(highest upper bound first, then term bytes), so the floats are the same ones. Ties break by
(source, position): the row order of a cold build.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from policy_assistant.index.chunks.segment import Segment
from policy_assistant.records import Chunk

SLICE = 1 << 18
"""Postings whose weights are computed at once: bounds a query's temporary memory."""

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
Found = tuple[int, int, float]
"""A hit: segment index, local row, score."""


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
    """Return each df's idf, as bm25_build._idf gives it for the whole vocabulary."""
    n_docs = stats.counted
    if stats.variant == "lucene":
        return np.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
    values = np.log(n_docs - df + 0.5) - np.log(df + 0.5)
    values[values < 0] = stats.epsilon * stats.mean_idf
    return values


class Masked(Protocol):
    """A segment's field as live_slices reads it: which rows are deleted."""

    @property
    def deleted(self) -> Any:
        """Bool per row, True when deleted (None: no row is)."""


class Postings(Masked, Protocol):
    """What scoring reads of one segment's field: postings by term, row lengths, deletions."""

    @property
    def dl(self) -> Any:
        """Each row's length."""

    def postings(self, term: str) -> tuple[Any, Any]:
        """Return the term's local rows (ascending) and their term frequencies."""

    def bound_rows(self, term: str, rows: Any, tf: Any) -> tuple[Any, Any]:
        """Return those of a term's postings (rows, tf) among which its largest live weight
        is: all of them, or fewer when the segment knows which can hold it."""

    def live_count(self, rows: Any) -> int:
        """Return how many of a term's postings (its rows) are live."""


Part = tuple[int, Any, Any]
"""One segment's postings of a term: segment index, rows, term frequencies."""
Planned = tuple[float, float, list[Part]]
"""A query term as it is summed: repeats, idf, its postings per segment."""


def _weights(stats: Statistics, term_idf: float, segment: Postings, rows: Any, tf: Any) -> Floats:
    """Return the BM25 weights of postings, as _scatter computes them."""
    norms = row_norms(stats, segment.dl[rows])
    result: Floats = np.float64(term_idf) * saturation(stats, norms, tf)
    return result


def row_norms(stats: Statistics, lengths: Any) -> Floats:
    """Return rows' BM25 length norms from their lengths, as _scatter computes them."""
    k1, b, avgdl = stats.k1, stats.b, stats.avgdl or 1.0
    result: Floats = k1 * (1 - b + b * lengths.astype(np.float64) / avgdl)
    return result


def saturation(stats: Statistics, norms: Any, tf: Any) -> Floats:
    """Return the BM25 weights of postings before their idf, from their rows' length norms
    and tf: the operations of _scatter, in its order, so an idf times these is its float."""
    freq = tf.astype(np.float64)
    result: Floats = freq * (stats.k1 + 1) / (freq + norms)
    return result


def plan_terms(
    segments: Sequence[Postings], stats: Statistics, terms: Iterable[str] | Mapping[str, float]
) -> list[Planned]:
    """Return the query terms with a live posting, in the order BM25Index sums them (highest
    upper bound first, then term bytes), each with its global idf and postings.

    A mapping gives each term its weight (its repeats), as feedback terms need.
    """
    counts = terms if isinstance(terms, Mapping) else Counter(terms)
    per_term = []
    for term, repeats in counts.items():
        parts = [(i, *segments[i].postings(term)) for i in range(len(segments))]
        # Postings stay memory-mapped views; deleted rows are masked a slice at a time, so
        # no term's live postings are ever copied whole (a common term has ~700k at 1M).
        live = [segments[i].live_count(rows) for i, rows, _ in parts]
        parts = [p for p, count in zip(parts, live, strict=True) if count]
        df = sum(live)
        if df:
            term_idf = float(idf(stats, np.array([df], np.float64))[0])
            bound = max(
                float(_weights(stats, term_idf, segments[i], some, freq).max())
                for i, rows, tf in parts
                for some, freq in live_slices(segments[i], *segments[i].bound_rows(term, rows, tf))
            )
            key = -float(repeats) * bound
            per_term.append((key, term.encode("utf-8"), repeats, term_idf, parts))
    per_term.sort(key=lambda item: (item[0], item[1]))
    return [(float(repeats), term_idf, parts) for _, _, repeats, term_idf, parts in per_term]


def accumulate(
    segments: Sequence[Postings],
    stats: Statistics,
    planned: Sequence[Planned],
    bases: Any,
    allowed: Callable[[int, Any], Any] | None = None,
) -> Floats:
    """Return every row's score (segment i's rows from bases[i]) summed in planned order.

    allowed(segment, rows) masks postings out of the sums (None: every live posting counts).
    Weights are computed SLICE postings at a time, so memory stays one score per row.
    """
    scores = np.zeros(int(bases[-1]))
    for repeats, term_idf, parts in planned:
        for i, rows, tf in parts:
            for some, freq in live_slices(segments[i], rows, tf):
                weights = _weights(stats, term_idf, segments[i], some, freq)
                if allowed is not None:
                    keep = allowed(i, some)
                    some, weights = some[keep], weights[keep]
                if repeats != 1:
                    weights = weights * repeats
                # Each row once per term: the sums run in term order, as np.bincount's do.
                scores[some.astype(np.int64) + int(bases[i])] += weights
    return scores


def search_segments(
    segments: Sequence[Segment],
    stats: Statistics,
    terms: Sequence[str],
    k: int,
    level: int,
    key: Callable[[int, int], Chunk],
) -> list[Found]:
    """Return up to k (segment, row, score) with score > 0 among rows with access <= level.

    key(segment, row) returns the row's chunk, read only for rows that reach the top k.
    Weights are computed SLICE postings at a time, twice (for the term's upper bound, which
    orders the sums, then to add them), so memory stays one score per row plus a slice.
    """
    planned = plan_terms(segments, stats, terms)
    if k <= 0 or not planned:
        return []
    bases = np.cumsum([0] + [s.info.rows for s in segments])
    scores = accumulate(
        segments, stats, planned, bases, lambda i, rows: segments[i].access[rows] <= level
    )
    return _top(_contenders(scores, k), scores, k, bases, key)


def live_slices(segment: Masked, rows: Any, tf: Any) -> Iterator[tuple[Any, Any]]:
    """Yield a term's live postings in one segment, SLICE postings at a time."""
    for at in range(0, len(rows), SLICE):
        some, freq = rows[at : at + SLICE], tf[at : at + SLICE]
        if segment.deleted is not None:
            keep = ~segment.deleted[some]
            some, freq = some[keep], freq[keep]
        if len(some):
            yield some, freq


def _contenders(scores: Floats, k: int) -> Ints:
    """Return the rows (ascending) scoring at least the k-th best positive score: every row
    _top can choose, without an index of every matching row (up to a million)."""
    positive = int(np.count_nonzero(scores > 0))
    if positive <= k:
        return np.flatnonzero(scores > 0)
    kth = np.partition(scores, len(scores) - k)[len(scores) - k]  # > 0: more than k are
    return np.flatnonzero(scores >= kth)


def _top(
    rows: Any, every: Floats, k: int, bases: Any, key: Callable[[int, int], Chunk]
) -> list[Found]:
    """Return the k best of rows (every row's score in every): score descending, then
    (source, position) of the chunk."""
    scores = every[rows]
    if len(rows) > k:
        kth = np.partition(scores, len(scores) - k)[len(scores) - k]
        above = np.flatnonzero(scores > kth)
        tied = np.flatnonzero(scores == kth)
        # Within a segment rows are in (source, position) order: each segment's first few
        # tied rows are the only ones that can win a place.
        seg_of = np.searchsorted(bases, rows[tied], side="right") - 1
        room = k - len(above)
        firsts = [tied[seg_of == s][:room] for s in np.unique(seg_of)]
        chosen = np.concatenate([above, *firsts])
        rows, scores = rows[chosen], scores[chosen]
    found = []
    for row, score in zip(rows.tolist(), scores.tolist(), strict=True):
        seg = int(np.searchsorted(bases, row, side="right") - 1)
        local = row - int(bases[seg])
        chunk = key(seg, local)
        found.append((-score, chunk.source, chunk.position, seg, local, score))
    found.sort()
    return [(seg, local, score) for _, _, _, seg, local, score in found[:k]]


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
