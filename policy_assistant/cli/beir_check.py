"""`questions check DIR` on a BEIR folder: its bad lines, and what it holds."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

import typer
from rich.markup import escape

from policy_assistant.cli.common import err, error
from policy_assistant.errors import ExitCode
from policy_assistant.evaluate.beir import is_beir_folder, load_beir

P = ParamSpec("P")
R = TypeVar("R")


def beir_folders_checked(command: Callable[P, R]) -> Callable[P, R]:
    """Wrap `questions check` so that a BEIR folder is checked here, any other file as before."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        file = kwargs.get("file")
        if isinstance(file, Path) and is_beir_folder(file):
            raise typer.Exit(int(_check_beir(file)))
        return command(*args, **kwargs)

    return wrapper


def _check_beir(folder: Path) -> ExitCode:
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
