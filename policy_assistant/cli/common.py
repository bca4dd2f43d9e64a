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

import typer
from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table

from policy_assistant.atomic import atomic_write_bytes
from policy_assistant.errors import DocumentError, ExitCode, PolicyAssistantError
from policy_assistant.jsonio import json_line
from policy_assistant.text import printable

PIPED_WIDTH = 160
"""Width of tables written to a pipe or file when neither a terminal nor COLUMNS says."""


class _FittingConsole(Console):
    """A console whose tables fold long values onto more lines instead of cutting them.

    A source path is a citation and a number is a figure: neither may end in an ellipsis,
    whatever the width (tested at 60, 80 and 120 columns).
    """

    @property
    def _width(self) -> int | None:
        """The width, read when printing: a terminal's own, else COLUMNS, else PIPED_WIDTH."""
        return _out_width()

    @_width.setter
    def _width(self, value: int | None) -> None:
        """Ignore the width rich's constructor sets: it is read when printing instead."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        """Print as rich does, with every table's columns set to fold."""
        for item in objects:
            _fold_tables(item, self.width * 2 // 5)
            for table in _tables_in(item):
                if self._too_wide(table):
                    table.box, table.show_edge = None, False  # borders cost 3 characters a column
                if self._too_wide(table):
                    for column in table.columns:
                        column.min_width = None  # paths fold rather than crop the numbers
                if self._measure(table).maximum > self.width:
                    _pin_min_widths(table)
        super().print(*objects, **kwargs)

    def _too_wide(self, table: Table) -> bool:
        return self._measure(table).minimum > self.width

    def _measure(self, table: Table) -> Measurement:
        return table.__rich_measure__(self, self.options)


def _pin_min_widths(table: Table) -> None:
    """Fix each column that has a minimum width at that width, for a table that must shrink.

    rich shrinks the widest wrapping columns first and then widens a column back to its
    minimum, so the table ends wider than the terminal and its right border is cropped; a
    pinned column is left alone and the others shrink enough.
    """
    for column in table.columns:
        if column.min_width and not column.no_wrap:
            column.width = column.min_width


def _tables_in(renderable: Any) -> list[Table]:
    """Return the tables in a renderable: itself, or those of a group, depth first."""
    if isinstance(renderable, Table):
        return [renderable]
    return [t for child in getattr(renderable, "renderables", ()) for t in _tables_in(child)]


def _fold_tables(renderable: Any, path_width: int) -> None:
    """Fit the tables in a renderable (a table, or a group of them) without cutting a value.

    Text columns fold; numbers (right-aligned columns) never break; a column that holds
    source paths keeps a path (and every word of its citation) of up to path_width characters
    on one line, so a citation can be copied whole, and folds a longer one rather than cut it.
    """
    if isinstance(renderable, Table):
        for column in renderable.columns:
            column.overflow = "fold"
            if column.justify == "right" and not any(" " in str(c) for c in column.cells):
                column.no_wrap = True
            if column.header == "source":
                lines = (line for cell in column.cells for line in str(cell).splitlines())
                # every word, not only a path's: a short path ("a.txt") must not set a width
                # that folds "(unversioned)" and a character range under it
                longest = max((len(word) for line in lines for word in line.split()), default=0)
                column.min_width = max(column.min_width or 0, min(longest, path_width))
    for child in getattr(renderable, "renderables", ()):
        _fold_tables(child, path_width)


def _out_width() -> int | None:
    """None lets rich ask the terminal; else COLUMNS when it is a number, else PIPED_WIDTH."""
    if sys.stdout.isatty():
        return None
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else PIPED_WIDTH


out = _FittingConsole(soft_wrap=False)
"""Results: tables on a terminal, JSON lines otherwise."""
err = Console(stderr=True, soft_wrap=True)
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


ERROR_LINES = 8
"""Lines of a many-line error printed before the rest are counted."""


def error(message: str) -> None:
    """Print an error on stderr, each of its own lines on one (the first few of a long list),
    control characters in file names escaped."""
    lines = message.split("\n")  # only newlines: other control characters are escaped
    shown = lines[:ERROR_LINES]
    if len(lines) > ERROR_LINES:
        shown.append(f"and {len(lines) - ERROR_LINES} more")
    err.print(f"[bold red]error:[/] {escape(printable(shown[0]))}", highlight=False, soft_wrap=True)
    for line in shown[1:]:
        err.print(f"  {escape(printable(line))}", highlight=False, soft_wrap=True)


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


def _json_lines(records: Iterable[dict[str, Any]]) -> bytes:
    """Return records as JSON lines, keys sorted so the bytes are stable."""
    return b"".join(map(json_line, records))


def emit_json_lines(records: Iterable[dict[str, Any]], out_file: Path | None) -> None:
    """Write JSON lines to `out_file` atomically, or to stdout."""
    data = _json_lines(records)
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
            now = time.monotonic()
            if done != total and now - last[0] <= REFRESH_SECONDS:
                return  # a no-op ingest calls this 100,000 times: only a redraw pays the update
            last[0] = now
            bar.update(task, completed=done, total=total, item=escape(printable(item)))
            bar.refresh()

        yield update
