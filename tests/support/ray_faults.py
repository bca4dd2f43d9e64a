"""Chunkers that misbehave inside a Ray worker, for tests/test_ray_engine.py (and its script).

Each wraps the default chunker (same name, settings and chunks) and, at one source, does
something to the process it runs in. Ray workers are not forked from the test, so nothing
can be monkeypatched into them: these objects travel as the read's after_parse hook, pickled
by value (register() makes cloudpickle carry this module's code, which a worker cannot import).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from policy_assistant.chunk import make_chunker
from policy_assistant.records import Chunk, Document


def register() -> None:
    """Make Ray pickle this module's classes by value (its workers do not see tests/)."""
    import ray.cloudpickle

    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])


class Wrapped:
    """The default chunker, with a hook at one source."""

    def __init__(self, source: str, folder: Path) -> None:
        self.inner = make_chunker("structure")
        self.source, self.folder = source, folder

    def spec(self) -> dict[str, Any]:
        return self.inner.spec()

    def chunk(self, doc: Document) -> list[Chunk]:
        if doc.source == self.source:
            self.hook()
        return self.inner.chunk(doc)

    def hook(self) -> None:
        raise NotImplementedError


def _mark(path: Path) -> None:
    """Write this process's PID to path, atomically (a reader never sees half of it)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(str(os.getpid()))
    tmp.rename(path)


class HangOnce(Wrapped):
    """Say its PID in `folder/pid` and hang, the first time; later, chunk as usual."""

    def hook(self) -> None:
        marker = self.folder / "pid"
        if marker.exists():
            return
        _mark(marker)
        time.sleep(120)  # the test kills this process long before


class Hang(Wrapped):
    """Say its PID in `folder/pid` and hang for good (the driver is killed meanwhile)."""

    def hook(self) -> None:
        _mark(self.folder / "pid")
        time.sleep(120)


class Crash(Wrapped):
    """End its process at once, every time: a crash no retry gets past."""

    def hook(self) -> None:
        os._exit(70)


def main(argv: list[str]) -> None:
    """Ingest as asked and print the failures as JSON lines: KIND SOURCE FOLDER CORPUS INDEX
    ENGINE [ADDRESS] (KIND "none" for the plain chunker; ENGINE "local" or "ray")."""
    import json

    from policy_assistant.ingest.pipeline import ingest
    from policy_assistant.parse import CorpusOptions
    from policy_assistant.procs.engine import Engine

    kind, source, folder, corpus, index, engine = argv[:6]
    address = argv[6] if len(argv) > 6 else None
    hooks = {"hang-once": HangOnce, "hang": Hang, "crash": Crash}
    chunker: Any = hooks[kind](source, Path(folder)) if kind in hooks else make_chunker("structure")
    chosen = None
    if engine == "ray":
        register()
        chosen = Engine("ray", address, retries=1)
    options = CorpusOptions(workers=2, engine=chosen)
    summary = ingest(Path(corpus), Path(index), chunker, options=options)
    print(json.dumps([str(f) for f in summary.failures]))


if __name__ == "__main__":
    main(sys.argv[1:])
