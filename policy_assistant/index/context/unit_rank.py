"""Unit search: the one ranker of retrieval units, over the live unit segments of a store.

A unit's score is a weighted sum of four per-field BM25s (unit_segment.FIELD_TEXTS): its own
text, its section's heading path, its document's identity and its section's whole text (so
terms spread over a section lift each of its matching units). Only units whose own text
matches score: the context fields rank a matching unit above a look-alike, never bring one
in. A sum of per-field BM25s, not BM25F: the fields are stored once per section and document.

Every field's N, average length and document frequencies are summed over the live segments,
so several segments rank as one segment of the same documents (a cold ingest) does, ordered
by (source, row within the document). A search keeps the best SECTIONS sections by their
fields (MaxScore over the passage field), then scores their units' text, read by range. The
hits come back in their segment's own UnitSet when they all lie in one, else in a UnitSet of
their documents alone: all the assembler reads, each document being whole in one segment.

Dense ranks every live unit the caller may see by its vector (the unit's text embedded with
its title and heading path); hybrid fuses that with BM25's ranking, so a unit that shares no
word with the query can still lead a context.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from policy_assistant.errors import BadIndex, UsageError
from policy_assistant.index.chunks.bm25_types import Floats, Ints
from policy_assistant.index.chunks.dense import dense_search, fused, has_vectors, seen_products
from policy_assistant.index.chunks.segment_search import Found, Statistics, best_first
from policy_assistant.index.context.unit_open import UnitSegment, doc_units, segment_units
from policy_assistant.index.context.unit_terms import (
    Scratch,
    field_scores,
    plan_field,
    range_postings,
    sparse_scores,
    top_rows,
)
from policy_assistant.index.context.units import UnitSet, starts_of
from policy_assistant.index.settings import RankerSettings
from policy_assistant.index.tokenize import tokenize
from policy_assistant.records import ACCESS_LABELS

Hits = list[tuple[int, float]]
Vector = npt.NDArray[np.float32]
SECTIONS = 100
"""Sections, the best by their fields, whose units are scored, at least."""
SECTIONS_PER_HIT = 2
"""... and at least this many per hit asked for."""


@dataclass(frozen=True, slots=True)
class TermWeights:
    """Each query term's unit-text BM25 weight at the units a search scored."""

    rows: Ints
    """The unit rows, ascending."""
    matrix: Floats
    """One row per query term, one column per unit row: the term's weight there (0: absent)."""


class _Context:
    """A query's weighted heading-path field (its matching sections) and identity field
    (every document), added to a section's passage field in that order."""

    def __init__(self, section_docs: Ints) -> None:
        self.section_docs = section_docs
        self.sections: tuple[Ints, Floats] | None = None
        """The sections with a heading-path score, ascending, and their scores."""
        self.documents: Floats | None = None
        """Each document's identity score."""

    def summed(self, out: Floats) -> Floats:
        """Return both fields summed at every section, into out (heading path + identity:
        IEEE addition commutes, so the identity spread first gives the same floats)."""
        if self.documents is None:
            out.fill(0.0)
        else:
            # int64 indices and mode="clip" (they are in range): a narrow index type, or
            # mode="raise" with out=, makes take copy: 10x slower at 62,000 sections.
            np.take(self.documents, self.section_docs, out=out, mode="clip")
        if self.sections is not None:
            out[self.sections[0]] += self.sections[1]
        return out

    def add_at(self, rows: Ints, part: Floats) -> None:
        """Add the heading-path, then the identity score of sections rows to part, in place."""
        if self.sections is not None:
            found, scores = self.sections
            at = np.minimum(np.searchsorted(found, rows), max(len(found) - 1, 0))
            hit = np.flatnonzero(found[at] == rows) if len(found) else at[:0]
            part[hit] += scores[at[hit]]
        if self.documents is not None:
            part += self.documents[self.section_docs[rows]]


class SegmentedUnits:
    """The live unit segments of a store, ranked as one segment of their documents ranks."""

    def __init__(
        self, segments: Sequence[UnitSegment], stats: dict[str, Statistics],
        weights: dict[str, float],
    ) -> None:  # fmt: skip
        self.segments, self.stats = list(segments), stats
        self.weights = dict(weights)
        """Weights of the section, document and passage fields."""
        self._views = {f: [s.fields[f] for s in self.segments] for f in stats}
        self._scratch = Scratch()
        self._allowed_at: dict[int, npt.NDArray[np.bool_] | None] = {}
        self._bases = {
            "sections": starts_of([s.sections for s in self.segments]),
            "documents": starts_of([s.info.rows for s in self.segments]),
        }

    def has_vectors(self) -> bool:
        """Return whether every live unit segment holds vectors (dense and hybrid can rank)."""
        return has_vectors(self.segments)

    def with_options(self, weights: dict[str, float] | None = None) -> SegmentedUnits:
        """Return a ranker over the same open segments with other field weights (None:
        these); closing either closes both."""
        other = copy.copy(self)
        if weights is not None:
            other.weights = dict(weights)
        other._scratch = Scratch()
        return other

    def __len__(self) -> int:
        """Live units."""
        views = self._views["body"]
        return sum(len(v.dl) - (0 if v.deleted is None else int(v.deleted.sum())) for v in views)

    def ranked(
        self, query: str, n: int, access: str | None = None,
        ranker: RankerSettings | None = None, vector: Any = None,
    ) -> tuple[UnitSet, Hits, Any]:  # fmt: skip
        """Return the hits' documents as units, up to n (row, score) hits there that access may
        see (None: public, fail closed), best first (ties: by row), and each query term's
        unit-text weight at every unit of the sections searched (what window_gains reads), by
        ranker (None: BM25; dense and hybrid: ranked_by_vectors, with the query's vector)."""
        level = ACCESS_LABELS.index(access or ACCESS_LABELS[0])
        by_vectors = ranker if ranker is not None and ranker.ranker != "bm25" else None
        if by_vectors is not None and vector is None:
            raise UsageError(f"the {by_vectors.ranker} ranker needs the query's vector")
        terms = tokenize(query) if by_vectors is None else []
        if n <= 0 or not self.segments or (by_vectors is None and not terms):
            none = TermWeights(np.empty(0, np.int64), np.zeros((0, 0)))
            return doc_units(self.segments, []), [], none
        if by_vectors is not None:
            return ranked_by_vectors(self, query, vector, n, level, by_vectors)
        return self.answer(*self.scored(Counter(terms), n, level))

    def scored(self, counts: Mapping[str, float], n: int, level: int) -> tuple[Ints, Floats, Hits]:
        """Return the units scored for weighted query terms ((segment, row) pairs in a cold
        build's order), each term's weight at each, and the n best as (position, score)."""
        chosen = self._sections(counts, max(SECTIONS, SECTIONS_PER_HIT * n), level)
        units, matrix, part = self._unit_scores(counts, *chosen)
        total = matrix.sum(axis=0) + part
        order, _ = best_first(np.arange(len(units)), total, n)
        return units, matrix, [(int(i), float(total[i])) for i in order]

    def _sections(
        self, terms: Mapping[str, float], count: int, level: int
    ) -> tuple[Ints, Ints, Floats]:
        """Return the count best sections access may see, by their fields, in a cold build's
        row order: each one's segment, section row in it and weighted fields (passage,
        heading path, identity)."""
        weight = self.weights.get("passage", 0.0)
        views, stats = self._views["passages"], self.stats["passages"]
        bases = self._bases["sections"]
        plan = plan_field(views, stats, terms, bounds=True)  # MaxScore reads the bounds
        context = self._context_fields(terms)
        allowed = self._allowed(level)
        size, scratch = int(bases[-1]), self._scratch
        found = None
        if weight > 0 and len(plan) > 1:
            # Its documents rank by every section's field; MaxScore sums into the context.
            lower = context.summed(scratch.array("lower", size))
            found = top_rows(views, stats, plan, bases, (weight, lower), allowed, count)
        if found is None:
            out = scratch.array("passage", size, zeros=True)
            passage = field_scores(views, stats, plan, bases, out)
            positive = passage > 0
            rows = np.flatnonzero(positive if allowed is None else allowed & positive)
            found = rows, passage[rows]
        rows, passage = found
        part = weight * passage
        context.add_at(rows, part)
        key = part if weight else part + passage
        picked = self._in_order(self._best_sections(rows, key, count))
        seg = np.searchsorted(bases, picked, side="right") - 1
        return seg, picked - bases[seg], part[np.searchsorted(rows, picked)]

    @cached_property
    def _section_docs(self) -> Ints:
        """Each section's document, numbered across segments (bases["documents"])."""
        return np.concatenate([
            np.asarray(s.columns["section_doc"], np.int64) + self._bases["documents"][i]
            for i, s in enumerate(self.segments)
        ])  # fmt: skip

    def _context_fields(self, terms: Mapping[str, float]) -> _Context:
        """Return the weighted heading-path and identity fields (those weighted above 0 that
        a query term occurs in: any other adds zeros, and x + 0.0 is x)."""
        out = _Context(self._section_docs)
        weight = self.weights.get("section", 0.0)
        views, stats = self._views["sections"], self.stats["sections"]
        plan = plan_field(views, stats, terms) if weight else None
        if plan:
            rows, scores = sparse_scores(views, stats, plan, self._bases["sections"])
            scores *= weight
            out.sections = rows, scores
        weight = self.weights.get("document", 0.0)
        views, stats = self._views["documents"], self.stats["documents"]
        plan = plan_field(views, stats, terms) if weight else None
        if plan:
            out.documents = field_scores(views, stats, plan, self._bases["documents"])
            out.documents *= weight
        return out

    def _allowed(self, level: int) -> npt.NDArray[np.bool_] | None:
        """Return whether each section is live and access at this level may see it, None
        when every one is (kept per level: it depends on the generation alone)."""
        if level not in self._allowed_at:
            found = self._section_access <= level
            self._allowed_at[level] = None if bool(found.all()) else found
        return self._allowed_at[level]

    @cached_property
    def _section_access(self) -> npt.NDArray[np.uint8]:
        """Each section's access code (its document's), segment after segment; a deleted
        one's is len(ACCESS_LABELS), which no level may see."""
        codes = []
        for s in self.segments:
            code = np.asarray(s.columns["doc_access"])[s.columns["section_doc"]]
            dead = s.fields["passages"].deleted
            codes.append(code if dead is None else np.where(dead, len(ACCESS_LABELS), code))
        return np.concatenate(codes)

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
        seg = np.searchsorted(bases, rows, side="right") - 1
        return rows[self.cold_order(seg, rows - bases[seg], "section_doc")]

    def cold_order(self, seg: Ints, local: Ints, doc_column: str) -> Ints:
        """Return the order that sorts distinct rows (segment, local row) as a cold build
        holds them: by their document's source (doc_column: each row's), then row."""
        if len(np.unique(seg)) <= 1:  # a segment's documents are in source order
            return np.argsort(local)
        docs = self._column(doc_column, seg, local)
        pairs = sorted({(int(s), int(d)) for s, d in zip(seg, docs, strict=True)},
                       key=lambda p: self.segments[p[0]].doc(p[1]).source)  # fmt: skip
        width = int(docs.max()) + 1
        rank = np.zeros(len(self.segments) * width, np.int64)
        rank[[s * width + d for s, d in pairs]] = np.arange(len(pairs))
        return np.lexsort((local, rank[seg * width + docs]))

    def _unit_scores(
        self, terms: Mapping[str, float], seg: Ints, local: Ints, part: Floats
    ) -> tuple[Any, Floats, Floats]:
        """Return the units of the sections chosen (_sections) that a term touches (segment,
        local row: in cold order), per body term its weight at each, and each unit's section
        fields."""
        views, stats = self._views["body"], self.stats["body"]
        plan = plan_field(views, stats, terms)
        firsts = self._column("section_first", seg, local)
        stops = self._column("section_first", seg, local + 1)
        base = starts_of(stops - firsts)
        codes_of, terms_of, weights_of = [], [], []
        for i in np.unique(seg).tolist():
            mine = np.flatnonzero(seg == i)
            rows, term_of, run_of, weights = range_postings(
                views[i], stats, plan, i, firsts[mine], stops[mine]
            )
            codes_of.append(rows - firsts[mine][run_of] + base[mine][run_of])
            terms_of.append(term_of)
            weights_of.append(weights)
        codes = np.concatenate(codes_of) if codes_of else np.zeros(0, np.int64)
        # The chosen sections' units are few: a mark per unit finds the distinct codes and
        # each one's place without sorting the postings.
        touched = np.zeros(int(base[-1]), np.bool_)
        touched[codes] = True
        unique = np.flatnonzero(touched)
        matrix = np.zeros((len(plan), len(unique)))
        if len(codes):
            place = np.cumsum(touched) - 1
            matrix[np.concatenate(terms_of), place[codes]] = np.concatenate(weights_of)
        section = np.searchsorted(base, unique, side="right") - 1
        units = np.column_stack([seg[section], unique - base[section] + firsts[section]])
        return units.astype(np.int64), matrix, part[section]

    def _column(self, name: str, segs: Ints, rows: Ints) -> Ints:
        """Return a column's value at each (segment, local row), as int64."""
        out = np.zeros(len(rows), np.int64)
        for i in np.unique(segs).tolist():
            mine = segs == i
            out[mine] = self.segments[i].columns[name][rows[mine]]
        return out

    def answer(self, units: Any, matrix: Floats, hits: Hits) -> tuple[UnitSet, Hits, Any]:
        """Return the hits' documents' UnitSet, the hits and term weights renumbered in it
        (units: (segment, row) pairs in a cold build's order; hits: positions in units)."""
        segs, rows = np.asarray(units[:, 0], np.int64), np.asarray(units[:, 1], np.int64)
        hit_segs = {int(segs[i]) for i, _ in hits}
        if len(hit_segs) == 1:  # the whole segment stands for the hits' documents: no copy
            mine, found = segs == min(hit_segs), segment_units(self.segments[min(hit_segs)])
            weights = TermWeights(rows[mine], matrix[:, mine])
            return found, [(int(rows[i]), s) for i, s in hits], weights
        docs = self._column("unit_doc", segs, rows)
        starts = self._column("doc_first", segs, docs)
        # In a cold build's order, the hits' documents come by source.
        at = sorted({i for i, _ in hits})
        picks = list(dict.fromkeys(zip(segs[at].tolist(), docs[at].tolist(), strict=True)))
        unit_set = doc_units(self.segments, picks)
        compact = _renumbered(segs, docs, rows - starts, picks, unit_set.col("doc_first"))
        kept = compact >= 0
        weights = TermWeights(compact[kept], matrix[:, kept])
        return unit_set, [(int(compact[i]), score) for i, score in hits], weights

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


def _unit_products(segment: UnitSegment, query: Vector, level: int) -> tuple[Ints, Vector]:
    """Return the live units with access <= level (ascending) and their inner products."""
    vectors = segment.vectors()
    units = len(segment.columns["unit_start"])
    if vectors is None or np.shape(vectors) != (units, len(query)):
        shape = None if vectors is None else np.shape(vectors)
        raise BadIndex(
            f"{segment.folder.name}: unit vectors {shape}, expected ({units}, {len(query)})"
        )
    doc = np.asarray(segment.columns["unit_doc"], np.int64)
    seen = np.asarray(segment.columns["doc_access"])[doc] <= level
    if segment.dead_docs is not None:
        seen &= ~np.asarray(segment.dead_docs)[doc]
    return seen_products(vectors, query, seen)


def ranked_by_vectors(
    index: SegmentedUnits, query: str, vector: Vector, n: int, level: int,
    settings: RankerSettings,
) -> tuple[UnitSet, Hits, Any]:  # fmt: skip
    """Return what SegmentedUnits.ranked returns, ranked by the dense or hybrid ranker: both
    lists' top max(n, depth) fused as chunk lists are (chunks/fusion.py), BM25's term weights
    where it scored a unit, zero elsewhere."""
    segments, vector = index.segments, np.asarray(vector, np.float32)
    depth = max(n, settings.depth)
    wanted = depth if settings.ranker == "hybrid" else n
    dense = dense_search(segments, vector, wanted, level, _unit_products)
    units, matrix = np.zeros((0, 2), np.int64), np.zeros((0, 0))
    if settings.ranker == "hybrid":
        terms = tokenize(query)
        bm25: list[Found] = []
        if terms:
            units, matrix, hits = index.scored(Counter(terms), depth, level)
            bm25 = [(int(units[i, 0]), int(units[i, 1]), score) for i, score in hits]
        found = fused(bm25, dense, segments, vector, settings, n)
    else:
        found = dense[:n]
    # The found units beside BM25's scored ones (and their term weights), all in a cold
    # build's order (source, then row).
    known = {(int(s), int(r)): i for i, (s, r) in enumerate(units.tolist())}
    extra = sorted({(seg, row) for seg, row, _ in found} - set(known))
    pairs = np.array([*known, *extra], np.int64).reshape(-1, 2)
    ordered = pairs[index.cold_order(pairs[:, 0], pairs[:, 1], "unit_doc")]
    place = {(s, r): at for at, (s, r) in enumerate(ordered.tolist())}
    weights = np.zeros((matrix.shape[0], len(pairs)))
    weights[:, [place[p] for p in known]] = matrix
    hits = [(place[seg, row], score) for seg, row, score in found]
    return index.answer(ordered, weights, hits)
