"""Parsing and chunking in forked workers: the same bytes as one process, and no process left.

Every comparison runs the same command with `--workers 1` (no pool) and `--workers 2`, and
checks through a spy on ForkPool.submit that the second really handed files to workers.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import wait
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from support.generated import generated_corpus
from support.pdf_factory import save, story_pdf
from support.spies import another_thread
from typer.testing import CliRunner

from policy_assistant.chunk import make_chunker
from policy_assistant.cli import app
from policy_assistant.parse import (
    CorpusOptions,
    ParseCache,
    dispatch,
    read_corpus,
    reading,
)
from policy_assistant.parse.pdf import ocr as pdf_ocr
from policy_assistant.parse.read_records import Parsed
from policy_assistant.parse.wire import from_wire, to_wire
from policy_assistant.procs import pool as workers
from policy_assistant.procs import side_job

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"


class PoolSpy:
    """Counts the files handed to workers (ForkPool.submit runs in this process)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.submitted = 0
        real = workers.ForkPool.submit

        def submit(pool: workers.ForkPool, task: Any, *args: Any) -> Any:
            self.submitted += 1
            return real(pool, task, *args)

        monkeypatch.setattr(workers.ForkPool, "submit", submit)


@pytest.fixture
def pool_spy(monkeypatch: pytest.MonkeyPatch) -> PoolSpy:
    # In the whole suite a session fixture (the browser tests') keeps threads running, and
    # the reader then parses in-process rather than fork; the workers never touch those
    # threads' state, so these tests let it fork (test_no_fork_while_another_thread_runs
    # covers the rule itself).
    monkeypatch.setattr(workers, "can_fork", lambda count: count >= 2)
    return PoolSpy(monkeypatch)


def test_no_fork_while_another_thread_runs() -> None:
    # The parse pool and the index's side jobs keep one rule: no fork beside another thread.
    with another_thread():
        assert not workers.can_fork(2)
        assert not side_job.spare_core(2)
    assert workers.can_fork(2) == (sys.platform == "linux" and threading.active_count() == 1)
    assert not workers.can_fork(1)


def run(args: list[str]) -> tuple[int, str, str]:
    """Run the command in this process; return exit code, stdout and stderr."""
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.stdout, result.stderr


def tree(folder: Path) -> dict[str, str]:
    """Return each file's SHA-256 under folder (the lock file aside)."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


def serial_and_pooled(args: list[str], spy: PoolSpy) -> tuple[tuple[int, str, str], ...]:
    """Run args with one worker, then two; the second must have used the pool."""
    serial = run([*args, "--workers", "1"])
    assert spy.submitted == 0
    pooled = run([*args, "--workers", "2"])
    assert spy.submitted > 0, "the pooled run parsed everything in-process"
    return serial, pooled


@pytest.mark.slow
@pytest.mark.parametrize("command", ["parse", "chunk"])
def test_bundled_corpus_parses_and_chunks_to_the_same_bytes_pooled(
    command: str, pool_spy: PoolSpy
) -> None:
    serial, pooled = serial_and_pooled([command, str(CORPUS), "--json"], pool_spy)
    assert serial[0] == 0, serial[2]
    assert pooled == serial
    assert len(serial[1].splitlines()) >= 39


@pytest.mark.slow
def test_bundled_corpus_ingests_to_the_same_index_pooled(tmp_path: Path, pool_spy: PoolSpy) -> None:
    outputs = []
    for name in ("one", "two"):
        index = tmp_path / name / "index"  # each beside its own parse cache: both parse
        args = ["ingest", str(CORPUS), "--index", str(index), "-q"]
        outputs.append(run([*args, "--workers", "1" if name == "one" else "2"]))
        assert outputs[-1][0] == 0, outputs[-1][2]
    assert pool_spy.submitted > 0
    assert tree(tmp_path / "one" / "index") == tree(tmp_path / "two" / "index")
    assert tree(tmp_path / "one" / "parse-cache") == tree(tmp_path / "two" / "parse-cache")


@pytest.mark.slow
@pytest.mark.parametrize("command", ["parse", "chunk"])
def test_generated_documents_give_the_same_bytes_and_errors_pooled(
    tmp_path: Path, command: str, pool_spy: PoolSpy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "POOL_AFTER_FILES", 3)
    corpus = generated_corpus(tmp_path / "c", 60)
    serial, pooled = serial_and_pooled([command, str(corpus), "--json"], pool_spy)
    assert pooled == serial
    code, stdout, stderr = pooled
    assert code == 1
    assert len(stdout.splitlines()) >= 60  # every good document, past the two bad ones
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert [line.split(":")[1].strip() for line in errors] == ["broken.pdf", "part-0/latin1.md"]
    assert "Traceback" not in stderr


@pytest.mark.slow
def test_generated_documents_ingest_to_the_same_index_pooled(
    tmp_path: Path, pool_spy: PoolSpy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "POOL_AFTER_FILES", 3)
    corpus = generated_corpus(tmp_path / "c", 60)
    for name, count in (("one", "1"), ("two", "2")):
        args = ["ingest", str(corpus), "--index", str(tmp_path / name / "index"), "-q"]
        assert run([*args, "--workers", count])[0] == 1  # the two bad files
    assert pool_spy.submitted > 0
    assert tree(tmp_path / "one" / "index") == tree(tmp_path / "two" / "index")


def cache_files(folder: Path) -> dict[str, bytes]:
    """Return every file of a parse cache's documents by name (the file table left out)."""
    return {p.name: p.read_bytes() for p in folder.glob("??/*.json")}


def test_pooled_parses_are_stored_by_their_workers_as_a_serial_read_stores_them(
    tmp_path: Path, pool_spy: PoolSpy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "POOL_AFTER_FILES", 3)
    corpus = generated_corpus(tmp_path / "c", 30)
    puts: list[str] = []
    real = ParseCache.put
    monkeypatch.setattr(
        ParseCache, "put", lambda self, *a: puts.append(a[1].source) or real(self, *a)
    )
    options = CorpusOptions(cache_dir=tmp_path / "cache", workers=2)
    first = read_corpus(corpus, options)
    assert pool_spy.submitted > 0
    # This process stored only what it parsed before the pool started; the workers the rest.
    assert 0 < len(puts) <= 3 and puts == [d.source for d in first.documents[: len(puts)]]
    serial = read_corpus(corpus, CorpusOptions(cache_dir=tmp_path / "serial", workers=1))
    stored = cache_files(tmp_path / "cache")
    assert len(stored) == first.parsed == len(serial.documents)
    assert stored == cache_files(tmp_path / "serial")
    again = read_corpus(corpus, options)
    assert again.parsed == 0 and [d.to_dict() for d in again.documents] == [
        d.to_dict() for d in first.documents
    ]


def test_progress_counts_every_file_once_and_ends_at_the_total(
    tmp_path: Path, pool_spy: PoolSpy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "POOL_AFTER_FILES", 3)
    corpus = generated_corpus(tmp_path / "c", 40)
    calls: list[tuple[int, int, str]] = []
    read = read_corpus(corpus, CorpusOptions(workers=2), progress=lambda *a: calls.append(a))
    total = len(read.documents) + len(read.failures)
    assert pool_spy.submitted > 0
    assert [done for done, _, _ in calls] == list(range(1, total + 1))
    assert {t for _, t, _ in calls} == {total}
    assert sorted(s for _, _, s in calls) == sorted(
        [d.source for d in read.documents] + [f.source for f in read.failures]
    )


@pytest.mark.slow
def test_a_parser_that_crashes_its_worker_fails_that_file_alone(
    tmp_path: Path, pool_spy: PoolSpy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "POOL_AFTER_FILES", 3)
    corpus = generated_corpus(tmp_path / "c", 40)
    serial = read_corpus(corpus, CorpusOptions(workers=1))
    parent, real = os.getpid(), dispatch.parse_document

    def crashing(data: bytes, source: str, catalog: Any) -> Any:
        if source == "part-2/doc-012.md" and os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer or a native fault would
        return real(data, source, catalog)

    monkeypatch.setattr(dispatch, "parse_document", crashing)
    pooled = read_corpus(corpus, CorpusOptions(workers=2))
    assert pool_spy.submitted > 0
    crashed = [f for f in pooled.failures if f.source == "part-2/doc-012.md"]
    assert [str(f) for f in crashed] == [
        "part-2/doc-012.md: the parser crashed its process; the other files were read"
    ]
    # Every other file, in flight beside it or after, reads as it does in one process.
    expected = [d.to_dict() for d in serial.documents if d.source != "part-2/doc-012.md"]
    assert [d.to_dict() for d in pooled.documents] == expected
    assert sorted(map(str, pooled.failures)) == sorted(map(str, [*serial.failures, *crashed]))


def test_the_wire_form_rebuilds_every_field_of_every_record(tmp_path: Path) -> None:
    corpus = generated_corpus(tmp_path / "c", 20)
    shutil.copy(CORPUS / "guides" / "lawn-mower-lm-46.pdf", corpus / "mower.pdf")
    read = read_corpus(
        corpus, CorpusOptions(workers=1), after_parse=make_chunker("structure").chunk
    )
    sent = [Parsed(d, i % 2 == 0, read.chunked[d.source]) for i, d in enumerate(read.documents)]
    sent += [Parsed(read.documents[0], True, None), Parsed(None, False, None, "not UTF-8")]
    # What the parser records (pages, dropped furniture, levels, notes) is present to carry.
    assert any(p.document and p.document.dropped and p.document.pages for p in sent)
    back = [from_wire(pickle.loads(pickle.dumps(to_wire(p)))) for p in sent]
    assert back == sent
    assert [type(p.chunks) for p in back] == [type(p.chunks) for p in sent]


def _double(items: list[int]) -> list[int]:
    return [2 * item for item in items]


def _refuse_three(value: int) -> int:
    if value == 6:
        raise ValueError("three")
    return value


def test_a_result_that_cannot_be_decoded_fails_its_item_and_no_other() -> None:
    with workers.ForkPool(2, lambda: None) as pool:
        batches = workers.Batches(pool, _double, _refuse_three)
        futures = [batches.add(item, 1) for item in (1, 2, 3, 4)]
        batches.flush()
        _, waiting = wait(futures, timeout=60)
    assert not waiting, "an item whose result failed to decode was never finished"
    assert [f.exception() is None for f in futures] == [True, True, False, True]
    assert [f.result() for f in futures if f.exception() is None] == [2, 4, 8]
    assert str(futures[2].exception()) == "three"


def test_a_handful_of_small_files_starts_no_pool(tmp_path: Path, pool_spy: PoolSpy) -> None:
    corpus = generated_corpus(tmp_path / "c", 12)
    (corpus / "broken.pdf").unlink()
    read = read_corpus(corpus, CorpusOptions(workers=2))
    assert read.parsed == 16 and pool_spy.submitted == 0


def test_workers_below_one_is_a_usage_error(tmp_path: Path) -> None:
    corpus = generated_corpus(tmp_path / "c", 2)
    for command in ("parse", "chunk", "ingest"):
        code, _, stderr = run([command, str(corpus), "--workers", "0"])
        assert code == 2 and "--workers must be 1 or more, got 0" in stderr


def test_the_default_is_one_worker_per_usable_core() -> None:
    assert workers.check_workers(None) == len(os.sched_getaffinity(0))
    assert workers.check_workers(3) == 3


def scanned_pdf() -> bytes:
    """Return a PDF of a page of text, then a page that is only an image of text."""
    html = "<h1>Hose Reel Care</h1><p>Drain the hose before the first frost, every year.</p>"
    out = pymupdf.open("pdf", story_pdf(html * 6))
    image = pymupdf.open("pdf", story_pdf(html))[0].get_pixmap(dpi=100)
    page = out.new_page(width=image.width * 0.72, height=image.height * 0.72)
    page.insert_image(page.rect, pixmap=image)
    return save(out)


def test_the_ocr_switch_reaches_the_workers(
    tmp_path: Path, pool_spy: PoolSpy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "POOL_AFTER_FILES", 1)
    monkeypatch.setattr(pdf_ocr, "ENABLED", False)
    data = scanned_pdf()
    for i in range(3):
        (tmp_path / f"scan-{i}.pdf").write_bytes(data)
    read = read_corpus(tmp_path, CorpusOptions(default_access="public", workers=2))
    assert pool_spy.submitted == 2
    assert [d.notes for d in read.documents] == [
        ("page 2: scanned (an image, under 50 words), not OCR'd: OCR is switched off",)
    ] * 3


SLOW_INGEST = """
import signal, sys, time
# As a terminal's foreground job: Ctrl-C raises, even when the test runs as a background job
# (which starts with SIGINT ignored and hands that on to every child).
signal.signal(signal.SIGINT, signal.default_int_handler)
from policy_assistant.parse import dispatch, reading
real = dispatch.parse_document
def slow(data, source, catalog):
    time.sleep(0.5)
    return real(data, source, catalog)
dispatch.parse_document = slow
reading.POOL_AFTER_FILES = 1
from policy_assistant.cli.app import app
app(["ingest", sys.argv[1], "--index", sys.argv[2], "-q", "--workers", "2"])
"""


def children_of(pid: int) -> list[int]:
    """Return the live processes whose parent is pid."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    """Return whether pid runs (a zombie waiting to be reaped does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def start_slow_ingest(tmp_path: Path) -> tuple[subprocess.Popen[bytes], list[int]]:
    """Start an ingest whose parses each take half a second; return it and its workers."""
    corpus = generated_corpus(tmp_path / "c", 40)
    command = [sys.executable, "-c", textwrap.dedent(SLOW_INGEST), str(corpus), str(tmp_path / "i")]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    deadline = time.monotonic() + 60
    while len(children_of(process.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    found = children_of(process.pid)
    assert len(found) >= 2, "the workers never started"
    return process, found


def gone(pids: list[int], seconds: float = 10) -> bool:
    """Wait until none of pids runs; return whether that happened in time."""
    deadline = time.monotonic() + seconds
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(alive(p) for p in pids)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_ctrl_c_exits_130_and_leaves_no_worker(tmp_path: Path) -> None:
    process, found = start_slow_ingest(tmp_path)
    os.killpg(process.pid, signal.SIGINT)  # as a terminal does: the whole process group
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr.decode()
    assert stderr.decode().strip().splitlines()[-1] == "error: interrupted"
    assert b"Traceback" not in stderr
    assert gone(found)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux only")
def test_workers_die_with_a_killed_parent(tmp_path: Path) -> None:
    process, found = start_slow_ingest(tmp_path)
    process.kill()
    process.communicate(timeout=60)
    assert gone(found)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_ctrl_c_while_the_workers_are_being_forked_still_exits_130(tmp_path: Path) -> None:
    # A Ctrl-C that lands before a new worker has set it aside once hung the ingest.
    corpus = generated_corpus(tmp_path / "c", 40)
    for attempt in range(3):
        command = [sys.executable, "-c", textwrap.dedent(SLOW_INGEST), str(corpus)]
        process = subprocess.Popen(
            [*command, str(tmp_path / f"i{attempt}")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while not children_of(process.pid) and time.monotonic() < deadline:
            pass  # no sleep: the signal should land while the forks are still going on
        os.killpg(process.pid, signal.SIGINT)
        try:
            _, stderr = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            raise
        assert process.returncode == 130, stderr.decode()


def _nap(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def _no_setup() -> None:
    return None


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_a_ctrl_c_pending_through_the_forks_kills_the_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Ctrl-C is blocked while the workers are forked; one that came meanwhile raises the
    # moment it is unblocked, and the pool must then know its workers to kill them.
    real, calls = signal.pthread_sigmask, []

    def mask(how: int, signals: Any) -> Any:
        calls.append(how)
        old = real(how, signals)
        if how == signal.SIG_SETMASK:
            raise KeyboardInterrupt
        return old

    monkeypatch.setattr(workers.signal, "pthread_sigmask", mask)
    pool = workers.ForkPool(2, _no_setup)
    with pytest.raises(KeyboardInterrupt), pool:
        pool.submit(_nap, 30.0)
    assert calls == [signal.SIG_BLOCK, signal.SIG_SETMASK]
    assert pool._children and all(child.exitcode == -signal.SIGKILL for child in pool._children)
