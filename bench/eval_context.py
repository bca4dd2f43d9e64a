"""Compare context strategies with fixed and overlapping windows and the chunkers, at equal budgets.

    python bench/eval_context.py --set corpus:questions/questions.jsonl \
        --set build/external/licences:questions/external/licences.jsonl \
        --strategies window,passages --sizes 50,75,100,150,200,300 --section eval_context_sets

Prints, per set (and pooled when several are given), run and budget: complete@B, hit@B,
evidence recall@B (v: the share of the evidence's words inside the context) and empty
contexts; then the paired differences (bootstrap, 95%) of the strategy of record (--of-record)
and of the best strategy against the best window by complete@B, on complete@B and hit@B,
against structure, and on hit@B against the best window by hit@B. Windows run at every size
in --sizes (overlap a quarter of the size). With --write the printed output becomes the --section
section of bench/RESULTS.md; run a held-out set on its own, into its own section. With
--against NAME, each strategy's paired differences to NAME on complete@B and hit@B follow.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from results import parse_args, recording, write_section

from policy_assistant.errors import QuestionsError
from policy_assistant.evaluate.bootstrap import Bootstrap
from policy_assistant.evaluate.dense import (
    DEFAULT_MODEL,
    DEFAULT_VECTOR_CACHE,
    EvalModel,
    ranker_row,
)
from policy_assistant.evaluate.questions import (
    EvidenceFinder,
    InvalidQuestion,
    QuestionSet,
    build_question,
    load_questions,
    read_lines,
)
from policy_assistant.evaluate.report import ChunkerRun, EvalReport, compare, summarize
from policy_assistant.evaluate.run import EvalSettings, evaluate
from policy_assistant.evaluate.strategies import NAMED_STRATEGIES, Strategy, with_strategies
from policy_assistant.ids import file_sha256
from policy_assistant.index.context.assembler import ContextSettings, context_for
from policy_assistant.index.context.unit_rank import SegmentedUnits
from policy_assistant.index.store.units import units_of
from policy_assistant.parse import parse_path
from policy_assistant.records import Document

BUDGETS = (50, 100, 200, 400)
DOCUMENT_READOUT = False
"""Whether each set also prints how often the right document comes first (--documents)."""
RANKER = "bm25"
"""What every row ranks by (--ranker): bm25, or dense and hybrid with the pinned model."""
ROOT = Path(__file__).resolve().parent.parent
MODEL = EvalModel(ROOT / DEFAULT_MODEL, ROOT / DEFAULT_VECTOR_CACHE)


def row(name: str) -> str:
    """Return a row's name under RANKER (bm25 keeps the bare name, as eval does)."""
    return ranker_row(name, RANKER)


def window_runs(docs: list[Document], qset: QuestionSet, sizes: list[int]) -> list[ChunkerRun]:
    """Return fixed and overlapping runs at every size, named by their settings."""
    runs: list[ChunkerRun] = []
    for size in sizes:
        for chunker, name, options in (
            ("fixed", f"fixed-{size}", {"size": size}),
            ("overlapping", f"overlap-{size}", {"size": size, "overlap": size // 4}),
        ):
            settings = ranked(EvalSettings((chunker,), options, budgets=BUDGETS))
            runs += [replace(r, name=row(name)) for r in evaluate(docs, qset, settings).runs]
    settings = ranked(EvalSettings(chunkers=("structure", "sentence"), budgets=BUDGETS))
    return runs + list(evaluate(docs, qset, settings).runs)


def ranked(settings: EvalSettings) -> EvalSettings:
    """Return the settings with RANKER as the one ranker, and the pinned model."""
    return replace(settings, rankers=(RANKER,), model=MODEL.path, vector_cache=MODEL.cache_path)


def fields(section: float, document: float, passage: float) -> dict[str, float]:
    """Return field weights."""
    return {"section": section, "document": document, "passage": passage}


def strategies(names: list[str]) -> list[Strategy]:
    """Return the strategies to compare (the defaults, then one change each)."""
    am = ContextSettings("automerge")
    W2 = ContextSettings("window", window=2, narrow_below=0)
    WA = ContextSettings("window", window=2, narrow_below=150)
    DEFAULT = NAMED_STRATEGIES["window"]
    all_ = [
        Strategy("units", ContextSettings("units")),
        Strategy("window-2", ContextSettings("window", window=2, narrow_below=0)),
        Strategy("automerge", am),
        Strategy("automerge-s50", ContextSettings("automerge", share=0.5)),
        Strategy("automerge-s100", ContextSettings("automerge", share=1.0)),
        Strategy("automerge-nofields", am, fields(0, 0, 0)),
        Strategy("automerge-p0", am, fields(0.3, 0.3, 0)),
        Strategy("automerge-p05", am, fields(0.3, 0.3, 0.5)),
        Strategy("automerge-p2", am, fields(0.3, 0.3, 2.0)),
        Strategy("automerge-doc0", am, fields(0.3, 0, 1.0)),
        Strategy("automerge-doc1", am, fields(0.3, 1.0, 1.0)),
        Strategy("automerge-headings", ContextSettings("automerge", headings=True)),
        Strategy("automerge-noheader", ContextSettings("automerge", header_rows=False)),
        Strategy("window-1", ContextSettings("window", window=1)),
        Strategy("window-adaptive", ContextSettings("window", window=2, narrow_below=150)),
        Strategy(
            "window-2-headings", ContextSettings("window", window=2, narrow_below=0, headings=True)
        ),
        Strategy("window-4", ContextSettings("window", window=4, narrow_below=0)),
        Strategy("window-2-doc1", W2, fields(0.3, 1.0, 1.0)),
        Strategy("window-2-doc0", W2, fields(0.3, 0.0, 1.0)),
        Strategy("window-adaptive-s0", WA, fields(0.0, 0.3, 1.0)),
        Strategy("maxp-025", replace(WA, maxp=0.25)),
        Strategy("maxp-035", replace(WA, maxp=0.35)),
        Strategy("window", NAMED_STRATEGIES["window"]),
        Strategy("maxp-wide2", replace(WA, maxp=0.35, wide_hits=2)),
        Strategy("window-narrow0", replace(DEFAULT, narrow=0)),
        Strategy("window-wide1", replace(DEFAULT, wide_hits=1)),
        Strategy("window-wide1-narrow0", replace(DEFAULT, wide_hits=1, narrow=0)),
        Strategy("window-wide4-narrow0", replace(DEFAULT, wide_hits=4, narrow=0)),
        Strategy("maxp-wide3", replace(WA, maxp=0.35, wide_hits=3)),
        Strategy("maxp-w3-wide2", replace(WA, window=3, maxp=0.35, wide_hits=2)),
        Strategy("maxp-w4-wide1", replace(WA, window=4, maxp=0.35, wide_hits=1)),
        Strategy("maxp-035-s0", replace(WA, maxp=0.35), fields(0.0, 0.3, 1.0)),
        Strategy("maxp-05", replace(WA, maxp=0.5)),
        Strategy("maxp-075", replace(WA, maxp=0.75)),
        Strategy("maxp-1", replace(WA, maxp=1.0)),
        Strategy("maxp-2", replace(WA, maxp=2.0)),
        Strategy("maxp-1-w2", replace(W2, maxp=1.0)),
        Strategy("maxp-1-w1", ContextSettings("window", window=1, maxp=1.0)),
        Strategy("window-adaptive-p05", WA, fields(0.3, 0.3, 0.5)),
        Strategy("window-adaptive-p2", WA, fields(0.3, 0.3, 2.0)),
        Strategy("window-adaptive-doc1", WA, fields(0.3, 1.0, 1.0)),
        Strategy("window-s0", DEFAULT, fields(0.0, 0.3, 1.0)),
        Strategy("window-p075", DEFAULT, fields(0.3, 0.3, 0.75)),
        Strategy("window-p15", DEFAULT, fields(0.3, 0.3, 1.5)),
        Strategy("window-k1-09", DEFAULT, bm25={"k1": 0.9}),
        Strategy("window-k1-16", DEFAULT, bm25={"k1": 1.6}),
        Strategy("window-b05", DEFAULT, bm25={"b": 0.5}),
        Strategy("window-b09", DEFAULT, bm25={"b": 0.9}),
        Strategy("window-dense", NAMED_STRATEGIES["window-dense"]),
        *passage_strategies(),
    ]
    unknown = set(names) - {s.name for s in all_}
    if unknown:
        raise SystemExit(f"unknown strategy {sorted(unknown)[0]!r}")
    return [s for s in all_ if not names or s.name in names]


def passage_strategies() -> list[Strategy]:
    """Return the "passages" strategy and one change each (passage_rank.py)."""
    base, DEFAULT = NAMED_STRATEGIES["passages"], NAMED_STRATEGIES["window"]

    # Any: the changes go to dataclasses.replace, which takes each by its field's name.
    def named(name: str, **changes: Any) -> Strategy:
        return Strategy(name, replace(base, passages=replace(base.passages, **changes)))

    def on_window(name: str, **changes: Any) -> Strategy:
        """The window strategy's settings, its hits re-ranked by their passages."""
        passages = replace(base.passages, **changes)
        return Strategy(name, replace(DEFAULT, strategy="passages", passages=passages))

    return [
        Strategy("passages", base),
        named("passages-f2", fields=2.0),
        named("passages-f3", fields=3.0),
        named("passages-f2-len120-s100", fields=2.0, length=120, spread=100),
        named("passages-len120-s100", length=120, spread=100),
        named("passages-rerank-035", mix=0.35),
        named("passages-rerank-1", mix=1.0),
        named("passages-rerank-3", mix=3.0),
        named("passages-rerank-10", mix=10.0),
        named("passages-rerank-1-windows", mix=1.0, blocks=False, sections=False, pages=False),
        named("passages-rerank-1-f0", mix=1.0, fields=0.0),
        on_window("window-cover-035", mix=0.35, text=0.0, fields=0.0),
        on_window("window-cover-1", mix=1.0, text=0.0, fields=0.0),
        on_window("window-cover-01", mix=0.1, text=0.0, fields=0.0),
        on_window(
            "window-cover-w-035",
            mix=0.35,
            text=0.0,
            fields=0.0,
            blocks=False,
            sections=False,
            pages=False,
        ),
        on_window("window-rank-01", mix=0.1),
        on_window("window-rank-005", mix=0.05),
        on_window("window-rank-02", mix=0.2),
        on_window("window-rank-01-nopage", mix=0.1, pages=False),
        named("passages-f3-len120-s100", fields=3.0, length=120, spread=100),
        named("passages-noblock", blocks=False),
        named("passages-nosection", sections=False),
        named("passages-nopage", pages=False),
        named("passages-windows", blocks=False, sections=False, pages=False),
        named("passages-cov0", coverage=0.0),
        named("passages-cov2", coverage=2.0),
        named("passages-f0", fields=0.0),
        named("passages-f05", fields=0.5),
        named("passages-len30", length=30),
        named("passages-len120", length=120),
        named("passages-b03", b=0.3),
        named("passages-spread10", spread=10),
        named("passages-spread100", spread=100),
        Strategy("passages-w1", replace(base, window=1)),
        Strategy("passages-w3", replace(base, window=3)),
    ]


def usable_questions(path: Path, docs: list[Document]) -> QuestionSet:
    """Load the questions whose quotes this parser finds; say how many were left out."""
    try:
        return load_questions(path, docs)
    except QuestionsError:
        pass
    finder, kept = EvidenceFinder(docs), []
    problems: list[InvalidQuestion] = []
    for line, raw in read_lines(path.read_bytes(), problems):
        try:
            kept.append(build_question(raw, finder))
        except QuestionsError as exc:
            problems.append(InvalidQuestion(line, raw.get("id"), str(exc)))
    print(f"{path}: {len(problems)} questions left out (quote not found by this parser)")
    return QuestionSet(path, file_sha256(path.read_bytes()), tuple(kept))


def right_document(index: SegmentedUnits, qset: QuestionSet, chosen: list[Strategy]) -> None:
    """Print, per strategy, how often the first unit hit and the first passage at each budget
    come from a document the question's evidence is in (the look-alike readout)."""
    print(f"{'right document':22s}  first hit" + "".join(f"  @{b:<5}" for b in BUDGETS))
    for strategy in chosen:
        ranked = index.with_options(strategy.weights)
        firsts, by_budget = 0, [0] * len(BUDGETS)
        for q in qset.questions:
            sources = {p.source for p in q.relevant}
            units, hits, _ = ranked.ranked(q.question, strategy.context.candidates, q.audience)
            doc_of = units.col("unit_doc")
            firsts += bool(hits) and units.docs[int(doc_of[hits[0][0]])].source in sources
            for i, budget in enumerate(BUDGETS):
                context = context_for(ranked, q.question, budget, q.audience, strategy.context)
                by_budget[i] += bool(context) and context[0].source in sources
        n = len(qset.questions)
        cells = "".join(f"  {c / n * 100:6.1f}" for c in by_budget)
        print(f"{strategy.name:22s}  {firsts / n * 100:9.1f}{cells}")


def set_runs(corpus: Path, questions: Path, sizes: list[int], chosen: list[Strategy]) -> EvalReport:
    """Return every window, chunker and strategy run on one question set."""
    docs = parse_path(corpus).documents
    qset = usable_questions(questions, docs)
    started = time.perf_counter()
    runs = window_runs(docs, qset, sizes)
    boot = Bootstrap(len(qset.questions))
    base = EvalReport({"budgets": list(BUDGETS), "k": 5}, qset.questions, tuple(runs), (), ())
    report = with_strategies(base, docs, qset, chosen, boot, RANKER, MODEL)
    if DOCUMENT_READOUT:
        right_document(units_of(docs), qset, chosen)
    print(f"{corpus.name}: {len(qset.questions)} questions, {time.perf_counter() - started:.1f} s")
    return report


def pooled(reports: list[EvalReport]) -> EvalReport:
    """Return one report over every set's questions: each run's outcomes end to end."""
    names = [run.name for run in reports[0].runs]
    runs = tuple(
        replace(
            reports[0].runs[i],
            outcomes=tuple(o for r in reports for o in r.runs[i].outcomes),
        )
        for i in range(len(names))
    )
    questions = tuple(q for r in reports for q in r.questions)
    boot = Bootstrap(len(questions))
    return EvalReport(
        {"budgets": list(BUDGETS)}, questions, runs,
        tuple(summarize(run, BUDGETS, boot) for run in runs),
        tuple(compare(runs, BUDGETS, boot)),
    )  # fmt: skip


def main() -> str:
    """Run the comparison and print it."""
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--set", action="append", default=[], metavar="CORPUS:QUESTIONS",
        help="a corpus folder and its questions file (repeat to pool sets)",
    )  # fmt: skip
    parser.add_argument("--sizes", default="50,100,200")
    parser.add_argument("--strategies", default="")
    parser.add_argument("--of-record", default="window", help="the strategy the bar is read on")
    parser.add_argument(
        "--documents", action="store_true", help="also print how often the right document is first"
    )
    parser.add_argument("--section", default="eval_context", help="the RESULTS.md section")
    parser.add_argument(
        "--against", default="", help="also print each strategy's paired differences to this one"
    )
    parser.add_argument("--ranker", default="bm25", choices=("bm25", "dense", "hybrid"))
    args = parse_args(parser)
    global DOCUMENT_READOUT, RANKER
    DOCUMENT_READOUT, RANKER = args.documents, args.ranker
    sets = args.set or ["corpus:questions/questions.jsonl"]
    chosen = strategies([s for s in args.strategies.split(",") if s])
    sizes = [int(s) for s in args.sizes.split(",")]
    reports = []
    for item in sets:
        corpus, _, questions = item.partition(":")
        reports.append(set_runs(Path(corpus), Path(questions), sizes, chosen))
        show(reports[-1], [row(s.name) for s in chosen], row(args.of_record))
        against(reports[-1], [row(s.name) for s in chosen], args.against)
    if len(reports) > 1:
        print(f"pooled: {sum(len(r.questions) for r in reports)} questions")
        show(pooled(reports), [row(s.name) for s in chosen], row(args.of_record))
        against(pooled(reports), [row(s.name) for s in chosen], args.against)
    return str(args.section)


def show(report: EvalReport, strategy_names: list[str], of_record: str) -> None:
    """Print the table and the paired differences."""
    print("run".ljust(22) + "".join(f"  c@{b:<4} h@{b:<4} v@{b:<4} e@{b:<3}" for b in BUDGETS))
    for s in report.summaries:
        cells = "".join(
            f"  {b.figures['complete'].value * 100:5.1f} {b.figures['hit'].value * 100:5.1f}"
            f" {b.figures['evidence'].value * 100:5.1f} {b.empty_contexts:4d}"
            for b in s.budgets
        )
        print(s.name.ljust(22) + cells)
    by_name = {s.name: s for s in report.summaries}
    windows = [n for n in by_name if n.startswith(("fixed-", "overlap-"))]
    for budget in BUDGETS[1:]:
        metric, hit = f"complete@{budget}", f"hit@{budget}"
        best_s = max(strategy_names, key=lambda n: by_name[n].figure(metric).value)
        best_w = max(windows, key=lambda n: by_name[n].figure(metric).value)
        best_hit = max(windows, key=lambda n: by_name[n].figure(hit).value)
        structure = row("structure")
        pairs = {(best_s, best_w, metric), (best_s, best_w, hit), (best_s, structure, metric),
                 (of_record, best_w, metric), (of_record, best_w, hit),
                 (of_record, structure, metric), (of_record, best_hit, hit)}  # fmt: skip
        for name, other, m in sorted(pairs, key=lambda p: (p[0] != of_record, p[2], p[1])):
            value, low, high = paired(report, m, name, other)
            print(f"{m}: {name} - {other} = {value:+.1f} [{low:+.1f}, {high:+.1f}]")


def against(report: EvalReport, strategy_names: list[str], base: str) -> None:
    """Print each strategy's paired differences to base on complete@B and hit@B (none: no base)."""
    if not base:
        return
    for name in (n for n in strategy_names if n != row(base)):
        for budget in BUDGETS[1:]:
            cells = []
            for metric in (f"complete@{budget}", f"hit@{budget}"):
                value, low, high = paired(report, metric, name, row(base))
                cells.append(f"{metric} {value:+.1f} [{low:+.1f}, {high:+.1f}]")
            print(f"{name} - {row(base)}: " + "  ".join(cells))


def paired(report: EvalReport, metric: str, a: str, b: str) -> tuple[float, float, float]:
    """Return a minus b on metric, in points, with its paired interval."""
    for c in report.comparisons:
        if c.metric == metric and {c.a, c.b} == {a, b}:
            sign = 100 if c.a == a else -100
            ends = sorted((sign * c.difference.low, sign * c.difference.high))
            return sign * c.difference.value, ends[0], ends[1]
    raise KeyError(metric)


if __name__ == "__main__":
    with recording() as printed:
        section = main()
    write_section(section, "```\n" + printed.getvalue() + "```")
