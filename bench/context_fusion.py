"""Which hybrid fusion ranks units for a context: complete@B of the default strategy per fusion.

    python bench/context_fusion.py            # the bundled set and every fetched external set
    python bench/context_fusion.py --write    # and record the table in bench/RESULTS.md
    python bench/context_fusion.py --neighbours 2   # a trial of another embedding recipe

bench/bench_rankers.py chooses the chunk ranker's fusion by hit@5 over chunks. A context is
assembled from retrieval units, much smaller than chunks, where a unit's BM25 score sees one
sentence: the fusion that serves chunks need not serve units. Per set, the default strategy
(window) is scored as `search --budget --ranker hybrid` assembles it (strategies.score_strategy,
the units with vectors written as `ingest --embed` writes them, the pinned model) under dense
and each fusion, at B = 100, 200 and 400 words. The default (settings.HYBRID_UNITS) is the
fusion whose worst set is best: the worst set's complete@B summed over the three budgets, ties
by the mean over sets. The sets are the bundled one, every fetched external set and the sets of
text unlike ours (novels, a chat log, speeches); the held-out heldout-rsync-man and
heldout-northanger are printed apart, after the choice, and decide nothing.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench_rankers import HELD, sweep_sets
from eval_context import MODEL, usable_questions
from results import parse_args, recording, write_section

from policy_assistant.evaluate.strategies import NAMED_STRATEGIES, score_strategy, strategy_units
from policy_assistant.index.settings import HYBRID_UNITS, RankerSettings
from policy_assistant.index.store import vectors
from policy_assistant.parse import parse_path

BUDGETS = (100, 200, 400)
FUSIONS: list[tuple[str, RankerSettings]] = [
    ("bm25", RankerSettings("bm25")),
    ("dense", RankerSettings("dense")),
    *[(f"minmax w={w}", RankerSettings("hybrid", weight=w)) for w in (0.25, 0.5, 1, 1.5, 2, 3)],
    *[(f"max w={w}", RankerSettings("hybrid", weight=w, norm="max")) for w in (1, 2)],
    ("rrf", RankerSettings("hybrid", "rrf")),
]
Figures = dict[str, list[float]]
"""complete@B in percent per budget, by fusion name."""
Table = dict[str, Figures]
"""Figures by set."""


def set_figures(corpus: Path, questions: Path) -> Figures:
    """Return complete@B per budget for every fusion on one set."""
    docs = parse_path(corpus).documents
    asked = usable_questions(Path(os.path.relpath(questions)), docs).questions  # printed
    units, encoder = strategy_units(docs, "hybrid", MODEL)
    window, out = NAMED_STRATEGIES["window"], {}
    for name, ranker in FUSIONS:
        found = [score_strategy(units, q, window, 5, BUDGETS, ranker, encoder) for q in asked]
        out[name] = [
            100 * sum(f.budgets[i].complete for f in found) / len(asked)
            for i in range(len(BUDGETS))
        ]
    return out


def show(name: str, figures: dict[str, list[float]]) -> None:
    """Print one set's rows."""
    print(name)
    width = max(12, *map(len, figures))
    for fusion, cells in figures.items():
        pairs = zip(BUDGETS, cells, strict=True)
        print(f"  {fusion:{width}s}" + "".join(f"  c@{b} {c:5.1f}" for b, c in pairs))


def choose(table: Table, names: Sequence[str] = ()) -> str:
    """Print each fusion's (or named row's) worst and mean over sets; return the one whose
    worst is best (dense alone is never chosen)."""
    names = list(names) or [f for f, _ in FUSIONS]
    width = max(12, *map(len, names))
    print(f"\n{'fusion':{width}s}  worst set c@100 c@200 c@400 (sum)   mean c@100 c@200 c@400")
    keys = {}
    for fusion in names:
        rows = [table[s][fusion] for s in table]
        worst = [min(r[i] for r in rows) for i in range(len(BUDGETS))]
        mean = [sum(r[i] for r in rows) / len(rows) for i in range(len(BUDGETS))]
        keys[fusion] = (round(sum(worst), 6), round(sum(mean), 6))  # equal counts tie exactly
        cells = " ".join(f"{w:5.1f}" for w in worst)
        means = " ".join(f"{m:5.1f}" for m in mean)
        print(f"{fusion:{width}s}  {cells} ({sum(worst):5.1f})        {means}")
    best = max((f for f in names if f != "dense"), key=lambda f: keys[f])
    print(f"best fusion by its worst set: {best}")
    return best


def sweep(
    figures: Callable[[Path, Path], Figures], after: Callable[[], None] | None = None
) -> None:
    """Print figures(corpus, questions) of every fetched set, each row's worst set (choose),
    what after() says, then the held-out sets, which decide nothing."""
    named = sweep_sets()
    started, table = time.perf_counter(), {}
    for name, (corpus, questions) in named.items():
        if name not in HELD:
            table[name] = figures(corpus, questions)
            show(name, table[name])
    choose(table, list(next(iter(table.values()), {})))
    if after:
        after()
    for name in (n for n in HELD if n in named):
        print()
        show(f"{name} (held out: decides nothing)", figures(*named[name]))
    print(f"{time.perf_counter() - started:.0f} s")


def main() -> None:
    """Measure every fusion on every fetched set, choose, then print the held-out set."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--neighbours",
        type=int,
        default=vectors.UNIT_NEIGHBOURS,
        help="units either side embedded with each unit (a trial: printed, never written)",
    )
    args = parse_args(parser)
    if args.neighbours != vectors.UNIT_NEIGHBOURS:
        if args.write:
            parser.error("--write records the product's own recipe: drop --neighbours")
        vectors.UNIT_NEIGHBOURS = args.neighbours  # unit_texts reads it at each call
        print(f"units embedded with {args.neighbours} neighbours either side (a trial)")
    default = next((f for f, r in FUSIONS if r == HYBRID_UNITS), str(HYBRID_UNITS))
    sweep(set_figures, lambda: print(f"settings.HYBRID_UNITS: {default}"))


if __name__ == "__main__":
    with recording() as printed:
        main()
    write_section("context_fusion", "```\n" + printed.getvalue() + "```")
