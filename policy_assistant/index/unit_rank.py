"""Unit search over live unit segments: the ranking UnitIndex gives a cold build, to the bit.

Every field's N, average length and per-term document frequency are summed over the live
segments (segment_search.plan_terms), weights are computed from raw counts as BM25Index
computes them at build time, and every sum runs in BM25Index's term order, so each section
and unit gets the cold build's float. What a cold build orders by row, this orders by
(source, row within the document): a cold build's rows are in that order. The steps are
UnitIndex._ranked's: the passage, heading-path and identity fields per section, the best
SECTIONS sections by them, then the unit text of those sections' units. The hits come back
in a UnitSet of their documents alone (unit_open.doc_units), which is all the context
assembler reads: each document is whole in one segment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from policy_assistant.index.bm25_types import Floats, Ints
from policy_assistant.index.segment_search import (
    Planned,
    Statistics,
    _weights,
    accumulate,
    plan_terms,
)
from policy_assistant.index.tokenize import tokenize
from policy_assistant.index.unit_open import UnitSegment, doc_units
from policy_assistant.index.unit_search import SECTIONS, SECTIONS_PER_HIT, TermWeights, _best
from policy_assistant.index.units import UnitSet
from policy_assistant.records import ACCESS_LABELS

Hits = list[tuple[int, float]]


@dataclass(frozen=True)
class _Chosen:
    """The sections whose units are scored, in a cold build's row order."""

    seg: Ints
    """Each one's segment."""
    local: Ints
    """Each one's section row in its segment."""
    part: Floats
    """Each one's weighted fields (passage, heading path, identity)."""


class SegmentedUnits:
    """The live unit segments of a generation, ranked as one cold UnitIndex ranks."""

    def __init__(
        self, segments: Sequence[UnitSegment], stats: dict[str, Statistics],
        weights: dict[str, float],
    ) -> None:  # fmt: skip
        self.segments, self.stats, self.weights = list(segments), stats, dict(weights)
        self._views = {f: [s.fields[f] for s in self.segments] for f in stats}
        self._bases = {
            "sections": _bases([s.sections for s in self.segments]),
            "documents": _bases([s.info.rows for s in self.segments]),
        }

    def ranked(self, query: str, n: int, access: str | None = None) -> tuple[UnitSet, Hits, Any]:
        """Return the hits' documents as units, up to n (row, score) hits there, best first,
        and each query term's unit-text weight at their scored units (UnitIndex.ranked)."""
        level = ACCESS_LABELS.index(access or ACCESS_LABELS[0])
        terms = tokenize(query)
        if n <= 0 or not terms or not self.segments:
            return doc_units(self.segments, []), [], _no_weights()
        chosen = self._sections(terms, max(SECTIONS, SECTIONS_PER_HIT * n), level)
        units, matrix, part = self._unit_scores(terms, chosen)
        total = matrix.sum(axis=0) + part
        keep = _best(np.arange(len(units)), total, n)
        order = keep[np.lexsort((keep, -total[keep]))]
        return self._answer(units, matrix, [(int(i), float(total[i])) for i in order])

    def _field(self, name: str, terms: list[str]) -> Floats:
        """Return one field's score of every row (sections or documents, segment by segment)."""
        views, stats = self._views[name], self.stats[name]
        bases = self._bases["documents" if name == "documents" else "sections"]
        return accumulate(views, stats, plan_terms(views, stats, terms), bases)

    def _sections(self, terms: list[str], count: int, level: int) -> _Chosen:
        """Return the count best sections access may see, by their fields (UnitIndex._ranked)."""
        passage = self._field("passages", terms)
        part = self.weights.get("passage", 0.0) * passage
        weight = self.weights.get("section", 0.0)
        if weight:
            part += weight * self._field("sections", terms)
        weight = self.weights.get("document", 0.0)
        if weight:
            documents = weight * self._field("documents", terms)
            for i, segment in enumerate(self.segments):
                at, doc_at = self._bases["sections"][i], self._bases["documents"][i]
                part[at : at + segment.sections] += documents[doc_at:][
                    np.asarray(segment.columns["section_doc"])
                ]
        access = np.concatenate([s.section_access for s in self.segments])
        eligible = np.flatnonzero((passage > 0) & (access <= level))
        key = part if self.weights.get("passage", 0.0) else part + passage
        picked = self._in_order(self._best_sections(eligible, key[eligible], count))
        seg = np.searchsorted(self._bases["sections"], picked, side="right") - 1
        return _Chosen(seg, picked - self._bases["sections"][seg], part[picked])

    def _best_sections(self, rows: Ints, scores: Floats, count: int) -> Ints:
        """Return the rows of the count best scores; of rows tied at the count-th, the first
        in a cold build's order."""
        if len(rows) <= count:
            return rows
        kth = np.partition(scores, len(scores) - count)[len(scores) - count]
        above, tied = rows[scores > kth], rows[scores == kth]
        room = count - len(above)
        # Within a segment rows are in cold order: each one's first few tied can win a place.
        seg_of = np.searchsorted(self._bases["sections"], tied, side="right") - 1
        firsts = np.concatenate([tied[seg_of == s][:room] for s in np.unique(seg_of)])
        return np.concatenate([above, self._in_order(firsts)[:room]])

    def _in_order(self, rows: Ints) -> Ints:
        """Return section rows sorted as a cold build holds them: (source, row in segment)."""
        bases = self._bases["sections"]
        keys = []
        for row in rows.tolist():
            seg = int(np.searchsorted(bases, row, side="right") - 1)
            segment, local = self.segments[seg], row - int(bases[seg])
            doc = int(segment.columns["section_doc"][local])
            keys.append((segment.doc(doc).source, local, row))
        return np.array([row for _, _, row in sorted(keys)], np.int64)

    def _unit_scores(self, terms: list[str], chosen: _Chosen) -> tuple[Any, Floats, Floats]:
        """Return the chosen sections' units that a term touches (segment, local row: in cold
        order), per body term its weight at each, and each unit's section fields."""
        views, stats = self._views["body"], self.stats["body"]
        planned = plan_terms(views, stats, terms)
        starts, stops = [], []
        for seg, local in zip(chosen.seg.tolist(), chosen.local.tolist(), strict=True):
            first = self.segments[seg].columns["section_first"]
            starts.append(int(first[local]))
            stops.append(int(first[local + 1]))
        sizes = np.array(stops, np.int64) - np.array(starts, np.int64)
        base = np.concatenate([[0], np.cumsum(sizes)])
        found = [_in_ranges(views, stats, term, chosen, starts, base) for term in planned]
        codes = np.unique(np.concatenate([c for c, _ in found])) if found else np.zeros(0, int)
        matrix = np.zeros((len(found), len(codes)))
        for t, (term_codes, weights) in enumerate(found):
            matrix[t, np.searchsorted(codes, term_codes)] = weights
        section = np.searchsorted(base, codes, side="right") - 1
        units = np.column_stack(
            [chosen.seg[section], codes - base[section] + np.array(starts, np.int64)[section]]
        ) if len(codes) else np.zeros((0, 2), np.int64)  # fmt: skip
        return units, matrix, chosen.part[section]

    def _answer(self, units: Any, matrix: Floats, hits: Hits) -> tuple[UnitSet, Hits, Any]:
        """Return the hits' documents' UnitSet, the hits and term weights renumbered in it."""
        segs, rows = np.asarray(units[:, 0], np.int64), np.asarray(units[:, 1], np.int64)
        docs, starts = self._docs_of(segs, rows)
        doc_of: dict[tuple[int, int], str] = {}
        for i, _ in hits:
            key = (int(segs[i]), int(docs[i]))
            if key not in doc_of:
                doc_of[key] = self.segments[key[0]].doc(key[1]).source
        picks = sorted(doc_of, key=doc_of.__getitem__)
        unit_set = doc_units(self.segments, picks)
        compact = _renumbered(segs, docs, rows - starts, picks, unit_set.col("doc_first"))
        kept = compact >= 0
        weights = TermWeights(compact[kept], matrix[:, kept])
        return unit_set, [(int(compact[i]), score) for i, score in hits], weights

    def _docs_of(self, segs: Ints, rows: Ints) -> tuple[Ints, Ints]:
        """Return each (segment, row) unit's document and that document's first unit row."""
        docs, starts = np.zeros(len(rows), np.int64), np.zeros(len(rows), np.int64)
        for i, segment in enumerate(self.segments):
            mine = np.flatnonzero(segs == i)
            if len(mine):
                found = np.asarray(segment.columns["unit_doc"][rows[mine]], np.int64)
                docs[mine] = found
                starts[mine] = np.asarray(segment.columns["doc_first"][found], np.int64)
        return docs, starts

    def close(self) -> None:
        """Release every segment's files."""
        for segment in self.segments:
            segment.close()


def _renumbered(
    segs: Ints, docs: Ints, offsets: Ints, picks: Sequence[tuple[int, int]], firsts: Ints
) -> Ints:
    """Return each unit's row in the UnitSet of picks (-1 for a unit of another document),
    from its (segment, document) and its offset in that document."""
    if not picks:
        return np.full(len(docs), -1, np.int64)
    width = int(docs.max(initial=0)) + 1 + max(d for _, d in picks)
    keys = segs * width + docs
    picked = np.array([s * width + d for s, d in picks], np.int64)
    order = np.argsort(picked)
    at = np.minimum(np.searchsorted(picked[order], keys), len(picks) - 1)
    found = picked[order][at] == keys
    first = np.asarray(firsts[: len(picks)], np.int64)[order][at]
    return np.where(found, first + offsets, -1)


def _in_ranges(
    views: Sequence[Any], stats: Statistics, term: Planned, chosen: _Chosen,
    starts: list[int], base: Ints,
) -> tuple[Ints, Floats]:  # fmt: skip
    """Return one term's postings inside the chosen sections' unit ranges: each one's place
    among the chosen units (base) and its weight."""
    repeats, term_idf, parts = term
    codes, weights = [], []
    for i, rows, tf in parts:
        mine = np.flatnonzero(chosen.seg == i)
        if not len(mine):
            continue
        first = np.array([starts[c] for c in mine.tolist()], np.int64)
        stop = first + (base[mine + 1] - base[mine])
        lo, hi = np.searchsorted(rows, first), np.searchsorted(rows, stop)
        sizes = hi - lo
        picks = np.repeat(lo - np.cumsum(sizes) + sizes, sizes) + np.arange(int(sizes.sum()))
        local = np.asarray(rows[picks], np.int64)
        codes.append(local - np.repeat(first - base[mine], sizes))
        found = _weights(stats, term_idf, views[i], local, tf[picks])
        weights.append(found * repeats if repeats != 1 else found)
    if not codes:
        return np.zeros(0, np.int64), np.zeros(0)
    return np.concatenate(codes), np.concatenate(weights)


def _bases(sizes: Sequence[int]) -> Ints:
    """Return each segment's first row in the concatenation, then the total."""
    return np.concatenate([[0], np.cumsum(np.asarray(sizes, np.int64))]).astype(np.int64)


def _no_weights() -> TermWeights:
    return TermWeights(np.empty(0, np.int64), np.zeros((0, 0)))


def field_statistics(
    counts: Mapping[str, tuple[int, int, int]],
    bm25: Mapping[str, Any],
    mean_idf: Mapping[str, float],
) -> dict[str, Statistics]:
    """Return each field's Statistics from its live (rows, nonempty, length) and settings."""
    out = {}
    for name, (rows, nonempty, length) in counts.items():
        counted = nonempty if bm25["variant"] == "lucene" else rows
        avgdl = float(length) / counted if counted else 0.0
        out[name] = Statistics(
            bm25["variant"], bm25["k1"], bm25["b"], counted, avgdl,
            float(mean_idf.get(name, 0.0)), float(bm25.get("epsilon", 0.25)),
        )  # fmt: skip
    return out
