"""Strategies: the ones eval --strategy can name are in its help; variants rank on their own."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
from support.corpora import write_pipeline_corpus
from typer.testing import CliRunner

from policy_assistant.cli.app import app
from policy_assistant.cli.index_options import STRATEGY_NAMES
from policy_assistant.errors import UsageError
from policy_assistant.evaluate import strategies
from policy_assistant.evaluate.bootstrap import Bootstrap
from policy_assistant.evaluate.questions import load_questions
from policy_assistant.evaluate.report import EvalReport
from policy_assistant.evaluate.strategies import NAMED_STRATEGIES, Strategy, with_strategies
from policy_assistant.index.context import assembler
from policy_assistant.index.context.unit_rank import SegmentedUnits
from policy_assistant.parse import parse_path


def test_the_strategy_help_lists_every_named_strategy() -> None:
    assert STRATEGY_NAMES.split(", ") == list(NAMED_STRATEGIES)
    for command in ("search", "eval"):
        shown = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "400"}).output
        assert all(name in shown for name in NAMED_STRATEGIES), command


def test_bm25_settings_under_a_vector_ranker_are_a_usage_error(corpus_dir: Path) -> None:
    docs = parse_path(corpus_dir).documents
    qset = load_questions(corpus_dir.parent / "questions" / "questions.jsonl", docs)
    report = EvalReport({"budgets": [100], "k": 5}, qset.questions, (), (), ())
    flat = Strategy("flat", NAMED_STRATEGIES["window"], bm25={"b": 0.0})
    with pytest.raises(UsageError, match="flat: BM25 settings are for the bm25 ranker"):
        with_strategies(report, docs, qset, [flat], Bootstrap(1), "hybrid", None)


def test_a_strategy_with_bm25_settings_ranks_on_its_own_index(corpus_dir: Path) -> None:
    docs = parse_path(corpus_dir).documents
    qset = load_questions(corpus_dir.parent / "questions" / "questions.jsonl", docs)
    qset = replace(qset, questions=qset.questions[:30])
    report = EvalReport({"budgets": [100, 400], "k": 5}, qset.questions, (), (), ())
    context = NAMED_STRATEGIES["window"]
    chosen = [
        Strategy("plain", context),
        Strategy("same", context, bm25={"k1": 1.2, "b": 0.75}),  # the defaults, spelled out
        Strategy("flat", context, bm25={"b": 0.0}),
    ]
    both = with_strategies(report, docs, qset, chosen, Bootstrap(len(qset.questions)))
    plain, same, flat = (run.outcomes for run in both.runs)
    assert same == plain
    assert flat != plain  # no length normalization ranks other units first
    recorded = {s["name"]: s for s in both.settings["strategies"]}
    assert recorded["flat"]["bm25"] == {"b": 0.0} and "bm25" not in recorded["plain"]
    default = NAMED_STRATEGIES["window"]
    shaped = {k: recorded["plain"][k] for k in ("window", "wide_hits", "narrow", "maxp")}
    assert shaped == {"window": 2, "wide_hits": 2, "narrow": 1, "maxp": default.maxp}


@pytest.mark.parametrize("name", ["window", "passages"])
def test_eval_ranks_and_assembles_as_search_budget_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Eval's context strategies and `search --budget` run one path: the same calls to the
    one unit ranker, the same hits, the same contexts (both driven through the CLI)."""
    corpus = write_pipeline_corpus(tmp_path / "c")
    query, budget = "is the sprinkler still under warranty", 60
    line = {
        "id": "q1",
        "question": query,
        "audience": "staff",
        "relevant": [
            {"source": "a.md", "evidence": "Oscillating sprinklers carry an 18 month warranty."}
        ],
    }
    (tmp_path / "q.jsonl").write_bytes(orjson.dumps(line) + b"\n")
    runner = CliRunner()
    ingested = runner.invoke(app, ["ingest", str(corpus), "--index", str(tmp_path / "i")])
    assert ingested.exit_code == 0, ingested.output
    ranked: dict[str, list[object]] = {"cli": [], "eval": []}
    contexts: dict[str, list[object]] = {"cli": [], "eval": []}
    path = ["cli"]
    rank, assemble_ranked = SegmentedUnits.ranked, assembler.assemble_ranked

    def ranking(self: SegmentedUnits, *args: Any) -> Any:
        units, hits, weights = rank(self, *args)
        doc, start = units.col("unit_doc"), units.col("unit_start")
        cited = [(units.docs[int(doc[r])].source, int(start[r]), s) for r, s in hits]
        ranked[path[0]].append((args, cited))
        return units, hits, weights

    def assembling(*args: Any) -> Any:
        found = assemble_ranked(*args)
        contexts[path[0]].append(found)
        return found

    monkeypatch.setattr(SegmentedUnits, "ranked", ranking)
    monkeypatch.setattr(assembler, "assemble_ranked", assembling)
    monkeypatch.setattr(strategies, "assemble_ranked", assembling)
    search = ["search", query, "--index", str(tmp_path / "i"), "--access", "staff"]
    shown = runner.invoke(app, [*search, "--budget", str(budget), "--strategy", name, "--json"])
    assert shown.exit_code == 0, shown.output
    path[0] = "eval"
    evaluated = runner.invoke(app, [
        "eval", "--corpus", str(corpus), "--questions", str(tmp_path / "q.jsonl"),
        "--chunker", "fixed", "--strategy", name, "--budget", str(budget), "-q", "--json",
        "--workers", "1", "--parse-cache", str(tmp_path / "pc"),
    ])  # fmt: skip
    assert evaluated.exit_code == 0, evaluated.output
    assert ranked["cli"] and ranked["eval"] == ranked["cli"]
    assert contexts["eval"] == contexts["cli"]
    printed = [orjson.loads(row)["text"] for row in shown.output.splitlines()]
    assert printed and printed == [p.text for p in contexts["cli"][0]]  # type: ignore[attr-defined]
