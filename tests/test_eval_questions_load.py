"""Questions that load: invalid ones left out and listed, evidence pinned by offsets."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.cli import APP, runner
from support.eval_corpus import (
    QUESTIONS,
    WARRANTY,
    parsed_corpus,
    three_bad,
    write_eval_corpus,
    write_questions,
)

from policy_assistant.errors import QuestionsError
from policy_assistant.evaluate.questions import load_questions
from policy_assistant.parse import parse_path
from policy_assistant.records import Document


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> list[Document]:
    return parsed_corpus(tmp_path_factory.mktemp("docs") / "corpus")


def warranty(documents: list[Document]) -> str:
    return next(d.text for d in documents if d.source == "policies/warranty.md")


def receipt_question(start: int, end: int, **extra: Any) -> dict[str, Any]:
    passage = {"source": "policies/warranty.md", "evidence": "receipt", "start": start}
    return {
        "id": "pinned",
        "question": "Where do I bring the receipt?",
        "audience": "public",
        "relevant": [{**passage, "end": end, **extra}],
    }


def test_a_repeated_quote_is_pinned_by_its_offsets_in_the_parsed_text(
    documents: list[Document], tmp_path: Path
) -> None:
    text = warranty(documents)
    second = text.index("receipt", text.index("receipt") + 1)
    unpinned = receipt_question(0, 0)
    for key in ("start", "end"):
        del unpinned["relevant"][0][key]
    with pytest.raises(QuestionsError, match="occurs 2 times"):
        load_questions(write_questions(tmp_path / "a.jsonl", [unpinned]), documents)
    pinned = receipt_question(second, second + len("receipt"))
    loaded = load_questions(write_questions(tmp_path / "b.jsonl", [pinned]), documents)
    assert loaded.questions[0].relevant[0].evidence_span == (second, second + 7)


@pytest.mark.parametrize(
    ("start", "end", "extra", "message"),
    [
        (0, 7, {}, "the parsed text at [0:7] is 'Warrant', not the quote"),
        (5, 10**6, {}, "are not a span of policies/warranty.md's parsed text"),
        ("3", 10, {}, "start and end must both be whole numbers"),
        (None, None, {"section": "Exclusions"}, "lie outside section 'Exclusions'"),
    ],
)
def test_offsets_that_do_not_hold_the_quote_are_refused(
    documents: list[Document],
    tmp_path: Path,
    start: Any,
    end: Any,
    extra: dict[str, Any],
    message: str,
) -> None:
    if start is None:
        text = warranty(documents)
        start = text.index("receipt")
        end = start + 7
    question = receipt_question(start, end, **extra)
    if start == 0:
        question["relevant"][0]["evidence"] = "receipt"
    with pytest.raises(QuestionsError, match=re.escape(message)):
        load_questions(write_questions(tmp_path / "q.jsonl", [question]), documents)


def test_not_strict_the_invalid_questions_are_left_out_and_each_listed(
    documents: list[Document], tmp_path: Path
) -> None:
    path = write_questions(tmp_path / "q.jsonl", three_bad())
    loaded = load_questions(path, documents, strict=False)
    assert len(loaded.questions) == len(QUESTIONS) - 3
    assert [(q.line, q.id) for q in loaded.invalid] == [
        (1, "sprinkler"),
        (3, "claim"),
        (5, "override"),
    ]
    assert "did you mean policies/warranty.md?" in loaded.invalid[0].reason
    assert "not found" in loaded.invalid[1].reason
    assert "audience 'everyone'" in loaded.invalid[2].reason
    assert loaded.warnings()[-1] == f"{path}: 3 of {len(QUESTIONS)} questions left out"


def test_strict_lists_every_problem_not_the_first_25(
    documents: list[Document], tmp_path: Path
) -> None:
    bad = [{**QUESTIONS[1], "id": f"b{i}", "audience": "nobody"} for i in range(30)]
    path = write_questions(tmp_path / "q.jsonl", [QUESTIONS[1], *bad])
    with pytest.raises(QuestionsError) as caught:
        load_questions(path, documents)
    message = str(caught.value)
    assert message.startswith(f"{path}: 30 problems:")
    assert "line 31: question 'b29'" in message and "more" not in message
    assert len(load_questions(path, documents, strict=False).invalid) == 30


def test_nothing_valid_is_an_error_even_when_not_strict(
    documents: list[Document], tmp_path: Path
) -> None:
    path = write_questions(tmp_path / "q.jsonl", [{**QUESTIONS[1], "audience": "x"}])
    with pytest.raises(QuestionsError, match="no valid questions"):
        load_questions(path, documents, strict=False)


@pytest.fixture(scope="module")
def bad_paths(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("bad")
    return write_eval_corpus(root / "corpus"), write_questions(root / "q.jsonl", three_bad())


def evaluate(paths: tuple[Path, Path], *args: str) -> Any:
    corpus, questions = paths
    common = ["eval", "--corpus", str(corpus), "--questions", str(questions), "-q"]
    return runner.invoke(APP, [*common, "--chunker", "structure,fixed", *args])


def test_eval_runs_the_valid_questions_and_lists_the_three_left_out(
    bad_paths: tuple[Path, Path],
) -> None:
    result = evaluate(bad_paths, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["settings"]["questions"]["count"] == len(QUESTIONS) - 3
    assert [q["id"] for q in data["invalid_questions"]] == ["sprinkler", "claim", "override"]
    assert "sprinkler" not in data["outcomes"]
    assert "3 of 7 questions left out" in result.stderr
    assert "line 3: question 'claim'" in result.stderr


def test_strict_and_the_gate_exit_1_on_an_invalid_question(
    bad_paths: tuple[Path, Path], tmp_path: Path
) -> None:
    strict = evaluate(bad_paths, "--strict")
    assert strict.exit_code == 1
    assert "3 problems" in strict.stderr
    baseline = tmp_path / "baseline.json"
    baseline.write_text('{"chunkers": {}}')
    gated = evaluate(bad_paths, "--baseline", str(baseline))
    assert gated.exit_code == 1
    assert "3 problems" in gated.stderr


@pytest.fixture(scope="module")
def corpus_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_eval_corpus(tmp_path_factory.mktemp("files") / "corpus")


def file_pinned(start: int, end: int) -> dict[str, Any]:
    question = receipt_question(0, 0)
    passage = question["relevant"][0]
    del passage["start"], passage["end"]
    passage.update(source_start=start, source_end=end)
    return question


def test_offsets_into_the_file_pin_the_same_copy_in_the_parsed_text(
    corpus_root: Path, tmp_path: Path
) -> None:
    documents = parse_path(corpus_root).documents
    in_file = WARRANTY.index("receipt", WARRANTY.index("receipt") + 1)
    path = write_questions(tmp_path / "q.jsonl", [file_pinned(in_file, in_file + 7)])
    loaded = load_questions(path, documents, corpus_root=corpus_root)
    text = warranty(documents)
    second = text.index("receipt", text.index("receipt") + 1)
    assert loaded.questions[0].relevant[0].evidence_span == (second, second + 7)


def test_file_offsets_that_do_not_hold_the_quote_or_lack_the_corpus_are_refused(
    corpus_root: Path, tmp_path: Path
) -> None:
    documents = parse_path(corpus_root).documents
    path = write_questions(tmp_path / "q.jsonl", [file_pinned(2, 9)])
    with pytest.raises(QuestionsError, match=re.escape("file text at [2:9] is not the quote")):
        load_questions(path, documents, corpus_root=corpus_root)
    in_file = WARRANTY.index("receipt")
    path = write_questions(tmp_path / "q.jsonl", [file_pinned(in_file, in_file + 7)])
    with pytest.raises(QuestionsError, match="need the corpus folder"):
        load_questions(path, documents)


def test_a_file_for_another_corpus_is_summarised_one_problem_a_line(tmp_path: Path) -> None:
    corpus = write_eval_corpus(tmp_path / "corpus")
    elsewhere = [
        {**QUESTIONS[0], "id": f"other{i}", "relevant": [{**QUESTIONS[0]["relevant"][0],
         "evidence": f"a sentence {i} of a handbook this corpus never held"}]}
        for i in range(40)
    ]  # fmt: skip
    path = write_questions(tmp_path / "q.jsonl", elsewhere)
    args = ["--corpus", str(corpus), "--questions", str(path), "--chunker", "fixed", "-q"]
    result = runner.invoke(APP, ["eval", *args])
    assert result.exit_code == 1
    head, *problems, more = result.stderr.splitlines()
    assert head == f"error: {path}: no valid questions; 40 problems:"
    assert problems and all(
        re.match(r"  line \d+: question 'other\d+': .*quote ", p) for p in problems
    )
    assert all(len(p) < 200 for p in problems)
    counted = re.fullmatch(r"  and (\d+) more", more)
    assert counted and len(problems) + int(counted.group(1)) == 40
