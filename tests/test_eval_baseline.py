from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from support.eval_corpus import QUESTIONS, parsed_corpus, write_questions

from policy_assistant.errors import ExitCode, PolicyAssistantError
from policy_assistant.evaluate.baseline import (
    compare_to_baseline,
    default_tolerance,
    gate_exit_code,
    gated_figures,
    load_baseline,
)
from policy_assistant.evaluate.questions import Question, load_questions
from policy_assistant.evaluate.run import EvalSettings, evaluate
from policy_assistant.records import Chunk


class InOrder:
    """A fake retriever: rows in corpus order, public rows only for public questions."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.public = [c.access == "public" for c in chunks]

    def search(self, q: Question, n: int) -> list[tuple[int, float]]:
        rows = [r for r, ok in enumerate(self.public) if ok or q.audience == "staff"]
        return [(r, 1.0) for r in rows[:n]]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("baseline")
    documents = parsed_corpus(root / "corpus")
    questions = load_questions(write_questions(root / "q.jsonl", QUESTIONS), documents)
    settings = EvalSettings(chunkers=("fixed", "structure"), budgets=(50, 200))
    return evaluate(documents, questions, settings, make_retriever=InOrder).to_dict()


def lowered(report: dict[str, Any], chunker: str, budget: str, metric: str, by: float) -> Any:
    changed = copy.deepcopy(report)
    changed["chunkers"][chunker]["budgets"][budget][metric]["value"] -= by
    return changed


def test_a_report_matches_itself(report: dict[str, Any]) -> None:
    gate = compare_to_baseline(report, report, tolerance=0.0)
    assert gate.passed and not gate.notes
    assert gate.compared == 2 * (1 + 4 * 2) == len(gated_figures(report))


def test_a_fall_of_one_question_passes_and_more_fails(report: dict[str, Any]) -> None:
    one = default_tolerance(len(QUESTIONS))
    assert one == 1 / 7
    assert compare_to_baseline(lowered(report, "fixed", "200", "hit", one), report, one).passed
    gate = compare_to_baseline(lowered(report, "fixed", "200", "hit", 2 * one), report, one)
    assert not gate.passed
    (fall,) = gate.falls
    assert (fall.chunker, fall.metric) == ("fixed", "hit@200")
    assert fall.describe().startswith("fixed hit@200 fell to ")
    assert fall.describe().endswith(f"({-2 * one:+.4f})")


def test_a_rise_never_fails(report: dict[str, Any]) -> None:
    assert compare_to_baseline(
        report, lowered(report, "structure", "50", "complete", 0.5), 0
    ).passed


def test_a_figure_the_baseline_has_and_the_run_lacks_fails(report: dict[str, Any]) -> None:
    current = copy.deepcopy(report)
    del current["chunkers"]["structure"]["budgets"]["200"]
    current["settings"]["budgets"] = [50]
    gate = compare_to_baseline(current, report, 0.1)
    assert not gate.passed and not gate.falls
    assert gate.missing == (
        "structure complete@200",
        "structure evidence@200",
        "structure hit@200",
        "structure recall@200",
    )


def test_a_different_questions_file_or_setting_fails_the_gate_unless_accepted(
    report: dict[str, Any],
) -> None:
    current = copy.deepcopy(report)
    current["settings"]["k"] = 10
    current["settings"]["questions"]["sha256"] = "0" * 64
    current["settings"]["questions"]["path"] = (
        "elsewhere/q.jsonl"  # where it is read from: no matter
    )
    gate = compare_to_baseline(current, report, 0.1)
    assert not gate.passed and gate.settings_differ and not gate.falls
    before = report["settings"]["questions"]["sha256"][:12]
    assert gate.differences == (f"questions {before} -> 000000000000", "k 5 -> 10")
    assert gate.settings_line("b.json") == (
        "settings differ from the baseline b.json, so its figures are not comparable: "
        f"questions {before} -> 000000000000; k 5 -> 10 (run `make baseline` to adopt them, "
        "or pass --accept-settings to compare anyway)"
    )
    accepted = compare_to_baseline(current, report, 0.1, accept=True)
    assert accepted.passed and accepted.differences == gate.differences


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("chunkers", [{"name": "fixed", "size": 7}]),
        ("budgets", [50]),
        ("budget_unit", {"name": "words", "note": "a new field"}),
        ("bm25", {"variant": "okapi"}),
        ("tokenizer", {"version": 99}),
        ("retrieval_units", {"max_words": 60, "piece_words": 30}),
        ("corpus", {"id": "f" * 16, "path": "corpus", "documents": 5}),
    ],
)
def test_every_setting_the_figures_depend_on_is_gated(
    report: dict[str, Any], name: str, value: Any
) -> None:
    current = copy.deepcopy(report)
    current["settings"][name] = value
    gate = compare_to_baseline(current, report, 1.0)
    if name == "budget_unit":  # still words: the same unit, whatever else the field holds
        assert gate.passed
        return
    assert [d.split()[0] for d in gate.differences] == [name]
    assert not gate.passed


def test_library_versions_and_the_bootstrap_are_noted_not_gated(report: dict[str, Any]) -> None:
    current = copy.deepcopy(report)
    current["settings"]["tokenizer"] = {**report["settings"]["tokenizer"], "stemmer_library": "x"}
    current["settings"]["tool"] = {"name": "policy-assistant", "version": "9"}
    baseline = copy.deepcopy(report)
    baseline["settings"]["corpus"] = {"path": "corpus", "documents": 6, "id": "a" * 16}
    current["settings"]["corpus"] = {"path": "/somewhere/else", "documents": 6, "id": "a" * 16}
    gate = compare_to_baseline(current, baseline, 0.0)
    assert gate.passed and not gate.differences
    assert gate.notes == (
        "tool differs from the baseline's",
        "tokenizer stemmer_library differs from the baseline's",
    )


def test_the_exit_code_follows_leaks_and_the_gate(report: dict[str, Any]) -> None:
    passed = compare_to_baseline(report, report, 0.0)
    changed = copy.deepcopy(report)
    changed["settings"]["k"] = 10
    refused = compare_to_baseline(changed, report, 0.0)
    assert gate_exit_code(0, None) == ExitCode.OK
    assert gate_exit_code(0, passed) == ExitCode.OK
    assert gate_exit_code(1, None) == ExitCode.FAILURE
    assert gate_exit_code(1, passed) == ExitCode.FAILURE
    assert gate_exit_code(0, refused) == ExitCode.FAILURE
    accepted = compare_to_baseline(changed, report, 0.0, accept=True)
    assert gate_exit_code(0, accepted) == ExitCode.OK


def test_a_bad_baseline_file_is_an_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    path.write_text("{")
    with pytest.raises(PolicyAssistantError, match=r"baseline\.json: baseline is not valid JSON"):
        load_baseline(path)
    path.write_text(json.dumps({"settings": {}}))
    with pytest.raises(PolicyAssistantError, match="not an eval report"):
        load_baseline(path)
    with pytest.raises(PolicyAssistantError, match="cannot read baseline"):
        load_baseline(tmp_path / "missing.json")
    with pytest.raises(PolicyAssistantError, match="baseline is not an eval report"):
        compare_to_baseline({"chunkers": {}}, {"chunkers": {"fixed": {}}}, 0.1)


def test_a_fall_names_the_questions_whose_outcome_changed(report: dict[str, Any]) -> None:
    assert set(report["outcomes"]) == {q["id"] for q in QUESTIONS}
    line = report["outcomes"]["sprinkler"]["fixed"]
    assert line.startswith("k=") and " 50=" in line and " 200=" in line
    baseline = lowered(report, "fixed", "200", "complete", -0.5)  # the baseline was higher
    for qid in ("sprinkler", "claim"):
        baseline["outcomes"][qid]["fixed"] = line.split(" 200=")[0] + " 200=earlier"
    (fall,) = compare_to_baseline(report, baseline, 0.1).falls
    now = {q: report["outcomes"][q]["fixed"].split(" 200=")[1] for q in ("claim", "sprinkler")}
    assert fall.changed == (
        f"claim earlier -> {now['claim']}",
        f"sprinkler earlier -> {now['sprinkler']}",
    )
    assert fall.describe(limit=1).endswith(f"changed: claim earlier -> {now['claim']}; and 1 more")


def test_budgets_in_tokens_are_not_gated_against_a_baseline_in_words(
    report: dict[str, Any],
) -> None:
    tokens = copy.deepcopy(report)
    tokens["settings"]["budget_unit"] = {"name": "tokens", "encoding": "cl100k_base"}
    with pytest.raises(PolicyAssistantError, match="baseline's budgets count words"):
        compare_to_baseline(tokens, report, tolerance=0.1)
    legacy = copy.deepcopy(report)
    legacy["settings"].pop("budget_unit", None)
    assert compare_to_baseline(report, legacy, tolerance=0.0).passed
