"""Test helpers that watch the code: a spy on a function taking a source, another thread running."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest


class SourceSpy:
    """Replaces module.name with a wrapper that records its `source` argument, in order."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> None:
        self.sources: list[str] = []
        real = getattr(module, name)

        def spy(first: Any, source: str, *rest: Any) -> Any:
            self.sources.append(source)
            return real(first, source, *rest)

        monkeypatch.setattr(module, name, spy)

    def take(self) -> list[str]:
        """Return the sources recorded since the last take, and forget them."""
        taken, self.sources = self.sources, []
        return taken


@contextmanager
def another_thread() -> Iterator[None]:
    """Run a second thread, idle, for the block."""
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        yield
    finally:
        release.set()
        other.join()
