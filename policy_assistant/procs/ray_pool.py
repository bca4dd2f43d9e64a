"""A pool whose workers are Ray tasks: the ForkPool's `submit`/`alone` interface on a cluster.

The reader (parse/reading.py) hands it the same batches, of the same task, that it hands the
fork pool, so every file is parsed and chunked by the same functions. Ray is started (or a
cluster joined) at the first `submit`, not before: a re-ingest with nothing to parse never
starts it. Each batch is one Ray task whose arguments (the files' bytes) and result (the
parses, in wire form) travel through Ray's object store; a task whose worker process dies is
run again by Ray (max_retries), and one that keeps dying fails with BrokenProcessPool, as a
fork pool's batch does, so the reader parses its files again one by one and fails only the
one that kills its worker.

Importing this module imports Ray: the reader imports it only for `--engine ray`.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, wait
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from types import TracebackType
from typing import Any, TypeVar

import ray
from ray.exceptions import RayError, RayTaskError

from policy_assistant.procs.engine import RAY_SPAN, Engine
from policy_assistant.procs.pool import Batches, died

T = TypeVar("T")
A = TypeVar("A")
S = TypeVar("S")

_ready: str | None = None
"""In a Ray worker: the token of the pool whose setup ran there last."""


def _run(
    token: str, state: list[Any], task: Callable[..., Any], args: tuple[Any, ...]
) -> tuple[Any, float, float]:
    """In a Ray worker: run the pool's setup once, then `task(*args)`; return its result, the
    seconds it took and its CPU seconds (for the summary and bench/bench_ray.py's model).

    The setup travels as an object reference inside a list, which Ray does not resolve: a
    worker fetches and unpickles it once per pool, not once per batch.
    """
    global _ready
    if _ready != token:
        setup, setup_args = ray.get(state[0])
        setup(*setup_args)
        _ready = token
    start, cpu = time.perf_counter(), time.process_time()
    value = task(*args)
    return value, time.perf_counter() - start, time.process_time() - cpu


class RayPool:
    """Ray tasks as workers, started (or joined) on the first `submit`; see the module docstring.

    `setup(*args)` runs in each Ray worker before its first task of this pool. `workers` is
    the number of CPUs of a cluster this pool starts here (a joined cluster has its own).
    """

    def __init__(self, engine: Engine, workers: int, setup: Callable[..., None], *args: Any):
        """Prepare the pool; nothing of Ray runs yet."""
        self.engine, self.workers, self.report = engine, workers, engine.report
        self._setup = (setup, args)
        self._state: list[Any] = []
        self._token = ""
        self._remote: Any = None
        self._owned = False
        self._refs: dict[int, Any] = {}  # the tasks in flight, cancelled if the read stops

    @property
    def started(self) -> bool:
        """Whether Ray was started or joined."""
        return self._remote is not None

    def _start(self) -> None:
        """Start Ray here, or join the cluster at the engine's address, and ship the setup."""
        began = time.perf_counter()
        if not ray.is_initialized():  # a caller (bench_ray.py) may have joined one already
            address = self.engine.address
            local = {"num_cpus": self.workers} if address is None else {}
            ray.init(
                address=address or "local",
                include_dashboard=False,
                log_to_driver=False,  # a worker's prints would interleave with the progress
                logging_level=logging.ERROR,
                **local,
            )
            self._owned = True
        self.report.nodes = sum(1 for node in ray.nodes() if node.get("Alive"))
        self.report.cpus = float(ray.cluster_resources().get("CPU", 0))
        setup, args = self._setup
        self._token = uuid.uuid4().hex  # names this pool's setup; in no output
        self._state = [ray.put((setup, args))]
        self._remote = ray.remote(_run).options(max_retries=self.engine.retries)
        self.report.ray_start = time.perf_counter() - began

    def submit(self, task: Callable[..., T], *args: Any) -> Future[T]:
        """Run `task(*args)` as a Ray task; a worker that died fails it with BrokenProcessPool
        once Ray's retries are spent."""
        if self._remote is None:
            self._start()
        ref = self._remote.remote(self._token, self._state, task, args)
        self._refs[id(ref)] = ref
        self.report.batches_sent += 1
        future: Future[T] = Future()
        ref.future().add_done_callback(partial(self._arrive, future, ref, _count(args)))
        return future

    def _arrive(self, future: Future[T], ref: Any, files: int, raw: Future[Any]) -> None:
        """Hand a finished Ray task's result (or failure) to its future (a done callback)."""
        self._refs.pop(id(ref), None)
        report = self.report
        report.batches_done += 1
        try:
            value, seconds, cpu = raw.result()
        except RayTaskError as exc:  # the task raised: its own error, as a fork pool gives it
            future.set_exception(exc.as_instanceof_cause())
        except (RayError, OSError) as exc:  # its worker (or node) died, retries spent
            future.set_exception(BrokenProcessPool(f"a Ray worker died: {type(exc).__name__}"))
        except BaseException as exc:  # cancelled or otherwise lost: never leave it unset
            future.set_exception(BrokenProcessPool(f"a Ray task was lost: {exc!r}"))
        else:
            report.batch_seconds.append(seconds)
            report.batch_cpu.append(cpu)
            report.batch_files.append(files)
            future.set_result(value)
        if report.on_batch is not None:
            report.on_batch(report.batches_done, report.batches_sent)

    def alone(self, task: Callable[..., T], *args: Any) -> T | None:
        """Run `task(*args)` as a task of its own; None if its worker died every time."""
        future = self.submit(task, *args)
        wait([future])
        return None if died(future) else future.result()

    def __enter__(self) -> RayPool:
        """Return the pool; the time it is entered ends discovery in the summary."""
        self.report.opened = time.perf_counter()
        self.report.driver_cpu = -time.process_time()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Cancel what is in flight after an error, and stop Ray if this pool started it."""
        for ref in list(self._refs.values()) if exc_type is not None else []:
            ray.cancel(ref, force=True)
        if self._owned:
            ray.shutdown()
            self._owned = False
        self.report.closed = time.perf_counter()
        self.report.driver_cpu += time.process_time()


def _count(args: tuple[Any, ...]) -> int:
    """Return the files a task's arguments carry: a batch's length, else one."""
    return len(args[0]) if len(args) == 1 and isinstance(args[0], list) else 1


class SortedBatches(Batches[A, T]):
    """Batches whose boundaries depend on the files alone, never on timing.

    The fork pool's batches also go when the reader waits (in_order's before_wait), which
    depends on how fast workers are. Here a batch goes when full (engine.batch_files files or
    engine.batch_bytes bytes), when RAY_SPAN files in source order (parsed or not) passed
    since its first, and at the end: so the same corpus and cache give the same batches.
    """

    def __init__(
        self,
        pool: RayPool,
        task: Callable[[list[A]], list[Any]],
        decode: Callable[[Any], T],
        engine: Engine,
    ) -> None:
        """Batch items for `task` in `pool` with the engine's limits."""
        super().__init__(pool, task, decode, engine.batch_files, engine.batch_bytes)
        self._since = 0  # files in source order since the batch being filled began

    def spanned(self, steps: Iterable[S]) -> Iterator[S]:
        """Yield each step, sending the batch being filled after RAY_SPAN, and at the end."""
        for step in steps:
            yield step
            self._since = self._since + 1 if self._items else 0
            if self._since >= RAY_SPAN:
                self.flush()
        self.flush()

    def flush(self) -> None:
        """Send the batch being filled, if it holds anything."""
        self._since = 0
        super().flush()
