"""`ingest --engine ray`: the same index bytes as a local ingest, and the same faults.

The fast tests need no Ray: the default engine imports none of it, and asking for Ray without
the extra is a usage error naming the install line. The slow ones run a local Ray of 2 CPUs
(2 worker processes): started once for the session in this process, or by `ingest` itself in
a subprocess. Each compares the index folder with a local ingest's, every file by its SHA-256.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.generated import generated_corpus
from typer.testing import CliRunner

from policy_assistant.cli import app

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
CORPUS = ROOT / "corpus"
SKIP_REASON = "the ray extra is not installed: pip install -e '.[ray]'"
FAULTS = TESTS / "support" / "ray_faults.py"


def tree(folder: Path) -> dict[str, str]:
    """Return the SHA-256 of every file under folder, skipping nothing.

    `.lock` holds the PID and command of the last writer (for the next one's waiting line: any
    two ingests differ there), so it is checked to start with a PID line and hashed as "N".
    """
    found = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.relative_to(folder).as_posix() == ".lock":
            assert re.match(rb"[0-9]+\n", data), data
            data = b"N\n"
        found[path.relative_to(folder).as_posix()] = hashlib.sha256(data).hexdigest()
    return found


def small_corpus(root: Path) -> Path:
    """Write two labelled Markdown files under root."""
    root.mkdir(parents=True)
    for name in ("a", "b"):
        (root / f"{name}.md").write_text(f"---\naccess: public\n---\n# {name}\n\nSome text.\n")
    return root


# --- without Ray ---------------------------------------------------------------------------


def test_the_default_engine_imports_nothing_of_ray(tmp_path: Path) -> None:
    corpus = small_corpus(tmp_path / "corpus")
    program = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from policy_assistant.cli import app\n"
        f"r = CliRunner().invoke(app, ['ingest', {str(corpus)!r}, '--index', "
        f"{str(tmp_path / 'index')!r}, '--quiet'])\n"
        "assert r.exit_code == 0, r.output\n"
        "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')"
        " or m.endswith('ray_pool')))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_engine_ray_without_the_extra_exits_2_with_the_install_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec

    def no_ray(name: str, *args: Any) -> Any:
        return None if name == "ray" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", no_ray)
    corpus = small_corpus(tmp_path / "corpus")
    index = tmp_path / "index"
    result = CliRunner().invoke(
        app, ["ingest", str(corpus), "--index", str(index), "--engine", "ray"]
    )
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'policy-assistant[ray]'" in lines[0]
    assert not index.exists()


@pytest.mark.parametrize(
    "args",
    [
        ["--ray-address", "127.0.0.1:6379"],
        ["--engine", "dask"],
        ["--engine", "ray", "--watch"],
    ],
)
def test_impossible_engine_options_are_usage_errors(tmp_path: Path, args: list[str]) -> None:
    corpus = small_corpus(tmp_path / "corpus")
    result = CliRunner().invoke(app, ["ingest", str(corpus), "--index", str(tmp_path / "i"), *args])
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1


# --- on a local Ray cluster ------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A local Ray of 2 CPUs in this process, for the module; yields its address."""
    ray = pytest.importorskip("ray", reason=SKIP_REASON)
    from support import ray_faults

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    ray_faults.register()
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def faults(*args: str) -> subprocess.Popen[str]:
    """Start tests/support/ray_faults.py with args (an ingest in a process of its own)."""
    return subprocess.Popen(
        [sys.executable, str(FAULTS), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def local_ingest(corpus: Path, index: Path, kind: str = "none", source: str = "") -> list[str]:
    """Ingest with the local pool (2 forked workers) in a subprocess; return its failures."""
    process = faults(kind, source, str(index.parent), str(corpus), str(index), "local")
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err
    return list(json.loads(out))


def ray_ingest(corpus: Path, index: Path, chunker: Any = None) -> tuple[list[str], Any]:
    """Ingest on the module's Ray in this process; return the failures and the engine report."""
    from policy_assistant.chunk import make_chunker
    from policy_assistant.ingest.pipeline import ingest
    from policy_assistant.parse import CorpusOptions
    from policy_assistant.procs.engine import Engine

    engine = Engine("ray", retries=1)
    options = CorpusOptions(workers=2, engine=engine)
    summary = ingest(corpus, index, chunker or make_chunker("structure"), options=options)
    return [str(f) for f in summary.failures], engine.report


@pytest.mark.slow
def test_the_bundled_corpus_gives_the_same_index_bytes_on_ray(tmp_path: Path) -> None:
    pytest.importorskip("ray", reason=SKIP_REASON)
    command = [sys.executable, "-m", "policy_assistant", "ingest", str(CORPUS), "--workers", "2"]
    local = subprocess.run(
        [*command, "--index", str(tmp_path / "local" / "index")], text=True, capture_output=True
    )
    on_ray = subprocess.run(
        [*command, "--index", str(tmp_path / "ray" / "index"), "--engine", "ray"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert local.returncode == 0 and on_ray.returncode == 0, on_ray.stderr
    assert "ray       1 node, 2 CPUs" in on_ray.stdout and "stages    discover" in on_ray.stdout
    local_tree, ray_tree = tree(tmp_path / "local" / "index"), tree(tmp_path / "ray" / "index")
    assert len(local_tree) > 40
    assert ray_tree == local_tree


@pytest.mark.slow
def test_a_generated_corpus_and_its_changes_give_the_same_bytes_and_errors_on_ray(
    tmp_path: Path, cluster: str
) -> None:
    corpus = generated_corpus(tmp_path / "corpus", 60)
    local, on_ray = tmp_path / "local" / "index", tmp_path / "ray" / "index"
    expected = local_ingest(corpus, local)
    failures, report = ray_ingest(corpus, on_ray)
    assert failures == expected and len(expected) == 2  # the corrupt PDF and the Latin-1 file
    assert report.batches_done > 2 and tree(on_ray) == tree(local)
    # A re-ingest sends the changed and added files alone to the cluster.
    (corpus / "part-1" / "doc-001.md").write_text("---\naccess: public\n---\n# Changed\n\nNew.\n")
    (corpus / "part-2" / "new.md").write_text("---\naccess: staff\n---\n# New\n\nAdded text.\n")
    (corpus / "part-3" / "doc-003.md").unlink()
    assert local_ingest(corpus, local) == expected
    failures, report = ray_ingest(corpus, on_ray)
    assert failures == expected
    # the two bad files are read again too (a failure is never kept), and the two changed
    assert sum(report.batch_files) == 4
    assert tree(on_ray) == tree(local)
    # Nothing changed: only the two bad files are sent again.
    _, report = ray_ingest(corpus, on_ray)
    assert sum(report.batch_files) == 2 and tree(on_ray) == tree(local)
    # Nothing to parse (the bad files gone): Ray is never asked for anything.
    (corpus / "broken.pdf").unlink()
    (corpus / "part-0" / "latin1.md").unlink()
    assert local_ingest(corpus, local) == []
    failures, report = ray_ingest(corpus, on_ray)
    assert failures == [] and report.batches_sent == 0 and report.nodes == 0
    assert tree(on_ray) == tree(local)


def wait_for(path: Path, seconds: float = 120) -> int:
    """Wait for a PID file; return the PID."""
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"no {path.name} after {seconds} s"
        time.sleep(0.05)
    return int(path.read_text())


@pytest.mark.slow
def test_a_worker_killed_mid_batch_is_retried_and_the_bytes_are_the_same(
    tmp_path: Path, cluster: str
) -> None:
    from support import ray_faults

    corpus = generated_corpus(tmp_path / "corpus", 40)
    local, on_ray = tmp_path / "local" / "index", tmp_path / "ray" / "index"
    local_ingest(corpus, local)
    marks = tmp_path / "marks"
    marks.mkdir()
    killed: list[int] = []

    def kill() -> None:
        pid = wait_for(marks / "pid")
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    killer = threading.Thread(target=kill)
    killer.start()
    hook = ray_faults.HangOnce("part-2/doc-012.md", marks)
    failures, report = ray_ingest(corpus, on_ray, hook)
    killer.join()
    assert killed and killed[0] != os.getpid()
    assert report.batches_done == report.batches_sent  # Ray ran the killed batch again
    assert len(failures) == 2  # the two bad files of the corpus, as locally
    assert tree(on_ray) == tree(local)


@pytest.mark.slow
def test_a_batch_that_keeps_failing_fails_only_its_crashing_file(
    tmp_path: Path, cluster: str
) -> None:
    from support import ray_faults

    corpus = generated_corpus(tmp_path / "corpus", 40)
    local, on_ray = tmp_path / "local" / "index", tmp_path / "ray" / "index"
    crashing = "part-4/doc-039.md"  # the last source: past the files parsed in-process
    expected = local_ingest(corpus, local, "crash", crashing)
    assert f"{crashing}: the parser crashed its process; the other files were read" in expected
    failures, _ = ray_ingest(corpus, on_ray, ray_faults.Crash(crashing, tmp_path))
    assert failures == expected
    assert tree(on_ray) == tree(local)


@pytest.mark.slow
@pytest.mark.parametrize("joined", [True, False], ids=["joined-cluster", "own-ray"])
def test_a_driver_killed_mid_run_leaves_the_old_generation_no_lock_and_no_process(
    tmp_path: Path, cluster: str, joined: bool
) -> None:
    corpus = generated_corpus(tmp_path / "corpus", 20)
    index = tmp_path / "ray" / "index"
    local_ingest(corpus, index)
    before = tree(index)
    (corpus / "part-2" / "doc-012.md").write_text("---\naccess: public\n---\n# Changed\n\nNew.\n")
    marks = tmp_path / "marks"
    marks.mkdir()
    address = [cluster] if joined else []  # else the driver starts a Ray of its own
    args = ("hang", "part-2/doc-012.md", str(marks), str(corpus), str(index), "ray", *address)
    driver = faults(*args)
    worker = wait_for(marks / "pid")  # the driver holds the lock and waits on the cluster
    started = [] if joined else _descendants(driver.pid)  # its Ray: GCS, raylet, agents
    driver.kill()
    driver.communicate()
    assert tree(index) == before  # the old generation is live, nothing half-written
    with (index / ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises if anyone still held it
    deadline = time.monotonic() + 120  # a Ray agent notices its raylet gone within a minute
    while left := [pid for pid in [worker, *started] if _alive(pid)]:
        assert time.monotonic() < deadline, f"the dead driver's Ray processes {left} still run"
        time.sleep(0.5)


def _descendants(pid: int) -> list[int]:
    """Return the PIDs of every process below pid."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        below = children.get(todo.pop(), [])
        found += below
        todo += below
    return found


def _alive(pid: int) -> bool:
    """Return whether pid is a running (not zombie) process."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
