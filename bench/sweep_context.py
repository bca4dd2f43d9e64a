"""Sweep unit-ranking and assembly settings on the external sets, with a held-out set.

    python bench/sweep_context.py --external build/external --held-out developers-reference

Parses each set once, then for every variant (the default strategy with one change) prints
complete@B and hit@B at B = 50, 100, 200, 400 pooled over every set, over the tuning sets
(all but the held-out one) and over the held-out set alone, and the miss reasons at 400.
Only the unit strategies run (no chunkers or windows: eval_context.py has those), so a
sweep takes seconds once the sets are parsed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from eval_context import usable_questions

from policy_assistant.evaluate.questions import Question
from policy_assistant.evaluate.strategies import NAMED_STRATEGIES, score_strategy
from policy_assistant.index.context.assembler import ContextSettings
from policy_assistant.index.context.unit_rank import SegmentedUnits
from policy_assistant.index.settings import BM25_DEFAULTS
from policy_assistant.index.store.units import units_of
from policy_assistant.parse import parse_path
from policy_assistant.records import Document

SETS = ("debian-reference", "fhs", "developers-reference", "gpl-3", "ansible-lint-rules")
BUDGETS = (50, 100, 200, 400)
DEFAULT = NAMED_STRATEGIES["window"]


def fields(section: float, document: float, passage: float) -> dict[str, float]:
    """Return field weights."""
    return {"section": section, "document": document, "passage": passage}


@dataclass(frozen=True)
class Variant:
    """The default strategy with one change."""

    name: str
    """What the table calls it."""
    context: ContextSettings = DEFAULT
    """How contexts are assembled."""
    weights: dict[str, float] | None = None
    """Field weights of the unit ranking (None: the defaults)."""
    bm25: dict[str, float] = field(default_factory=dict)
    """BM25 settings of the four unit fields (k1, b)."""


VARIANTS = [
    Variant("default (window)"),
    Variant("bm25 k1 0.9", bm25={"k1": 0.9}),
    Variant("bm25 k1 1.6", bm25={"k1": 1.6}),
    Variant("bm25 b 0.5", bm25={"b": 0.5}),
    Variant("bm25 b 0.9", bm25={"b": 0.9}),
    Variant("maxp 0.2", replace(DEFAULT, maxp=0.2)),
    Variant("maxp 0.5", replace(DEFAULT, maxp=0.5)),
    Variant("first 1 hit wide", replace(DEFAULT, wide_hits=1)),
    Variant("first 3 hits wide", replace(DEFAULT, wide_hits=3)),
    Variant("first hit +-3", replace(DEFAULT, window=3, wide_hits=1)),
    Variant("100 candidates", replace(DEFAULT, candidates=100)),
    Variant("section field 0", weights=fields(0, 0.3, 1.0)),
    Variant("passage field 0.75", weights=fields(0.3, 0.3, 0.75)),
    Variant("passage field 1.5", weights=fields(0.3, 0.3, 1.5)),
    Variant("identity field 0", weights=fields(0.3, 0, 1.0)),
]

Row = list[tuple[bool, bool, str | None]]
Cache = dict[tuple[int, tuple[tuple[str, float], ...]], SegmentedUnits]


def outcomes(
    docs: Sequence[Document], questions: Sequence[Question], variant: Variant, cache: Cache
) -> list[Row]:
    """Return (complete, hit, miss) per budget of each question under one variant."""
    key = (id(docs), tuple(sorted(variant.bm25.items())))
    if key not in cache:
        cache[key] = units_of(docs, BM25_DEFAULTS.with_changes(variant.bm25))
    index = cache[key].with_options(variant.weights)
    rows = []
    for q in questions:
        found = score_strategy(index, q, variant.context, 5, BUDGETS).budgets
        rows.append([(b.complete, b.hit > 0, b.miss) for b in found])
    return rows


def figures(rows: list[Row]) -> str:
    """Return complete@B / hit@B in percent at every budget."""
    n = len(rows)
    c = "/".join(f"{sum(r[i][0] for r in rows) / n * 100:.1f}" for i in range(len(BUDGETS)))
    h = "/".join(f"{sum(r[i][1] for r in rows) / n * 100:.1f}" for i in range(len(BUDGETS)))
    return f"{c} (hit {h})"


def main() -> None:
    """Parse the sets, run every variant, print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--external", type=Path, default=Path("build/external"))
    parser.add_argument("--questions", type=Path, default=Path("questions/external"))
    parser.add_argument("--held-out", default="developers-reference")
    args = parser.parse_args()
    data = {}
    for name in SETS:
        docs = parse_path(args.external / name).documents
        with contextlib.redirect_stdout(io.StringIO()):  # its "left out" line, once per set
            qset = usable_questions(args.questions / f"{name}.jsonl", docs)
        data[name] = (docs, qset.questions)
    tuning = [s for s in SETS if s != args.held_out]
    count = {n: len(data[n][1]) for n in SETS}
    print(f"complete@B / hit@B at B = {', '.join(map(str, BUDGETS))}; "
          f"tuning {sum(count[s] for s in tuning)} questions, held out ({args.held_out}) "
          f"{count[args.held_out]}, all {sum(count.values())}")  # fmt: skip
    cache: Cache = {}
    for variant in VARIANTS:
        per = {n: outcomes(data[n][0], data[n][1], variant, cache) for n in SETS}
        every = [r for n in SETS for r in per[n]]
        misses = Counter(r[-1][2] for r in every if r[-1][2])
        print(f"{variant.name}\n  all {figures(every)}\n"
              f"  tuning {figures([r for n in tuning for r in per[n]])}\n"
              f"  held out {figures(per[args.held_out])}\n"
              f"  misses at {BUDGETS[-1]}: {dict(sorted(misses.items()))}")  # fmt: skip


if __name__ == "__main__":
    main()
