"""One piece of a write run in a forked child while this process does the rest.

A cold ingest's write runs after the last parse, on one core, whatever `--workers` says: the
chunk segment and the retrieval units, one after the other. The units (the larger part) are
built and saved by a forked child into the generation's folder while this process builds the
segment; the two write different files, so the bytes are those of a serial write. Without
fork, or on one core, the piece runs here, in turn.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable

MESSAGE_LIMIT = 4000
"""Bytes of the child's error message passed back."""


def spare_core(workers: int | None = None) -> bool:
    """Whether a forked child would get a core of its own; never with workers 1 (the
    command asked to run in its own process alone), nor beside other threads (a fork copies
    the locks they hold), as the parse pool decides."""
    if workers == 1 or not hasattr(os, "fork") or threading.active_count() > 1:
        return False
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) >= 2


class SideJob:
    """A task run in a forked child (or here, at once, when no core is spare)."""

    def __init__(self, task: Callable[[], object], fork: bool) -> None:
        """Start task: in a child when fork, else run it now."""
        self.pid, self.fd = 0, -1
        if not fork:
            task()
            return
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: run the task, say what went wrong, never return
            os.close(read)
            _run_child(task, write)
        os.close(write)
        self.pid, self.fd = pid, read

    def join(self) -> None:
        """Wait for the child; raise OSError with its message when it failed."""
        if not self.pid:
            return
        message = _read_all(self.fd)
        _, status = os.waitpid(self.pid, 0)
        self._forget()
        if status != 0:
            raise OSError(message or f"the units' process ended with status {status}")

    def cancel(self) -> None:
        """Stop the child, if it still runs (this process is failing)."""
        if not self.pid:
            return
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.waitpid(self.pid, 0)
        self._forget()

    def _forget(self) -> None:
        os.close(self.fd)
        self.pid, self.fd = 0, -1


def _run_child(task: Callable[[], object], write: int) -> None:
    """In the child: run task, write its error (if any) to the pipe, exit without cleanup."""
    code = 0
    try:
        task()
    except BaseException as exc:  # everything, Ctrl-C too, ends the child with a message
        code = 1
        with contextlib.suppress(OSError):
            os.write(write, str(exc).encode("utf-8", "replace")[:MESSAGE_LIMIT])
    finally:
        os._exit(code)  # no atexit handlers, no flush of the parent's buffered output


def _read_all(fd: int) -> str:
    """Read the pipe to its end (the child's exit closes it)."""
    parts = []
    while part := os.read(fd, 65536):
        parts.append(part)
    return b"".join(parts).decode("utf-8", "replace")
