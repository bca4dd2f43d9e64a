"""Sweep unit-ranking and assembly settings over every fetched question set, one held out.

    python bench/sweep_context.py            # the default strategy with one change each
    python bench/sweep_context.py --grid     # the unit fields' weights on a grid
    python bench/sweep_context.py --grid --write

Parses each set once, then for every variant prints complete@B at B = 100, 200, 400 on its
worst tuning set (the one whose sum is lowest: defaults are chosen by it, not by the mean),
the mean over the tuning sets (the bundled one, every fetched external set and the sets of
text unlike ours: novels, a chat log, speeches) and the held-out sets (heldout-rsync-man,
heldout-northanger), which decide nothing. Only the unit strategies run (no
chunkers or windows: eval_context.py has those), so a sweep takes seconds once the sets are
parsed. With --write the output becomes the sweep_context (or sweep_context_grid) section of
bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from bench_rankers import HELD, sweep_sets
from eval_context import usable_questions
from results import parse_args, recording, write_section

from policy_assistant.evaluate.questions import Question
from policy_assistant.evaluate.strategies import NAMED_STRATEGIES, score_strategy
from policy_assistant.index.context.assembler import ContextSettings
from policy_assistant.index.context.unit_rank import SegmentedUnits
from policy_assistant.index.settings import BM25_DEFAULTS
from policy_assistant.index.store.units import units_of
from policy_assistant.parse import parse_path
from policy_assistant.records import Document

BUDGETS = (50, 100, 200, 400)
RULE_BUDGETS = (100, 200, 400)
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


def completes(rows: list[Row]) -> list[float]:
    """Return complete@B in percent at B = 100, 200, 400 (the budgets the rule sums)."""
    return [sum(r[BUDGETS.index(b)][0] for r in rows) / len(rows) * 100 for b in RULE_BUDGETS]


def worst_set(per: dict[str, list[Row]], tuning: Sequence[str]) -> tuple[str, list[float]]:
    """Return the tuning set whose complete@B summed over RULE_BUDGETS is lowest, and its
    figures: defaults are chosen by their worst set, not by the mean."""
    name = min(tuning, key=lambda n: (sum(completes(per[n])), n))
    return name, completes(per[name])


def grid() -> list[Variant]:
    """Return the unit fields' weights on a grid (heading path, identity, passage)."""
    return [
        Variant(f"fields s{s} d{d} p{p}", weights=fields(s, d, p))
        for s in (0.15, 0.3, 0.6) for d in (0.15, 0.3, 0.6) for p in (0.5, 1.0, 1.5, 2.0)
    ]  # fmt: skip


def report(name: str, per: dict[str, list[Row]], tuning: Sequence[str]) -> str:
    """Return one variant's line: its worst tuning set, the tuning mean, the held-out set."""
    worst, cells = worst_set(per, tuning)
    mean = [sum(completes(per[n])[i] for n in tuning) / len(tuning) for i in range(3)]
    shown = [(n.removeprefix("heldout-")[:6], completes(per[n])) for n in HELD if n in per]
    held = "".join(f"  {short} {_cells(figures)}" for short, figures in shown)
    return (f"{name:24s} worst {worst[:12]:12s} {_cells(cells)} ({sum(cells):5.1f})  "
            f"mean {_cells(mean)}{held}")  # fmt: skip


def _cells(values: Sequence[float]) -> str:
    return " ".join(f"{x:5.1f}" for x in values)


def question_sets() -> dict[str, tuple[list[Document], list[Question]]]:
    """Return the bundled set and every fetched external set, held-out last, parsed."""
    data = {}
    for name, (corpus, questions) in sweep_sets().items():
        docs = parse_path(corpus).documents
        with contextlib.redirect_stdout(io.StringIO()):  # its "left out" line, once per set
            qset = usable_questions(questions, docs)
        data[name] = (docs, list(qset.questions))
    return data


def main() -> None:
    """Parse the sets, run every variant, print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", action="store_true", help="the field-weight grid instead")
    args = parse_args(parser)
    data = question_sets()
    tuning = [s for s in data if s not in HELD]
    count = {n: len(q) for n, (_, q) in data.items()}
    print(f"complete@B at B = {', '.join(map(str, RULE_BUDGETS))}: the worst tuning set (by "
          f"their sum), the mean over {len(tuning)} tuning sets ({sum(count[s] for s in tuning)} "
          f"questions) and the held-out {', '.join(HELD)} "
          f"({', '.join(str(count.get(n, 0)) for n in HELD)}), which decide nothing")  # fmt: skip
    cache: Cache = {}
    for variant in grid() if args.grid else VARIANTS:
        per = {
            n: outcomes(docs, questions, variant, cache) for n, (docs, questions) in data.items()
        }
        print(report(variant.name, per, tuning), flush=True)


if __name__ == "__main__":
    with recording() as printed:
        main()
    section = "sweep_context_grid" if "--grid" in sys.argv else "sweep_context"
    write_section(section, "```\n" + printed.getvalue() + "```")
