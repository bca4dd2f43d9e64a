"""Dense and hybrid ranking of retrieval units, for the same assembler as BM25's.

A unit's vector is its segment's `vectors()` row (the unit's text embedded with its title and
heading path). `dense` ranks every live unit the caller may see by inner product; `hybrid`
fuses BM25's unit ranking (unit_rank) with the dense one exactly as chunk lists are fused
(chunks/fusion.py): both lists' top max(n, depth), so a unit that shares no word with the
query can still lead a context. The term weights window growth reads are BM25's where BM25
scored a unit, zero elsewhere.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from policy_assistant.errors import BadIndex
from policy_assistant.index.chunks.dense import (
    Floats,
    Ints,
    dense_search,
    fused,
    seen_products,
)
from policy_assistant.index.chunks.segment_search import Found
from policy_assistant.index.context.unit_open import UnitSegment
from policy_assistant.index.settings import RankerSettings
from policy_assistant.index.tokenize import tokenize

Hits = list[tuple[int, float]]


class SegmentedUnits(Protocol):
    """What this module needs of unit_rank.SegmentedUnits: its segments, BM25's scored units
    and the answer built from chosen ones."""

    segments: list[UnitSegment]

    def scored(self, counts: Mapping[str, float], n: int, level: int) -> tuple[Ints, Any, Hits]:
        """Return BM25's scored units, their term weights and the n best."""
        ...

    def answer(self, units: Any, matrix: Any, hits: Hits) -> tuple[Any, Hits, Any]:
        """Return the hits' documents' units, the hits and term weights renumbered there."""
        ...


def _unit_products(segment: UnitSegment, query: Floats, level: int) -> tuple[Ints, Floats]:
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
    index: SegmentedUnits, query: str, vector: Floats, n: int, level: int,
    settings: RankerSettings,
) -> tuple[Any, list[tuple[int, float]], Any]:  # fmt: skip
    """Return what SegmentedUnits.ranked returns, ranked by the dense or hybrid ranker."""
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
    return _answered(index, units, matrix, found)


def _answered(
    index: SegmentedUnits, units: Ints, matrix: Any, found: list[Found]
) -> tuple[Any, list[tuple[int, float]], Any]:
    """Return SegmentedUnits.answer for the found units, with BM25's scored units (and their
    term weights) beside them, all in a cold build's order (source, then row)."""
    known = {(int(s), int(r)): i for i, (s, r) in enumerate(units.tolist())}
    extra = sorted({(seg, row) for seg, row, _ in found} - set(known))
    pairs = [*known, *extra]
    source = _sources(index.segments, pairs)
    order = sorted(range(len(pairs)), key=lambda i: (source[i], pairs[i][1], pairs[i][0]))
    place = {pairs[i]: at for at, i in enumerate(order)}
    weights = np.zeros((matrix.shape[0], len(pairs)))
    if len(known):
        weights[:, [place[p] for p in known]] = matrix
    ordered = np.array([pairs[i] for i in order], np.int64).reshape(-1, 2)
    hits = [(place[seg, row], score) for seg, row, score in found]
    return index.answer(ordered, weights, hits)


def _sources(segments: Sequence[UnitSegment], pairs: Sequence[tuple[int, int]]) -> list[str]:
    """Return the source of each (segment, unit row)'s document."""
    out = []
    for seg, row in pairs:
        doc = int(segments[seg].columns["unit_doc"][row])
        out.append(segments[seg].doc(doc).source)
    return out
