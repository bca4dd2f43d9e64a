"""A committed Chroma-layout question set over a real file: 32 good rows load, 3 bad are listed."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from support.cli import APP, runner

from policy_assistant.evaluate.questions import load_questions
from policy_assistant.parse import parse_path

FIXTURES = Path(__file__).parent / "fixtures"
QUESTIONS = FIXTURES / "chroma" / "docutils-faq.csv"
SOURCE = FIXTURES / "formats" / "docutils-faq.txt"
BAD_ROWS = {
    34: "docutils-faq.txt's file text at [26785:26802] is not the content",
    35: "corpus_id 'docutils-faq-2' names no document of the corpus",
    36: "references is not JSON",
}
"""File line of each bad row, and what its reason says."""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("chroma-faq")
    shutil.copy(SOURCE, root / SOURCE.name)
    (root / "catalog.toml").write_text('["docutils-faq.txt"]\naccess = "public"\n')
    return root


def rows() -> list[dict[str, Any]]:
    with QUESTIONS.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def collapse(text: str) -> str:
    return " ".join(text.split())


def test_the_good_rows_hold_their_content_at_their_offsets_in_the_file() -> None:
    text = SOURCE.read_text(encoding="utf-8")
    good = rows()[:32]
    for row in good:
        for ref in json.loads(row["references"]):
            assert text[ref["start_index"] : ref["end_index"]] == ref["content"]
    assert sum(len(json.loads(r["references"])) for r in good) == 33


def test_every_good_row_loads_and_the_three_bad_ones_are_listed(corpus: Path) -> None:
    documents = parse_path(corpus).documents
    loaded = load_questions(QUESTIONS, documents, strict=False, corpus_root=corpus)
    assert len(loaded.questions) == 32
    assert [q.line for q in loaded.invalid] == sorted(BAD_ROWS)
    for invalid in loaded.invalid:
        assert BAD_ROWS[invalid.line] in invalid.reason
    (document,) = documents
    for question, row in zip(loaded.questions, rows(), strict=False):
        for passage, ref in zip(question.relevant, json.loads(row["references"]), strict=True):
            start, end = passage.evidence_span
            assert collapse(document.text[start:end]) == collapse(ref["content"])


def test_a_repeated_quote_maps_to_the_copy_its_offsets_pin(corpus: Path) -> None:
    documents = parse_path(corpus).documents
    loaded = load_questions(QUESTIONS, documents, strict=False, corpus_root=corpus)
    # The parsed text's copies of the quote, found here, not by the loader.
    copies = [m.start() for m in re.finditer(re.escape("Any kind we like!"), documents[0].text)]
    assert len(copies) == 2
    first, second = loaded.questions[30], loaded.questions[31]
    assert (first.relevant[0].evidence_span[0], second.relevant[0].evidence_span[0]) == (
        copies[0],
        copies[1],
    )


def test_eval_runs_the_rest_and_lists_the_three(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    common = ["eval", "--corpus", str(corpus), "--questions", str(QUESTIONS)]
    cache = ["--chunker", "structure", "--parse-cache", str(tmp_path / "cache")]
    result = runner.invoke(APP, [*common, *cache, "--budget", "200", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"{QUESTIONS}: 3 of 35 questions left out" in result.stderr
    report = json.loads(out.read_text())
    assert report["settings"]["questions"]["count"] == 32
    assert [q["line"] for q in report["invalid_questions"]] == sorted(BAD_ROWS)
    strict = runner.invoke(APP, [*common, *cache, "--strict"])
    assert strict.exit_code == 1
    assert "3 problems" in strict.stderr


def test_copies_wrapped_at_other_points_are_counted_as_copies(tmp_path: Path) -> None:
    # The FHS holds one sentence twice, wrapped at different words: the file has one exact copy
    # of each wrapping, the parsed text two copies once whitespace is collapsed.
    root = tmp_path / "corpus"
    root.mkdir()
    text = (
        "First.\n\nThe super\ncatalog file is here.\n\nThen.\n\nThe super catalog\nfile is here.\n"
    )
    (root / "wrapped.txt").write_text(text, encoding="utf-8")
    (root / "catalog.toml").write_text('["wrapped.txt"]\naccess = "public"\n')
    content = "The super catalog\nfile is here."
    start = text.index(content)
    refs = json.dumps([{"content": content, "start_index": start, "end_index": start + 31}])
    questions = tmp_path / "q.csv"
    with questions.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(
            [["question", "references", "corpus_id"], ["Q?", refs, "wrapped"]]
        )
    documents = parse_path(root).documents
    (question,) = load_questions(questions, documents, corpus_root=root).questions
    parsed = documents[0].text
    second = [m.start() for m in re.finditer("The super", parsed)][1]
    assert question.relevant[0].evidence_span == (second, second + 31)
