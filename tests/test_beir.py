"""BEIR folders: loading, bad lines, and document-level figures checked against hand arithmetic."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from support.cli import APP, runner

from policy_assistant.cli import app
from policy_assistant.errors import QuestionsError, UsageError
from policy_assistant.evaluate.beir import load_beir
from policy_assistant.evaluate.beir_run import run_beir_eval
from policy_assistant.evaluate.run import EvalSettings

TOLERANCE = 1e-9

CORPUS = [
    # d1 says "aardvark" twice in a few words, d2 once in many: BM25 puts d1 above d2.
    {
        "_id": "d1",
        "title": "Aardvark care",
        "text": "The aardvark eats ants.\n\nAn aardvark sleeps.",
    },
    {
        "_id": "d2",
        "title": "",
        "text": "Zoo animals include the aardvark, the lion, the giraffe and many other "
        "animals that visitors come to see on every day of the week, rain or shine.",
    },
    {"_id": "d3", "title": "Zebra", "text": "A zebra has black and white stripes."},
    {"_id": "d4", "title": None, "text": "A lion hunts at night."},  # null: no title
]
QUERIES = [
    {"_id": "q1", "text": "aardvark"},
    {"_id": "q2", "text": "zebra stripes"},
    {"_id": "q3", "text": "lion"},
    {"_id": "q4", "text": "unicorn horn"},  # matches nothing
    {"_id": "q5", "text": "a query of the train split"},  # judged in no line of test.tsv
]
QRELS = [
    ("q1", "d2", 2),
    ("q1", "d1", 0),
    ("q1", "d3", 1),
    ("q2", "d3", 1),
    ("q3", "d4", 1),  # the lion query finds d2 (lion, once, long) below d4
    ("q3", "d2", 0),
    ("q4", "d1", 1),
]


def write_beir(
    root: Path, corpus_extra: str = "", queries_extra: str = "", qrels_extra: str = ""
) -> Path:
    """Write the tiny BEIR folder, with extra raw lines appended to each file."""
    (root / "qrels").mkdir(parents=True)
    corpus = "".join(json.dumps(d) + "\n" for d in CORPUS) + corpus_extra
    (root / "corpus.jsonl").write_text(corpus, encoding="utf-8")
    queries = "".join(json.dumps(q) + "\n" for q in QUERIES) + queries_extra
    (root / "queries.jsonl").write_text(queries, encoding="utf-8")
    lines = ["query-id\tcorpus-id\tscore", *(f"{q}\t{d}\t{s}" for q, d, s in QRELS)]
    (root / "qrels" / "test.tsv").write_text("\n".join(lines) + "\n" + qrels_extra)
    return root


def hand_figures() -> dict[str, float]:
    """Return the mean of each measure over q1..q4, computed by hand from the rankings."""
    # q1 ranking d1 (grade 0), d2 (grade 2); ideal d2, d3 (grades 2, 1).
    ndcg_q1 = (0 / math.log2(2) + 2 / math.log2(3)) / (2 / math.log2(2) + 1 / math.log2(3))
    # q2 ranking d3 (grade 1) first: ideal. q3 ranking d4 (1), d2 (0): ideal. q4 retrieves nothing.
    ndcg = (ndcg_q1 + 1.0 + 1.0 + 0.0) / 4
    mrr = (1 / 2 + 1 / 1 + 1 / 1 + 0) / 4
    recall = (1 / 2 + 1 / 1 + 1 / 1 + 0 / 1) / 4  # q1 finds d2 of its two relevant d2, d3
    return {"nDCG@10": ndcg, "MRR@10": mrr, "Recall@100": recall}


def test_the_loader_reads_documents_queries_and_judgments(tmp_path: Path) -> None:
    beir = load_beir(write_beir(tmp_path))
    assert [d.source for d in beir.documents] == ["d1", "d2", "d3", "d4"]
    first = beir.documents[0]
    assert (first.title, first.access, first.text) == (
        "Aardvark care",
        "public",
        "The aardvark eats ants.\n\nAn aardvark sleeps.",
    )
    # No file-name title stands in for an empty or null one.
    assert (beir.documents[1].title, beir.documents[3].title) == ("", "")
    assert [q.id for q in beir.queries] == ["q1", "q2", "q3", "q4"]
    assert beir.queries[0].judged == {"d2": 2, "d1": 0, "d3": 1}
    assert (beir.unjudged, beir.bad) == (1, ())


@pytest.mark.parametrize("chunker", ["structure", "fixed:size=50", "sentence"])
def test_document_figures_equal_the_hand_computed_values(tmp_path: Path, chunker: str) -> None:
    report = run_beir_eval(write_beir(tmp_path), EvalSettings(chunkers=(chunker,)))
    (run,) = report.runs
    assert [list(r[:2]) for r in run.rankings] == [["d1", "d2"], ["d3"], ["d4", "d2"], []]
    expected = hand_figures()
    for measure, value in expected.items():
        assert report.figures[chunker][measure].value == pytest.approx(value, abs=TOLERANCE)
    assert abs(expected["nDCG@10"] - 0.6199) < 1e-4  # (0.47965 + 1 + 1 + 0) / 4


def test_bad_lines_are_listed_and_the_rest_evaluated(tmp_path: Path) -> None:
    folder = write_beir(
        tmp_path,
        corpus_extra='not json\n{"_id": "d1", "text": "again"}\n{"title": "no id", "text": "x"}\n',
        queries_extra='{"_id": "q6"}\n',
        qrels_extra="q1\td9\t1\nq9\td1\t1\nq2\td4\tyes\nq2\td3\t1\n",
    )
    beir = load_beir(folder)
    reasons = [b.describe() for b in beir.bad]
    assert reasons[0].startswith("corpus.jsonl line 5: not valid JSON: ")
    assert reasons[1:] == [
        "corpus.jsonl line 6: _id 'd1' already used on line 1",
        "corpus.jsonl line 7: no _id",
        "queries.jsonl line 6: text must be a non-empty string",
        "qrels/test.tsv line 9: document 'd9' is not in corpus.jsonl",
        "qrels/test.tsv line 10: query 'q9' is not in queries.jsonl",
        "qrels/test.tsv line 11: score 'yes' is not a whole number",
        "qrels/test.tsv line 12: query 'q2' already judges document 'd3'",
    ]
    assert beir.warnings()[-3:] == [
        f"{folder}: 3 bad lines of corpus.jsonl left out",
        f"{folder}: 4 bad lines of qrels/test.tsv left out",
        f"{folder}: 1 bad line of queries.jsonl left out",
    ]
    report = run_beir_eval(folder, EvalSettings(chunkers=("structure",)))
    for measure, value in hand_figures().items():
        assert report.figures["structure"][measure].value == pytest.approx(value, abs=TOLERANCE)
    with pytest.raises(QuestionsError, match="8 bad lines"):
        run_beir_eval(folder, EvalSettings(chunkers=("structure",), strict=True))


def test_a_folder_without_qrels_or_judged_queries_is_one_error(tmp_path: Path) -> None:
    folder = write_beir(tmp_path)
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq5\td1\tx\n")
    with pytest.raises(QuestionsError, match=r"no query of queries\.jsonl is judged"):
        load_beir(folder)
    (folder / "qrels" / "test.tsv").unlink()
    with pytest.raises(QuestionsError, match=r"needs qrels/test\.tsv"):
        load_beir(folder)
    (folder / "qrels" / "test.tsv").write_bytes(b"query-id\tcorpus-id\tscore\nq1\td\xe9\t1\n")
    with pytest.raises(QuestionsError, match=r"test\.tsv: not UTF-8 text \(byte offset 29\)"):
        load_beir(folder)


def test_index_and_strategies_do_not_apply(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="do not apply to a BEIR folder"):
        run_beir_eval(write_beir(tmp_path), EvalSettings(strategies=("window",)))


def eval_json(folder: Path, *args: str) -> dict[str, Any]:
    result = runner.invoke(APP, ["eval", "--questions", str(folder), "--json", *args])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_eval_cli_reports_both_variants_with_paired_comparisons(tmp_path: Path) -> None:
    folder = write_beir(tmp_path)
    data = eval_json(folder, "--chunker", "structure", "--chunker", "fixed:size=50")
    assert set(data["chunkers"]) == {"structure", "fixed:size=50"}
    for row in data["chunkers"].values():
        assert row["nDCG@10"]["value"] == pytest.approx(hand_figures()["nDCG@10"], abs=1e-6)
        assert row["MRR@10"]["value"] == 0.625
    assert data["chunk_figures"].startswith("not measured")
    assert {(c["a"], c["b"], c["metric"]) for c in data["comparisons"]} == {
        ("structure", "fixed:size=50", m) for m in ("nDCG@10", "MRR@10", "Recall@100")
    }
    q1 = data["queries"][0]
    assert q1["chunkers"]["structure"]["ranking"] == ["d1", "d2"]
    assert data["settings"]["questions"]["format"] == "beir"
    outs = [tmp_path / "one.json", tmp_path / "two.json"]
    for out in outs:
        result = runner.invoke(APP, ["eval", "--questions", str(folder), "--out", str(out)])
        assert result.exit_code == 0, result.output
    assert outs[0].read_bytes() == outs[1].read_bytes()


def test_eval_cli_prints_the_table_and_says_what_is_not_measured(tmp_path: Path) -> None:
    folder = write_beir(tmp_path, qrels_extra="q9\td1\t1\n")
    result = runner.invoke(APP, ["eval", "--questions", str(folder), "--chunker", "structure"])
    assert result.exit_code == 0, result.output
    assert "nDCG@10" in result.stdout and "0.620" in result.stdout
    assert "chunk figures not measured" in result.stdout
    assert "qrels/test.tsv line 9: query 'q9' is not in queries.jsonl" in result.stderr
    refused = runner.invoke(APP, ["eval", "--questions", str(folder), "--explain", "q1"])
    assert refused.exit_code == 2
    assert "--explain do not apply to a BEIR folder" in refused.stderr


def test_questions_check_lists_the_bad_lines_of_a_folder(tmp_path: Path) -> None:
    clean = runner.invoke(app, ["questions", "check", str(write_beir(tmp_path / "a"))])
    assert clean.exit_code == 0, clean.output
    assert "4 documents, 4 queries judged in qrels/test.tsv (1 not judged there)" in clean.stderr
    bad = write_beir(tmp_path / "b", qrels_extra="q1\td9\t1\n")
    result = runner.invoke(app, ["questions", "check", str(bad)])
    assert result.exit_code == 1
    assert "qrels/test.tsv line 9: document 'd9' is not in corpus.jsonl" in result.stderr


def test_a_chunk_file_over_the_folder_is_a_row_too(tmp_path: Path) -> None:
    folder = write_beir(tmp_path / "beir")
    chunks = tmp_path / "whole.jsonl"
    lines = [json.dumps({"source": d["_id"], "text": d["text"]}) for d in CORPUS]
    chunks.write_text("\n".join(lines) + "\n")
    report = run_beir_eval(folder, EvalSettings(chunkers=(), chunk_files=(chunks,)))
    (run,) = report.runs
    assert (run.name, run.chunks) == ("chunks:whole.jsonl", 4)
    for measure, value in hand_figures().items():
        assert report.figures[run.name][measure].value == pytest.approx(value, abs=TOLERANCE)


@pytest.mark.slow
def test_a_folder_that_is_not_a_beir_folder_is_one_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(APP, ["eval", "--questions", str(tmp_path)])
    assert result.exit_code == 1
    assert "has no corpus.jsonl" in result.stderr


def test_any_first_line_without_a_numeric_score_is_the_header(tmp_path: Path) -> None:
    folder = write_beir(tmp_path)
    qrels = folder / "qrels" / "test.tsv"
    qrels.write_text(qrels.read_text().replace("query-id\tcorpus-id\tscore", "qid\tdocid\trel"))
    assert load_beir(folder).bad == ()
    qrels.write_text("\n".join(qrels.read_text().splitlines()[1:]) + "\n")  # no header at all
    beir = load_beir(folder)
    assert (beir.bad, beir.queries[0].judged) == ((), {"d2": 2, "d1": 0, "d3": 1})
