"""sections and questions check use the parse cache; eval goes on past a file that fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.eval_corpus import QUESTIONS, write_eval_corpus, write_questions
from support.pipeline import parser_spy
from typer.testing import CliRunner

from policy_assistant.cli import app

runner = CliRunner()


def test_sections_and_questions_check_read_through_the_parse_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = write_eval_corpus(tmp_path / "corpus")
    questions = write_questions(tmp_path / "q.jsonl", QUESTIONS)
    cache = str(tmp_path / "cache")
    spy = parser_spy(monkeypatch)
    common = ["--corpus", str(corpus), "--workers", "1", "--parse-cache", cache]
    first = runner.invoke(app, ["sections", "policies/warranty.md", *common])
    assert first.exit_code == 0, first.output
    assert spy.take()
    again = runner.invoke(app, ["sections", "policies/warranty.md", *common])
    assert again.exit_code == 0 and spy.take() == []
    checked = runner.invoke(app, ["questions", "check", str(questions), *common])
    assert checked.exit_code == 0, checked.output
    assert spy.take() == []


def test_eval_evaluates_what_parsed_and_names_what_did_not(tmp_path: Path) -> None:
    corpus = write_eval_corpus(tmp_path / "corpus")
    (corpus / "staff" / "refunds.md").write_bytes(b"\xff\xfe not text \xff")
    questions = write_questions(tmp_path / "q.jsonl", QUESTIONS)
    result = runner.invoke(
        app,
        ["eval", "--corpus", str(corpus), "--questions", str(questions), "--chunker", "fixed",
         "--json", "-q", "--workers", "1", "--parse-cache", str(tmp_path / "cache")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "staff/refunds.md" in result.stderr and "evaluated without it" in result.stderr
    report = json.loads(result.stdout)
    reasons = [q["reason"] for q in report["invalid_questions"]]
    assert reasons and all("staff/refunds.md did not parse" in r for r in reasons)
    assert report["questions"]
