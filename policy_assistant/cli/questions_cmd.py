"""`policy-assistant questions check`: validate a questions file without running eval."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from policy_assistant.cli.common import emit_json_lines, err, error, guarded, out, warn
from policy_assistant.cli.options import DEFAULT_CACHE_DIR, AsJson, ParseCache, Workers
from policy_assistant.errors import ExitCode
from policy_assistant.evaluate import DEFAULT_CORPUS
from policy_assistant.evaluate.authoring import (
    QuestionsCheck,
    check_questions,
    require_lines_file,
    write_valid,
)
from policy_assistant.parse import CorpusOptions


def register(app: typer.Typer) -> None:
    """Add the questions group and its check command to the app."""
    from policy_assistant.cli.beir_check import beir_folders_checked

    app.callback()(_questions_group)
    app.command("check")(guarded(beir_folders_checked(_check_command)))


def _questions_group() -> None:
    """Check a questions file against the corpus, listing every invalid question."""


def _check_command(
    file: Annotated[
        Path,
        typer.Argument(
            help="The questions: JSON lines, Chroma's CSV layout (.csv), or a BEIR folder."
        ),
    ],
    corpus: Annotated[Path, typer.Option(help="The corpus folder.")] = DEFAULT_CORPUS,
    valid_out: Annotated[
        Path | None,
        typer.Option(
            "--write-valid",
            metavar="FILE",
            help="Also write the lines of the questions that check out to FILE.",
        ),
    ] = None,
    as_json: AsJson = False,
    workers: Workers = None,
    parse_cache: ParseCache = DEFAULT_CACHE_DIR,
) -> None:
    """List every invalid question with its reason; exit 1 if there is any."""
    if valid_out is not None:
        require_lines_file(file)
    found = check_questions(file, corpus, CorpusOptions(cache_dir=parse_cache, workers=workers))
    for failure in found.parse_failures:
        warn(failure)
    loaded = found.questions
    for invalid in loaded.invalid:
        error(f"{file}: {invalid.describe()}")
    if valid_out is not None:
        kept = write_valid(file, found, valid_out)
        err.print(f"wrote {kept} questions to {escape(str(valid_out))}", highlight=False)
    _show_coverage(found, as_json)
    total = len(loaded.questions) + len(loaded.invalid)
    err.print(
        f"{escape(str(file))}: {len(loaded.questions)} of {total} questions valid, "
        f"{len(loaded.invalid)} invalid",
        highlight=False,
        soft_wrap=True,
    )
    raise typer.Exit(int(ExitCode.FAILURE if loaded.invalid else ExitCode.OK))


def _show_coverage(found: QuestionsCheck, as_json: bool) -> None:
    """Print what the valid questions cover: one JSON object, or a count table."""
    coverage = found.coverage()
    if as_json:
        emit_json_lines([coverage], None)
        return
    table = Table(title="coverage of the valid questions", title_justify="left")
    table.add_column("of")
    table.add_column("name")
    table.add_column("questions", justify="right")
    for kind in ("audiences", "tags", "documents"):
        counts: dict[str, Any] = coverage[kind]
        for name, count in counts.items():
            table.add_row(kind[:-1], escape(name), str(count))
    out.print(table)
    out.print(
        f"{coverage['questions']} questions, {coverage['quotes']} quotes located, "
        f"{sum(1 for n in coverage['documents'].values() if n)} of "
        f"{len(coverage['documents'])} documents cited",
        highlight=False,
    )
    overlap = coverage["overlap"]
    out.print(
        f"question-quote word overlap (search's terms): median {overlap['median']:.2f}; "
        f"{overlap['none']} share no term (asked from the need: dense or hybrid search helps, "
        "see ingest --embed)",
        highlight=False,
    )
