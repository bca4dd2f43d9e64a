"""What every command shares: the consoles, the error boundary, JSON lines and progress."""

from __future__ import annotations

import functools
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
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from policy_assistant.atomic import atomic_write_bytes
from policy_assistant.errors import DocumentError, ExitCode, PolicyAssistantError
from policy_assistant.parse.files import printable

PIPED_WIDTH = 160
"""Width of tables written to a pipe or file, where no terminal says how wide to be."""

out = Console(soft_wrap=False, width=None if sys.stdout.isatty() else PIPED_WIDTH)
"""Results: tables on a terminal, JSON lines otherwise."""
err = Console(stderr=True)
"""Progress, warnings and errors."""

P = ParamSpec("P")
R = TypeVar("R")


def guarded(command: Callable[P, R]) -> Callable[P, R]:
    """Turn library errors into a one-line message on stderr and their exit code."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except PolicyAssistantError as exc:
            error(str(exc))
            raise typer.Exit(int(exc.exit_code)) from None

    return wrapper


def error(message: str) -> None:
    """Print one error line on stderr; control characters in file names are escaped."""
    err.print(f"[bold red]error:[/] {escape(printable(message))}", highlight=False, soft_wrap=True)


def warn(message: str) -> None:
    """Print one warning line on stderr; control characters in file names are escaped."""
    err.print(f"[yellow]warning:[/] {escape(printable(message))}", highlight=False, soft_wrap=True)


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


def print_notices(messages: list[str]) -> None:
    """Print corpus-level warnings (refused entries, stale catalog keys, skips), every one."""
    for message in messages:
        warn(message)


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
            bar.update(task, completed=done, total=total, item=escape(printable(item)))
            if done == total or time.monotonic() - last[0] > REFRESH_SECONDS:
                last[0] = time.monotonic()
                bar.refresh()

        yield update
