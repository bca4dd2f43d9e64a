"""`policy-assistant questions check`: validate a questions file without running eval."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from policy_assistant.cli.common import err, error, guarded, warn
from policy_assistant.cli.options import Workers
from policy_assistant.errors import ExitCode
from policy_assistant.evaluate import DEFAULT_CORPUS
from policy_assistant.evaluate.authoring import check_questions
from policy_assistant.parse import CorpusOptions


def register(app: typer.Typer) -> None:
    """Add the questions group and its check command to the app."""
    app.callback()(questions_group)
    app.command("check")(guarded(check_command))


def questions_group() -> None:
    """Check a questions file against the corpus, listing every invalid question."""


def check_command(
    file: Annotated[
        Path, typer.Argument(help="The questions: JSON lines, or Chroma's CSV layout (.csv).")
    ],
    corpus: Annotated[Path, typer.Option(help="The corpus folder.")] = DEFAULT_CORPUS,
    workers: Workers = None,
) -> None:
    """List every invalid question with its reason; exit 1 if there is any."""
    found = check_questions(file, corpus, CorpusOptions(workers=workers))
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
