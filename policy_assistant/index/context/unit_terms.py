"""A query's terms in one unit field of every live segment: planned, weighted and summed.

The unit fields' counterpart of segment_search.plan_terms and accumulate (chunk segments').
The floats are the ones a cold build gives: each weight is segment_search.saturation (from
the rows' length norms) times the term's idf and repeats, terms are ordered as plan_terms
orders them (highest upper bound first, then term bytes), and every row's weights are added
term after term in that order.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from policy_assistant.index.chunks.bm25_types import Floats, Ints
from policy_assistant.index.chunks.segment_search import (
    SLICE,
    Statistics,
    idf,
    kth_largest,
    live_slices,
    row_norms,
    saturation,
)
from policy_assistant.index.context.unit_open import FieldView, Mask, runs


@dataclass(frozen=True, slots=True)
class FieldTerms:
    """The query terms with a live posting in one field, in the order their weights sum."""

    idf: Floats
    """Each term's idf over every live segment."""
    repeats: Floats
    """Each term's weight in the query (how often it occurs)."""
    ids: list[Ints]
    """Per segment, each term's id in its term list (-1: no live posting there)."""
    bounds: Floats
    """Each term's largest live weight, its repeats apart (what orders the sums)."""
    scaled: bool
    """Whether a term's repeats differ from 1 (weights are multiplied by them)."""

    def __len__(self) -> int:
        return len(self.idf)

    def postings(self, views: Sequence[FieldView]) -> Ints:
        """Return each term's postings over every segment, deleted ones included."""
        sizes = np.zeros(len(self), np.int64)
        for view, ids in zip(views, self.ids, strict=True):
            present = ids >= 0
            sizes[present] += view.ptr[ids[present] + 1] - view.ptr[ids[present]]
        return sizes

    def weights(
        self, stats: Statistics, terms: Ints | int, norms: Floats, tf: Ints, repeated: bool = True
    ) -> Floats:
        """Return the weights of postings of the given terms (positions in this plan, or one
        term's) from their rows' length norms (an array of the caller's, overwritten), times
        the terms' repeats unless not repeated (a bound is ordered by repeats apart)."""
        found = saturation(stats, norms, tf, reuse_norms=True)
        # The floats of idf times saturation, without a copy (a float times an array gives
        # the floats an array of that float gives).
        found *= self.idf[terms]
        if repeated and self.scaled:
            found *= self.repeats[terms]
        return found


NORM_ROWS = 1 << 18
"""norms_at keeps the length norms of a field of at most this many rows (the section and
document fields, summed whole; the unit text is read by range, a few rows a query)."""


def norms_at(view: FieldView, stats: Statistics, rows: Ints) -> Floats:
    """Return the BM25 length norms of some rows of a field under stats: gathered from the
    norms of every row, computed once per open field when it is small, else from the rows'
    lengths (the same floats either way: the same operations per row)."""
    if len(view.dl) > NORM_ROWS:
        return row_norms(stats, view.dl[rows])
    key = (stats.k1, stats.b, stats.avgdl)
    norms = view.memo.get(key)
    if norms is None:
        norms = view.memo[key] = row_norms(stats, np.asarray(view.dl))
    found: Floats = norms[rows]
    return found


def plan_field(
    views: Sequence[FieldView], stats: Statistics, counts: Mapping[str, float],
    bounds: bool = False,
) -> FieldTerms:  # fmt: skip
    """Return the terms of counts that have a live posting, ordered as plan_terms orders them,
    with each one's bound (read for one term too when bounds is asked for, else 0 there)."""
    # A query has a few terms: Python lists, not a dozen numpy calls on arrays of five.
    terms = list(counts)
    ids = [[view.term_id(t) for t in terms] for view in views]
    # Each term's live postings per segment (0 where it is absent).
    live = [
        [view.live_count(view.term_rows(i)[0]) if i >= 0 else 0 for i in found]
        for view, found in zip(views, ids, strict=True)
    ]
    df = [sum(n) for n in zip(*live, strict=True)] if live else [0] * len(terms)
    kept = [k for k, n in enumerate(df) if n > 0]
    term_idf = idf(stats, np.array([df[k] for k in kept], np.float64))
    weights = [float(counts[terms[k]]) for k in kept]
    repeats, scaled = np.array(weights, np.float64), any(w != 1 for w in weights)
    kept_ids = [np.array([found[k] if n[k] > 0 else -1 for k in kept], np.int64)
                for found, n in zip(ids, live, strict=True)]  # fmt: skip
    plan = FieldTerms(term_idf, repeats, kept_ids, np.zeros(len(kept)), scaled)
    # Two weights add to the same float in either order (IEEE addition commutes), so only
    # three terms or more need the order; most queries touch a heading or a title in two.
    if len(kept) <= 2 and not bounds:
        return plan
    found = [_bounds(v, stats, plan, i) for i, v in enumerate(views)]
    bound = [max(each) for each in zip(*found, strict=True)]
    keys = [(-weights[j] * bound[j], terms[k].encode("utf-8")) for j, k in enumerate(kept)]
    order = np.array(sorted(range(len(kept)), key=keys.__getitem__), np.int64)
    return FieldTerms(term_idf[order], repeats[order], [i[order] for i in kept_ids],
                      np.asarray(bound, np.float64)[order], scaled)  # fmt: skip


def _bounds(view: FieldView, stats: Statistics, plan: FieldTerms, seg: int) -> list[float]:
    """Return each planned term's largest live weight in segment seg (-inf: none there),
    from its frontier postings; a term whose frontier lost a posting reads all of its own."""
    ids, term_idf = plan.ids[seg].tolist(), plan.idf.tolist()
    present = [j for j, tid in enumerate(ids) if tid >= 0]
    if not present:
        return [-math.inf] * len(ids)
    tops, lows, dirty = _frontier_tops(view, stats)
    out = [-math.inf] * len(ids)
    for j in present:
        tid, factor = ids[j], term_idf[j]
        # Rounding a product is monotonic: an idf >= 0 times the largest saturation is the
        # largest of the idf times each one, a negative idf times the least is (a Python
        # float product is numpy's float).
        if dirty[tid]:  # the largest of its live weights
            live = live_slices(view.deleted, *view.term_rows(tid))
            found = [plan.weights(stats, j, norms_at(view, stats, r), tf, False) for r, tf in live]
            out[j] = float(max(weights.max() for weights in found))
        else:
            out[j] = factor * float(tops[tid] if factor >= 0 else lows[tid])
    return out


def _frontier_tops(view: FieldView, stats: Statistics) -> tuple[Floats, Floats, Mask]:
    """Return each term's largest and least saturation over its frontier postings under
    stats and whether its frontier holds a deleted row: kept while the field is open, as its
    length norms are (a pass over every frontier posting)."""
    key = ("front", stats.k1, stats.b, stats.avgdl)
    found = view.memo.get(key)
    if found is None:
        front = np.asarray(view.front)
        rows, tf = np.asarray(view.rows[front]), np.asarray(view.tf[front])
        sizes = np.diff(np.asarray(view.front_ptr, np.int64))
        tops, lows = np.full(len(sizes), -np.inf), np.full(len(sizes), np.inf)
        dirty = np.zeros(len(sizes), np.bool_)
        some = np.flatnonzero(sizes > 0)
        if len(some):
            starts = np.asarray(view.front_ptr, np.int64)[some]
            sat = saturation(stats, norms_at(view, stats, rows), tf)
            tops[some] = np.maximum.reduceat(sat, starts)
            lows[some] = np.minimum.reduceat(sat, starts)
            if view.deleted is not None:
                dirty[some] = np.logical_or.reduceat(view.deleted[rows], starts)
        found = view.memo[key] = tops, lows, dirty
    return found


class Scratch(threading.local):
    """Dense arrays of one search (a float per section), kept per thread for the next one:
    allocated anew, each query's would be mapped and faulted in again (about 1 ms a query at
    68,000 sections, measured in bench_context.py against MALLOC_TRIM_THRESHOLD_ raised)."""

    def __init__(self) -> None:
        self.arrays: dict[str, Floats] = {}

    def array(self, name: str, size: int, zeros: bool = False) -> Floats:
        """Return the thread's array of this name, size floats left as they were, or zeros
        (valid until asked again)."""
        found = self.arrays.get(name)
        if found is None or len(found) != size:
            found = self.arrays[name] = np.zeros(size)
        elif zeros:
            found.fill(0.0)
        return found


def field_scores(
    views: Sequence[FieldView], stats: Statistics, plan: FieldTerms, bases: Ints,
    out: Floats | None = None,
) -> Floats:  # fmt: skip
    """Return every row's score in one field (segment i's rows from bases[i]; into out, of
    zeros, when given), its live postings summed in plan order, a slice of one term at a
    time: a big temporary costs more in page faults than its arithmetic (5x at 400k)."""
    scores = np.zeros(int(bases[-1])) if out is None else out
    if int(plan.postings(views).sum()) <= SLICE:
        # Few postings: weighed at once; add.at adds them in the order given, term after
        # term at each row, as the loop below does.
        np.add.at(scores, *_postings(views, stats, plan, bases))
        return scores
    for j in range(len(plan)):
        for rows, weights in _weighted(views, stats, plan, bases, j):
            np.add.at(scores, rows, weights)  # scores[rows] += weights, in one pass
    return scores


SPARSE_SHARE = 8
"""sparse_scores sorts a field's postings when at most one row in this many has one, else
sums every row."""


def sparse_scores(
    views: Sequence[FieldView], stats: Statistics, plan: FieldTerms, bases: Ints
) -> tuple[Ints, Floats]:
    """Return the rows (ascending) with a score in one field and their scores, the floats
    field_scores gives there: bincount adds each row's weights in the order given, from
    0.0, as field_scores adds them term after term (a field most sections lack, such as the
    heading path, costs its postings, not a pass over every section)."""
    if int(plan.postings(views).sum()) * SPARSE_SHARE > int(bases[-1]):  # sorting costs more
        dense = field_scores(views, stats, plan, bases)
        nonzero: Ints = np.flatnonzero(dense).astype(np.int64)
        return nonzero, dense[nonzero]
    rows, weights = _postings(views, stats, plan, bases)
    found, inverse = np.unique(rows, return_inverse=True)
    total = np.bincount(inverse, weights, len(found)).astype(np.float64, copy=False)
    return found.astype(np.int64, copy=False), total


def _postings(
    views: Sequence[FieldView], stats: Statistics, plan: FieldTerms, bases: Ints
) -> tuple[Ints, Floats]:
    """Return every planned term's live postings, rows (segment i's from bases[i]) and
    weights, term after term: a row lies in one segment, so its weights come in the order
    they sum."""
    found = [p for j in range(len(plan)) for p in _weighted(views, stats, plan, bases, j)]
    rows = np.concatenate([np.zeros(0, np.int64), *(rows for rows, _ in found)])
    return rows, np.concatenate([np.zeros(0), *(weights for _, weights in found)])


SATURATED_POSTINGS = 1 << 20
"""A field of at most this many postings keeps each one's saturation while it is open (the
identity and heading-path fields: 8 MB at most), as it keeps its rows' norms."""


def _saturations(view: FieldView, stats: Statistics) -> Floats | None:
    """Return the saturation of every posting of a small field under stats (None: a large
    one), computed once per open field: saturation's floats, each posting's own."""
    if len(view.rows) > SATURATED_POSTINGS:
        return None
    key = ("sat", stats.k1, stats.b, stats.avgdl)
    found: Floats | None = view.memo.get(key)
    if found is None:
        rows, tf = np.asarray(view.rows), np.asarray(view.tf)
        found = view.memo[key] = saturation(stats, norms_at(view, stats, rows), tf)
    return found


def _weighted(
    views: Sequence[FieldView], stats: Statistics, plan: FieldTerms, bases: Ints, term: int
) -> Iterator[tuple[Ints, Floats]]:
    """Yield one planned term's live postings a slice at a time: rows (segment i's from
    bases[i]) and weights, from the kept saturations of a small field, else weighed now."""
    for seg, view in enumerate(views):
        tid = int(plan.ids[seg][term])
        if tid < 0:
            continue
        base, kept = int(bases[seg]), _saturations(view, stats)
        rows, tf = view.term_rows(tid)
        # A small field's postings carry their kept saturations where others carry their tf.
        values = tf if kept is None else kept[int(view.ptr[tid]) : int(view.ptr[tid + 1])]
        for some, found in live_slices(view.deleted, rows, values):
            # int64 rows: numpy gathers and scatters by int32 ones 3x slower.
            local = some.astype(np.int64)
            if kept is None:
                weights = plan.weights(stats, term, norms_at(view, stats, local), found)
            else:
                # A float times an array gives the floats an array of that float gives.
                weights = found * plan.idf[term]
                if plan.scaled:
                    weights *= plan.repeats[term]
            yield (local + base if base else local), weights


def range_postings(
    view: FieldView, stats: Statistics, plan: FieldTerms, seg: int, firsts: Ints, stops: Ints
) -> tuple[Ints, Ints, Ints, Floats]:
    """Return the planned terms' postings in rows firsts[r]..stops[r] of segment seg (runs
    ascending, none overlapping; a bisection per term, never a pass over its postings): each
    one's row (local to the segment), term (position in the plan), run (index into the runs
    asked for) and weight."""
    present = [(j, tid) for j, tid in enumerate(plan.ids[seg].tolist()) if tid >= 0]
    # first, stop, first, stop...: ascending, so each bisection starts where the last ended.
    bounds = np.column_stack([firsts, stops]).ravel().astype(view.rows.dtype)
    at = [
        np.searchsorted(view.rows[int(view.ptr[tid]) : int(view.ptr[tid + 1])], bounds)
        + int(view.ptr[tid])
        for _, tid in present
    ]
    lo, hi = np.concatenate([np.zeros(0, np.int64), *at]).reshape(-1, 2).T
    found = runs(lo, hi)
    rows, tf = np.asarray(view.rows[found], np.int64), np.asarray(view.tf[found])
    term_of = np.repeat(np.array([j for j, _ in present], np.int64), len(firsts)).repeat(hi - lo)
    run_of = np.tile(np.arange(len(firsts), dtype=np.int64), len(present)).repeat(hi - lo)
    weights = plan.weights(stats, term_of, norms_at(view, stats, rows), tf)
    return rows, term_of, run_of, weights


MAX_CANDIDATES = 1024
"""top_rows stops adding terms once this few rows can still reach the count best."""


def top_rows(
    views: Sequence[FieldView], stats: Statistics, plan: FieldTerms, bases: Ints,
    rank: tuple[float, Floats], allowed: Mask | None, count: int,
) -> tuple[Ints, Floats] | None:  # fmt: skip
    """Return the allowed rows (allowed None: every row) with a positive field score that
    can be among the count best by weight * field + others (rank is weight and every row's
    others, an array summed into in place), ties included, with their field scores (rows
    ascending); None when no term could be left out.

    MaxScore: terms are scored for every row rarest first, until the largest weights of the
    terms left (the most common) could lift at most MAX_CANDIDATES rows to the count-th best
    sum so far; the terms left cost a bisection per candidate, not a weight per posting. The
    scores returned are field_scores' floats at those rows."""
    weight, lower = rank
    if weight <= 0 or len(plan) < 2:
        return None
    order = np.argsort(plan.postings(views), kind="stable")
    # A row no scored term matches sums others alone: when none of those reaches, the reach
    # test reads the matched rows only, not every section.
    untouched = float(lower.max(initial=0.0))
    scored = np.zeros(len(plan), np.bool_)
    # A row is known once a scored term matches it, marked so that it joins once (sorting
    # every known row again per term costs more); a row access may not see starts marked.
    marked = np.zeros(len(lower), np.bool_) if allowed is None else ~allowed
    known = np.zeros(0, np.int64)
    for j in order[:-1].tolist():
        scored[j] = True
        fresh = [known]
        for rows, weights in _weighted(views, stats, plan, bases, j):
            weights *= weight  # in place: the same floats as weight * weights
            np.add.at(lower, rows, weights)  # a term's rows are distinct: lower[rows] += weights
            fresh.append(rows[~marked[rows]])
            marked[fresh[-1]] = True
        known = np.concatenate(fresh)
        candidates = _contenders(plan, weight, scored, (lower, untouched), known, allowed, count)
        if candidates is not None:
            # Each term's weight at a candidate found by bisection (a run of one row), added
            # by add.at in plan order: a row lies in one segment, its sum runs term after term.
            seg = np.searchsorted(bases, candidates, side="right") - 1
            scores = np.zeros(len(candidates))
            for i in np.unique(seg).tolist():
                mine = np.flatnonzero(seg == i)
                rows = candidates[mine] - bases[i]
                _, _, run_of, weights = range_postings(views[i], stats, plan, i, rows, rows + 1)
                np.add.at(scores, mine[run_of], weights)
            positive = scores > 0
            return candidates[positive], scores[positive]
    return None


def _contenders(
    plan: FieldTerms, weight: float, scored: Mask, sums: tuple[Floats, float],
    known: Ints, allowed: Mask | None, count: int,
) -> Ints | None:  # fmt: skip
    """Return the allowed rows (None: every row) whose sum so far (sums: every row's, and
    the largest of a row no scored term matches) plus the largest weights of the terms not
    yet scored reaches the count-th best sum of the known rows (allowed, matching a scored
    term; in any order), ascending, or None when too many do or too few are known."""
    lower, untouched = sums
    found = lower[known]
    if len(found) < count:
        return None
    floor = kth_largest(found, count)
    left = ~scored
    lift = weight * float((plan.bounds[left] * plan.repeats[left]).sum())
    # Sums in another order differ by rounding: a margin far above it keeps every contender.
    margin = 1e-9 * max(abs(floor), 1.0)
    reach = floor - lift - margin
    if reach <= 0:  # every row can still reach it: no term can be left out yet
        return None
    if untouched < reach:  # only matched rows can reach it
        above: Ints = known[found >= reach]
        return np.sort(above) if len(above) <= MAX_CANDIDATES else None
    reached = lower >= reach
    if allowed is not None:
        reached &= allowed
    if np.count_nonzero(reached) > MAX_CANDIDATES:
        return None
    return np.flatnonzero(reached)
