"""What `ingest --watch` prints: a line per round that wrote or failed, timings on stderr."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer
from rich.markup import escape

from policy_assistant.cli.common import err, error, out, print_notices, print_warnings
from policy_assistant.cli.summary import sample
from policy_assistant.ingest.pipeline import IngestSummary
from policy_assistant.ingest.watch import Watch
from policy_assistant.jsonio import json_text


@dataclass(frozen=True)
class WatchPrinter:
    """Prints a watch's rounds: results on stdout, progress and problems on stderr."""

    as_json: bool
    """One JSON line per round instead of a sentence."""
    quiet: bool
    """No start, stop or timing lines."""

    def started(self, watch: Watch, how: str) -> None:
        """Say what is watched and how to stop."""
        if not self.quiet:
            line = f"watching {escape(str(watch.corpus))} ({how}); Ctrl-C stops"
            err.print(line, highlight=False, soft_wrap=True)

    def finished(self, summary: IngestSummary, seconds: float) -> None:
        """Print a round's problems, and its line when it wrote or failed a file."""
        print_notices(summary.notices)
        print_warnings(summary.warnings)
        for failure in summary.failures:
            error(str(failure))
        if not (summary.written or summary.failures):
            return
        if self.as_json:
            typer.echo(json_text(summary.to_dict()))
        else:
            out.print(escape(_round_line(summary)), highlight=False)
        if not self.quiet:
            err.print(f"  (round took {seconds:.2f} s)", highlight=False)

    def failed(self, problem: str) -> None:
        """Print why a round wrote nothing."""
        error(problem)

    def stopped(self, during_round: bool) -> None:
        """Say the watch ended, and what an interrupted round left."""
        if during_round:
            err.print("stopped during a round: it was written whole or not at all", highlight=False)
        elif not self.quiet:
            err.print("stopped watching", highlight=False)


def _round_line(summary: IngestSummary) -> str:
    """Return one round's line: what changed, and the index's size after it."""
    parts = [
        f"{what} {len(sources)} ({sample(sources)})"
        for what, sources in (
            ("added", summary.added),
            ("changed", summary.changed),
            ("removed", summary.removed),
            ("failed", [f.source for f in summary.failures]),
        )
        if sources
    ]
    written = "written" if summary.written else "nothing written"
    index = Path(summary.index_dir).as_posix()
    return f"{'; '.join(parts) or 'no change'}: {summary.chunks} chunks, {written} ({index})"
