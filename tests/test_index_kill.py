"""A writer killed while its forked BM25 workers run must not leave them, or its lock, behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from contextlib import suppress
from pathlib import Path

import pytest
from support.corpora import write_pipeline_corpus

from policy_assistant.chunk import make_chunker
from policy_assistant.index import index_lock
from policy_assistant.index.chunks.bm25_build import BATCH_ROWS
from policy_assistant.ingest.pipeline import ingest

pytestmark = [
    pytest.mark.slow,  # kill tests: make test-slow, make check and CI run them
    pytest.mark.skipif(sys.platform != "linux", reason="reads /proc; workers fork on Linux"),
]

ROWS = 40 * BATCH_ROWS
"""Rows the killed build is given: far more than one batch, so workers fork."""
INGEST_CHUNKS = 6 * BATCH_ROWS
"""Chunks of the killed ingest: enough batches for its workers to run a while."""


def _processes() -> list[tuple[int, str, int, int]]:
    """Return (pid, state, ppid, pgrp) of every process in /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:  # gone while we looked
            continue
        state, ppid, pgrp = stat.rsplit(")", 1)[1].split()[:3]
        found.append((int(entry), state, int(ppid), int(pgrp)))
    return found


def _children(pid: int) -> list[int]:
    return [p for p, state, ppid, _ in _processes() if ppid == pid and state != "Z"]


def _group_alive(pgid: int) -> list[int]:
    # A zombie holds no file and no lock; whether it is reaped depends on the machine's init.
    return [p for p, state, _, pgrp in _processes() if pgrp == pgid and state != "Z"]


def _wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return bool(condition())


def _kill_group(pgid: int) -> None:
    """Kill whatever of the group survived, so a failing test leaks no process."""
    with suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)


BUILD = """
    import sys
    from pathlib import Path
    from policy_assistant.index import index_lock
    from policy_assistant.index.chunks.bm25_build import count_postings

    texts = (f"w{i % 1009} w{i % 997} term{i % 40000} x{i % 13}" for i in range(int(sys.argv[2])))
    with index_lock(Path(sys.argv[1])):
        print("locked", flush=True)
        count_postings(texts, workers=2)
"""


def _start_build(index_dir: Path) -> subprocess.Popen[str]:
    """Start a build holding index_dir's lock, in a process group of its own."""
    code = textwrap.dedent(BUILD)
    return subprocess.Popen(
        [sys.executable, "-c", code, str(index_dir), str(ROWS)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_killed_large_build_leaves_no_worker_and_no_lock(tmp_path: Path, sig: int) -> None:
    index_dir = tmp_path / "index"
    proc = _start_build(index_dir)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        assert _wait_for(lambda: len(_children(proc.pid)) >= 2, 60), "no workers forked"
        time.sleep(0.2)  # let them take a batch each
        assert proc.poll() is None, "the build finished before it could be killed"
        proc.send_signal(sig)
        assert proc.wait(10) == -sig
        assert _wait_for(lambda: not _group_alive(proc.pid), 5), _group_alive(proc.pid)
        start = time.monotonic()
        with index_lock(index_dir, timeout=1.0):
            pass
        assert time.monotonic() - start < 1.0
    finally:
        _kill_group(proc.pid)


def test_a_forked_child_does_not_keep_the_lock_its_parent_held(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    with index_lock(index_dir):
        pid = os.fork()
        if pid == 0:  # the child outlives its parent's hold on the lock
            time.sleep(3)
            os._exit(0)
    try:
        with index_lock(index_dir, timeout=0.5):
            pass
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_an_ingest_killed_while_its_workers_run_can_be_run_again_at_once(
    tmp_path: Path, sig: int
) -> None:
    corpus, index_dir = write_pipeline_corpus(tmp_path / "c"), tmp_path / "index"
    words = " ".join(f"w{i % 1009}" for i in range(INGEST_CHUNKS * 3))
    (corpus / "big.md").write_text(f"---\naccess: public\n---\n# Big\n\n{words}\n")
    command = [sys.executable, "-m", "policy_assistant", "ingest", str(corpus)]
    command += ["--index", str(index_dir), "--chunker", "fixed", "--size", "3", "-q"]
    proc = subprocess.Popen(command, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        assert _wait_for(lambda: len(_children(proc.pid)) >= 2, 120), "no workers forked"
        assert proc.poll() is None
        proc.send_signal(sig)
        assert proc.wait(10) == -sig
        assert _wait_for(lambda: not _group_alive(proc.pid), 5), _group_alive(proc.pid)
    finally:
        _kill_group(proc.pid)
    (corpus / "big.md").unlink()
    with index_lock(index_dir, timeout=0.5):  # free at once, not after the 10 s wait
        pass
    summary = ingest(corpus, index_dir, make_chunker("structure"))
    assert summary.written and summary.added == ["a.md", "b.md", "staff/c.md"]
