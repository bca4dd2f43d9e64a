"""Writing an index folder: the one writer's lock, then a new generation made live.

How a write survives kills and full disks: docs/index-format.md, "Writes, kills and leftovers".
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from policy_assistant.errors import BadIndex
from policy_assistant.index.chunks.segment_build import flush_files
from policy_assistant.index.settings import BM25Settings
from policy_assistant.index.store.entries import (
    DELETED_DIR,
    EMPTY_FILE,
    SEGMENTS_DIR,
    entries_bytes,
    save_masks,
)
from policy_assistant.index.store.folder import GENERATION, read_current
from policy_assistant.index.store.manifest import Manifest, ids_digest
from policy_assistant.index.store.plan import Generation, MakeGeneration, cold_generation, link_tree
from policy_assistant.jsonio import pretty_json
from policy_assistant.procs.side_job import SideJob, spare_core
from policy_assistant.records import Chunk, Document
from policy_assistant.text import printable

if TYPE_CHECKING:
    from policy_assistant.index.store.vectors import Embedding

LOCK_TIMEOUT = 600.0
"""Seconds a second writer waits for the lock before giving up, unless told otherwise: long
enough for a typical ingest, so a cron ingest queues behind a watch instead of failing."""
LOCK_WAIT_ENV = "POLICY_ASSISTANT_LOCK_WAIT"
"""Environment variable: seconds a writer waits for another (overridden by --wait)."""
_WAIT: list[float] = []
"""The wait a command set with --wait (set_lock_wait), which beats the environment."""

Progress = Callable[[int], None]

_OURS = re.compile(r"gen-[0-9a-f]{16}(-b)?|\.tmp-\d+|\.trash-gen-[0-9a-f]{16}(-b)?|\.CURRENT\.tmp")
_HELD: dict[Path, int] = {}
"""Per index folder this process locks: the lock descriptor."""


class IndexBusyError(BadIndex):
    """Another process kept the index's write lock for longer than the timeout."""


def set_lock_wait(seconds: float | None) -> None:
    """Set how long this process's writers wait for another (None: back to the default)."""
    _WAIT[:] = [] if seconds is None else [float(seconds)]


def lock_wait() -> float:
    """Return the seconds a writer waits: --wait, else $POLICY_ASSISTANT_LOCK_WAIT, else 600."""
    if _WAIT:
        return _WAIT[0]
    value = os.environ.get(LOCK_WAIT_ENV, "")
    try:
        return max(0.0, float(value)) if value.strip() else LOCK_TIMEOUT
    except ValueError:
        return LOCK_TIMEOUT  # a bad value must not stop an ingest: the default is safe


@contextmanager
def index_lock(index_dir: Path, timeout: float | None = None) -> Iterator[None]:
    """Hold the index's write lock, waiting up to timeout seconds (None: lock_wait()).

    Re-entrant, so a pipeline can hold it from reading the old index to writing the new one.
    Taking it removes what killed writers left, so even a writer with nothing to do cleans up.
    """
    key, owner = index_dir.resolve(), os.getpid()
    if key in _HELD:  # held by an outer frame, which releases it
        yield
        return
    _refuse_foreign(index_dir)
    fd = _open_lock(index_dir)
    try:  # closing the descriptor releases the lock, also when the process dies
        _acquire(fd, index_dir, lock_wait() if timeout is None else timeout)
        _HELD[key] = fd
        try:
            _remove_leftovers(index_dir)
            yield
        finally:
            if os.getpid() == owner:  # a forked child unwinding this frame holds nothing
                del _HELD[key]
    finally:
        if os.getpid() == owner:
            os.close(fd)


def _forget_locks_in_child() -> None:
    """In a forked child, close the lock descriptors: the lock must die with its writer."""
    # flock belongs to the open file, which a fork shares: a child that kept the descriptor
    # would hold the lock after its parent died.
    for fd in _HELD.values():
        with suppress(OSError):
            os.close(fd)
    _HELD.clear()


os.register_at_fork(after_in_child=_forget_locks_in_child)


def _refuse_foreign(index_dir: Path) -> None:
    """Raise BadIndex when index_dir holds files but is not an index folder: a writer given
    a wrong --index (a home folder, the corpus) must not put its files among someone's."""
    try:
        names = [entry.name for entry in index_dir.iterdir()]
    except OSError:  # missing (made below) or unreadable (the lock's open says why)
        return
    marks = {".lock", "CURRENT"}
    if not names or marks.intersection(names) or any(_made_here(index_dir / n) for n in names):
        return
    raise BadIndex(
        f"{index_dir} is not empty and is not an index folder: give a new or empty folder "
        "as --index (or $POLICY_ASSISTANT_INDEX)"
    )


def _made_here(entry: Path) -> bool:
    """Whether a file in an index folder is one a writer of ours made, so it may be removed
    (a generation only when its manifest.json reads as ours: a foreign folder may share the
    name)."""
    if not _OURS.fullmatch(entry.name) or entry.is_symlink():
        return False
    if not GENERATION.fullmatch(entry.name):
        return True
    try:
        data = orjson.loads((entry / "manifest.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return False
    return isinstance(data, dict) and {"format_version", "tool_version"} <= data.keys()


def _open_lock(index_dir: Path) -> int:
    """Open the lock file, creating the folder and file; read-only if they cannot be written
    (flock works on that, so an ingest with nothing to write runs on a read-only folder)."""
    try:
        index_dir.mkdir(parents=True, exist_ok=True)
        return os.open(index_dir / ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        try:
            return os.open(index_dir / ".lock", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            raise _cannot_write(index_dir, exc) from exc


def _acquire(fd: int, index_dir: Path, timeout: float) -> None:
    """flock fd, polling until timeout (saying once whom we wait for); then record who we are
    (pid, then command) for the next waiter's message."""
    deadline, said = time.monotonic() + timeout, False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            pid, command = _holder(fd)
            who = f" (process {pid})" if pid else ""
            if time.monotonic() >= deadline:
                raise IndexBusyError(
                    f"{index_dir} is being written by another ingest{who}; waited "
                    f"{timeout:g} s: try again when it finishes"
                ) from None
            if not said and timeout > 0:
                said = True
                doing = f": {command}" if command else ""
                print(
                    f"waiting up to {timeout:g} s for the writer of {index_dir}{who}{doing}",
                    file=sys.stderr,
                    flush=True,
                )
            time.sleep(0.05)
    with suppress(OSError):  # a courtesy only: a read-only lock file cannot say who we are
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n{_command()}\n".encode(), 0)


def _holder(fd: int) -> tuple[str, str]:
    """Return the pid and command the lock's holder recorded (empty when it recorded none)."""
    with suppress(OSError):
        lines = os.pread(fd, 1024, 0).decode(errors="replace").splitlines()
        pid = lines[0].strip() if lines else ""
        if pid.isdigit():
            return pid, printable(lines[1].strip()) if len(lines) > 1 else ""
    return "", ""


def _command() -> str:
    """Return this process's command line, shortened, for a waiting writer's message."""
    words = [Path(sys.argv[0]).name if sys.argv else "python", *sys.argv[1:]]
    line = " ".join(words).replace("\n", " ")
    return line if len(line) <= 200 else line[:199] + "…"


def _cannot_write(index_dir: Path, exc: OSError, unchanged: bool = True) -> BadIndex:
    """Return the one-line error for an index folder that cannot be written (full, read-only)."""
    where = f" ({exc.filename})" if exc.filename else ""
    kept = "; the old index is unchanged" if unchanged else ""
    return BadIndex(f"cannot write the index at {index_dir}: {exc.strerror or exc}{where}{kept}")


def _remove_leftovers(index_dir: Path) -> None:
    """Delete what killed writers left (lock held); every generation stays while CURRENT is
    unreadable, since which one is live is then unknown."""
    try:
        live, generations = read_current(index_dir), True
    except BadIndex:
        live, generations = None, False
    try:
        _clean(index_dir, live, generations=generations)
    except OSError as exc:
        raise _cannot_write(index_dir, exc) from exc


def write_index(
    index_dir: Path,
    chunks: Sequence[Chunk],
    manifest: Manifest,
    lock_timeout: float | None = None,
) -> Path:
    """Write chunks (in row order, agreeing with manifest.documents) as a new generation of
    one segment, without units; make it current, return its folder."""
    _check_consistent(chunks, manifest)
    make = cold_generation(chunks, manifest, manifest.documents)
    return write_generation(index_dir, make, lock_timeout)


def write_generation(
    index_dir: Path,
    make: MakeGeneration,
    lock_timeout: float | None = None,
    progress: Progress | None = None,
    workers: int | None = None,
    units: UnitsJob | None = None,
) -> Path:
    """Write a new generation (make fills its segments, the units job its units: in a forked
    child meanwhile unless workers is 1), make it current, delete the others."""
    with index_lock(index_dir, lock_timeout):
        tmp = index_dir / f".tmp-{os.getpid()}"
        child: SideJob | None = None
        try:
            _remove(tmp)
            (tmp / SEGMENTS_DIR).mkdir(parents=True)
            child = _start_units(tmp, units, spare_core(workers))
            generation = make(tmp / SEGMENTS_DIR)
            if progress is not None:
                progress(generation.manifest.rows)
            if child is not None:
                child.join()
            name, was_live = _write_generation(tmp, generation), _live_name(index_dir)
            if was_live == name:
                # The same content is live, but its files may have been damaged since: write
                # anyway, into the other slot, since the live folder cannot be replaced in place.
                name += "-b"
            _publish(index_dir, tmp, name)
        except BaseException as exc:
            if child is not None:
                child.cancel()
            _discard(tmp)
            if isinstance(exc, OSError):
                raise _cannot_write(index_dir, exc) from exc
            raise
        try:
            _clean(index_dir, keep=name, retired=was_live)
        except OSError as exc:
            raise _cannot_write(index_dir, exc, unchanged=False) from exc
        return index_dir / name


def _live_name(index_dir: Path) -> str | None:
    """Return the live generation's name; None when CURRENT is missing or unreadable."""
    try:
        name = read_current(index_dir)
    except BadIndex:
        return None
    return name if name is not None and GENERATION.fullmatch(name) else None


def _check_consistent(chunks: Sequence[Chunk], manifest: Manifest) -> None:
    """Raise ValueError unless chunks and manifest agree."""
    if any(a >= b for a, b in pairwise((c.source, c.position) for c in chunks)):
        raise ValueError("chunks must be sorted by source then position (see sort_chunks)")
    by_source: dict[str, list[str]] = {}
    for chunk in chunks:
        by_source.setdefault(chunk.source, []).append(chunk.id)
    for entry in manifest.documents:
        if ids_digest(by_source.pop(entry.source, [])) != entry.digest:
            raise ValueError(f"manifest entry of {entry.source} does not match its chunks")
    if by_source:
        raise ValueError(f"chunks of {sorted(by_source)[0]} have no manifest entry")
    if unknown := {c.access for c in chunks} - set(manifest.access_labels):
        raise ValueError(f"unknown access labels {sorted(unknown)}")


UnitsJob = Callable[[Path], object]
"""Writes a generation's units into the folder it is given (units.py)."""


def cold_units(
    documents: Sequence[Document], bm25: BM25Settings, vectors: Embedding | None = None
) -> UnitsJob:
    """Return the job writing the units of documents whole, with these BM25 settings (and
    each unit's vector, given an embedding)."""
    from policy_assistant.index.store.units import write_units

    extra = None if vectors is None else vectors.unit_files
    return lambda folder: write_units(documents, folder, bm25, extra)


def _start_units(tmp: Path, job: UnitsJob | None, fork: bool) -> SideJob | None:
    """Start writing the units into tmp (beside the segments when a core is spare)."""
    if job is None:
        return None
    from policy_assistant.index.store.units import UNITS_DIR

    # The units' files are checksummed into the manifest, and so into the name, after join.
    return SideJob(lambda: job(tmp / UNITS_DIR), fork=fork)


def _write_generation(tmp: Path, generation: Generation) -> str:
    """Fill tmp with the rest of a generation, manifest last, flushed to disk; return its name.

    Reused segments are hard links, so this costs what changed, not the size of the index."""
    for name, source in generation.reuse.items():
        link_tree(source, tmp / SEGMENTS_DIR / name)
    save_masks(tmp / DELETED_DIR, generation.deleted)
    (tmp / EMPTY_FILE).write_bytes(entries_bytes(generation.empty))
    # The chunk and unit segments' files were hashed and flushed when each was sealed.
    checksums = flush_files(tmp, (f"{SEGMENTS_DIR}/", "units/useg-"))
    manifest = replace(generation.manifest, files=dict(sorted(checksums.items())))
    manifest_json = pretty_json(manifest.to_dict())
    (tmp / "manifest.json").write_bytes(manifest_json)
    _fsync(tmp / "manifest.json")
    for root, _, _ in os.walk(tmp):
        _fsync(Path(root))
    return f"gen-{hashlib.sha256(manifest_json).hexdigest()[:16]}"


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _publish(index_dir: Path, tmp: Path, name: str) -> None:
    """Rename tmp to name (not the live generation) and point CURRENT at it."""
    target, pointer = index_dir / name, index_dir / ".CURRENT.tmp"
    if target.exists():  # left behind by a killed writer; replace it whole
        _retire(target)
    tmp.rename(target)
    try:
        pointer.write_text(name + "\n", encoding="utf-8")
        _fsync(pointer)
        os.replace(pointer, index_dir / "CURRENT")
    except BaseException:
        _discard(pointer)
        _discard(target)  # never published: CURRENT still names the old generation
        raise
    _fsync(index_dir)


def _clean(
    index_dir: Path, keep: str | None, retired: str | None = None, generations: bool = True
) -> None:
    """Delete every leftover and (with generations) our generations but keep; retired, the one
    live before, goes even with its manifest damaged. Foreign files stay."""
    for entry in sorted(index_dir.iterdir()):
        if entry.name == keep or not (entry.name == retired or _made_here(entry)):
            continue
        if not GENERATION.fullmatch(entry.name):
            _remove(entry)
        elif generations:
            _retire(entry)


def _retire(generation: Path) -> None:
    """Delete a generation, renaming it first, so a gen-* folder is always whole."""
    trash = generation.with_name(f".trash-{generation.name}")
    _remove(trash)
    generation.rename(trash)
    _remove(trash)


def _discard(path: Path) -> None:
    """Remove path if possible: cleaning up after a failed write must not hide its error."""
    with suppress(OSError):
        _remove(path)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
