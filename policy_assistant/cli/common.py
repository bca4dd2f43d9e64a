"""What every command shares: the consoles, the error boundary, JSON lines and progress."""

from __future__ import annotations

import functools
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import orjson
import typer
from rich.console import Console
from rich.markup import escape

from policy_assistant.atomic import atomic_write_bytes
from policy_assistant.errors import DocumentError, ExitCode, PolicyAssistantError

PIPED_WIDTH = 160
"""Width of tables written to a pipe or file, where no terminal says how wide to be."""

out = Console(soft_wrap=False, width=None if sys.stdout.isatty() else PIPED_WIDTH)
"""Results: tables on a terminal, JSON lines otherwise."""
err = Console(stderr=True)
"""Progress, warnings and errors."""

P = ParamSpec("P")
R = TypeVar("R")


DEBUG_ENV = "POLICY_ASSISTANT_DEBUG"
"""Set to 1 to let an unexpected error show its traceback (for a bug report)."""


def guarded(command: Callable[P, R]) -> Callable[P, R]:
    """The one error boundary: every failure becomes one line on stderr and its exit code.

    The project's errors carry their code (1 domain, 2 usage); an OSError (a folder given as a
    file, no permission, disk full) is 1 and names the path; Ctrl-C is 130; anything else is a
    bug, said in one line, exit 1, with the traceback only when DEBUG_ENV is set.
    """

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise
        except BaseException as exc:
            message, code = describe_failure(exc)
            error(message)
            raise typer.Exit(int(code)) from None

    return wrapper


def describe_failure(exc: BaseException) -> tuple[str, ExitCode]:
    """Return the one line and the exit code for an exception that reached the boundary."""
    if isinstance(exc, PolicyAssistantError):
        return str(exc), exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted", ExitCode.INTERRUPTED
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename is not None else ""
        return f"{where}{exc.strerror or exc}", ExitCode.FAILURE
    if isinstance(exc, SystemExit | GeneratorExit):
        raise exc
    if os.environ.get(DEBUG_ENV) == "1":
        raise exc
    hint = f"set {DEBUG_ENV}=1 for the traceback"
    return f"internal error: {type(exc).__name__}: {exc} (a bug: {hint})", ExitCode.FAILURE


def error(message: str) -> None:
    """Print one error line on stderr."""
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)


def warn(message: str) -> None:
    """Print one warning line on stderr."""
    err.print(f"[yellow]warning:[/] {escape(message)}", highlight=False, soft_wrap=True)


REFRESH_SECONDS = 0.1
"""How often the progress bar is redrawn at most."""

WARNING_LIMIT = 10
"""Warnings printed one by one before the rest are counted."""


def print_warnings(messages: list[str], limit: int = WARNING_LIMIT) -> None:
    """Print warnings on stderr; past `limit`, count the rest instead of flooding the terminal."""
    for message in messages[:limit]:
        warn(message)
    if len(messages) > limit:
        warn(f"{len(messages) - limit} more warnings like these")


def report_failures(failures: Iterable[DocumentError]) -> int:
    """Print each failure on its own line and return the exit code they call for."""
    count = 0
    for failure in failures:
        error(str(failure))
        count += 1
    return int(ExitCode.FAILURE if count else ExitCode.OK)


def json_lines(records: Iterable[dict[str, Any]]) -> bytes:
    """Return records as JSON lines, keys sorted so the bytes are stable."""
    return b"".join(orjson.dumps(r, option=orjson.OPT_SORT_KEYS) + b"\n" for r in records)


def emit_json_lines(records: Iterable[dict[str, Any]], out_file: Path | None) -> None:
    """Write JSON lines to `out_file` atomically, or to stdout."""
    data = json_lines(records)
    if out_file is not None:
        atomic_write_bytes(out_file, data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


@contextmanager
def progress_bar(label: str, quiet: bool = False) -> Iterator[Callable[[int, int, str], None]]:
    """Yield a progress callback drawn as a bar on stderr, silent when not a terminal."""
    if quiet or not err.is_terminal:
        yield lambda done, total, item: None
        return
    from rich.progress import (  # only a terminal draws a bar: a pipe never pays the import
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[item]}"),
    )
    # No refresh thread: the BM25 build forks workers only while the process has one thread.
    with Progress(*columns, console=err, transient=True, auto_refresh=False) as bar:
        task = bar.add_task(label, total=None, item="")

        last = [0.0]

        def update(done: int, total: int, item: str) -> None:
            bar.update(task, completed=done, total=total, item=escape(item))
            if done == total or time.monotonic() - last[0] > REFRESH_SECONDS:
                last[0] = time.monotonic()
                bar.refresh()

        yield update
