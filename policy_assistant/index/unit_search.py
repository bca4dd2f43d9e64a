"""Scoring units: BM25 of the unit's own text, plus its section's and document's fields.

A unit's score is a weighted sum of four BM25 scores, each from its own index with its own
length normalization: the unit's text (a table row behind its header row), its section's
heading path (one row per section), its document's identity (title, version, file name
and first words; one row per document) and its section's whole text (one row per section:
a passage-level BM25, so terms spread over a section lift each of its matching units).
Only units whose own text matches score: the context fields rank a matching unit of the
right section or document above a look-alike, they never bring in a unit that shares no term
with the query. This is a sum of per-field BM25s, not Lucene's BM25F (which sums term
frequencies before saturation): the fields are stored once per section and once per document
instead of once per unit.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from policy_assistant.index.bm25 import BM25_DEFAULTS, BM25Index
from policy_assistant.index.tokenize import tokenize, word_terms
from policy_assistant.index.units import (
    Ints,
    UnitSet,
    document_identity,
    section_context,
    section_text,
    unit_index_text,
)
from policy_assistant.records import ACCESS_LABELS

POOL = 1000
"""Units ranked by their own text that the fields then re-rank, at least."""
POOL_PER_HIT = 20
"""... and at least this many per hit asked for."""
FIELD_WEIGHTS: dict[str, float] = {"section": 0.3, "document": 0.3, "passage": 1.0}
"""Weight of the section (heading path), document (identity) and passage (the whole section's
text) fields beside the unit's own."""


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

    @classmethod
    def build(
        cls, units: UnitSet, weights: dict[str, float] | None = None, **bm25: Any
    ) -> UnitIndex:
        """Build the four BM25 indexes over units (bm25: variant, k1, b, and workers)."""
        params = {**BM25_DEFAULTS, **bm25}

        def index(texts: Any) -> BM25Index:
            return BM25Index.build(texts, word_terms=word_terms, **params)

        body = index(unit_index_text(units, row) for row in range(len(units)))
        sections = index(section_context(units, s) for s in range(len(units.paths)))
        documents = index(document_identity(units, d) for d in range(len(units.docs)))
        passages = index(section_text(units, s) for s in range(len(units.paths)))
        return cls(units, body, sections, documents, passages,
                   dict(weights or FIELD_WEIGHTS), units.access_codes())  # fmt: skip

    def with_weights(self, weights: dict[str, float]) -> UnitIndex:
        """Return the same index scoring with other field weights."""
        return replace(self, weights=dict(weights))

    def search(self, query: str, n: int, access: str | None = None) -> list[tuple[int, float]]:
        """Return up to n (unit row, score) pairs, best first, that access may see.

        None means public (fail closed); ties break by row.
        """
        level = ACCESS_LABELS.index(access or ACCESS_LABELS[0])
        terms = tokenize(query)
        if n <= 0 or not terms or not len(self.units):
            return []
        # The fields re-rank the best units by their own text (MaxScore-pruned), not every
        # matching unit: a dense pass over a million units would cost ten times the search.
        pairs = self.body.search(terms, max(POOL, POOL_PER_HIT * n), self.access <= level)
        if not pairs:
            return []
        rows = np.array([row for row, _ in pairs], np.int64)
        total = np.array([score for _, score in pairs])
        if self.top_documents:
            doc_of = self.units.col("unit_doc")[rows]
            keep = self._best_documents(terms, doc_of)[doc_of]
            rows, total = rows[keep], total[keep]
        order = np.argsort(rows, kind="stable")  # ascending rows: ties below break by row
        rows, total = rows[order], total[order]
        cols = self.units.columns
        for name, index, parent in (
            ("section", self.sections, cols["unit_section"]),
            ("document", self.documents, cols["unit_doc"]),
            ("passage", self.passages, cols["unit_section"]),
        ):
            weight = self.weights.get(name, 0.0)
            if weight:
                total = total + weight * index.scores(terms)[parent[rows]]
        if len(rows) > n:  # rows ascend, so the first rows tied at the n-th score win
            kth = np.partition(total, len(total) - n)[len(total) - n]
            above, tied = np.flatnonzero(total > kth), np.flatnonzero(total == kth)
            keep = np.concatenate([above, tied[: n - len(above)]])
            rows, total = rows[keep], total[keep]
        order = np.lexsort((rows, -total))
        return [(int(rows[i]), float(total[i])) for i in order]

    def _best_documents(self, terms: list[str], candidates: Ints) -> npt.NDArray[np.bool_]:
        """Return the mask of the top_documents documents among those of candidate units."""
        best = np.zeros(len(self.units.docs))
        np.maximum.at(best, self.units.col("section_doc"), self.passages.scores(terms))
        best += self.weights.get("document", 0.0) * self.documents.scores(terms)
        eligible = np.zeros(len(best), np.bool_)
        eligible[candidates] = True
        best[~eligible] = -np.inf
        order = np.lexsort((np.arange(len(best)), -best))[: self.top_documents]
        mask = np.zeros(len(best), np.bool_)
        mask[order] = True
        return mask
