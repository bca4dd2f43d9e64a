"""A spy on a module function that takes a document's source: which sources it was called with."""

from __future__ import annotations

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
