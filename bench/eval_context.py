"""Compare context strategies with fixed and overlapping windows and the chunkers, at equal budgets.

    python bench/eval_context.py --corpus corpus --questions questions/questions.jsonl

Prints, per run and budget, complete@B, hit@B and empty contexts, then the paired difference
in complete@B (and hit@B) of the best strategy against the best window and against structure.
Windows run at every size in --sizes (overlap a quarter of the size).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

from policy_assistant.evaluate.bootstrap import Bootstrap
from policy_assistant.evaluate.questions import load_questions
from policy_assistant.evaluate.report import ChunkerRun, EvalReport
from policy_assistant.evaluate.run import EvalSettings, evaluate
from policy_assistant.evaluate.strategies import Strategy, with_strategies
from policy_assistant.index.context import ContextSettings
from policy_assistant.parse import parse_path

BUDGETS = (50, 100, 200, 400)


def window_runs(docs, qset, sizes) -> list[ChunkerRun]:  # type: ignore[no-untyped-def]
    """Return fixed and overlapping runs at every size, named by their settings."""
    runs: list[ChunkerRun] = []
    for size in sizes:
        for chunker, name, options in (
            ("fixed", f"fixed-{size}", {"size": size}),
            ("overlapping", f"overlap-{size}", {"size": size, "overlap": size // 4}),
        ):
            settings = EvalSettings((chunker,), options, budgets=BUDGETS)
            runs += [replace(r, name=name) for r in evaluate(docs, qset, settings).runs]
    settings = EvalSettings(chunkers=("structure", "sentence"), budgets=BUDGETS)
    return runs + list(evaluate(docs, qset, settings).runs)


def fields(section: float, document: float, passage: float) -> dict[str, float]:
    """Return field weights."""
    return {"section": section, "document": document, "passage": passage}


def strategies(names: list[str]) -> list[Strategy]:
    """Return the strategies to compare (the defaults, then one change each)."""
    am = ContextSettings("automerge")
    all_ = [
        Strategy("units", ContextSettings("units")),
        Strategy("window-2", ContextSettings("window", window=2)),
        Strategy("automerge", am),
        Strategy("automerge-s50", ContextSettings("automerge", share=0.5)),
        Strategy("automerge-s100", ContextSettings("automerge", share=1.0)),
        Strategy("automerge-nofields", am, fields(0, 0, 0)),
        Strategy("automerge-p0", am, fields(0.3, 0.3, 0)),
        Strategy("automerge-p05", am, fields(0.3, 0.3, 0.5)),
        Strategy("automerge-p2", am, fields(0.3, 0.3, 2.0)),
        Strategy("automerge-doc0", am, fields(0.3, 0, 1.0)),
        Strategy("automerge-doc1", am, fields(0.3, 1.0, 1.0)),
    ]
    return [s for s in all_ if not names or s.name in names]


def main() -> None:
    """Run the comparison and print it."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=Path("corpus"))
    parser.add_argument("--questions", type=Path, default=Path("questions/questions.jsonl"))
    parser.add_argument("--sizes", default="50,100,200")
    parser.add_argument("--strategies", default="")
    args = parser.parse_args()
    docs = parse_path(args.corpus).documents
    qset = load_questions(args.questions, docs)
    started = time.perf_counter()
    runs = window_runs(docs, qset, [int(s) for s in args.sizes.split(",")])
    boot = Bootstrap(len(qset.questions))
    base = EvalReport({"budgets": list(BUDGETS), "k": 5}, qset.questions, tuple(runs), (), ())
    chosen = strategies([s for s in args.strategies.split(",") if s])
    report = with_strategies(base, docs, qset, chosen, boot)
    print(f"{len(qset.questions)} questions, {time.perf_counter() - started:.1f} s")
    show(report, [s.name for s in chosen])


def show(report: EvalReport, strategy_names: list[str]) -> None:
    """Print the table and the paired differences."""
    print("run".ljust(22) + "".join(f"  c@{b:<4} h@{b:<4} e@{b:<3}" for b in BUDGETS))
    for s in report.summaries:
        cells = "".join(
            f"  {b.figures['complete'].value * 100:5.1f} {b.figures['hit'].value * 100:5.1f}"
            f" {b.empty_contexts:4d}"
            for b in s.budgets
        )
        print(s.name.ljust(22) + cells)
    by_name = {s.name: s for s in report.summaries}
    windows = [n for n in by_name if n.startswith(("fixed-", "overlap-"))]
    for budget in BUDGETS[1:]:
        metric = f"complete@{budget}"
        best_s = max(strategy_names, key=lambda n: by_name[n].figure(metric).value)
        best_w = max(windows, key=lambda n: by_name[n].figure(metric).value)
        for other in (best_w, "structure"):
            for m in (metric, f"hit@{budget}"):
                value, low, high = paired(report, m, best_s, other)
                print(f"{m}: {best_s} - {other} = {value:+.1f} [{low:+.1f}, {high:+.1f}]")


def paired(report: EvalReport, metric: str, a: str, b: str) -> tuple[float, float, float]:
    """Return a minus b on metric, in points, with its paired interval."""
    for c in report.comparisons:
        if c.metric == metric and {c.a, c.b} == {a, b}:
            sign = 100 if c.a == a else -100
            ends = sorted((sign * c.difference.low, sign * c.difference.high))
            return sign * c.difference.value, ends[0], ends[1]
    raise KeyError(metric)


if __name__ == "__main__":
    main()
