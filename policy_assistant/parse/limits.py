"""The CPU-time limit on parsing one document, whatever its format.

The limit is CPU time, not wall-clock time: on a loaded machine a document gets as much of
the processor as on a quiet one before it fails, so the same file passes or fails the same
way every time. It is armed with ITIMER_PROF, which counts the process's CPU time and
interrupts the parser between two Python steps wherever it is; a parser busy inside one long
C call is stopped when that call returns. Only the main thread can take the signal: a read in
another thread parses without this limit (the PDF parser still checks it between pages).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from policy_assistant.errors import DocumentError

DOCUMENT_CPU_LIMIT: float | None = 300.0
"""Seconds of CPU time one document may take to parse; None for no limit."""


MAX_DOCUMENT_WORDS = 2_000_000
"""Words of text one document may hold (a 1,000-page report holds about 500,000); chunking
and indexing a larger one would take gigabytes."""


def check_words(source: str, words: int) -> None:
    """Raise DocumentError when a document's text holds more than MAX_DOCUMENT_WORDS."""
    if words > MAX_DOCUMENT_WORDS:
        problem = f"refused: {words:,} words of text (limit {MAX_DOCUMENT_WORDS:,} a document)"
        raise DocumentError(source, problem)


class _OverLimit(BaseException):
    """Raised by the timer inside a parser: a BaseException, so no parser's `except
    Exception` takes it for a damaged file."""


def over_limit_problem(limit: float, where: str = "") -> str:
    """The problem of a document stopped at the limit (`where`: how far it got)."""
    at = f" {where}" if where else ""
    return f"parse stopped{at}: over the {limit:g} s CPU-time limit per document"


@contextmanager
def cpu_limit(source: str) -> Iterator[None]:
    """Raise DocumentError for `source` if the block uses more than DOCUMENT_CPU_LIMIT."""
    limit = DOCUMENT_CPU_LIMIT
    usable = threading.current_thread() is threading.main_thread()
    if limit is None or limit <= 0 or not usable or signal.getitimer(signal.ITIMER_PROF)[0]:
        yield  # no limit, or the timer is another's (a profiler): leave it be
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        raise _OverLimit

    previous = signal.signal(signal.SIGPROF, expire)
    signal.setitimer(signal.ITIMER_PROF, limit)
    try:
        yield
    except _OverLimit:
        raise DocumentError(source, over_limit_problem(limit)) from None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
