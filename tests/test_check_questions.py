"""`questions check`: coverage counts, tag rules, --write-valid, and the bundled set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.eval_corpus import write_eval_corpus, write_questions
from typer.testing import CliRunner

from policy_assistant.cli.app import app as APP

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def question(number: int, evidence: str, **extra: Any) -> dict[str, Any]:
    passage = {"source": "policies/warranty.md", "evidence": evidence}
    return {
        "id": f"q{number:03d}",
        "question": "What does the warranty say?",
        "audience": "public",
        "relevant": [passage],
        **extra,
    }


def check(corpus: Path, questions: Path, *args: str) -> Any:
    argv = ["questions", "check", str(questions), "--corpus", str(corpus), *args]
    return runner.invoke(APP, argv)


def test_coverage_counts_audiences_tags_and_documents_of_the_valid_questions(
    tmp_path: Path,
) -> None:
    corpus = write_eval_corpus(tmp_path / "corpus")
    questions = [
        question(1, "Lawn mower | 3 years", tags=["table"]),
        question(2, "Keep your receipt: it is your proof of purchase.", tags=["table", "x"]),
    ]
    result = check(corpus, write_questions(tmp_path / "q.jsonl", questions), "--json")
    assert result.exit_code == 0, result.output
    coverage = json.loads(result.stdout)
    assert (coverage["questions"], coverage["invalid"], coverage["quotes"]) == (2, 0, 2)
    assert coverage["audiences"] == {"public": 2}
    assert coverage["tags"] == {"table": 2, "x": 1}
    assert coverage["documents"]["policies/warranty.md"] == 2
    assert coverage["documents"]["staff/refunds.md"] == 0
    # "warranty" and "say" are the question's terms: the receipt sentence holds neither.
    assert coverage["overlap"] == {"median": 0.0, "none": 2}


def test_word_overlap_counts_the_question_terms_its_quotes_hold(tmp_path: Path) -> None:
    corpus = write_eval_corpus(tmp_path / "corpus")
    asked = [question(1, "Lawn mower | 3 years"), question(2, "Lawn mower | 3 years")]
    asked[1]["question"] = "Is the lawn covered?"  # terms lawn, cover: the quote holds 1 of 2
    result = check(corpus, write_questions(tmp_path / "q.jsonl", asked), "--json")
    assert json.loads(result.stdout)["overlap"] == {"median": 0.25, "none": 1}
    table = check(corpus, write_questions(tmp_path / "q.jsonl", asked))
    assert "median 0.25; 1 share no term" in " ".join(table.stdout.split())


def test_a_multi_tag_on_one_place_and_a_staff_tag_on_a_public_question_are_invalid(
    tmp_path: Path,
) -> None:
    corpus = write_eval_corpus(tmp_path / "corpus")
    questions = [
        question(1, "Lawn mower | 3 years", tags=["multi"]),
        question(2, "Lawn mower | 3 years", tags=["staff"]),
        question(3, "Lawn mower | 3 years"),
    ]
    result = check(corpus, write_questions(tmp_path / "q.jsonl", questions))
    assert result.exit_code == 1
    assert "line 1: question 'q001': tagged multi but cites fewer than two" in result.stderr
    assert "line 2: question 'q002': tagged staff but its audience is not staff" in result.stderr
    assert "1 of 3 questions valid, 2 invalid" in result.stderr


def test_write_valid_keeps_only_the_lines_that_check_out(tmp_path: Path) -> None:
    corpus = write_eval_corpus(tmp_path / "corpus")
    questions = [
        question(1, "Lawn mower | 3 years"),
        question(2, "Lawn mower | 30 years"),
        question(3, "Keep your receipt: it is your proof of purchase."),
    ]
    valid = tmp_path / "valid.jsonl"
    path = write_questions(tmp_path / "q.jsonl", questions)
    result = check(corpus, path, "--write-valid", str(valid))
    assert result.exit_code == 1
    assert "q002" in result.stderr and "not found" in result.stderr
    kept = [json.loads(line) for line in valid.read_text().splitlines()]
    assert kept == [questions[0], questions[2]]
    assert "wrote 2 questions" in result.stderr


def test_write_valid_refuses_a_csv_file_as_a_usage_error(tmp_path: Path) -> None:
    corpus = write_eval_corpus(tmp_path / "corpus")
    csv = tmp_path / "q.csv"
    csv.write_text('question,references,corpus_id\nWhat?,"[{""content"": ""Lawn mower""}]",x\n')
    result = check(corpus, csv, "--write-valid", str(tmp_path / "out.jsonl"))
    assert result.exit_code == 2
    assert "--write-valid copies JSON lines files, not CSV" in result.stderr
    assert not (tmp_path / "out.jsonl").exists()


def test_the_bundled_questions_all_check_out_and_cite_every_document() -> None:
    result = check(ROOT / "corpus", ROOT / "questions" / "questions.jsonl", "--json")
    assert result.exit_code == 0, result.stderr
    coverage = json.loads(result.stdout)
    assert coverage["questions"] == 110
    assert all(coverage["documents"].values()), coverage["documents"]
