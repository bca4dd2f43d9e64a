"""`ingest --watch`: after the ingest, one round per burst of changes until Ctrl-C.

Each round that wrote, or found a bad file, prints one line (one JSON line with --json) on
stdout; errors and warnings go to stderr as ingest's do. A round that fails (the index cannot
be written, its lock is held too long) says why in one line and the watch goes on: the next
change is another try.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import orjson
import typer
from rich.markup import escape

from policy_assistant.cli.common import err, error, out, print_notices, print_warnings
from policy_assistant.cli.summary import sample
from policy_assistant.errors import PolicyAssistantError
from policy_assistant.pipeline import IngestSummary
from policy_assistant.watch import Watch
from policy_assistant.watch_events import Changes, start_observer

POLL_ENV = "POLICY_ASSISTANT_WATCH_POLL"
"""Set to 1 to poll the corpus instead of taking the file system's events (a network file
system's events do not tell of other machines' writes)."""


def watch_rounds(watch: Watch, as_json: bool, quiet: bool) -> None:
    """Run rounds of `watch` as its corpus changes, until Ctrl-C (then return)."""
    cache = watch.options.cache_dir
    changes = Changes(watch.corpus, (watch.index_dir, *([cache] if cache else [])))
    observer, how = start_observer(changes, poll=os.environ.get(POLL_ENV) == "1")
    # a service manager's stop (SIGTERM) ends a watch as Ctrl-C does, between two writes
    signal.signal(signal.SIGTERM, _interrupt)
    if not quiet:
        err.print(
            f"watching {escape(str(watch.corpus))} ({how}); Ctrl-C stops",
            highlight=False,
            soft_wrap=True,
        )
    try:
        while True:
            sources = changes.take()
            if sources:
                _round(watch, sources, as_json, quiet)
    except KeyboardInterrupt:
        if not quiet:
            err.print("stopped watching", highlight=False)
    finally:
        observer.stop()
        observer.join()


def _interrupt(signum: int, frame: object) -> None:
    """Stop the watch where it is, as Ctrl-C would."""
    raise KeyboardInterrupt


def _round(watch: Watch, sources: set[str], as_json: bool, quiet: bool) -> None:
    """Run one round and report it; a failure is one line, and the watch goes on."""
    start = time.perf_counter()
    try:
        summary = watch.round(sources)
    except KeyboardInterrupt:
        err.print("stopped during a round: it was written whole or not at all", highlight=False)
        raise
    except (PolicyAssistantError, OSError) as exc:
        error(f"{exc}; still watching" if isinstance(exc, PolicyAssistantError) else str(exc))
        return
    print_notices(summary.notices)
    print_warnings(summary.warnings)
    for failure in summary.failures:
        error(str(failure))
    if not (summary.written or summary.failures):
        return
    if as_json:
        typer.echo(orjson.dumps(summary.to_dict(), option=orjson.OPT_SORT_KEYS).decode())
    else:
        out.print(escape(round_line(summary)), highlight=False)
    if not quiet:
        err.print(f"  (round took {time.perf_counter() - start:.2f} s)", highlight=False)


def round_line(summary: IngestSummary) -> str:
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
