"""A second writer queues behind the first, saying whom it waits for, for as long as asked."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from policy_assistant.index.store.writer import LOCK_WAIT_ENV, lock_wait, set_lock_wait

ROOT = Path(__file__).resolve().parent.parent


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **extra}
    env.pop(LOCK_WAIT_ENV, None) if LOCK_WAIT_ENV not in extra else None
    return env


def _hold_lock(index_dir: Path, seconds: float) -> subprocess.Popen[str]:
    """Start a process that holds index_dir's write lock for `seconds`, once it says so."""
    code = f"""
        import time
        from pathlib import Path
        from policy_assistant.index import index_lock
        with index_lock(Path({str(index_dir)!r})):
            print("locked", flush=True)
            time.sleep({seconds})
        """
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), "holder-marker"],
        stdout=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    return holder


def _chunks_file(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("---\naccess: public\n---\n# A\n\nalpha beta gamma\n")
    out = tmp_path / "chunks.jsonl"
    command = [sys.executable, "-m", "policy_assistant", "chunk", str(corpus), "--out", str(out)]
    subprocess.run(command, check=True, capture_output=True, env=_env(), cwd=tmp_path)
    return out


def _index(tmp_path: Path, chunks: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "policy_assistant", "index", str(chunks)]
    command += ["--index", str(tmp_path / "index"), *args]
    return subprocess.run(command, capture_output=True, text=True, env=_env(**env), timeout=120)


def test_a_writer_waits_as_long_as_asked_and_says_whom_for(tmp_path: Path) -> None:
    chunks = _chunks_file(tmp_path)
    holder = _hold_lock(tmp_path / "index", 4)
    done = _index(tmp_path, chunks, "--wait", "60")
    assert holder.wait(10) == 0
    assert done.returncode == 0, done.stderr
    waiting = [line for line in done.stderr.splitlines() if "waiting" in line]
    assert len(waiting) == 1, done.stderr
    assert f"process {holder.pid}" in waiting[0] and "holder-marker" in waiting[0]


def test_the_environment_sets_the_wait_and_a_timeout_still_says_who(tmp_path: Path) -> None:
    chunks = _chunks_file(tmp_path)
    holder = _hold_lock(tmp_path / "index", 3)
    done = _index(tmp_path, chunks, **{LOCK_WAIT_ENV: "0.3"})
    holder.wait(10)
    assert done.returncode == 1
    assert f"being written by another ingest (process {holder.pid})" in done.stderr


def test_the_default_wait_covers_a_typical_ingest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(LOCK_WAIT_ENV, raising=False)
    assert lock_wait() >= 600
    monkeypatch.setenv(LOCK_WAIT_ENV, "42")
    assert lock_wait() == 42
    try:
        set_lock_wait(7)
        assert lock_wait() == 7
    finally:
        set_lock_wait(None)
