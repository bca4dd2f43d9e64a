"""scripts/check_questions.py: passages without a section, located counts, --write-valid."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from test_eval_support import parsed_corpus, write_corpus, write_questions

ROOT = Path(__file__).resolve().parent.parent


def checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "check_questions", ROOT / "scripts" / "check_questions.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # The script's dataclasses look their module up in sys.modules while they are built.
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


def question(number: int, evidence: str, section: str | None = None) -> dict[str, Any]:
    passage = {"source": "policies/warranty.md", "evidence": evidence}
    if section is not None:
        passage["section"] = section
    return {
        "id": f"q{number:03d}",
        "question": "What does the warranty say?",
        "audience": "public",
        "relevant": [passage],
    }


def test_a_passage_without_a_section_is_located_in_the_whole_document(tmp_path: Path) -> None:
    documents = parsed_corpus(tmp_path / "corpus")
    questions = [
        question(1, "Batteries are consumables and are covered for six months only."),
        question(2, "Sprinkler system | 2 years", "Warranty periods"),
    ]
    report = checker().check_file(write_questions(tmp_path / "q.jsonl", questions), documents)
    assert report.problems == []
    assert (report.quotes, report.located, report.questions) == (2, 2, 2)


def test_a_quote_repeated_in_the_document_needs_a_section(tmp_path: Path) -> None:
    documents = parsed_corpus(tmp_path / "corpus")
    # "covered" occurs twice in the warranty policy, both under Exclusions.
    report = checker().check_file(
        write_questions(tmp_path / "q.jsonl", [question(1, "covered")]), documents
    )
    assert (report.quotes, report.located) == (1, 0)
    assert len(report.problems) == 1
    assert "times in policies/warranty.md" in report.problems[0]


def test_write_valid_keeps_only_the_questions_that_check_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    questions = [
        question(1, "Lawn mower | 3 years", "Warranty periods"),
        question(2, "Lawn mower | 30 years", "Warranty periods"),
        question(3, "Keep your receipt: it is your proof of purchase."),
    ]
    path = write_questions(tmp_path / "q.jsonl", questions)
    valid = tmp_path / "valid.jsonl"
    argv = [str(path), "--corpus", str(corpus), "--write-valid", str(valid)]
    assert checker().main(argv) == 1
    out = capsys.readouterr()
    assert "quotes: 2 of 3 located" in out.out
    assert "q002" in out.err and "not found" in out.err
    kept = [json.loads(line) for line in valid.read_text().splitlines()]
    assert [q["id"] for q in kept] == ["q001", "q003"]
    assert kept[1] == questions[2]
