"""The changes `ingest --watch` hands each round: corpus sources named by file system events.

watchdog delivers the events (inotify on Linux, FSEvents on macOS, ReadDirectoryChangesW
on Windows; a polling observer where the native one cannot start, such as past the inotify
watch limit). A burst of events (an editor's write, rename and close; a `git checkout`) is
one round: take() returns once no event came for `settle` seconds.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.polling import PollingObserver

SETTLE_SECONDS = 0.1
"""Quiet time that ends a burst of events: a save is several events within milliseconds."""
IGNORED_EVENTS = frozenset({"opened", "closed_no_write"})
"""Events that change no file."""


class Changes(FileSystemEventHandler):
    """The sources under a corpus root named by events since the last take()."""

    def __init__(self, root: Path, ignored: tuple[Path, ...] = ()) -> None:
        """Collect changes under root, leaving out those under the ignored folders."""
        self.root = os.path.abspath(root)
        self.ignored = tuple(os.path.abspath(folder) + os.sep for folder in ignored)
        self.pending: set[str] = set()
        self.last = 0.0
        self.lock = threading.Lock()
        self.arrived = threading.Event()

    def on_any_event(self, event: FileSystemEvent) -> None:
        """Note the sources an event names (both ends of a move)."""
        if event.event_type in IGNORED_EVENTS or (
            event.is_directory and event.event_type == "modified"
        ):
            return  # a folder "modified" is its listing: its files' own events say what changed
        named = [event.src_path, getattr(event, "dest_path", "")]
        sources = [s for s in map(self.source_of, named) if s is not None]
        if sources:
            with self.lock:
                self.pending.update(sources)
                self.last = time.monotonic()
            self.arrived.set()

    def source_of(self, path: str | bytes) -> str | None:
        """Return the corpus source of an event's path; None outside the corpus, for the
        root itself, under an ignored folder, or hidden (a walk skips those)."""
        full = os.fsdecode(path)
        if not full or (full + os.sep).startswith(self.ignored):
            return None
        relative = os.path.relpath(full, self.root)
        if relative == "." or relative.startswith(".." + os.sep) or relative == "..":
            return None
        source = relative.replace(os.sep, "/")
        return None if any(part.startswith(".") for part in source.split("/")) else source

    def take(self, settle: float = SETTLE_SECONDS, poll: float = 0.5) -> set[str]:
        """Wait for a change, then for `settle` seconds without one; return the sources
        named and forget them. Waits in short steps so that Ctrl-C is taken at once."""
        while not self.arrived.wait(poll):
            pass
        while True:
            with self.lock:
                quiet = time.monotonic() - self.last
                if quiet >= settle:
                    taken, self.pending = self.pending, set()
                    self.arrived.clear()
                    return taken
            time.sleep(settle - quiet)


def start_observer(changes: Changes, poll: bool = False) -> tuple[Any, str]:
    """Start watching the root of changes (recursively); return the observer and what it
    uses. The native observer is tried first unless `poll`; polling is the fallback."""
    if not poll:
        try:
            return _started(Observer(), changes), "file system events"
        except OSError as exc:  # e.g. the inotify watch limit: poll instead
            reason = exc.strerror or str(exc)
            return _started(PollingObserver(), changes), f"polling ({reason})"
    return _started(PollingObserver(), changes), "polling"


WANTED_EVENTS = [
    FileCreatedEvent, DirCreatedEvent, FileModifiedEvent, FileClosedEvent,
    FileMovedEvent, DirMovedEvent, FileDeletedEvent, DirDeletedEvent,
]  # fmt: skip
"""What a round needs told. Without a filter inotify also reports every open and read, the
round's own reads of the corpus among them: each woke the observer's threads, which took the
interpreter from the round: its read of one file took 30 ms instead of 14 ms at 1,000,000
chunks (bench/bench_scale.py's rounds, timed by phase)."""


def _started(observer: Any, changes: Changes) -> Any:
    observer.schedule(changes, changes.root, recursive=True, event_filter=WANTED_EVENTS)
    observer.start()
    return observer
