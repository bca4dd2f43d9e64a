"""Scoring units: BM25 of the unit's own text, plus its section's and document's fields.

A unit's score is a weighted sum of four BM25 scores, each from its own index with its own
length normalization: the unit's text (a table row behind its header row), its section's
heading path (one row per section), its document's identity (title, version, file name
and first words; one row per document) and its section's whole text (one row per section:
a passage-level BM25, so terms spread over a section lift each of its matching units).
Only units whose own text matches score: the context fields rank a matching unit of the
right section or document above a look-alike, they never bring in a unit that shares no term
with the query. A search scores the three fields per section (tens of thousands of rows at a
million units; the heading-path field only at the few sections its terms touch), ranks the
sections above a floor sampled from every SAMPLE_STRIDE-th one, then scores the unit text of
the best SECTIONS sections' units only, read from the postings by range
(BM25Index.range_scores), never a pass over every unit. This ranks exactly as scoring every
field densely does, the same floats (tests/test_units_search.py, on generated documents and
the bundled questions). An optional second search adds pseudo-relevance feedback terms
(feedback.py; measured and off by default).
This is a sum of per-field BM25s, not Lucene's BM25F (which sums term
frequencies before saturation): the fields are stored once per section and once per document
instead of once per unit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from policy_assistant.index.chunks.bm25 import BM25_DEFAULTS, BM25Index
from policy_assistant.index.chunks.bm25_types import Floats
from policy_assistant.index.context.feedback import Feedback
from policy_assistant.index.context.units import (
    Ints,
    UnitSet,
    document_identity,
    section_context,
    section_text,
    unit_index_text,
)
from policy_assistant.index.tokenize import tokenize, word_terms
from policy_assistant.records import ACCESS_LABELS

SECTIONS = 100
"""Sections, the best by their fields, whose units are scored, at least."""
SECTIONS_PER_HIT = 2
"""... and at least this many per hit asked for."""
FIELD_WEIGHTS: dict[str, float] = {"section": 0.3, "document": 0.3, "passage": 1.0}
"""Weight of the section (heading path), document (identity) and passage (the whole section's
text) fields beside the unit's own."""


FIELD_TEXTS: dict[str, Callable[[UnitSet], Iterator[str]]] = {
    "body": lambda u: (unit_index_text(u, row) for row in range(len(u))),
    "sections": lambda u: (section_context(u, s) for s in range(len(u.paths))),
    "documents": lambda u: (document_identity(u, d) for d in range(len(u.docs))),
    "passages": lambda u: (section_text(u, s) for s in range(len(u.paths))),
}
"""What each BM25 field indexes, one text per row, in row order."""


@dataclass(frozen=True)
class UnitIndex:
    """Units with the three BM25 indexes that score them."""

    units: UnitSet
    """The units, their parents and documents."""
    body: BM25Index
    """BM25 over each unit's text, one row per unit."""
    sections: BM25Index
    """BM25 over each section's heading path, one row per section."""
    documents: BM25Index
    """BM25 over each document's identity, one row per document."""
    passages: BM25Index
    """BM25 over each section's whole text (heading path and units), one row per section."""
    weights: dict[str, float] = field(default_factory=lambda: dict(FIELD_WEIGHTS))
    """Weights of the section, document and passage fields."""
    access: npt.NDArray[np.uint8] = field(default_factory=lambda: np.zeros(0, np.uint8))
    """Each unit's access label as its index in ACCESS_LABELS."""
    top_documents: int = 0
    """Rank documents first and keep units of the best this many only (0: every document).
    A document scores its identity field (weighted) plus its best section's passage field."""
    feedback: Feedback | None = None
    """Pseudo-relevance feedback: search again with terms of the first search's best units
    (None: one search)."""

    @classmethod
    def build(
        cls, units: UnitSet, weights: dict[str, float] | None = None, **bm25: Any
    ) -> UnitIndex:
        """Build the four BM25 indexes over units (bm25: variant, k1, b, and workers)."""
        params = {**BM25_DEFAULTS, **bm25}

        body, sections, documents, passages = (
            BM25Index.build(texts(units), word_terms=word_terms, **params)
            for texts in FIELD_TEXTS.values()
        )
        return cls(units, body, sections, documents, passages,
                   dict(weights or FIELD_WEIGHTS), units.access_codes())  # fmt: skip

    def ranked(
        self, query: str, n: int, access: str | None = None
    ) -> tuple[UnitSet, list[tuple[int, float]], TermWeights]:
        """Return the units the hits' rows name, with what search_terms returns."""
        return (self.units, *self.search_terms(query, n, access))

    def with_weights(self, weights: dict[str, float]) -> UnitIndex:
        """Return the same index scoring with other field weights."""
        return replace(self, weights=dict(weights))

    @cached_property
    def section_access(self) -> npt.NDArray[np.uint8]:
        """Each section's access label as its index in ACCESS_LABELS (its document's)."""
        codes = np.array([ACCESS_LABELS.index(d.access) for d in self.units.docs], np.uint8)
        return codes[self.units.col("section_doc")] if len(codes) else np.zeros(0, np.uint8)

    def search(self, query: str, n: int, access: str | None = None) -> list[tuple[int, float]]:
        """Return up to n (unit row, score) pairs, best first, that access may see.

        None means public (fail closed); ties break by row.
        """
        return self.search_terms(query, n, access)[0]

    def search_terms(
        self, query: str, n: int, access: str | None = None
    ) -> tuple[list[tuple[int, float]], TermWeights]:
        """Return what search does, and each query term's unit-text weight at every unit of
        the sections searched (what window_gains reads, so it reads no postings again)."""
        level = ACCESS_LABELS.index(access or ACCESS_LABELS[0])
        terms = tokenize(query)
        if n <= 0 or not terms or not len(self.units):
            return [], TermWeights(np.empty(0, np.int64), np.zeros((0, 0)))
        found = self._ranked(terms, n, level)
        if self.feedback is not None and found[0]:
            expanded = self.feedback.expand(self.units, terms, found[0])
            found = self._ranked(expanded, n, level)
        return found

    def _ranked(
        self, terms: list[str] | dict[str, float], n: int, level: int
    ) -> tuple[list[tuple[int, float]], TermWeights]:
        """Return what search_terms does for tokenized (or weighted) terms."""
        passage = self.passages.scores(terms)
        part = self.section_scores(terms, passage)
        # A unit that matches makes its section's passage field match, so sections scoring 0
        # hold no candidate; the best sections' units are scored, not a million units' pool.
        allowed = passage > 0
        if level < self.top_access:
            allowed &= self.section_access <= level
        # With the passage field weighted 0, its own score still picks the sections.
        key = part if self.weights.get("passage", 0.0) else part + passage
        count = max(SECTIONS, SECTIONS_PER_HIT * n)
        if self.top_documents:
            eligible = np.flatnonzero(allowed)
            doc_of = self.units.col("section_doc")[eligible]
            eligible = eligible[self._best_documents(terms, passage, doc_of)[doc_of]]
        else:
            eligible = _contenders(allowed, key, count)
        chosen = best_rows(eligible, key[eligible], count)
        chosen.sort()
        first = self.units.col("section_first")
        rows, matrix = self.body.range_scores(terms, first[chosen], first[chosen + 1])
        total = matrix.sum(axis=0) + part[self.units.col("unit_section")[rows]]
        keep = best_rows(np.arange(len(rows)), total, n)
        order = keep[np.lexsort((rows[keep], -total[keep]))]
        hits = [(int(rows[i]), float(total[i])) for i in order]
        return hits, TermWeights(rows.astype(np.int64), matrix)

    @cached_property
    def top_access(self) -> int:
        """The highest access label code of any section (-1: no section)."""
        return int(self.section_access.max()) if len(self.section_access) else -1

    @cached_property
    def doc_sections(self) -> Ints:
        """Each document's first section row, then the section count (sections are in
        document order)."""
        docs = np.arange(len(self.units.docs) + 1)
        return np.searchsorted(self.units.col("section_doc"), docs).astype(np.int64)

    def section_scores(self, terms: list[str] | dict[str, float], passage: Floats) -> Floats:
        """Return each section's weighted fields: heading path, identity and passage (given).

        The heading-path field is added only where a query term touches it (few rows): the
        same floats as a dense sum, since adding 0.0 elsewhere changes none.
        """
        part = self.weights.get("passage", 0.0) * passage
        weight = self.weights.get("section", 0.0)
        if weight:
            rows, scores = self.sections.sparse_scores(terms)
            part[rows] += weight * scores
        weight = self.weights.get("document", 0.0)
        if weight:
            # Sections are in document order: repeating each document's score once per
            # section is the gather by section_doc, without its random reads.
            part += np.repeat(weight * self.documents.scores(terms), np.diff(self.doc_sections))
        return part

    def _best_documents(
        self, terms: list[str] | dict[str, float], passage: Floats, docs: Ints
    ) -> npt.NDArray[np.bool_]:
        """Return the mask of the top_documents documents among docs, each scored by its
        identity field (weighted) plus its best section's passage field."""
        best = np.full(len(self.units.docs), -np.inf)
        np.maximum.at(best, self.units.col("section_doc"), passage)
        best += self.weights.get("document", 0.0) * self.documents.scores(terms)
        eligible = np.zeros(len(best), np.bool_)
        eligible[docs] = True
        best[~eligible] = -np.inf
        order = np.lexsort((np.arange(len(best)), -best))[: self.top_documents]
        mask = np.zeros(len(best), np.bool_)
        mask[order] = True
        return mask


SAMPLE_STRIDE = 16
"""_contenders samples every this many rows."""


def _contenders(allowed: npt.NDArray[np.bool_], key: Floats, count: int) -> Ints:
    """Return the allowed rows, ascending, whose key is at least the count-th best of a
    sample (every SAMPLE_STRIDE-th row): the sample's count-th best is no higher than all
    rows', so these hold the count best rows, tied ones too, and are far fewer to rank."""
    sample = key[::SAMPLE_STRIDE][allowed[::SAMPLE_STRIDE]]
    if len(sample) <= count:
        return np.flatnonzero(allowed)
    floor = np.partition(sample, len(sample) - count)[len(sample) - count]
    return np.flatnonzero(allowed & (key >= floor))


def best_rows(rows: Ints, scores: Floats, n: int) -> Ints:
    """Return the rows (ascending) of the n best scores; among rows tied at the n-th, the first."""
    if len(rows) <= n:
        return rows
    kth = np.partition(scores, len(scores) - n)[len(scores) - n]
    above, tied = np.flatnonzero(scores > kth), np.flatnonzero(scores == kth)
    picked: Ints = rows[np.sort(np.concatenate([above, tied[: n - len(above)]]))]
    return picked


@dataclass(frozen=True, slots=True)
class TermWeights:
    """Each query term's unit-text BM25 weight at the units a search scored."""

    rows: Ints
    """The unit rows, ascending."""
    matrix: Floats
    """One row per query term, one column per unit row: the term's weight there (0: absent)."""


def window_gains(
    units: UnitSet, weights: TermWeights, hits: Sequence[tuple[int, float]], window: int
) -> Floats:
    """Return, per hit, what its window adds: each query term counted at its best unit within
    `window` units of the hit in its section, less what it counts at the hit (MaxP, >= 0)."""
    cols = units.columns
    rows = np.array([row for row, _ in hits], np.int64)
    section = cols["unit_section"][rows]
    near = rows[:, None] + np.arange(-window, window + 1)[None, :]
    inside = (near >= cols["section_first"][section][:, None]) & (
        near < cols["section_first"][section + 1][:, None]
    )
    if not len(weights.rows):
        return np.zeros(len(rows))
    # Units the search scored hold the terms; any other unit of the window holds none.
    at = np.minimum(np.searchsorted(weights.rows, near), len(weights.rows) - 1)
    scored = inside & (weights.rows[at] == near)
    taken = weights.matrix[:, at] * scored  # weights are >= 0
    own = weights.matrix[:, at[:, window]] * scored[:, window]
    gains: Floats = taken.max(axis=2).sum(axis=0) - own.sum(axis=0)
    return gains
