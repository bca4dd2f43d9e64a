"""`ingest --engine` and `--ray-address`: where parsing runs, and what the summary says of it.

Nothing here imports Ray: whether it is installed is asked of the import system
(importlib.util.find_spec), and the reader imports procs/ray_pool.py only for `--engine ray`.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from typing import Annotated, Any

import typer

from policy_assistant.errors import UsageError
from policy_assistant.procs.engine import ENGINES, RAY_INSTALL, Engine, EngineReport
from policy_assistant.text import counted

EngineName = Annotated[
    str,
    typer.Option(
        "--engine",
        help=f"Where files are parsed and chunked: {' or '.join(ENGINES)} (a Ray cluster).",
    ),
]
RayAddress = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="With --engine ray: the cluster to join (HOST:PORT, auto); none starts Ray here.",
        show_default=False,
    ),
]


def chosen_engine(name: str, address: str | None, watch: bool) -> Engine | None:
    """Return the engine asked for (None: the local pool); impossible choices are usage errors."""
    if name not in ENGINES:
        raise UsageError(f"--engine must be {' or '.join(ENGINES)}, got {name!r}")
    if name == "local":
        if address is not None:
            raise UsageError("--ray-address joins a Ray cluster: give --engine ray with it")
        return None
    if watch:
        raise UsageError("--watch ingests on this machine: leave out --engine ray")
    if importlib.util.find_spec("ray") is None:
        raise UsageError(f"--engine ray needs Ray, which is not installed: {RAY_INSTALL}")
    return Engine("ray", address)


class Stages:
    """The wall-clock times of a Ray ingest's stages, from the engine's report."""

    def __init__(self, report: EngineReport) -> None:
        """Start the clock: the ingest begins now."""
        self.report, self.began, self.ended = report, time.perf_counter(), 0.0

    def end(self) -> None:
        """Stop the clock: the ingest is over."""
        self.ended = time.perf_counter()

    def seconds(self) -> dict[str, float]:
        """Return each stage's seconds: discovery (and the old index's entries), starting Ray,
        reading and parsing on the cluster, and the rest (chunks gathered, index written)."""
        report = self.report
        opened = report.opened or self.ended  # no pool: nothing to parse
        closed = report.closed or opened
        return {
            "discover": opened - self.began,
            "ray start": report.ray_start,
            "parse and chunk": max(closed - opened - report.ray_start, 0.0),
            "index write": self.ended - closed,
        }

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form: the cluster, the batches and the stages' seconds."""
        # Hand-written: derived stage seconds, rounded, beside the engine's own report.
        stages = {name: round(s, 3) for name, s in self.seconds().items()}
        return {**self.report.to_dict(), "stages_s": stages}

    def lines(self) -> list[str]:
        """Return the summary's lines about the cluster and the stages."""
        report = self.report
        if not report.nodes:
            cluster = "ray       not started: nothing to parse"
        else:
            nodes = counted(report.nodes, "node")
            cluster = f"ray       {nodes}, {report.cpus:g} CPUs, {report.batches_done} batches"
        stages = " · ".join(f"{name} {s:.2f} s" for name, s in self.seconds().items())
        return [cluster, f"stages    {stages}"]


def batch_progress(report: EngineReport, progress: Callable[[int, int, str], None]) -> None:
    """Draw the progress bar over batches: batches back of batches sent so far."""
    report.on_batch = lambda done, sent: progress(done, sent, "batches back of sent")
