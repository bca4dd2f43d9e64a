"""`policy-assistant eval`: compare chunkers at equal context budgets, with a CI gate."""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from policy_assistant.atomic import atomic_write_bytes
from policy_assistant.chunk import CHUNKERS
from policy_assistant.cli.common import err, error, guarded, out, progress_bar, warn
from policy_assistant.cli.index_options import STRATEGY_NAMES
from policy_assistant.cli.options import (
    DEFAULT_CACHE_DIR,
    DEFAULT_MAX_FILE_MIB,
    DefaultAccess,
    Exclude,
    Include,
    MaxFileSize,
    MaxTableWords,
    MaxWords,
    NoOcr,
    Overlap,
    OverlapSentences,
    ParseCache,
    Quiet,
    Size,
    Workers,
    chunker_settings,
    corpus_options,
    set_ocr,
)
from policy_assistant.errors import ExitCode, UsageError
from policy_assistant.evaluate import (
    DEFAULT_BUDGETS,
    DEFAULT_CORPUS,
    DEFAULT_K,
    DEFAULT_QUESTIONS,
    EvalReport,
    EvalSettings,
    GateResult,
    Interval,
    compare_to_baseline,
    default_tolerance,
    gate_exit_code,
    load_baseline,
    run_eval,
)
from policy_assistant.evaluate.beir import is_beir_folder
from policy_assistant.evaluate.bootstrap import DEFAULT_SEED
from policy_assistant.evaluate.budget_units import WORDS, unit_label, unit_of
from policy_assistant.evaluate.dense import DEFAULT_MODEL
from policy_assistant.evaluate.page import render_eval_html
from policy_assistant.evaluate.plot import check_plot_path, plot_report
from policy_assistant.evaluate.report import BUDGET_METRICS, ChunkerRun
from policy_assistant.evaluate.score import BudgetOutcome, QuestionOutcome
from policy_assistant.evaluate.strategies import DEFAULT_NAME
from policy_assistant.evaluate.verdict import (
    figure_names,
    leak_messages,
    reading_lines,
    verdicts,
    versus_bm25,
)
from policy_assistant.jsonio import pretty_json
from policy_assistant.parse import CorpusOptions
from policy_assistant.text import counted

Opt = typer.Option

Corpus = Annotated[Path, Opt(help="The corpus folder.")]
Questions = Annotated[
    Path,
    Opt(
        help="The questions: JSON lines, Chroma's CSV layout (.csv), or a BEIR folder "
        "(its corpus.jsonl is the corpus)."
    ),
]
Chunkers = Annotated[
    list[str] | None,
    Opt(
        "--chunker",
        help=(
            "Chunker variants, name or name:setting=value,... (repeatable; a comma before a "
            "chunker's name starts another); also semantic (embeds with --model) and the peers "
            "langchain-recursive, "
            f"llamaindex-sentence, chonkie-recursive [default: {','.join(CHUNKERS)}]."
        ),
        show_default=False,
    ),
]
ChunkFiles = Annotated[
    list[Path] | None,
    Opt(
        "--chunks",
        help="Also evaluate these chunk records, from any tool (JSON lines, repeatable).",
        show_default=False,
    ),
]
Indexes = Annotated[
    list[Path] | None,
    Opt(
        "--index", help="Also evaluate this index folder as built (repeatable).", show_default=False
    ),
]
Strategies = Annotated[
    str | None,
    Opt(
        "--strategy",
        help="Context strategies over retrieval units beside the chunkers, comma-separated, or "
        "none [default: window, what search --budget assembles, when no row is named] "
        f"({STRATEGY_NAMES}).",
        show_default=False,
    ),
]
Retrievers = Annotated[
    str,
    Opt(
        "--retriever",
        help="Rankers each row is searched with, comma-separated: bm25, dense, hybrid, "
        "hybrid:W (the dense list weighted W) (a row per chunker and ranker, each compared "
        "with its bm25 row; dense and hybrid embed with --model).",
    ),
]
Model = Annotated[
    Path | None,
    Opt(
        "--model",
        help="Embedding model folder of dense, hybrid and the semantic chunker "
        f"[default: {DEFAULT_MODEL.as_posix()}].",
        show_default=False,
    ),
]
BUDGETS = ",".join(map(str, DEFAULT_BUDGETS))
"""The default budgets, as --budget takes them."""
Budgets = Annotated[str, Opt("--budget", help="Context budgets in words, comma-separated.")]
BudgetUnit = Annotated[
    str, Opt("--budget-unit", help="What budgets count: words, or tokens (cl100k_base).")
]
K = Annotated[int, Opt("-k", "--k", help="Results counted by hit@k.")]
Seed = Annotated[int, Opt("--seed", help="Seed of the bootstrap resamples.")]
Json = Annotated[bool, Opt("--json", help="The full report as JSON on stdout.")]
OutFile = Annotated[Path | None, Opt("--out", help="Write the JSON report here.")]
Summary = Annotated[
    bool,
    Opt("--summary", help="JSON without per-question detail: the form to commit as a baseline."),
]
Plot = Annotated[Path | None, Opt("--plot", help="Draw hit@B and complete@B (.png/.svg/.pdf).")]
Html = Annotated[
    Path | None, Opt("--html", help="Write the report as one self-contained web page.")
]
Explain = Annotated[str | None, Opt("--explain", help="Show one question's retrieval and misses.")]
Baseline = Annotated[Path | None, Opt("--baseline", help="Fail when a figure falls below this.")]
Tolerance = Annotated[
    float | None, Opt("--tolerance", help="Allowed fall (default: one question's worth, 1/n).")
]
AcceptSettings = Annotated[
    bool,
    Opt(
        "--accept-settings",
        help="Gate against a baseline whose settings or questions file differ (else exit 1).",
    ),
]
Strict = Annotated[
    bool, Opt("--strict", help="Fail on any invalid question (always so with --baseline).")
]


@dataclass(frozen=True, slots=True)
class _Outputs:
    """Where the report goes besides the terminal's tables."""

    as_json: bool = False
    out_file: Path | None = None
    summary: bool = False
    plot: Path | None = None
    html: Path | None = None
    explain: str | None = None


@dataclass(frozen=True, slots=True)
class _Gate:
    """The CI gate's options: the baseline, the allowed fall, and accepted setting changes."""

    baseline: Path | None = None
    tolerance: float | None = None
    accept_settings: bool = False


def register(app: typer.Typer) -> None:
    """Add the eval command to the app."""
    app.command("eval")(guarded(_eval_command))


def _eval_command(
    corpus: Corpus = DEFAULT_CORPUS,
    questions: Questions = DEFAULT_QUESTIONS,
    chunker: Chunkers = None,
    chunks: ChunkFiles = None,
    index: Indexes = None,
    strategy: Strategies = None,
    retriever: Retrievers = "bm25",
    model: Model = None,
    budget: Budgets = BUDGETS,
    budget_unit: BudgetUnit = WORDS,
    k: K = DEFAULT_K,
    size: Size = None,
    overlap: Overlap = None,
    max_words: MaxWords = None,
    max_table_words: MaxTableWords = None,
    overlap_sentences: OverlapSentences = None,
    seed: Seed = DEFAULT_SEED,
    as_json: Json = False,
    out_file: OutFile = None,
    summary: Summary = False,
    plot: Plot = None,
    html: Html = None,
    explain: Explain = None,
    baseline: Baseline = None,
    tolerance: Tolerance = None,
    accept_settings: AcceptSettings = False,
    strict: Strict = False,
    quiet: Quiet = False,
    include: Include = None,
    exclude: Exclude = None,
    default_access: DefaultAccess = None,
    max_file_size: MaxFileSize = DEFAULT_MAX_FILE_MIB,
    no_ocr: NoOcr = False,
    workers: Workers = None,
    parse_cache: ParseCache = DEFAULT_CACHE_DIR,
) -> None:
    """Compare chunkers on a question set at equal context budgets; optionally gate CI."""
    set_ocr(no_ocr)
    reading = corpus_options(include, exclude, default_access, max_file_size, parse_cache, workers)
    options = chunker_settings(size, overlap, max_words, max_table_words, overlap_sentences)
    base = _eval_settings(chunker, chunks, index, strategy, options, strict or baseline is not None)
    settings = replace(
        base, budgets=_parse_budgets(budget), budget_unit=budget_unit, k=k, seed=seed
    )
    rankers = tuple(r.strip() for r in retriever.split(",") if r.strip())
    settings = replace(settings, rankers=rankers, model=model)
    if strategy is None and (budget_unit != WORDS or is_beir_folder(questions)):
        settings = replace(settings, strategies=())  # the default strategy cannot run there
    settings.check()
    outputs = _Outputs(as_json, out_file, summary, plot, html, explain)
    gate = _Gate(baseline, tolerance, accept_settings)
    if is_beir_folder(questions):
        raise typer.Exit(int(_run_beir(questions, settings, outputs, gate, quiet)))
    if not questions.exists():  # a usage error, as a missing --corpus is
        raise UsageError(f"--questions: {questions} does not exist")
    raise typer.Exit(
        int(_run_and_report(corpus, questions, settings, reading, outputs, gate, quiet))
    )


def _eval_settings(
    chunker: list[str] | None,
    chunks: list[Path] | None,
    index: list[Path] | None,
    strategy: str | None,
    options: dict[str, int],
    strict: bool,
) -> EvalSettings:
    """Return the settings of what to evaluate: the default chunkers unless files are named."""
    indexes = tuple(index or ())
    files = tuple(chunks or ())
    names = tuple(chunker) if chunker else () if indexes or files else tuple(CHUNKERS)
    return EvalSettings(
        chunkers=names,
        indexes=indexes,
        chunk_files=files,
        strict=strict,
        strategies=strategy_names(strategy, bool(chunker or indexes or files)),
        chunker_options=options,
    )


def strategy_names(strategy: str | None, rows_named: bool) -> tuple[str, ...]:
    """Return the strategies asked for: by default search's own when no row is named."""
    if strategy is None:
        return () if rows_named else (DEFAULT_NAME,)
    names = tuple(n.strip() for n in strategy.split(",") if n.strip())
    return () if names == ("none",) else names


def _run_beir(
    folder: Path, settings: EvalSettings, outputs: _Outputs, gate: _Gate, quiet: bool
) -> ExitCode:
    """Evaluate a BEIR folder, refusing the options that do not apply to one."""
    from policy_assistant.cli.beir_view import eval_beir

    unused = {
        "--plot": outputs.plot,
        "--html": outputs.html,
        "--explain": outputs.explain,
        "--baseline": gate.baseline,
    }
    return eval_beir(
        folder, settings, unused, outputs.as_json, outputs.out_file, outputs.summary, quiet
    )


def _run_and_report(
    corpus: Path,
    questions: Path,
    settings: EvalSettings,
    reading: CorpusOptions,
    outputs: _Outputs,
    gate: _Gate,
    quiet: bool,
) -> ExitCode:
    """Evaluate, write every output asked for, gate, and return the exit code."""
    if outputs.plot is not None:
        check_plot_path(outputs.plot)
    if gate.tolerance is not None and gate.tolerance < 0:
        raise UsageError(f"--tolerance must be zero or more, got {gate.tolerance}")
    before = load_baseline(gate.baseline) if gate.baseline is not None else None
    with progress_bar("evaluating", quiet) as progress:
        report = run_eval(corpus, questions, settings, progress, reading)
    for message in report.warnings:
        warn(message)
    data = report.to_dict(detail=not outputs.summary)
    _write_outputs(report, data, outputs.as_json, outputs.out_file, outputs.explain)
    if outputs.plot is not None:
        plot_report(report, outputs.plot)
        wrote(outputs.plot)
    if outputs.html is not None:
        write_html(report, outputs.html)
        wrote(outputs.html)
    _report_leaks(report)
    result = None
    if before is not None and gate.baseline is not None:
        result = _check_gate(report, data, before, gate)
        _report_gate(result, gate.baseline)
    return gate_exit_code(report.leaks, result)


def _check_gate(
    report: EvalReport, data: dict[str, Any], before: dict[str, Any], gate: _Gate
) -> GateResult:
    """Compare the report with the baseline at the given or default tolerance."""
    questions = len(report.questions)
    tolerance = default_tolerance(questions) if gate.tolerance is None else gate.tolerance
    return compare_to_baseline(data, before, tolerance, accept=gate.accept_settings)


def write_html(report: EvalReport, target: Path) -> None:
    """Write the full report, with every retrieved chunk's text, as one page."""
    chunks = {c.id: c for run in report.runs for c in run.chunks}
    readings = reading_lines(report)
    page = render_eval_html(report.to_dict(detail=True), chunks, report.warnings, readings)
    atomic_write_bytes(target, page.encode("utf-8"))


def wrote(path: Path) -> None:
    """Say on stderr which file was written, as inspect --html does."""
    err.print(f"wrote {escape(str(path))}", highlight=False, soft_wrap=True)


def _parse_budgets(value: str) -> tuple[int, ...]:
    """Return the budgets of a comma-separated list, ascending, without repeats."""
    budgets: set[int] = set()
    for item in value.split(","):
        try:
            budgets.add(int(item))
        except ValueError:
            raise UsageError(
                f"--budget takes whole numbers of words, got {item.strip()!r}"
            ) from None
    return tuple(sorted(budgets))


def _write_outputs(
    report: EvalReport,
    data: dict[str, Any],
    as_json: bool,
    out_file: Path | None,
    explain: str | None,
) -> None:
    """Write the JSON report where asked, and the tables (or one question) on a terminal."""
    if explain is not None and explain not in {q.id for q in report.questions}:
        raise UsageError(f"--explain: no question {explain!r} in the questions file")
    if out_file is not None:
        atomic_write_bytes(out_file, pretty_json(data))
        wrote(out_file)
    if as_json:
        sys.stdout.buffer.write(pretty_json(data))
        sys.stdout.buffer.flush()
    elif explain is not None:
        _explain_question(report, explain)
    else:
        out.print(_k_table(report))
        out.print(_budget_table(report))
        differences = _comparison_table(report)
        if differences is not None:
            out.print(differences)
        against = _ranker_table(report)
        if against is not None:
            out.print(against)
        for line in reading_lines(report):
            out.print(escape(line), highlight=False)  # wrapped at spaces: it fits the terminal


def show(figure: Interval, one_line: bool | None = None) -> str:
    """Return a share with its interval: 0.817 [0.717-0.900], the interval below when narrow."""
    one_line = out.width >= NARROW if one_line is None else one_line
    return f"{figure.value:.3f}{' ' if one_line else chr(10)}[{figure.low:.3f}-{figure.high:.3f}]"


NARROW = 100
"""Below this many columns the equal-k table prints each interval under its figure."""


def _k_table(report: EvalReport) -> Table:
    """Return the figures at equal k, where more text finds more evidence."""
    k = report.settings["k"]
    n = len(report.questions)
    table = Table(title=f"At equal k (k={k}, {n} questions, 95% intervals)", title_justify="left")
    gap = "\n" if out.width < NARROW else " "
    # Narrow, the header folds too: the numbers under it never do, so it sets the width.
    words_head = f"median{gap}words{gap}in top {k}"
    table.add_column("chunker", min_width=_name_width(report))
    for name in ("chunks", f"hit@{k}", words_head, "leaks"):
        table.add_column(name, justify="right")
    for s in report.summaries:
        words = f"{s.words_at_k.value:.0f}{gap}[{s.words_at_k.low:.0f}-{s.words_at_k.high:.0f}]"
        # A context strategy ranks retrieval units: it has no chunks to count.
        chunks = str(s.chunks) if s.chunks else "units"
        table.add_row(s.name, chunks, show(s.hit_at_k), words, str(s.leaks))
    return table


def _budget_table(report: EvalReport) -> Table:
    """Return chunker x budget: what a context of B holds, one figure a row when too narrow."""
    one_line = out.width >= _wide_width(report, one_line=True)
    if not one_line and out.width < _wide_width(report, one_line=False):
        return _long_budget_table(report)
    table = Table(title=_budget_title(report), title_justify="left")
    median = f"median {unit_of(report.settings)}"
    heads = (*(f"{m}@B" for m in BUDGET_METRICS), CEILING, "empty", "cut", MISSES, median)
    for name in ("chunker", "B", *heads):
        table.add_column(name, justify="left" if name == "chunker" else "right")
    for s in report.summaries:
        for i, b in enumerate(s.budgets):
            figures = [show(b.figures[m], one_line) for m in BUDGET_METRICS]
            counts = (str(b.empty_contexts), str(b.cut_contexts), _split_misses(b.misses))
            words = f"{b.context_words.value:.0f}"
            name = s.name if i == 0 else ""
            ceiling = show(b.ceiling, one_line)
            table.add_row(name, str(b.budget), *figures, ceiling, *counts, words)
        table.add_section()
    return table


CEILING = "ceiling@B"
"""complete@B if ranking were perfect."""
MISSES = "miss chunk/rank"
"""Incomplete contexts: no chunk set could fit B / one could, ranking did not bring it."""


def _split_misses(misses: dict[str, int]) -> str:
    """Return the misses as chunking/ranking counts: 18/34."""
    return f"{misses.get('chunking', 0)}/{misses.get('ranking', 0)}"


NAME_FOLD = 12
"""Columns a variant's name may be folded into: names fold, numbers never do."""


def _name_width(report: EvalReport) -> int:
    """Return the columns a variant's name keeps however narrow: up to NAME_FOLD."""
    return min(max((len(s.name) for s in report.summaries), default=7), NAME_FOLD)


def _wide_width(report: EvalReport, one_line: bool) -> int:
    """Return the columns the budget table needs with every number whole on its lines."""
    budgets = [b for s in report.summaries for b in s.budgets]
    figures = [b.figures[m] for b in budgets for m in BUDGET_METRICS]
    cell = max((len(line) for f in figures for line in show(f, one_line).splitlines()), default=0)
    widths = [
        _name_width(report),
        max([1] + [len(str(b.budget)) for b in budgets]),
        *(max(cell, len(f"{m}@B")) for m in BUDGET_METRICS),
        max(cell, len(CEILING)),
        max([5] + [len(str(b.empty_contexts)) for b in budgets]),
        max([3] + [len(str(b.cut_contexts)) for b in budgets]),
        max([len(MISSES)] + [len(_split_misses(b.misses)) for b in budgets]),
        max([len(f"median {unit_of(report.settings)}")]
            + [len(f"{b.context_words.value:.0f}") for b in budgets]),
    ]  # fmt: skip
    return 1 + sum(w + 3 for w in widths)  # a border, then per column two pads and a border


def _budget_title(report: EvalReport) -> str:
    """Return the budget table's title, naming what the budgets count."""
    return f"At equal budgets ({unit_label(unit_of(report.settings))}, prefixes included)"


def _long_budget_table(report: EvalReport) -> Table:
    """Return the budget figures one per row: chunker, B, figure, value and interval."""
    table = Table(title=_budget_title(report), title_justify="left")
    for name in ("chunker", "B", "figure", "value", "interval"):
        table.add_column(name, justify="left" if name in ("chunker", "figure") else "right")
    for s in report.summaries:
        for b in s.budgets:
            for i, m in enumerate(BUDGET_METRICS):
                f = b.figures[m]
                interval = f"[{f.low:.3f}-{f.high:.3f}]"
                name, budget = (s.name, str(b.budget)) if i == 0 else ("", "")
                table.add_row(name, budget, f"{m}@B", f"{f.value:.3f}", interval)
            c = b.ceiling
            table.add_row("", "", CEILING, f"{c.value:.3f}", f"[{c.low:.3f}-{c.high:.3f}]")
            table.add_row("", "", "empty", str(b.empty_contexts), "")
            table.add_row("", "", "cut", str(b.cut_contexts), "")
            table.add_row("", "", MISSES, _split_misses(b.misses), "")
            median = f"median {unit_of(report.settings)}"
            table.add_row("", "", median, f"{b.context_words.value:.0f}", "")
            table.add_section()
    return table


def _comparison_table(report: EvalReport) -> Table | None:
    """Return, per figure, the best variant and which others differ from it beyond the noise."""
    found = verdicts(report)
    if not found:
        return None
    n = len(report.questions)
    title = f"Differences from the best (paired 95% intervals; {n} questions, one is {1 / n:.3f})"
    table = Table(title=title, title_justify="left")
    for name in ("figure", "best", "not a difference (interval holds 0)", "a difference"):
        table.add_column(name, justify="left")
    for v in found:
        inside = ", ".join(x.describe() for x in v.within_noise)
        outside = ", ".join(x.describe() for x in v.different)
        table.add_row(v.figure, f"{v.best} {v.best_value:.3f}", inside, outside)
    return table


def _ranker_table(report: EvalReport) -> Table | None:
    """Return each dense or hybrid row's paired difference from the same row ranked by bm25."""
    found = versus_bm25(report)
    if not found:
        return None
    n = len(report.questions)
    title = (
        f"Against the same row ranked by bm25 (paired 95% intervals; one question is {1 / n:.3f})"
    )
    table = Table(title=title, title_justify="left")
    figures = figure_names(report.settings["budgets"])
    shown = [f for f in figures if f == "hit@k" or f.startswith(("hit@", "complete@"))]
    table.add_column("row", min_width=_name_width(report))
    for name in shown:
        table.add_column(name, justify="right")
    for row, versus in found.items():
        cells = [versus[f] for f in shown]
        table.add_row(
            escape(row), *(f"{d.value:+.3f}\n[{d.low:+.3f}, {d.high:+.3f}]" for d in cells)
        )
    return table


def _explain_question(report: EvalReport, question_id: str) -> None:
    """Print one question's retrieval per chunker, and why each miss missed."""
    index = next(i for i, q in enumerate(report.questions) if q.id == question_id)
    question = report.questions[index]
    out.print(f"[bold]{escape(question.id)}[/] ({question.audience}): {escape(question.question)}")
    for p in question.relevant:
        where = f"{p.source}" + (f" / {p.section}" if p.section else "")
        out.print(f"  evidence in {escape(where)}: {escape(p.evidence)!r}", highlight=False)
    for run in report.runs:
        outcome = run.outcomes[index]
        shown = outcome.retrieved or not any(b.context for b in outcome.budgets)
        out.print(_explain_table(run, outcome) if shown else _context_table(run, outcome))
        for line in _miss_lines(run.outcomes[index], unit_of(report.settings)):
            out.print(line, highlight=False)


def _explain_table(run: ChunkerRun, outcome: QuestionOutcome) -> Table:
    """Return a chunker's ranking for one question, with what each budget packed."""
    table = Table(title=f"{run.name}: {len(outcome.retrieved)} candidates", title_justify="left")
    budgets = [b.budget for b in outcome.budgets]
    heads = ("rank", "chunk", "source", "#", "words", "relevant", "holds quote")
    for name in (*heads, *(f"in {b}" for b in budgets)):
        table.add_column(name, justify="left" if name in ("chunk", "source") else "right")
    for r in outcome.retrieved:
        packed = [_in_context(r.rank, b) for b in outcome.budgets]
        flags = ("yes" if r.relevant else "", "yes" if r.holds else "")
        row = (str(r.rank), r.chunk.id, escape(r.chunk.source), str(r.chunk.position + 1))
        table.add_row(*row, str(r.chunk.words), *flags, *packed)
    return table


def _context_table(run: ChunkerRun, outcome: QuestionOutcome) -> Table:
    """Return a context strategy's passages for one question at each budget."""
    table = Table(title=f"{run.name}: the context at each budget", title_justify="left")
    for name in ("B", "#", "source", "pages", "section", "chars", "words", "holds quote"):
        table.add_column(name, justify="left" if name in ("source", "section") else "right")
    for b in outcome.budgets:
        for rank, part in enumerate(b.context, 1):
            pages = ",".join(str(p) for p in part.pages)
            cells = (str(b.budget) if rank == 1 else "", str(rank), escape(part.source), pages)
            where = (escape(part.section), f"{part.start}-{part.end}", str(part.words))
            table.add_row(*cells, *where, part.quote, end_section=rank == len(b.context))
    return table


LIMIT_WORDS = {
    "chunking": "chunking miss: no set of its chunks within B holds the evidence",
    "ranking": "ranking miss: chunks within B hold the evidence, ranking did not bring them",
}
"""What each kind of miss says in --explain."""


def _miss_lines(outcome: QuestionOutcome, unit: str = WORDS) -> list[str]:
    """Return one line per budget: what the context held, and why a miss missed."""
    lines = []
    noun = "passage" if any(b.context for b in outcome.budgets) else "chunk"
    for b in outcome.budgets:
        state = "complete" if b.miss is None else f"miss: {b.miss.replace('_', ' ')}"
        cuts = [", ".join(p.chunks) for p in b.passages if p.chunks]
        detail = f" (quote cut across {'; '.join(cuts)})" if cuts else ""
        if b.packed == 0 and outcome.retrieved:
            detail += " (empty context: the first result alone is over the budget)"
        if b.cut:
            detail += " (first result over the budget: cut to its first sentences)"
        if b.limit is not None:
            detail += f"; {LIMIT_WORDS.get(b.limit, b.limit)}"
        lines.append(
            f"  at {b.budget}: {counted(b.packed, noun)}, {b.words} {unit}; "
            f"hit {_yes_no(b.hit)}, "
            f"recall {b.recall:.2f}, evidence {b.evidence:.2f} (share of the quotes held), "
            f"ceiling {_yes_no(b.ceiling)}; {state}{detail}"
        )
    return lines


def _in_context(rank: int, budget: BudgetOutcome) -> str:
    """Return whether the result of this rank is in the context: yes, cut, or nothing."""
    if rank > budget.packed:
        return ""
    return "cut" if budget.cut else "yes"


def _yes_no(value: bool) -> str:
    """Return yes or no."""
    return "yes" if value else "no"


def _report_leaks(report: EvalReport) -> None:
    """Print every variant that returned staff chunks to public questions."""
    for line in leak_messages(report):
        error(line)


def _report_gate(gate: GateResult, baseline: Path) -> None:
    """Print whether the settings match the baseline's and what fell below it."""
    for note in gate.notes:
        warn(f"{note} ({baseline}); figures may not be comparable")
    if gate.settings_differ:
        error(gate.settings_line(str(baseline)))
        return
    for difference in gate.differences:
        warn(f"{difference} (accepted): figures may not be comparable")
    for missing in gate.missing:
        error(f"baseline has {missing}, which this run does not measure")
    for fall in gate.falls:
        error(f"{fall.describe()}, more than the tolerance {gate.tolerance:.4f}")
    if gate.passed:
        err.print(
            f"baseline {escape(str(baseline))}: {gate.compared} figures, none fell more than "
            f"{gate.tolerance:.4f}",
            highlight=False,
        )
