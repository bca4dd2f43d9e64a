"""`questions check` and `sections`: writing questions without running eval."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.eval_corpus import (
    QUESTIONS,
    WARRANTY,
    parsed_corpus,
    three_bad,
    write_eval_corpus,
    write_questions,
)
from typer.testing import CliRunner

from policy_assistant.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_eval_corpus(tmp_path_factory.mktemp("authoring") / "corpus")


def invoke(*args: str) -> Any:
    return runner.invoke(app, list(args))


def test_questions_check_passes_a_good_file(corpus: Path, tmp_path: Path) -> None:
    path = write_questions(tmp_path / "q.jsonl", QUESTIONS)
    result = invoke("questions", "check", str(path), "--corpus", str(corpus))
    assert result.exit_code == 0, result.output
    assert f"{len(QUESTIONS)} of {len(QUESTIONS)} questions valid, 0 invalid" in result.stderr


def test_questions_check_lists_every_invalid_question_and_exits_1(
    corpus: Path, tmp_path: Path
) -> None:
    path = write_questions(tmp_path / "q.jsonl", three_bad())
    result = invoke("questions", "check", str(path), "--corpus", str(corpus))
    assert result.exit_code == 1
    for line, qid in ((1, "sprinkler"), (3, "claim"), (5, "override")):
        assert f"line {line}: question '{qid}'" in result.stderr
    assert f"{len(QUESTIONS) - 3} of {len(QUESTIONS)} questions valid, 3 invalid" in result.stderr


def test_questions_check_of_a_missing_file_is_one_line_exit_1(corpus: Path) -> None:
    result = invoke("questions", "check", "nowhere.jsonl", "--corpus", str(corpus))
    assert result.exit_code == 1
    assert "nowhere.jsonl: cannot read" in result.stderr and "Traceback" not in result.output


def markdown_headings(text: str) -> list[tuple[int, str]]:
    """(level, heading) of each ATX heading line of a Markdown source: the independent truth."""
    out = []
    for line in text.splitlines():
        marks = len(line) - len(line.lstrip("#"))
        if marks and line[marks : marks + 1] == " ":
            out.append((marks, line[marks:].strip()))
    return out


def test_sections_lists_the_heading_paths_the_source_file_has(corpus: Path) -> None:
    result = invoke("sections", "policies/warranty.md", "--corpus", str(corpus), "--json")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    stack: list[str] = []
    expected = []
    for level, heading in markdown_headings(WARRANTY):
        stack = [*stack[: level - 1], heading]
        expected.append(stack)
    assert [r["path"] for r in rows] == expected
    assert rows[3]["section"] == "Warranty policy > Exclusions > Claims"


def test_each_span_runs_from_its_heading_to_the_next_of_its_level_or_higher(
    corpus: Path, tmp_path: Path
) -> None:
    text = next(d.text for d in parsed_corpus(tmp_path / "c") if d.source == "policies/warranty.md")
    result = invoke("sections", "policies/warranty.md", "--corpus", str(corpus), "--json")
    rows = {r["path"][-1]: r for r in map(json.loads, result.stdout.splitlines())}
    for name, row in rows.items():
        assert text[row["start"] :].startswith(name)
    assert rows["Warranty periods"]["end"] == rows["Exclusions"]["start"]
    assert rows["Exclusions"]["end"] == rows["Warranty policy"]["end"] == len(text)
    assert rows["Claims"]["end"] == len(text)
    periods = text[rows["Warranty periods"]["start"] : rows["Warranty periods"]["end"]]
    assert rows["Warranty periods"]["words"] == len(periods.split())


def test_sections_table_and_an_unknown_source(corpus: Path) -> None:
    table = invoke("sections", "policies/warranty.md", "--corpus", str(corpus))
    assert table.exit_code == 0 and "4 sections" in table.stdout
    result = invoke("sections", "policies/warrenty.md", "--corpus", str(corpus))
    assert result.exit_code == 1
    assert "no document 'policies/warrenty.md' (did you mean policies/warranty.md?)" in (
        result.stderr
    )
