"""The table that says what an ingest or an index build did."""

from __future__ import annotations

from typing import Protocol

from rich.markup import escape
from rich.table import Table


class Summary(Protocol):
    """What `ingest` and `index` both report."""

    added: list[str]
    changed: list[str]
    removed: list[str]
    unchanged: list[str]
    chunks: int
    words: int
    rebuilt: str | None
    written: bool


def summary_table(summary: Summary, index_path: str, failures: list[str] | None = None) -> Table:
    """Return what the run did, one line per figure."""
    state = "written" if summary.written else "unchanged, nothing written"
    table = Table(show_header=False, box=None, min_width=40)
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_column("which")
    for what, sources in (
        ("added", summary.added),
        ("changed", summary.changed),
        ("removed", summary.removed),
        ("unchanged", summary.unchanged),
    ):
        listed = sample(sources) if what != "unchanged" else ""
        table.add_row(what, str(len(sources)), escape(listed))
    if failures is not None:
        table.add_row("failures", str(len(failures)), escape(sample(failures)))
    table.add_row("chunks", str(summary.chunks), "")
    table.add_row("words", str(summary.words), "")
    if summary.rebuilt:
        table.add_row("rebuilt", "all", escape(summary.rebuilt))
    table.add_row("index", state, escape(index_path))
    return table


def sample(sources: list[str], limit: int = 3) -> str:
    """Return the first few sources, and how many more there are."""
    shown = ", ".join(sources[:limit])
    return shown + (f" and {len(sources) - limit} more" if len(sources) > limit else "")
