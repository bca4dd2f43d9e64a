"""Passages ranked as wholes: the "passages" context strategy.

The "window" strategy lets each unit's own score decide which hits grow. Here the candidate
passages around the hits are scored each as one text, as passage retrieval does, and the
context takes the best of them:

- candidates: for each hit, the runs of 2w + 1 units of its section that hold it (the hit
  centred, and slid to either side, so the best window of a region is found whichever hit
  it starts from: MaxP), its block, its section and, for a PDF, its page; every run that fits
  the budget whole.
- score: a BM25 of the run as one text, from the unit ranking's per-term weights: each query
  term's weight summed over the run's units is its term frequency (in units of its best
  unit's weight, which stands for its idf), saturated with k1 and normalized by the run's
  length against `length` words; plus the query-term coverage (the share of the query's
  weight whose terms the run holds) times the proximity of those terms (the fewest words of
  the run that hold them all), plus the best context fields (heading path, document identity,
  section text) of a hit inside it, which the unit ranking scored and the body weights lack.
  A dense cluster of hits in one region so scores above scattered hits.
- assembly: the best candidate first, then the next that does not overlap a chosen one and
  fits the words left (a candidate touching a chosen passage of its document joins it); the
  passages are then ordered by their scores (re-ranked after assembly).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from policy_assistant.index.chunks.bm25_types import Floats, Ints
from policy_assistant.index.context.passages import (
    ContextPassage,
    Span,
    is_bare_lead_in,
    span_words,
    to_passage,
    without_lead_in,
)
from policy_assistant.index.context.unit_rank import TermWeights
from policy_assistant.index.context.units import HEADING, UnitSet


@dataclass(frozen=True, slots=True)
class PassageSettings:
    """How candidate passages are scored and which levels are candidates."""

    k1: float = 1.2
    """Term frequency saturation of the passage BM25."""
    b: float = 0.75
    """Length normalization of the passage BM25."""
    length: int = 60
    """The passage length, in words, the BM25 normalizes against."""
    coverage: float = 1.0
    """Weight of the query-term coverage times proximity, in units of the query's weight."""
    spread: int = 30
    """Words over which proximity halves: the terms within `spread` words score 1/2."""
    fields: float = 1.0
    """Weight of the best context fields of a hit inside the passage."""
    text: float = 1.0
    """Weight of the passage's BM25."""
    blocks: bool = True
    """Whether a hit's block is a candidate."""
    sections: bool = True
    """Whether a hit's section is a candidate."""
    pages: bool = True
    """Whether a hit's PDF page is a candidate."""
    mix: float = 0.0
    """0: the context is the best candidates taken whole (passage_context); above 0: each
    hit is re-scored as its unit score plus this times its best candidate's score and the
    windows are assembled in that order (rank_hits)."""


@dataclass(frozen=True, slots=True)
class _Terms:
    """The query terms' weights at the rows the candidates span."""

    first: int
    """The first row held."""
    cum: Floats
    """Per term, the cumulative sum of its weight over rows first.. (one column more)."""
    best: Floats
    """Per term, its best weight at any unit scored: its weight in the query."""
    rows: Ints
    """Rows holding a query term, ascending."""
    held: list[frozenset[int]]
    """The terms each of those rows holds."""


def passage_context(
    units: UnitSet, hits: Sequence[tuple[int, float]], weights: TermWeights, budget: int,
    window: int, settings: PassageSettings,
) -> list[ContextPassage]:  # fmt: skip
    """Return the context of the best passages around the hits, at most `budget` words."""
    if not hits:
        return []
    kinds = units.col("unit_kind")[[row for row, _ in hits]].tolist()
    hits = [h for h, kind in zip(hits, kinds, strict=True) if kind != HEADING] or list(hits)
    spans = candidates(units, [row for row, _ in hits], window, settings)
    spans = [s for s in spans if span_words(units, s) <= budget and not is_bare_lead_in(units, s)]
    if not spans:
        return []
    chosen = choose(units, _score_spans(units, spans, hits, weights, settings), budget)
    chosen = sorted(chosen, key=lambda s: (-s.score, s.doc, s.first))
    return [to_passage(units, without_lead_in(units, s), r) for r, s in enumerate(chosen, 1)]


def rank_hits(
    units: UnitSet, hits: Sequence[tuple[int, float]], weights: TermWeights, budget: int,
    window: int, settings: PassageSettings,
) -> list[tuple[int, float]]:  # fmt: skip
    """Return the hits re-scored by their best candidate passage that fits the budget (its
    score times settings.mix added to theirs), best first (ties: the search's order)."""
    if not hits:
        return []
    per_hit = [
        [s for s in candidates(units, [row], window, settings) if span_words(units, s) <= budget]
        for row, _ in hits
    ]
    flat = [s for spans in per_hit for s in spans]
    if not flat:
        return list(hits)
    scores = iter(s.score for s in _score_spans(units, flat, hits, weights, settings))
    rescored = []
    for (row, score), spans in zip(hits, per_hit, strict=True):
        best = max((next(scores) for _ in spans), default=0.0)
        rescored.append((row, score + settings.mix * best))
    return sorted(rescored, key=lambda hit: -hit[1])  # stable: ties keep the search's order


def candidates(
    units: UnitSet, rows: Sequence[int], window: int, settings: PassageSettings
) -> list[Span]:
    """Return the distinct candidate runs around the hit rows, in the hits' order."""
    cols = units.columns
    seen: dict[tuple[int, int], Span] = {}
    for row in rows:
        doc, section = int(cols["unit_doc"][row]), int(cols["unit_section"][row])
        lo, hi = units.section_range(section)
        runs = [(max(lo, start), min(hi, start + 2 * window)) for start in
                range(row - 2 * window, row + 1)] if window else [(row, row)]  # fmt: skip
        if settings.blocks:
            runs.append(units.block_range(int(cols["unit_block"][row])))
        if settings.sections:
            runs.append((lo, hi))
        if settings.pages:
            runs.extend(page_range(units, row))
        for first, last in runs:
            if first <= row <= last:
                seen.setdefault((first, last), Span(doc, first, last, 0.0))
    return list(seen.values())


def page_range(units: UnitSet, row: int) -> list[tuple[int, int]]:
    """Return the first and last rows of the units starting on the row's PDF page (none when
    the document has no pages)."""
    cols = units.columns
    doc = int(cols["unit_doc"][row])
    starts = units.docs[doc].pages
    if not starts:
        return []
    begin, end = int(cols["doc_first"][doc]), int(cols["doc_first"][doc + 1])
    at = int(cols["unit_start"][row])
    page = bisect.bisect_right(starts, at) - 1
    low = starts[page] if page >= 0 else 0
    high = starts[page + 1] if page + 1 < len(starts) else None
    offsets = cols["unit_start"][begin:end]
    first = begin + int(np.searchsorted(offsets, low, side="left"))
    last = begin + int(np.searchsorted(offsets, high, side="left")) - 1 if high else end - 1
    return [(first, last)] if first <= row <= last else []


def term_rows(weights: TermWeights, first: int, last: int) -> _Terms:
    """Return the query terms' weights over rows first..last."""
    terms = weights.matrix.shape[0]
    dense = np.zeros((terms, last - first + 1))
    inside = (weights.rows >= first) & (weights.rows <= last)
    dense[:, weights.rows[inside] - first] = weights.matrix[:, inside]
    cum = np.concatenate([np.zeros((terms, 1)), np.cumsum(dense, axis=1)], axis=1)
    best = weights.matrix.max(axis=1) if weights.matrix.size else np.zeros(terms)
    holding = np.flatnonzero(dense.any(axis=0))
    held = [frozenset(np.flatnonzero(dense[:, i]).tolist()) for i in holding.tolist()]
    return _Terms(first, cum, best, holding + first, held)


def _score_spans(
    units: UnitSet, spans: Sequence[Span], hits: Sequence[tuple[int, float]],
    weights: TermWeights, settings: PassageSettings,
) -> list[Span]:  # fmt: skip
    """Return the spans, each with its score as one passage."""
    terms = term_rows(weights, min(s.first for s in spans), max(s.last for s in spans))
    fields = _hit_fields(hits, weights)
    out = []
    for span in spans:
        words = span_words(units, span)
        tf = terms.cum[:, span.last + 1 - terms.first] - terms.cum[:, span.first - terms.first]
        text = bm25(tf, terms.best, words, settings)
        near = settings.coverage * _proximity(units, terms, span, settings.spread)
        context = max((f for row, f in fields.items() if span.first <= row <= span.last), default=0)
        score = settings.text * text + near + settings.fields * context
        out.append(replace(span, score=score))
    return out


def bm25(tf: Floats, best: Floats, words: int, settings: PassageSettings) -> float:
    """Return the BM25 of a passage from its per-term summed weights (tf in best units)."""
    present = best > 0
    freq = tf[present] / best[present]
    norm = settings.k1 * (1 - settings.b + settings.b * words / settings.length)
    return float(np.sum(best[present] * freq * (settings.k1 + 1) / (freq + norm)))


def _proximity(units: UnitSet, terms: _Terms, span: Span, spread: int) -> float:
    """Return the weight of the query terms the span holds times how close they are: the
    fewest words of the span's units that hold them all, halving every `spread` words."""
    lo = bisect.bisect_left(terms.rows, span.first)
    hi = bisect.bisect_right(terms.rows, span.last)
    if lo == hi:
        return 0.0
    rows, held = terms.rows[lo:hi].tolist(), terms.held[lo:hi]
    wanted = frozenset().union(*held)
    fewest = _fewest_words(units, rows, held, wanted)
    weight = float(terms.best[sorted(wanted)].sum())
    return weight / (1.0 + fewest / spread)


def _fewest_words(
    units: UnitSet, rows: list[int], held: list[frozenset[int]], wanted: frozenset[int]
) -> int:
    """Return the fewest words of a run of rows that holds every wanted term (two pointers)."""
    counts: dict[int, int] = {}
    fewest, left = units.words(rows[0], rows[-1]), 0
    for right, found in enumerate(held):
        for t in found:
            counts[t] = counts.get(t, 0) + 1
        while len(counts) == len(wanted):
            fewest = min(fewest, units.words(rows[left], rows[right]))
            for t in held[left]:
                counts[t] -= 1
                if not counts[t]:
                    del counts[t]
            left += 1
    return fewest


def _hit_fields(hits: Sequence[tuple[int, float]], weights: TermWeights) -> dict[int, float]:
    """Return each hit's score beyond its own text's weights: its context fields."""
    rows = np.array([row for row, _ in hits], np.int64)
    at = np.minimum(np.searchsorted(weights.rows, rows), max(len(weights.rows) - 1, 0))
    own = np.zeros(len(rows))
    if len(weights.rows):
        found = weights.rows[at] == rows
        own[found] = weights.matrix[:, at[found]].sum(axis=0)
    return {row: max(score - float(o), 0.0) for (row, score), o in zip(hits, own, strict=True)}


def choose(units: UnitSet, scored: Sequence[Span], budget: int) -> list[Span]:
    """Return the best spans that fit the budget together: a span overlapping or touching
    chosen ones of its document joins them (one prefix for all) when their union fits."""
    chosen: list[Span] = []
    used = 0
    for span in sorted(scored, key=lambda s: (-s.score, s.doc, s.first, s.last)):
        joined = [c for c in chosen if c.doc == span.doc and
                  c.first <= span.last + 1 and span.first <= c.last + 1]  # fmt: skip
        if any(c.first <= span.first and span.last <= c.last for c in joined):
            continue  # nothing new
        merged = span
        for c in joined:
            merged = Span(c.doc, min(c.first, merged.first), max(c.last, merged.last),
                          max(c.score, merged.score))  # fmt: skip
        cost = span_words(units, merged) - sum(span_words(units, c) for c in joined)
        if used + cost > budget:
            continue
        chosen = [c for c in chosen if c not in joined] + [merged]
        used += cost
    return chosen
