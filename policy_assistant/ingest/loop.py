"""`ingest --watch`: after the ingest, one round per burst of changes until Ctrl-C.

The loop owns the events, the rounds and the stop; what a person sees of it is the caller's
(`RoundReport`): the CLI prints one line per round that wrote or found a bad file. A round
that fails (the index cannot be written, its lock is held too long) is reported and the watch
goes on: the next change is another try.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Protocol

from policy_assistant.errors import PolicyAssistantError
from policy_assistant.ingest.events import Changes, start_observer
from policy_assistant.ingest.pipeline import IngestSummary
from policy_assistant.ingest.watch import Watch

POLL_ENV = "POLICY_ASSISTANT_WATCH_POLL"
"""Set to 1 to poll the corpus instead of taking the file system's events (a network file
system's events do not tell of other machines' writes)."""


class RoundReport(Protocol):
    """What the caller is told of a watch, as it happens."""

    def started(self, watch: Watch, how: str) -> None:
        """The watch began, taking events from `how` (inotify, polling ...)."""

    def finished(self, summary: IngestSummary, seconds: float) -> None:
        """A round ended; its summary says what it wrote and what failed."""

    def failed(self, problem: str) -> None:
        """A round could not write; the watch goes on."""

    def stopped(self, during_round: bool) -> None:
        """Ctrl-C or SIGTERM ended the watch, between rounds or during one."""


def watch_rounds(watch: Watch, report: RoundReport) -> None:
    """Run rounds of `watch` as its corpus changes, until Ctrl-C (then return)."""
    cache = watch.options.cache_dir
    changes = Changes(watch.corpus, (watch.index_dir, *([cache] if cache else [])))
    observer, how = start_observer(changes, poll=os.environ.get(POLL_ENV) == "1")
    # a service manager's stop (SIGTERM) ends a watch as Ctrl-C does, between two writes
    signal.signal(signal.SIGTERM, _interrupt)
    report.started(watch, how)
    try:
        while True:
            sources = changes.take()
            if sources:
                _round(watch, sources, report)
    except KeyboardInterrupt:
        report.stopped(during_round=False)
    finally:
        observer.stop()
        observer.join()


def _interrupt(signum: int, frame: object) -> None:
    """Stop the watch where it is, as Ctrl-C would."""
    raise KeyboardInterrupt


def _round(watch: Watch, sources: set[str], report: RoundReport) -> None:
    """Run one round and report it; a failure is reported, and the watch goes on."""
    start = time.perf_counter()
    try:
        summary = watch.round(sources)
    except KeyboardInterrupt:
        report.stopped(during_round=True)
        raise
    except PolicyAssistantError as exc:
        report.failed(f"{exc}; still watching")
        return
    except OSError as exc:
        report.failed(str(exc))
        return
    report.finished(summary, time.perf_counter() - start)
