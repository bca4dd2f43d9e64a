"""Where a read's parsing runs: the local fork pool (the default) or a Ray cluster.

This module imports nothing of Ray: it only names the engine and keeps what a run of it saw,
so choosing the default engine costs nothing. The Ray-backed pool is procs/ray_pool.py,
imported by the reader only when `Engine.name` is "ray".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

ENGINES = ("local", "ray")
"""The engines `ingest --engine` takes."""

RAY_INSTALL = "pip install 'policy-assistant[ray]'"
"""What to run for the Ray engine, said when it is asked for and Ray is not installed."""

RAY_RETRIES = 3
"""Times Ray runs a batch again after its worker process died, before the batch fails."""
RAY_BATCH_FILES = 32
"""Files sent to the cluster in one task at most: a Ray task costs the driver about a
millisecond and a round trip, a small Markdown file about as much, so batches are twice the
fork pool's; much larger ones would leave workers idle on a small corpus (bench/bench_ray.py)."""
RAY_BATCH_BYTES = 1024 * 1024
"""Bytes of files after which a batch goes at once (a large PDF goes nearly alone)."""
RAY_SPAN = 512
"""Files in source order (parsed or not) after which a batch goes however small it is, so a
file waiting in it never holds up the results behind it (pool.HELD_RESULTS is 1,024)."""
RAY_QUEUE_WORKERS = 32
"""Workers the read-ahead is sized for on a joined cluster when `--workers` is not given."""


@dataclass
class EngineReport:
    """What one run of the Ray engine saw, for the summary: the cluster and the time taken."""

    nodes: int = 0
    """Nodes of the cluster that were alive when it was joined (0: Ray was never started)."""
    cpus: float = 0.0
    """CPUs of the cluster."""
    ray_start: float = 0.0
    """Seconds to start or join Ray."""
    opened: float = 0.0
    """time.perf_counter() when the pool was made (discovery is over then)."""
    closed: float = 0.0
    """time.perf_counter() when the pool was left (every file is read and parsed then)."""
    driver_cpu: float = 0.0
    """CPU seconds of the driver process (Ray's threads in it included) while the pool was open:
    reading, hashing, sending and taking back every file; the model in docs/scale.md uses it."""
    batches_sent: int = 0
    """Batches handed to the cluster."""
    batches_done: int = 0
    """Batches whose results came back (or failed)."""
    batch_seconds: list[float] = field(default_factory=list)
    """Seconds each batch took in its worker, in the order they came back."""
    batch_cpu: list[float] = field(default_factory=list)
    """CPU seconds of each batch in its worker, in the same order."""
    batch_files: list[int] = field(default_factory=list)
    """Files of each batch, in the same order."""
    on_batch: Callable[[int, int], None] | None = None
    """Called as on_batch(batches done, batches sent) each time a batch comes back."""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form (without the callback)."""
        # Hand-written: per-batch lists summed into totals, rounded, and renamed with units.
        return {
            "nodes": self.nodes,
            "cpus": self.cpus,
            "ray_start_s": round(self.ray_start, 3),
            "batches": self.batches_done,
            "batch_s_total": round(sum(self.batch_seconds), 3),
            "batch_cpu_s_total": round(sum(self.batch_cpu), 3),
            "driver_cpu_s": round(self.driver_cpu, 3),
            "files_in_batches": sum(self.batch_files),
        }


@dataclass(frozen=True)
class Engine:
    """The engine a read parses with, and its settings; `report` is filled as it runs."""

    name: str = "local"
    """"local" (forked workers on this machine) or "ray"."""
    address: str | None = None
    """The Ray cluster to join ("auto", "HOST:PORT", "ray://..."); None starts one here."""
    retries: int = RAY_RETRIES
    """Ray's max_retries for each batch (a worker killed mid-batch)."""
    batch_files: int = RAY_BATCH_FILES
    """Files per Ray task at most."""
    batch_bytes: int = RAY_BATCH_BYTES
    """Bytes of files per Ray task, after which the batch goes."""
    report: EngineReport = field(default_factory=EngineReport, compare=False)
    """What the run saw (filled by the Ray pool)."""

    @property
    def ray(self) -> bool:
        """Whether parsing runs on Ray."""
        return self.name == "ray"
