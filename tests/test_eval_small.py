"""eval's small courtesies: a missing questions file is a usage error, written files are named."""

from __future__ import annotations

from pathlib import Path

from support.eval_corpus import QUESTIONS, write_eval_corpus, write_questions
from typer.testing import CliRunner

from policy_assistant.cli import app
from policy_assistant.errors import ExitCode

runner = CliRunner()


def test_a_missing_questions_file_is_a_one_line_usage_error(tmp_path: Path) -> None:
    corpus = write_eval_corpus(tmp_path / "corpus")
    missing = tmp_path / "nowhere.jsonl"
    result = runner.invoke(app, ["eval", "--corpus", str(corpus), "--questions", str(missing)])
    assert result.exit_code == ExitCode.USAGE
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "nowhere.jsonl" in lines[0]


def test_eval_says_which_files_it_wrote(tmp_path: Path) -> None:
    corpus = write_eval_corpus(tmp_path / "corpus")
    questions = write_questions(tmp_path / "q.jsonl", QUESTIONS)
    out, page, plot = tmp_path / "r.json", tmp_path / "r.html", tmp_path / "r.svg"
    result = runner.invoke(
        app,
        ["eval", "--corpus", str(corpus), "--questions", str(questions), "--chunker", "fixed",
         "-q", "--workers", "1", "--out", str(out), "--html", str(page), "--plot", str(plot),
         "--parse-cache", str(tmp_path / "cache")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.stderr and f"wrote {page}" in result.stderr
    assert f"wrote {plot}" in result.stderr
