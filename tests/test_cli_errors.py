"""Every command, given each kind of bad path, says one line on stderr and never a traceback."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from support.corpora import write_pipeline_corpus
from typer.testing import CliRunner

from policy_assistant import atomic
from policy_assistant.cli import app
from policy_assistant.cli.common import describe_failure
from policy_assistant.errors import ExitCode

runner = CliRunner()


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("errors")
    corpus = write_pipeline_corpus(root / "corpus")
    (root / "a-folder").mkdir()
    (root / "a-file").write_text("not a folder\n")
    (root / "questions.jsonl").write_text(
        '{"id": "q", "question": "mower warranty", "audience": "public", "relevant": '
        '[{"source": "b.md", "evidence": "Lawn mowers carry a two year warranty."}]}\n'
    )
    chunks = runner.invoke(app, ["chunk", str(corpus), "--json", "-q"]).stdout
    (root / "chunks.jsonl").write_text(chunks)
    return root


BAD_FILES = {"a folder": "a-folder", "under a file": "a-file/out.json"}
EVAL = ["eval", "--corpus", "{root}/corpus", "--questions", "{root}/questions.jsonl", "-q"]
WRITERS = {
    "parse --out": ["parse", "{root}/corpus", "--out"],
    "chunk --out": ["chunk", "{root}/corpus", "-q", "--out"],
    "eval --out": [*EVAL, "--out"],
    "eval --html": [*EVAL, "--html"],
    "eval --plot": [*EVAL, "--plot"],
    "inspect --html": ["inspect", "a.md", "--corpus", "{root}/corpus", "-q", "--html"],
}
INDEX_USERS = {
    "ingest": ["ingest", "{root}/corpus", "-q", "--index"],
    "index": ["index", "{root}/chunks.jsonl", "--index"],
    "search": ["search", "warranty", "--index"],
    "eval": [*EVAL, "--index"],
    "inspect": ["inspect", "a.md", "--corpus", "{root}/corpus", "--index"],
}
READERS = {
    "parse": ["parse"],
    "chunk": ["chunk", "-q"],
    "ingest": ["ingest", "-q"],
    "index": ["index"],
}


def run_bad(place: Path, args: list[str]) -> tuple[int, str]:
    result = runner.invoke(app, [a.format(root=place) for a in args])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.strip().splitlines()
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    return result.exit_code, errors[0]


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
@pytest.mark.parametrize("name", sorted(WRITERS))
def test_a_bad_output_file_is_one_line(place: Path, name: str, kind: str) -> None:
    target = str(place / BAD_FILES[kind])
    plot = name == "eval --plot"
    code, line = run_bad(
        place, [*WRITERS[name], target + (".png" if plot and "under" in kind else "")]
    )
    assert code in (ExitCode.FAILURE, ExitCode.USAGE)
    assert BAD_FILES[kind].split("/")[0] in line


@pytest.mark.parametrize("name", sorted(INDEX_USERS))
def test_a_file_given_as_the_index_folder_is_one_line(place: Path, name: str) -> None:
    code, line = run_bad(place, [*INDEX_USERS[name], str(place / "a-file")])
    assert code == ExitCode.FAILURE
    assert "is a file, not an index folder" in line


@pytest.mark.parametrize("name", sorted(READERS))
def test_a_missing_input_is_one_line(place: Path, name: str) -> None:
    code, line = run_bad(place, [*READERS[name], str(place / "nowhere")])
    assert code in (ExitCode.FAILURE, ExitCode.USAGE)
    assert "nowhere" in line


def test_a_full_disk_is_one_line_and_leaves_nothing(
    place: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def full(*_: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", full)
    target = tmp_path / "docs.jsonl"
    code, line = run_bad(place, ["parse", "{root}/corpus", "--out", str(target)])
    assert code == ExitCode.FAILURE
    assert "No space left on device" in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("exc", "code", "text"),
    [
        (KeyboardInterrupt(), ExitCode.INTERRUPTED, "interrupted"),
        (PermissionError(errno.EACCES, "Permission denied", "x.json"), 1, "x.json: Permission"),
        (ValueError("boom"), ExitCode.FAILURE, "internal error: ValueError: boom"),
    ],
)
def test_the_boundary_maps_each_failure(exc: BaseException, code: int, text: str) -> None:
    message, got = describe_failure(exc)
    assert (got, text in message) == (code, True)
