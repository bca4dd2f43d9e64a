"""`eval --questions DIR` on a BEIR folder: document-level nDCG@10, MRR@10 and Recall@100."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from policy_assistant.atomic import atomic_write_bytes
from policy_assistant.cli.common import out, progress_bar, warn
from policy_assistant.errors import ExitCode, UsageError
from policy_assistant.evaluate.beir_run import NO_CHUNK_FIGURES, BeirReport, run_beir_eval
from policy_assistant.evaluate.ir_measures import MEASURES
from policy_assistant.evaluate.run import EvalSettings
from policy_assistant.evaluate.verdict import MIN_QUESTIONS
from policy_assistant.jsonio import pretty_json

FEW_QUERIES = MIN_QUESTIONS
"""Below this many judged queries the run says its intervals are wide."""


def eval_beir(
    folder: Path,
    settings: EvalSettings,
    unused: dict[str, Any],
    as_json: bool,
    out_file: Path | None,
    summary: bool,
    quiet: bool,
) -> ExitCode:
    """Run eval on a BEIR folder, print or write the report, and return the exit code."""
    given = sorted(name for name, value in unused.items() if value)
    if given:
        raise UsageError(f"{', '.join(given)} do not apply to a BEIR folder")
    with progress_bar("evaluating", quiet) as progress:
        report = run_beir_eval(folder, settings, progress)
    for message in report.warnings:
        warn(message)
    data = report.to_dict(detail=not summary)
    if out_file is not None:
        atomic_write_bytes(out_file, pretty_json(data))
    if as_json:
        sys.stdout.buffer.write(pretty_json(data))
        sys.stdout.buffer.flush()
    else:
        out.print(_measure_table(report))
        for line in reading_lines(report):
            out.print(escape(line), highlight=False)  # wrapped at spaces: it fits the terminal
    return ExitCode.OK


def _measure_table(report: BeirReport) -> Table:
    """Return variant x measure, each mean with its interval."""
    n = len(report.queries)
    split = report.settings["questions"]["split"]
    title = f"Documents (BEIR qrels/{split}.tsv, {n} judged queries, 95% intervals)"
    table = Table(title=title, title_justify="left")
    for name in ("chunker", "chunks", *MEASURES):
        table.add_column(name, justify="left" if name == "chunker" else "right")
    for run in report.runs:
        figures = report.figures[run.name]
        shown = [
            f"{f.value:.3f} [{f.low:.3f}-{f.high:.3f}]" for f in map(figures.__getitem__, MEASURES)
        ]
        table.add_row(escape(run.name), str(run.chunks), *shown)
    return table


def reading_lines(report: BeirReport) -> list[str]:
    """Return what the numbers mean: the best variant per measure, and what is not measured."""
    lines = [f"chunk figures {NO_CHUNK_FIGURES}"]
    n = len(report.queries)
    if n < FEW_QUERIES:
        lines.append(f"only {n} judged queries: one query moves a figure by {1 / n:.3f}")
    if len(report.runs) < 2:
        return lines
    for measure in MEASURES:
        ranked = sorted(report.runs, key=lambda r: -report.figures[r.name][measure].value)
        best, second = ranked[0].name, ranked[1].name
        pair = next(
            c for c in report.comparisons if c.metric == measure and {c.a, c.b} == {best, second}
        )
        value = report.figures[best][measure].value
        verdict = "within the noise of" if pair.inside else "separated by the paired interval from"
        lines.append(f"{measure}: best {best} {value:.3f}, {verdict} {second}")
    return lines
