"""eval --retriever: a row per chunker and ranker, through search's own rankers, each compared
with its bm25 row; the model loaded once, its vectors cached; rows that cannot run said so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.eval_corpus import QUESTIONS, write_eval_corpus, write_questions
from typer.testing import CliRunner

from policy_assistant.cli import app
from policy_assistant.errors import ExitCode
from policy_assistant.evaluate.beir_run import run_beir_eval
from policy_assistant.evaluate.run import EvalSettings, run_eval
from policy_assistant.evaluate.verdict import versus_bm25
from policy_assistant.index.chunks import search
from policy_assistant.index.settings import HYBRID_RANKER, HYBRID_UNITS
from policy_assistant.parse import CorpusOptions

MODEL = Path(__file__).resolve().parent.parent / "build" / "models" / "all-MiniLM-L6-v2"
runner = CliRunner()


@pytest.fixture
def model() -> Path:
    if not MODEL.is_dir():
        pytest.skip("build/models/all-MiniLM-L6-v2 is absent: `make model` fetches it")
    pytest.importorskip("tokenizers", reason="the dense extra is not installed")
    return MODEL


def run(tmp_path: Path, **changes: Any) -> Any:
    corpus = write_eval_corpus(tmp_path / "corpus")
    questions = write_questions(tmp_path / "q.jsonl", QUESTIONS)
    given = {"chunkers": ("structure",), "vector_cache": tmp_path / "vectors.npz", **changes}
    settings = EvalSettings(**given)
    return run_eval(corpus, questions, settings, None, CorpusOptions(cache_dir=None))


def test_a_row_per_chunker_and_ranker_each_paired_with_its_bm25_row(
    tmp_path: Path, model: Path
) -> None:
    report = run(tmp_path, rankers=("bm25", "dense", "hybrid"), model=model)
    assert [r.name for r in report.runs] == ["structure", "structure+dense", "structure+hybrid"]
    assert [r.spec.get("ranker") for r in report.runs] == [None, "dense", "hybrid"]
    # The same chunks under every ranker: only the ranking differs.
    assert report.runs[0].chunks == report.runs[1].chunks == report.runs[2].chunks
    versus = versus_bm25(report)
    assert set(versus) == {"structure+dense", "structure+hybrid"}
    for row, figures in versus.items():
        for figure, difference in figures.items():
            mine = next(s for s in report.summaries if s.name == row).figure(figure).value
            base = report.summaries[0].figure(figure).value
            assert difference.value == pytest.approx(mine - base)
    assert [r["ranker"] for r in report.settings["rankers"]] == ["bm25", "dense", "hybrid"]
    chunks, units = report.settings["rankers"][2], report.settings["unit_rankers"][2]
    assert units == HYBRID_UNITS.to_dict() and chunks == HYBRID_RANKER.to_dict()
    assert report.settings["embedding"]["name"] == "all-MiniLM-L6-v2"
    assert report.leaks == 0


def test_dense_rows_rank_with_the_index_own_dense_search(
    tmp_path: Path, model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real = search.dense_search

    def spy(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(search, "dense_search", spy)
    run(tmp_path, rankers=("bm25",))
    assert calls == []
    run(tmp_path, rankers=("dense",), model=model)
    assert len(calls) >= len(QUESTIONS)


def test_a_second_run_encodes_nothing_again(
    tmp_path: Path, model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from policy_assistant.embed.encoder import Encoder

    encoded: list[int] = []
    real = Encoder.encode

    def counting(self: Encoder, texts: Any) -> Any:
        encoded.append(len(texts))
        return real(self, texts)

    monkeypatch.setattr(Encoder, "encode", counting)
    first = run(tmp_path, rankers=("hybrid",), model=model)
    assert sum(encoded) > 0
    encoded.clear()
    again = run(tmp_path, rankers=("hybrid",), model=model)
    assert encoded == []
    assert first.to_dict() == again.to_dict()


def test_rows_without_their_model_are_left_out_with_one_line_each(tmp_path: Path) -> None:
    report = run(tmp_path, rankers=("bm25", "dense"), model=tmp_path / "no-model")
    assert [r.name for r in report.runs] == ["structure"]
    assert "embedding" not in report.settings
    left = [w for w in report.warnings if w.startswith("left out")]
    assert left == [f"left out structure+dense: no embedding model at {tmp_path / 'no-model'} "
                    "(`make model` fetches it)"]  # fmt: skip


def test_the_semantic_chunker_is_compared_like_the_others(tmp_path: Path, model: Path) -> None:
    report = run(tmp_path, chunkers=("structure", "semantic"), model=model)
    assert [r.name for r in report.runs] == ["structure", "semantic"]
    semantic = report.runs[1]
    assert semantic.spec["model"] == "all-MiniLM-L6-v2"
    assert semantic.chunks and all(c.words <= 200 for c in semantic.chunks)
    assert any(c.metric == "complete@200" and {c.a, c.b} == {"structure", "semantic"}
               for c in report.comparisons)  # fmt: skip


def test_a_bm25_run_reports_as_before(tmp_path: Path) -> None:
    report = run(tmp_path)
    assert [r.name for r in report.runs] == ["structure"]
    assert "rankers" not in report.settings and "embedding" not in report.settings
    assert not (tmp_path / "vectors.npz").exists()  # no model was loaded, nothing cached


def test_the_cli_names_a_bad_ranker_and_shows_the_paired_table(tmp_path: Path, model: Path) -> None:
    corpus = write_eval_corpus(tmp_path / "corpus")
    questions = write_questions(tmp_path / "q.jsonl", QUESTIONS)
    base = ["eval", "--corpus", str(corpus), "--questions", str(questions), "-q",
            "--parse-cache", str(tmp_path / "cache"), "--chunker", "structure"]  # fmt: skip
    bad = runner.invoke(app, [*base, "--retriever", "bm25,vector"])
    assert bad.exit_code == ExitCode.USAGE
    assert "--retriever: choose from bm25, dense, hybrid" in bad.stderr
    plain = runner.invoke(app, base)
    assert "Against the same row ranked by bm25" not in plain.stdout
    both = runner.invoke(app, [*base, "--retriever", "bm25,dense", "--model", str(model)])
    assert both.exit_code == 0, both.output
    assert "Against the same row ranked by bm25" in both.stdout
    assert "structure+dense" in both.stdout
    data = runner.invoke(app, [*base, "--retriever", "dense", "--model", str(model), "--json"])
    assert list(json.loads(data.stdout)["chunkers"]) == ["structure+dense"]
    weighed = runner.invoke(
        app, [*base, "--retriever", "bm25,hybrid:2", "--model", str(model), "--json"]
    )
    assert weighed.exit_code == 0, weighed.output
    report = json.loads(weighed.stdout)
    assert list(report["chunkers"]) == ["structure", "structure+hybrid:2"]
    rankers = report["settings"]["rankers"], report["settings"]["unit_rankers"]
    assert [r[1]["weight"] for r in rankers] == [2.0, 2.0]
    nan = runner.invoke(app, [*base, "--retriever", "hybrid:nan", "--model", str(model)])
    assert nan.exit_code == ExitCode.USAGE and "dense weight" in nan.stderr


def write_beir(root: Path) -> Path:
    """Write a three-document BEIR folder with two judged queries."""
    (root / "qrels").mkdir(parents=True)
    docs = [("d1", "The aardvark eats ants."), ("d2", "A zebra has stripes."),
            ("d3", "A lion hunts at night.")]  # fmt: skip
    rows = [json.dumps({"_id": i, "title": "", "text": t}) for i, t in docs]
    (root / "corpus.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    queries = [json.dumps({"_id": "q1", "text": "striped horse"}),
               json.dumps({"_id": "q2", "text": "what do aardvarks eat"})]  # fmt: skip
    (root / "queries.jsonl").write_text("\n".join(queries) + "\n", encoding="utf-8")
    qrels = "query-id\tcorpus-id\tscore\nq1\td2\t1\nq2\td1\t1\n"
    (root / "qrels" / "test.tsv").write_text(qrels, encoding="utf-8")
    return root


def test_beir_reports_its_measures_per_ranker(tmp_path: Path, model: Path) -> None:
    settings = EvalSettings(
        chunkers=("structure",), rankers=("bm25", "dense", "hybrid"), model=model,
        vector_cache=None,
    )  # fmt: skip
    report = run_beir_eval(write_beir(tmp_path / "beir"), settings)
    assert [r.name for r in report.runs] == ["structure", "structure+dense", "structure+hybrid"]
    assert set(report.figures["structure+dense"]) == {"nDCG@10", "MRR@10", "Recall@100"}
    pairs = {(c.a, c.b) for c in report.comparisons}
    assert ("structure", "structure+dense") in pairs
    assert report.to_dict()["chunkers"]["structure+hybrid"]["spec"]["ranker"] == "hybrid"


def test_a_shipped_index_without_vectors_keeps_its_bm25_row_alone(tmp_path: Path) -> None:
    corpus = write_eval_corpus(tmp_path / "corpus")
    questions = write_questions(tmp_path / "q.jsonl", QUESTIONS)
    index = tmp_path / "index"
    done = runner.invoke(app, ["ingest", str(corpus), "--index", str(index), "-q"])
    assert done.exit_code == 0, done.output
    args = ["eval", "--corpus", str(corpus), "--questions", str(questions), "-q", "--json",
            "--parse-cache", str(tmp_path / "cache"), "--index", str(index),
            "--retriever", "bm25,dense"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = list(json.loads(result.stdout)["chunkers"])
    assert len(rows) == 1 and rows[0].startswith("index:")
    assert f"left out {rows[0]}+dense: the index holds no vectors" in result.stderr
