"""Questions in Chroma's CSV layout: offsets into the file's text, mapped into the parsed text."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from support.cli import APP, runner

from policy_assistant.cli import app
from policy_assistant.errors import QuestionsError
from policy_assistant.evaluate.questions import load_questions
from policy_assistant.parse import parse_path
from policy_assistant.records import Document

SPEECH = """\
# A short speech

Thank you all. We *will* rebuild the bridge this year.

We will rebuild the bridge this year, and the road after it.

## Schools

Every school gets a library. Thank you all.
"""
"""Two copies of `Thank you all.`; a quote that holds Markdown emphasis the parser drops."""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("chroma") / "corpus"
    root.mkdir()
    (root / "catalog.toml").write_text('["speech.md"]\naccess = "public"\n')
    (root / "speech.md").write_text(SPEECH, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def documents(corpus: Path) -> list[Document]:
    return parse_path(corpus).documents


def ref(content: str, copy: int = 0) -> dict[str, Any]:
    """A reference to the copy-th copy of content in the file, as Chroma's offsets give it."""
    at = -1
    for _ in range(copy + 1):
        at = SPEECH.index(content, at + 1)
    return {"content": content, "start_index": at, "end_index": at + len(content)}


def write_csv(path: Path, rows: list[tuple[str, list[dict[str, Any]], str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "references", "corpus_id"])
        for question, refs, corpus_id in rows:
            writer.writerow([question, json.dumps(refs), corpus_id])
    return path


GOOD = [
    ("Who is thanked after the library?", [ref("Thank you all.", 1)], "speech"),
    ("What is rebuilt, and what after it?", [ref("and the road after it.")], "speech.md"),
]
BAD = [
    ("Will they rebuild?", [ref("We *will* rebuild")], "speech"),
    ("Wrong offsets?", [{**ref("Every school"), "start_index": 3}], "speech"),
    ("Which corpus?", [ref("Every school")], "pubmed"),
]


def test_a_repeated_quote_maps_to_the_same_copy_in_the_parsed_text(
    corpus: Path, documents: list[Document], tmp_path: Path
) -> None:
    path = write_csv(tmp_path / "q.csv", GOOD)
    loaded = load_questions(path, documents, corpus_root=corpus)
    text = documents[0].text
    second = text.index("Thank you all.", text.index("Thank you all.") + 1)
    assert loaded.questions[0].id == "row1"
    assert loaded.questions[0].audience == "public"
    assert loaded.questions[0].relevant[0].evidence_span == (second, second + 14)
    start, end = loaded.questions[1].relevant[0].evidence_span
    assert text[start:end] == "and the road after it."


def test_rows_that_cannot_be_mapped_are_left_out_each_with_its_reason(
    corpus: Path, documents: list[Document], tmp_path: Path
) -> None:
    path = write_csv(tmp_path / "q.csv", [*GOOD, *BAD])
    loaded = load_questions(path, documents, strict=False, corpus_root=corpus)
    assert [q.id for q in loaded.questions] == ["row1", "row2"]
    reasons = {q.id: q.reason for q in loaded.invalid}
    end = ref("Every school")["end_index"]
    assert reasons == {
        "row3": "references[1]: the content is not in speech.md's parsed text",
        "row4": f"references[1]: speech.md's file text at [3:{end}] is not the content",
        "row5": "corpus_id 'pubmed' names no document of the corpus",
    }
    assert [q.line for q in loaded.invalid] == [4, 5, 6]


def test_a_csv_without_the_columns_is_an_error(
    corpus: Path, documents: list[Document], tmp_path: Path
) -> None:
    path = tmp_path / "q.csv"
    path.write_text("query,answer\na,b\n")
    with pytest.raises(QuestionsError, match="no column question, references, corpus_id"):
        load_questions(path, documents, strict=False, corpus_root=corpus)


def test_eval_runs_a_chroma_csv_and_lists_the_bad_rows(corpus: Path, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "q.csv", [*GOOD, *BAD])
    args = ["eval", "--corpus", str(corpus), "--questions", str(path), "-q", "--json"]
    result = runner.invoke(APP, [*args, "--chunker", "fixed:size=8,structure"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert sorted(data["outcomes"]) == ["row1", "row2"]
    assert [q["id"] for q in data["invalid_questions"]] == ["row3", "row4", "row5"]
    assert "3 of 5 questions left out" in result.stderr
    strict = runner.invoke(APP, [*args, "--strict"])
    assert strict.exit_code == 1 and "3 problems" in strict.stderr


def test_a_quote_with_more_copies_in_the_parsed_text_than_the_file_is_refused(
    corpus: Path, documents: list[Document], tmp_path: Path
) -> None:
    # The emphasis marks hide the first copy from the file's text, not from the parsed text.
    rows = [("Rebuild?", [ref("We will rebuild the bridge this year")], "speech")]
    loaded = load_questions(write_csv(tmp_path / "q.csv", [*GOOD, *rows]), documents,
                            strict=False, corpus_root=corpus)  # fmt: skip
    (invalid,) = loaded.invalid
    assert invalid.reason == (
        "references[1]: the content occurs 1 times in speech.md's file and 2 times in its "
        "parsed text: which copy is meant cannot be told"
    )


def test_questions_check_reads_a_chroma_csv_too(corpus: Path, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "q.csv", [*GOOD, *BAD])
    result = runner.invoke(app, ["questions", "check", str(path), "--corpus", str(corpus)])
    assert result.exit_code == 1
    assert "line 5: question 'row4'" in result.stderr
    assert "2 of 5 questions valid, 3 invalid" in result.stderr
