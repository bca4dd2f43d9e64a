from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from support.cli import APP, runner
from support.eval_corpus import QUESTIONS, write_eval_corpus, write_questions

from policy_assistant.evaluate.questions import Question
from policy_assistant.records import Chunk


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("eval")
    corpus = write_eval_corpus(root / "corpus")
    return corpus, write_questions(root / "questions.jsonl", QUESTIONS)


def run(paths: tuple[Path, Path], *args: str) -> Any:
    corpus, questions = paths
    common = ["eval", "--corpus", str(corpus), "--questions", str(questions), "-q"]
    return runner.invoke(APP, [*common, *args])


SMALL = ("--size", "20", "--overlap", "5", "--max-words", "40")
"""Chunk sizes small enough that the little corpus makes several chunks per document."""


@pytest.fixture(scope="module")
def report(paths: tuple[Path, Path]) -> dict[str, Any]:
    result = run(paths, *SMALL, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_the_report_covers_every_chunker_budget_and_question(report: dict[str, Any]) -> None:
    # With no row named, search's own context strategy is a row beside the four chunkers.
    assert list(report["chunkers"]) == ["fixed", "overlapping", "sentence", "structure", "window"]
    settings = report["settings"]
    assert settings["budgets"] == [100, 200, 400] and settings["k"] == 5
    assert settings["questions"]["count"] == len(QUESTIONS)
    assert settings["corpus"]["documents"] == 5
    assert {"name": "fixed", "size": 20} in settings["chunkers"]
    assert {"name": "overlapping", "size": 20, "overlap": 5} in settings["chunkers"]
    assert {"name": "structure", "max_words": 40, "max_table_words": 800} in settings["chunkers"]
    for summary in report["chunkers"].values():
        assert summary["leaks"] == 0
        assert set(summary["budgets"]) == {"100", "200", "400"}
        figure = summary["budgets"]["200"]["complete"]
        assert 0 <= figure["ci_low"] <= figure["value"] <= figure["ci_high"] <= 1
    assert [q["id"] for q in report["questions"]] == [q["id"] for q in QUESTIONS]
    assert len(report["comparisons"]) == 10 * 13


def test_public_questions_never_see_staff_chunks(report: dict[str, Any]) -> None:
    for row in report["questions"]:
        for outcome in row["chunkers"].values():
            seen = {r["access"] for r in outcome["retrieved"]}
            assert seen <= ({"public"} if row["audience"] == "public" else {"public", "staff"})
    override = next(q for q in report["questions"] if q["id"] == "override")
    top = override["chunkers"]["structure"]["retrieved"][0]
    assert (top["source"], top["relevant"]) == ("staff/refunds.md", True)


def test_the_near_identical_guides_are_told_apart(report: dict[str, Any]) -> None:
    row = next(q for q in report["questions"] if q["id"] == "nozzle-b")
    for name, outcome in row["chunkers"].items():
        if name == "window":  # a strategy's row lists no ranked chunks
            continue
        assert outcome["retrieved"][0]["source"] == "guides/washer-b.md", name
        assert outcome["budgets"]["400"]["hit"], name


def test_a_small_fixed_window_cuts_the_table_row_that_structure_keeps(
    paths: tuple[Path, Path],
) -> None:
    result = run(paths, "--json", "--size", "3", "--chunker", "fixed,structure")
    rows = {q["id"]: q for q in json.loads(result.stdout)["questions"]}
    claim = rows["claim"]["chunkers"]
    assert claim["fixed"]["budgets"]["400"]["miss"] == "cut"
    assert len(claim["fixed"]["budgets"]["400"]["passages"][0]["chunks"]) >= 3
    assert claim["structure"]["budgets"]["400"]["complete"]


def test_the_same_run_gives_the_same_bytes(paths: tuple[Path, Path], tmp_path: Path) -> None:
    first = run(paths, *SMALL, "--json")
    target = tmp_path / "out" / "report.json"
    second = run(paths, *SMALL, "--json", "--out", str(target))
    assert first.stdout == second.stdout
    assert target.read_text() == first.stdout
    assert str(tmp_path) not in first.stdout  # no absolute paths


def test_the_tables_show_k_budgets_and_differences(paths: tuple[Path, Path]) -> None:
    result = run(paths, *SMALL)
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "At equal k (k=5, 7 questions, 95% intervals)" in text
    assert "At equal budgets" in text
    assert "median words in top 5" in text
    assert re.search(r"│ window +│ +units │", text)  # a strategy has units, not 0 chunks
    assert "Differences from the best (paired 95% intervals; 7 questions, one is 0.143)" in text
    assert "complete@200" in text
    assert "-0.000" not in text


def test_explain_shows_each_chunkers_ranking_and_misses(paths: tuple[Path, Path]) -> None:
    result = run(paths, "--explain", "sprinkler", "--chunker", "fixed,structure", "--size", "3")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "How long is the sprinkler system warranty?" in text
    assert "fixed:" in text and "structure:" in text
    assert "miss: cut" in text and "quote cut across" in text
    small = run(paths, "--explain", "sprinkler", "--chunker", "structure", "--budget", "5")
    assert "cut to its first sentences" in " ".join(small.stdout.split())
    assert run(paths, "--explain", "nope").exit_code == 2


def test_the_gate_passes_on_its_own_baseline_and_fails_on_a_fall(
    paths: tuple[Path, Path], tmp_path: Path
) -> None:
    baseline = tmp_path / "baseline.json"
    assert run(paths, "--out", str(baseline)).exit_code == 0
    passed = run(paths, "--baseline", str(baseline))
    assert passed.exit_code == 0, passed.output
    assert "none fell more than 0.1429" in passed.stderr
    data = json.loads(baseline.read_text())
    # A baseline 0.3 higher than this run: as if the run had fallen by 0.3.
    data["chunkers"]["structure"]["budgets"]["100"]["evidence"]["value"] += 0.3
    baseline.write_text(json.dumps(data))
    failed = run(paths, "--baseline", str(baseline))
    assert failed.exit_code == 1
    assert "structure evidence@100 fell to" in failed.stderr
    assert run(paths, "--baseline", str(baseline), "--tolerance", "0.5").exit_code == 0


def test_a_leak_fails_the_run(paths: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    class Leaky:
        def __init__(self, chunks: Sequence[Chunk], *_: Any) -> None:
            self.rows = sorted(range(len(chunks)), key=lambda r: chunks[r].access != "staff")

        def search(self, q: Question, n: int) -> list[tuple[int, float]]:
            return [(r, 1.0) for r in self.rows[:n]]

    monkeypatch.setattr("policy_assistant.evaluate.run.chunk_retriever", Leaky)
    result = run(paths, "--chunker", "structure")
    assert result.exit_code == 1
    assert "structure: " in result.stderr
    assert "non-public chunks returned to public questions (sprinkler," in result.stderr


def test_a_bad_question_exits_1_naming_it(paths: tuple[Path, Path], tmp_path: Path) -> None:
    bad = [{**QUESTIONS[0], "relevant": [{**QUESTIONS[0]["relevant"][0], "source": "x.md"}]}]
    corpus, _ = paths
    result = run((corpus, write_questions(tmp_path / "bad.jsonl", bad)))
    assert result.exit_code == 1
    assert "question 'sprinkler': relevant[1]: unknown source 'x.md'" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--chunker", "fixed,paragraph"], "unknown chunker 'paragraph'"),
        (["--budget", "100,lots"], "--budget takes whole numbers of words, got 'lots'"),
        (["--budget", "0"], "budgets must be whole numbers of words, at least 1"),
        (["-k", "0"], "k must be at least 1"),
        (["--chunker", "fixed", "--overlap", "5"], "no chunker compared takes overlap"),
        (["--size", "0"], "size must be positive"),
        (["--plot", "figure.gif"], "use a file ending in .png, .svg, .pdf"),
    ],
)
def test_usage_errors_exit_2(paths: tuple[Path, Path], args: list[str], message: str) -> None:
    result = run(paths, *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_plot_without_matplotlib_says_how_to_get_it(
    paths: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = run(paths, "--plot", str(tmp_path / "eval.png"))
    assert result.exit_code == 2
    assert "pip install 'policy-assistant[plot]'" in result.stderr


def test_plot_draws_a_stable_png(paths: tuple[Path, Path], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    first, second = tmp_path / "a.png", tmp_path / "b.png"
    assert run(paths, "--plot", str(first), "--chunker", "fixed,structure").exit_code == 0
    assert run(paths, "--plot", str(second), "--chunker", "fixed,structure").exit_code == 0
    assert first.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert first.read_bytes() == second.read_bytes()


def test_a_chunking_change_that_cuts_quotes_fails_the_gate_naming_questions(
    paths: tuple[Path, Path], tmp_path: Path
) -> None:
    baseline = tmp_path / "baseline.json"
    made = run(paths, "--chunker", "fixed", "--size", "60", "--summary", "--out", str(baseline))
    assert made.exit_code == 0, made.output
    data = json.loads(baseline.read_text())
    assert set(data) == {"settings", "chunkers", "outcomes"}
    assert data["outcomes"]["claim"]["fixed"] == "k=hit 100=complete 200=complete 400=complete"
    refused = run(paths, "--chunker", "fixed", "--size", "3", "--baseline", str(baseline))
    assert refused.exit_code == 1
    assert "fell to" not in refused.stderr  # the figures are not compared at all
    small = ["--chunker", "fixed", "--size", "3", "--accept-settings"]
    result = run(paths, *small, "--baseline", str(baseline))
    assert result.exit_code == 1
    assert 'chunkers [{"name":"fixed","size":60}] -> [{"name":"fixed","size":3}] (accepted)' in (
        " ".join(result.stderr.split())
    )
    assert "fixed complete@400 fell to" in result.stderr
    assert "claim complete -> hit,cut" in result.stderr


def gate_lines(stderr: str) -> list[str]:
    """The error lines of a run, unwrapped: one per error."""
    return [" ".join(part.split()) for part in stderr.split("error: ")[1:]]


def test_the_gate_fails_when_the_questions_file_differs_unless_accepted(
    paths: tuple[Path, Path], tmp_path: Path
) -> None:
    baseline = tmp_path / "baseline.json"
    assert run(paths, "--summary", "--out", str(baseline)).exit_code == 0
    corpus, _ = paths
    fewer = write_questions(tmp_path / "fewer.jsonl", QUESTIONS[:-1])
    common = ["eval", "--corpus", str(corpus), "--questions", str(fewer), "-q"]
    refused = runner.invoke(APP, [*common, "--baseline", str(baseline)])
    assert refused.exit_code == 1
    (line,) = gate_lines(refused.stderr)
    before = json.loads(baseline.read_text())["settings"]["questions"]["sha256"][:12]
    assert line.startswith(f"settings differ from the baseline {baseline}")
    assert f"questions {before} -> " in line and "--accept-settings" in line
    accepted = runner.invoke(APP, [*common, "--baseline", str(baseline), "--accept-settings"])
    assert accepted.exit_code == 0, accepted.output
    assert f"questions {before} -> " in " ".join(accepted.stderr.split())


def test_the_gate_fails_when_the_settings_differ_unless_accepted(
    paths: tuple[Path, Path], tmp_path: Path
) -> None:
    baseline = tmp_path / "baseline.json"
    assert run(paths, "--summary", "--out", str(baseline), "--budget", "100,200").exit_code == 0
    refused = run(paths, "--baseline", str(baseline), "--budget", "100,200,400")
    assert refused.exit_code == 1
    (line,) = gate_lines(refused.stderr)
    assert line == (
        f"settings differ from the baseline {baseline}, so its figures are not comparable: "
        "budgets [100,200] -> [100,200,400] (run `make baseline` to adopt them, or pass "
        "--accept-settings to compare anyway)"
    )
    accepted = run(
        paths, "--baseline", str(baseline), "--budget", "100,200,400", "--accept-settings"
    )
    assert accepted.exit_code == 0, accepted.output
    assert "none fell more than" in accepted.stderr


def test_explain_numbers_chunks_from_one_as_chunk_and_inspect_do(paths: tuple[Path, Path]) -> None:
    table = run(paths, "--explain", "sprinkler", "--chunker", "structure")
    assert table.exit_code == 0, table.output
    rows = [line.split("│") for line in table.stdout.splitlines() if line.count("│") > 6]
    numbers = {cells[4].strip() for cells in rows[1:] if cells[1].strip().isdigit()}
    assert numbers and "0" not in numbers and all(n.isdigit() for n in numbers)


def test_explain_says_one_chunk_not_one_chunks(paths: tuple[Path, Path]) -> None:
    result = run(paths, "--explain", "sprinkler", "--chunker", "structure", "--budget", "5,400")
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert " 1 chunk," in text and " 1 chunks" not in text
