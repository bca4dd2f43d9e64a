"""Ranking ideas measured and not built: complete@B of the default strategy under each.

    python bench/ranking_ideas.py            # the bundled set and every fetched external set
    python bench/ranking_ideas.py --write    # and record the table in bench/RESULTS.md

The novels and the chat log tie the best splitter because every ranker finds their evidence
rarely (bench/RESULTS.md, context_fusion). Two classic remedies for questions that share few
words with their answer are measured here, outside the product, on the sets context_fusion reads:

- pseudo-relevance feedback for BM25 (RM3-like): the question's terms plus the T terms that
  weigh most in its first F units (each term's share of a unit's terms, times the unit's score
  over the first unit's, times the term's idf over the corpus's blocks), the added terms
  together weighing lam times the question's own;
- hybrid fusion that adapts to the question: each list (BM25's, the dense one's) weighted by
  how far its best score stands above its others ((best - mean) / std over the list: a peaked
  list is a confident one), or both lists turned into z-scores and summed (a candidate a list
  lacks takes that list's lowest).

Per set, the default strategy (window) is scored as `search --budget` assembles it
(strategies.score_strategy), at B = 100, 200 and 400 words; the summary gives each idea's worst
tuning set, the rule the defaults follow. The held-out sets are printed apart and decide nothing.
"""

from __future__ import annotations

import argparse
import math
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
from context_fusion import sweep
from eval_context import MODEL, usable_questions
from results import parse_args, recording, write_section

from policy_assistant.evaluate.strategies import NAMED_STRATEGIES, score_strategy, strategy_units
from policy_assistant.index.chunks import dense as dense_module
from policy_assistant.index.chunks.fusion import fuse
from policy_assistant.index.context.units import unit_index_text
from policy_assistant.index.settings import HYBRID_UNITS
from policy_assistant.index.tokenize import tokenize
from policy_assistant.parse import parse_path
from policy_assistant.records import ACCESS_LABELS, Document

BUDGETS = (100, 200, 400)
FEEDBACK = [(f, t, lam) for f in (5, 10) for t in (10, 20) for lam in (0.3, 0.6)]
"""(units read, terms added, the added terms' weight) of each feedback variant."""
Found = list[tuple[int, int, float]]
Key = tuple[int, int]


class Feedback:
    """A unit index whose BM25 ranking adds the terms of its first units to the question."""

    def __init__(
        self, index: Any, df: Counter[str], blocks: int, shape: tuple[int, int, float]
    ) -> None:
        """Wrap index; df and blocks give each term's idf; shape is (units, terms, weight)."""
        self.index, self.df, self.blocks = index, df, blocks
        self.units, self.terms, self.weight = shape

    def __getattr__(self, name: str) -> Any:
        return getattr(self.index, name)

    def ranked(self, query: str, n: int, access: str | None = None, *more: Any) -> Any:
        """Rank by the question's terms plus those of its first units (BM25 only)."""
        terms = tokenize(query)
        level = ACCESS_LABELS.index(access or ACCESS_LABELS[0])
        first = self.index.answer(*self.index.scored(Counter(terms), max(n, self.units), level))
        counts: dict[str, float] = dict(Counter(terms))
        for term, weight in self.expansion(first[0], first[1][: self.units], set(terms)):
            counts[term] = counts.get(term, 0.0) + weight * len(terms)
        return self.index.answer(*self.index.scored(counts, n, level))

    def expansion(
        self, units: Any, hits: Sequence[tuple[int, float]], own: set[str]
    ) -> list[tuple[str, float]]:
        """Return the added terms and their weights (summing to self.weight)."""
        found: dict[str, float] = {}
        top = hits[0][1] if hits and hits[0][1] > 0 else 1.0
        for row, score in hits:
            words = tokenize(unit_index_text(units, row))
            for term, count in Counter(words).items():
                found[term] = found.get(term, 0.0) + count / len(words) * score / top
        idf = {t: math.log(1 + self.blocks / (1 + self.df[t])) for t in found}
        ranked = sorted(((w * idf[t], t) for t, w in found.items() if t not in own), reverse=True)
        chosen = ranked[: self.terms]
        total = sum(w for w, _ in chosen) or 1.0
        return [(t, self.weight * w / total) for w, t in chosen]


def peak(scores: Sequence[float]) -> float:
    """Return how far a list's best score stands above the others, in standard deviations."""
    values = np.asarray(scores, dtype=np.float64)
    spread = float(values.std()) if len(values) > 1 else 0.0
    return float((values[0] - values.mean()) / spread) if spread > 0 else 1.0


def adaptive_fuse(mode: str, weight: float) -> Callable[..., Found]:
    """Return a fuse() that weighs the lists by their peaks ("peak") or sums z-scores ("z")."""

    def fused(bm25: Found, dense: Found, more: Mapping[Key, float], settings: Any, k: int) -> Found:
        lists = [{(s, r): x for s, r, x in bm25}, {**more, **{(s, r): x for s, r, x in dense}}]
        total = dict.fromkeys(lists[0].keys() | lists[1].keys(), 0.0)
        for values, share in zip(lists, (1.0, weight), strict=True):
            if not values:
                continue
            normed = _normed(values, mode)
            # A candidate the list lacks counts as its lowest (z) or as nothing (peak).
            absent = min(normed.values()) if mode == "z" else 0.0
            for key in total:
                total[key] += share * normed.get(key, absent)
        ranked = sorted(total.items(), key=lambda item: (-item[1], item[0]))[: max(k, 0)]
        return [(s, r, x) for (s, r), x in ranked]

    return fused


def _normed(values: Mapping[Key, float], mode: str) -> dict[Key, float]:
    """Return each candidate's z-score ("z") or its share of the best times the list's peak."""
    ordered = sorted(values.values(), reverse=True)
    mean, spread = float(np.mean(ordered)), float(np.std(ordered)) or 1.0
    if mode == "z":
        return {key: (x - mean) / spread for key, x in values.items()}
    best, lift = (ordered[0] if ordered[0] > 0 else 1.0), peak(ordered)
    return {key: lift * min(max(x / best, 0.0), 1.0) for key, x in values.items()}


HYBRID_IDEAS: list[tuple[str, Callable[..., Found] | None]] = [
    ("hybrid (max w=1)", None),
    ("peak-weighted", adaptive_fuse("peak", 1.0)),
    ("z w=1", adaptive_fuse("z", 1.0)),
    ("z w=0.5", adaptive_fuse("z", 0.5)),
]


def idf_counts(docs: Sequence[Document]) -> tuple[Counter[str], int]:
    """Return in how many blocks each term occurs, and the blocks."""
    df: Counter[str] = Counter()
    blocks = 0
    for doc in docs:
        for block in doc.blocks:
            df.update(set(tokenize(block.text)))
            blocks += 1
    return df, blocks


def complete(
    index: Any, asked: Sequence[Any], ranker: Any = None, encoder: Any = None
) -> list[float]:
    """Return complete@B in percent of the default strategy, per budget."""
    window = NAMED_STRATEGIES["window"]
    found = [score_strategy(index, q, window, 5, BUDGETS, ranker, encoder) for q in asked]
    return [100 * sum(f.budgets[i].complete for f in found) / len(asked) for i in range(3)]


def set_figures(corpus: Path, questions: Path) -> dict[str, list[float]]:
    """Return complete@B per budget for every idea on one set."""
    docs = parse_path(corpus).documents
    asked = usable_questions(Path(os.path.relpath(questions)), docs).questions  # printed
    units, _ = strategy_units(docs, "bm25", None)
    df, blocks = idf_counts(docs)
    out = {"bm25": complete(units, asked)}
    for shape in FEEDBACK:
        name = "bm25 feedback F{} T{} lam{}".format(*shape)
        out[name] = complete(Feedback(units, df, blocks, shape), asked)
    units, encoder = strategy_units(docs, "hybrid", MODEL)
    for name, fused in HYBRID_IDEAS:
        with mock.patch.object(dense_module, "fuse", fused or fuse):
            out[name] = complete(units, asked, HYBRID_UNITS, encoder)
    return out


def main() -> None:
    """Measure every idea on every fetched set, summarise by worst set, then the held-out."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parse_args(parser)
    sweep(set_figures)


if __name__ == "__main__":
    with recording() as printed:
        main()
    write_section("ranking_ideas", "```\n" + printed.getvalue() + "```")
