"""Work spread over forked worker processes, its results handed back in the order it was given.

Parsing is nearly all of a cold ingest's CPU, one file at a time, so `read_corpus` hands the
files to parse to a `ForkPool`. The pool forks its workers the first time work is given to
it, not before, so a run that parses nothing (a warm cache) never pays for them; `in_order`
gives the results back in the order the work was handed out, whichever finishes first.

Workers are forked, not spawned: a forked worker inherits the modules already imported, the
OCR switch and everything the `setup` function is given, none of it pickled (spawn or
forkserver would also re-import the caller's main module, which breaks scripts without a main
guard). That is Linux behaviour; elsewhere, or while another thread runs (forking a threaded
process can copy a held lock), the work runs in the calling process instead, with the same
results. Each worker dies with the parent (index/children.py) and ignores Ctrl-C, which a
terminal sends to the whole process group: the parent alone handles it and ends the workers.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from queue import SimpleQueue
from types import TracebackType
from typing import Any, Generic, Protocol, TypeVar

from policy_assistant.errors import UsageError
from policy_assistant.procs.children import die_with_parent

T = TypeVar("T")
K = TypeVar("K")
A = TypeVar("A")

QUEUED_PER_WORKER = 4
"""Unfinished batches kept per worker: enough that none waits for the next, few enough that
the files read ahead stay a small share of memory."""
QUEUED_BYTES = 64 * 1024 * 1024
"""Bytes of unfinished items read ahead, per worker, before no more work is handed out."""
HELD_RESULTS = 1024
"""Finished results kept waiting behind a slow one before no more work is handed out."""
BATCH_ITEMS = 16
"""Items sent to a worker in one task at most: a task costs the parent a wake-up, a pickle
and a pipe write, as much as parsing a small Markdown file does."""
BATCH_SIZE = 64 * 1024
"""Bytes of items after which a batch goes at once (a PDF usually goes alone)."""


def machine_cores() -> int:
    """Return the cores this process may run on (its affinity mask, not every core present)."""
    counter = getattr(os, "process_cpu_count", None)  # Python 3.13 and later
    if counter is not None:
        return int(counter() or 1)
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def check_workers(workers: int | None) -> int:
    """Return the worker count to use: the machine's cores for None; below 1 is a UsageError."""
    if workers is None:
        return machine_cores()
    if workers < 1:
        raise UsageError(f"--workers must be 1 or more, got {workers}")
    return workers


def can_fork(workers: int) -> bool:
    """Return whether work may go to forked workers: asked for, on Linux, with no other thread."""
    return workers >= 2 and sys.platform == "linux" and threading.active_count() == 1


class _Pool(Protocol):
    """What Batches needs of a pool: ForkPool here, RayPool (procs/ray_pool.py) on a cluster."""

    def submit(self, task: Callable[..., Any], *args: Any) -> Future[Any]:
        """Run `task(*args)` in a worker; return its future."""


def done(value: T) -> Future[T]:
    """Return a future that already holds `value`: work done in this process."""
    future: Future[T] = Future()
    future.set_result(value)
    return future


class ForkPool:
    """Forked workers, started on the first `submit`; leaving the block ends every one of them.

    `setup(*args)` runs in each worker as it starts, to keep the state its tasks need.
    """

    def __init__(self, workers: int, setup: Callable[..., None], *args: Any) -> None:
        """Prepare a pool of `workers` processes; nothing is forked yet."""
        self.workers = workers
        self._setup = setup
        self._args = args
        self._executor: ProcessPoolExecutor | None = None
        self._children: list[multiprocessing.process.BaseProcess] = []

    @property
    def started(self) -> bool:
        """Whether the workers have been forked."""
        return self._executor is not None

    def submit(self, task: Callable[..., T], *args: Any) -> Future[T]:
        """Run `task(*args)` in a worker, forking the workers first if they are not running.

        After a worker died (the pool is broken), new workers are forked for what comes next.
        """
        if self._executor is not None:
            try:
                return self._executor.submit(task, *args)
            except BrokenProcessPool:
                self._end(kill=True)
        before = set(multiprocessing.active_children())
        context = multiprocessing.get_context("fork")
        start = (os.getpid(), self._setup, self._args)
        # Workers are born with Ctrl-C blocked, so one that comes before a worker has set it
        # aside cannot kill it; here it waits, pending, until the forks are done.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=_start_worker, initargs=start
            )
            future = self._executor.submit(task, *args)  # with fork, this forks every worker
            # Known before Ctrl-C is unblocked: one pending since the forks raises as soon as it
            # is, and the workers (which ignore it) must then be killed, not waited for.
            self._children = [p for p in multiprocessing.active_children() if p not in before]
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        return future

    def alone(self, task: Callable[..., T], *args: Any) -> T | None:
        """Run `task(*args)` in a worker of its own; None if that worker died too."""
        with ForkPool(1, self._setup, *self._args) as single:
            future = single.submit(task, *args)
            wait([future])
            return None if died(future) else future.result()

    def _end(self, kill: bool) -> None:
        """Stop the workers (killing them first when asked) and wait for them to exit."""
        if self._executor is None:
            return
        if kill:
            for child in self._children:
                child.kill()  # a worker in a long parse would otherwise finish it first
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._executor = None

    def __enter__(self) -> ForkPool:
        """Return the pool."""
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Wait for the workers to finish; after an error or Ctrl-C, kill them first."""
        self._end(kill=exc_type is not None)


class Batches(Generic[A, T]):
    """Items handed to a pool in batches, one task per batch; each item gets its own future.

    `task(items)` runs in a worker and returns one result per item, in order, in a form
    `decode` turns into the item's result in this process (parse/wire.py: tuples pickle
    faster than records). A batch goes when it holds BATCH_ITEMS items or BATCH_SIZE bytes,
    or on `flush` (in_order flushes before it waits, so no item waits on a batch never sent).
    `items` and `size` change those limits; `stored` says whether the task stores its parses
    in the parse cache itself (the reader stores them otherwise).
    """

    def __init__(
        self,
        pool: _Pool,
        task: Callable[[list[A]], list[Any]],
        decode: Callable[[Any], T],
        items: int = BATCH_ITEMS,
        size: int = BATCH_SIZE,
    ) -> None:
        """Batch items for `task` in `pool`, each result rebuilt by `decode`."""
        self.pool, self.task, self.decode = pool, task, decode
        self.items, self.size, self.stored = items, size, True
        self._items: list[A] = []
        self._futures: list[Future[T]] = []
        self._size = 0

    def add(self, item: A, size: int) -> Future[T]:
        """Queue one item of `size` bytes; return the future of its result."""
        future: Future[T] = Future()
        self._items.append(item)
        self._futures.append(future)
        self._size += size
        if len(self._items) >= self.items or self._size >= self.size:
            self.flush()
        return future

    def flush(self) -> None:
        """Send the batch being filled, if it holds anything."""
        if not self._items:
            return
        items, futures = self._items, self._futures
        self._items, self._futures, self._size = [], [], 0
        batch = self.pool.submit(self.task, items)
        batch.add_done_callback(partial(_deliver, futures=futures, decode=self.decode))


def _deliver(
    batch: Future[list[Any]], futures: list[Future[T]], decode: Callable[[Any], T]
) -> None:
    """Hand each item its decoded result from a finished batch (or the batch's failure)."""
    if batch.cancelled():
        for future in futures:
            future.cancel()
        return
    error = batch.exception()
    if error is not None:
        for future in futures:
            future.set_exception(error)
        return
    for future, result in zip(futures, batch.result(), strict=True):
        # A done callback's exception is only logged: one here would leave `future` unset
        # and in_order waiting for it forever.
        try:
            future.set_result(decode(result))
        except Exception as exc:  # handed to the item's future, not lost
            future.set_exception(exc)


def died(future: Future[Any]) -> bool:
    """Return whether a finished task failed because its worker process died (crash or kill)."""
    return isinstance(future.exception(), BrokenProcessPool)


def _start_worker(parent: int, setup: Callable[..., None], args: tuple[Any, ...]) -> None:
    """In a new worker: die with the parent, leave Ctrl-C to it, then keep the task state."""
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C pending since the fork is dropped
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    setup(*args)


def _put(queue: SimpleQueue[int], ticket: int, _: Future[Any]) -> None:
    """Put a finished future's ticket in the queue (a done callback)."""
    queue.put(ticket)


def in_order(
    work: Iterable[tuple[K, Future[T], int]],
    workers: int,
    arrived: Callable[[K], None] | None = None,
    before_wait: Callable[[], None] | None = None,
    batch_items: int = BATCH_ITEMS,
) -> Iterator[tuple[K, Future[T]]]:
    """Yield each (key, finished future) in the order `work` gives them, once their turn comes.

    `work` gives (key, future, bytes held until it finishes), drawn lazily: only while fewer
    than QUEUED_PER_WORKER full batches and QUEUED_BYTES per worker are unfinished and fewer
    than HELD_RESULTS results wait, so what was read ahead stays bounded. `arrived(key)` is
    called as each result arrives, in whatever order they finish; `before_wait()` before
    each wait (Batches.flush). `batch_items` is the batches' size, in items.
    """
    pending: deque[tuple[int, K, Future[T]]] = deque()
    unfinished: dict[int, tuple[K, int]] = {}
    held = [0]  # bytes of the unfinished items
    # Each future, as it finishes (in a pool thread), puts its ticket here: no scan, no poll.
    finished: SimpleQueue[int] = SimpleQueue()
    queued = QUEUED_PER_WORKER * workers * batch_items

    def collect(block: bool) -> None:
        tickets = []
        if block and finished.empty():
            if before_wait is not None:
                before_wait()
            tickets.append(finished.get())
        while not finished.empty():
            tickets.append(finished.get())
        for ticket in tickets:
            key, size = unfinished.pop(ticket)
            held[0] -= size
            if arrived is not None:
                arrived(key)

    for ticket, (key, future, size) in enumerate(work):
        pending.append((ticket, key, future))
        unfinished[ticket] = key, size
        held[0] += size
        future.add_done_callback(partial(_put, finished, ticket))
        full = len(unfinished) >= queued or held[0] >= QUEUED_BYTES * workers
        collect(block=full or len(pending) >= HELD_RESULTS)
        while pending and pending[0][0] not in unfinished:
            _, head_key, head = pending.popleft()
            yield head_key, head
    while pending:
        collect(block=pending[0][0] in unfinished)
        while pending and pending[0][0] not in unfinished:
            _, head_key, head = pending.popleft()
            yield head_key, head
