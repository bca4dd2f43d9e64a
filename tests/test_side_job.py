"""Units built in a forked child beside the chunk segment: the same bytes, failures reported."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.corpora import write_pipeline_corpus
from support.pipeline import tree_digest

from policy_assistant.chunk import make_chunker
from policy_assistant.errors import BadIndex
from policy_assistant.index.store import units as unit_store
from policy_assistant.index.store import writer
from policy_assistant.ingest.pipeline import ingest
from policy_assistant.parse import CorpusOptions
from policy_assistant.procs import side_job
from policy_assistant.procs.side_job import SideJob

STRUCTURE = make_chunker("structure")


def cold(corpus: Path, index: Path, fork: bool, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(writer, "spare_core", lambda workers: fork)
    ingest(corpus, index, STRUCTURE, options=CorpusOptions(cache_dir=index.parent / "cache"))
    return index


def test_units_built_in_a_child_are_the_bytes_of_a_serial_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    beside = tree_digest(cold(corpus, tmp_path / "forked", True, monkeypatch))
    serial = tree_digest(cold(corpus, tmp_path / "serial", False, monkeypatch))
    assert any(name.split("/", 1)[1].startswith("units/") for name in beside if "/" in name)
    assert beside == serial


def test_a_child_that_fails_fails_the_write_and_keeps_the_old_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    index = cold(corpus, tmp_path / "i", True, monkeypatch)
    before = tree_digest(index)
    parent = os.getpid()

    def full_disk(*args: object) -> bytes:
        assert os.getpid() != parent, "the units were not built in a child"
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(unit_store, "update_units", full_disk)
    (corpus / "b.md").write_text("# Mowers\n\nRide-on mowers carry a three year warranty.\n")
    with pytest.raises(BadIndex, match=r"No space left on device.*old index is unchanged"):
        ingest(corpus, index, STRUCTURE, options=CorpusOptions(cache_dir=tmp_path / "cache"))
    assert tree_digest(index) == before
    assert not [p for p in index.iterdir() if p.name.startswith(".tmp-")]


def test_a_cancelled_child_is_reaped(tmp_path: Path) -> None:
    flag = tmp_path / "ran"
    job = SideJob(lambda: (os.pause(), flag.touch()), fork=True)
    pid = job.pid
    job.cancel()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, 0)
    assert not flag.exists()


def test_without_fork_the_task_runs_at_once(tmp_path: Path) -> None:
    flag = tmp_path / "ran"
    job = SideJob(flag.touch, fork=False)
    assert flag.exists() and not job.pid
    job.join()


def test_one_worker_means_no_child() -> None:
    assert not side_job.spare_core(1)
