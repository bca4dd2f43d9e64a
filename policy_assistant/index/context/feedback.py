"""Pseudo-relevance feedback for unit search: RM3 over the first search's best units.

RM3 (Lavrenko and Croft's relevance model, interpolated with the query, as Anserini runs it
beside BM25): each of the first `units` hits is a feedback text (the unit with `window` units
either side in its section); a term's feedback weight is the sum over those texts of its share
of the text's terms times the hit's score; the `terms` best feedback terms, normalized to sum
1, are mixed with the query's own terms (normalized the same way) as weight * query + (1 -
weight) * feedback, and the units are ranked again with those weights. Weights are scaled so
the query's terms keep their counts: only the added terms are new to the scores.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from policy_assistant.index.context.units import UnitSet
from policy_assistant.index.tokenize import tokenize


@dataclass(frozen=True, slots=True)
class Feedback:
    """How the second search of pseudo-relevance feedback is weighted."""

    units: int = 10
    """Best unit hits of the first search read as feedback."""
    terms: int = 10
    """Feedback terms added to the query at most."""
    weight: float = 0.5
    """Share of the query's own terms in the mix (RM3's lambda); 1 adds nothing."""
    window: int = 1
    """Units either side of a feedback hit, in its section, read with it."""

    def expand(
        self, units: UnitSet, terms: list[str], hits: Sequence[tuple[int, float]]
    ) -> dict[str, float]:
        """Return the weighted query: the query's terms and the best feedback terms."""
        query = Counter(terms)
        model: dict[str, float] = {}
        section_of = units.col("unit_section")
        for row, score in hits[: self.units]:
            lo, hi = units.section_range(int(section_of[row]))
            first, last = max(lo, row - self.window), min(hi, row + self.window)
            found = Counter(t for r in range(first, last + 1) for t in tokenize(units.unit_text(r)))
            size = sum(found.values())
            for term, count in found.items():
                model[term] = model.get(term, 0.0) + score * count / size
        best = sorted(model.items(), key=lambda tw: (-tw[1], tw[0]))[: self.terms]
        total = sum(w for _, w in best)
        mixed = {t: float(n) for t, n in query.items()}
        if not total or self.weight >= 1:
            return mixed
        # Scaled by len(terms) / weight: each query term keeps its count, feedback adds.
        scale = (1 - self.weight) / self.weight * len(terms) / total
        for term, weight in best:
            mixed[term] = mixed.get(term, 0.0) + weight * scale
        return mixed
