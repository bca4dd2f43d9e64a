from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.corpora import write_pipeline_corpus
from typer.testing import CliRunner

from policy_assistant.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]


def figures(report: dict, name: str) -> dict:  # type: ignore[type-arg]
    return report["chunkers"][name]


@pytest.mark.slow
def test_a_shipped_index_scores_as_its_chunker_does_re_chunked(tmp_path: Path) -> None:
    index = tmp_path / "i"
    done = runner.invoke(app, ["ingest", str(ROOT / "corpus"), "--index", str(index), "-q"])
    assert done.exit_code == 0, done.output
    args = ["eval", "--corpus", str(ROOT / "corpus"), "--questions"]
    args += [str(ROOT / "questions" / "questions.jsonl"), "--json", "-q"]
    result = runner.invoke(app, [*args, "--chunker", "structure", "--index", str(index)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    shipped = next(name for name in report["chunkers"] if name.startswith("index:"))
    ours, theirs = figures(report, "structure"), figures(report, shipped)
    assert ours["budgets"] == theirs["budgets"]
    assert ours["hit@k"] == theirs["hit@k"]
    assert ours["chunks"] == theirs["chunks"]
    alone = runner.invoke(app, [*args, "--index", str(index)])
    assert list(json.loads(alone.stdout)["chunkers"]) == [shipped]


def test_an_index_of_other_bytes_is_refused(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    index = tmp_path / "i"
    assert runner.invoke(app, ["ingest", str(corpus), "--index", str(index), "-q"]).exit_code == 0
    (corpus / "a.md").write_text("# Sprinklers\n\nNow three years.\n")
    questions = tmp_path / "q.jsonl"
    row = {"id": "q", "question": "sprinkler warranty", "audience": "public"}
    row["relevant"] = [{"source": "b.md", "evidence": "Lawn mowers carry a two year warranty."}]
    questions.write_text(json.dumps(row) + "\n")
    result = runner.invoke(
        app, ["eval", "--corpus", str(corpus), "--questions", str(questions), "--index", str(index)]
    )
    assert result.exit_code == 1
    assert "was built from other versions of a.md: ingest it again" in result.stderr
