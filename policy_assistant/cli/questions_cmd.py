"""`policy-assistant questions check`: validate a questions file without running eval."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from policy_assistant.cli.common import err, error, guarded, warn
from policy_assistant.errors import ExitCode
from policy_assistant.evaluate import DEFAULT_CORPUS
from policy_assistant.evaluate.authoring import check_questions
from policy_assistant.evaluate.beir import is_beir_folder, load_beir


def register(app: typer.Typer) -> None:
    """Add the questions group and its check command to the app."""
    app.callback()(questions_group)
    app.command("check")(guarded(check_command))


def questions_group() -> None:
    """Check a questions file against the corpus, listing every invalid question."""


def check_command(
    file: Annotated[
        Path,
        typer.Argument(
            help="The questions: JSON lines, Chroma's CSV layout (.csv), or a BEIR folder."
        ),
    ],
    corpus: Annotated[Path, typer.Option(help="The corpus folder.")] = DEFAULT_CORPUS,
) -> None:
    """List every invalid question with its reason; exit 1 if there is any."""
    if is_beir_folder(file):
        raise typer.Exit(int(check_beir(file)))
    found = check_questions(file, corpus)
    for failure in found.parse_failures:
        warn(failure)
    loaded = found.questions
    for invalid in loaded.invalid:
        error(f"{file}: {invalid.describe()}")
    total = len(loaded.questions) + len(loaded.invalid)
    err.print(
        f"{escape(str(file))}: {len(loaded.questions)} of {total} questions valid, "
        f"{len(loaded.invalid)} invalid",
        highlight=False,
        soft_wrap=True,
    )
    raise typer.Exit(int(ExitCode.FAILURE if loaded.invalid else ExitCode.OK))


def check_beir(folder: Path) -> ExitCode:
    """List every bad line of a BEIR folder, then what it holds; FAILURE if any line is bad."""
    loaded = load_beir(folder)
    for row in loaded.bad:
        error(f"{folder}: {row.describe()}")
    err.print(
        f"{escape(str(folder))}: {len(loaded.documents)} documents, {len(loaded.queries)} queries "
        f"judged in qrels/{loaded.split}.tsv ({loaded.unjudged} not judged there), "
        f"{len(loaded.bad)} bad lines",
        highlight=False,
        soft_wrap=True,
    )
    return ExitCode.FAILURE if loaded.bad else ExitCode.OK
