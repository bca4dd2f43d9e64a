"""The parse cache is bounded, cleans up after killed writes and is named when the disk fills."""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

import pytest
from support.corpora import PIPELINE_FILES, write_corpus
from support.pipeline import STRUCTURE
from typer.testing import CliRunner

from policy_assistant.cli import app
from policy_assistant.index.store import writer
from policy_assistant.ingest.pipeline import ingest
from policy_assistant.parse import cache as cache_module
from policy_assistant.parse import read_records

runner = CliRunner()


def entries(cache: Path) -> list[Path]:
    return sorted(p for p in cache.glob("??/*") if not p.name.startswith("."))


def test_entries_a_changed_file_left_are_dropped_and_so_are_killed_writes(tmp_path: Path) -> None:
    corpus, index, cache = (
        write_corpus(tmp_path / "c", PIPELINE_FILES),
        tmp_path / "i",
        tmp_path / "pc",
    )
    options = read_records.CorpusOptions(cache_dir=cache, workers=1)
    ingest(corpus, index, STRUCTURE, options=options)
    first = entries(cache)
    assert len(first) == 3
    left = first[0].parent / f".{first[0].name}.99999999.tmp"
    left.write_bytes(b"half an entr")
    old = time.time() - 7200  # older than any write in progress
    os.utime(left, (old, old))
    for round_ in range(3):  # each edit leaves an entry nothing uses any more
        (corpus / "a.md").write_text(f"# Sprinklers\n\nEdit {round_} of the warranty.\n")
        os.utime(first[0], (old, old))
        ingest(corpus, index, STRUCTURE, options=options)
    assert not left.exists()
    assert len(entries(cache)) <= 2 * 3


def test_a_full_disk_names_the_parse_cache_and_how_to_clear_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = write_corpus(tmp_path / "c", PIPELINE_FILES)
    puts: list[str] = []
    real_replace = cache_module._replace

    def full(folder: str, name: str, data: bytes) -> None:
        puts.append(name)
        if len(puts) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_replace(folder, name, data)

    def no_room(*_: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cache_module, "_replace", full)
    monkeypatch.setattr(writer, "_write_generation", no_room)
    index = tmp_path / "i"
    result = runner.invoke(
        app, ["ingest", str(corpus), "--index", str(index), "-q", "--workers", "1"]
    )
    assert result.exit_code == 1
    line = result.stderr.strip()
    assert "No space left on device" in line
    assert f"parse cache {tmp_path / 'parse-cache'}" in line and "delete that folder" in line
    assert len(puts) <= 3  # the tag, one entry, one refused: no write after the disk is full


@pytest.mark.parametrize("command", ["eval", "sections"])
def test_every_command_that_fills_the_parse_cache_bounds_it(tmp_path: Path, command: str) -> None:
    corpus, cache = write_corpus(tmp_path / "c", PIPELINE_FILES), tmp_path / "pc"
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        '{"id": "q1", "question": "How long is the sprinkler warranty?", '
        '"audience": "public", "relevant": [{"source": "a.md", "evidence": "18 month warranty"}]}\n'
    )
    args = {
        "eval": ["eval", "--corpus", str(corpus), "--questions", str(questions)],
        "sections": ["sections", "a.md", "--corpus", str(corpus)],
    }[command]
    old = time.time() - 7200
    for round_ in range(8):  # each edit leaves an entry nothing uses any more
        (corpus / "b.md").write_text(f"# Hoses\n\nEdit {round_} of the hose guide.\n")
        result = runner.invoke(app, [*args, "--parse-cache", str(cache)])
        assert result.exit_code == 0, result.output
        for entry in entries(cache):
            os.utime(entry, (old, old))
    assert 0 < len(entries(cache)) <= 2 * 3  # three documents, and as much again unused


@pytest.mark.parametrize("command", ["eval", "inspect --html"])
def test_a_cache_the_disk_cannot_hold_is_named_and_the_command_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    corpus, cache = write_corpus(tmp_path / "c", PIPELINE_FILES), tmp_path / "pc"
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        '{"id": "q1", "question": "How long is the sprinkler warranty?", '
        '"audience": "public", "relevant": [{"source": "a.md", "evidence": "18 month warranty"}]}\n'
    )
    real_replace = cache_module._replace

    def full(folder: str, name: str, data: bytes) -> None:
        if name.endswith(".json"):  # the tag is written, every entry is refused
            raise OSError(errno.ENOSPC, "No space left on device")
        real_replace(folder, name, data)

    monkeypatch.setattr(cache_module, "_replace", full)
    args = {
        "eval": ["eval", "--corpus", str(corpus), "--questions", str(questions)],
        "inspect --html": ["inspect", ".", "--corpus", str(corpus), "--html", str(tmp_path / "s")],
    }[command]
    result = runner.invoke(app, [*args, "--parse-cache", str(cache), "--workers", "1"])
    assert result.exit_code == 0, result.output
    named = [line for line in result.stderr.splitlines() if f"parse cache {cache}:" in line]
    assert len(named) == 1 and "disk is full" in named[0] and "delete it" in named[0], named
