"""What the numbers mean: budgets a variant cannot fill, too few questions, the best per budget."""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path

import pytest
from support.cli import APP, runner
from support.eval_corpus import QUESTIONS, parsed_corpus, write_eval_corpus, write_questions

from policy_assistant.evaluate import EvalReport, EvalSettings, evaluate, load_questions
from policy_assistant.evaluate.verdict import (
    MEANING_HINT,
    MIN_QUESTIONS,
    best_lines,
    budget_lines,
    few_questions_lines,
    limit_lines,
    what_limits,
)
from policy_assistant.records import Document


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> list[Document]:
    return parsed_corpus(tmp_path_factory.mktemp("docs") / "corpus")


def report_of(
    documents: list[Document], tmp_path: Path, copies: int, *chunkers: str, budgets: tuple[int, ...]
) -> EvalReport:
    questions = []
    for i in range(copies):
        for q in copy.deepcopy(QUESTIONS):
            questions.append({**q, "id": f"{q['id']}-{i}"})
    loaded = load_questions(write_questions(tmp_path / "q.jsonl", questions), documents)
    return evaluate(documents, loaded, EvalSettings(chunkers=chunkers, budgets=budgets))


def test_a_budget_below_the_chunk_size_is_said_with_its_count(
    documents: list[Document], tmp_path: Path
) -> None:
    report = report_of(documents, tmp_path, 1, "structure:max_words=60", "fixed:size=5",
                       budgets=(4, 100))  # fmt: skip
    summary = report.summaries[0]
    n = len(QUESTIONS)
    # Every first result is over 4 words: each is cut to its first words, none left empty.
    assert (summary.budgets[0].empty_contexts, summary.budgets[0].cut_contexts) == (0, n)
    largest = max(c.words for c in report.runs[0].chunks)
    assert budget_lines(report) == [
        f"structure:max_words=60 cuts its chunks to fit B=4: {n} of {n} contexts hold only "
        f"the first sentences of a first result over 4 words (its chunks run to {largest}) "
        "— compare at B ≥ 60, or lower max_words",
        f"fixed:size=5 cuts its chunks to fit B=4: {n} of {n} contexts hold only the first "
        "sentences of a first result over 4 words (its chunks run to 5) — compare at B ≥ 5, "
        "or lower size",
    ]


def test_no_line_when_every_budget_is_filled(documents: list[Document], tmp_path: Path) -> None:
    report = report_of(documents, tmp_path, 1, "fixed:size=5", budgets=(50,))
    assert report.summaries[0].budgets[0].empty_contexts == 0
    assert budget_lines(report) == []


def test_too_few_questions_are_said(documents: list[Document], tmp_path: Path) -> None:
    report = report_of(documents, tmp_path, 1, "structure", "fixed", budgets=(100,))
    (line,) = few_questions_lines(report)
    assert line.startswith(f"only {len(QUESTIONS)} questions: one question moves a figure by "
                           f"{1 / len(QUESTIONS):.3f}")  # fmt: skip
    assert f"at least {MIN_QUESTIONS}" in line


def test_enough_questions_that_separate_say_nothing_and_the_best_is_named_as_separated(
    documents: list[Document], tmp_path: Path
) -> None:
    # Three-word windows cannot hold a quote of more words; structure chunks hold them whole.
    report = report_of(documents, tmp_path, 5, "fixed:size=3", "structure:max_words=60",
                       budgets=(200,))  # fmt: skip
    assert len(report.questions) >= MIN_QUESTIONS
    assert few_questions_lines(report) == []
    values = {s.name: s.figure("complete@200").value for s in report.summaries}
    assert values["structure:max_words=60"] > values["fixed:size=3"]
    (line,) = best_lines(report)
    best = values["structure:max_words=60"]
    assert line.startswith(
        f"B=200: best on complete@B is structure:max_words=60 ({best:.3f}), ahead of the "
        f"runner-up fixed:size=3 by {best - values['fixed:size=3']:+.3f}, paired interval ["
    )
    assert line.endswith("] excludes 0")


def test_a_best_within_the_noise_is_said_not_separated(
    documents: list[Document], tmp_path: Path
) -> None:
    report = report_of(documents, tmp_path, 1, "structure", "sentence", "fixed:size=20",
                       budgets=(100,))  # fmt: skip
    (line,) = best_lines(report)
    values = {s.name: s.figure("complete@100").value for s in report.summaries}
    best = max(values, key=lambda n: values[n])
    runner_up = max((n for n in values if n != best), key=lambda n: values[n])
    (pair,) = [
        c
        for c in report.comparisons
        if c.metric == "complete@100" and {c.a, c.b} == {best, runner_up}
    ]
    assert line.startswith(f"B=100: best on complete@B is {best} ({values[best]:.3f}), ")
    if pair.difference.low == pair.difference.high == 0.0:
        assert line.endswith(f"ties {runner_up} on every question")
    elif pair.inside:
        assert f"not separated from the runner-up {runner_up}" in line
    else:
        assert line.endswith("excludes 0")


def test_the_cli_prints_the_lines_under_the_tables(tmp_path: Path) -> None:
    corpus = write_eval_corpus(tmp_path / "corpus")
    questions = write_questions(tmp_path / "q.jsonl", QUESTIONS)
    args = ["eval", "--corpus", str(corpus), "--questions", str(questions), "-q"]
    result = runner.invoke(APP, [*args, "--chunker", "structure,fixed:size=5", "--budget", "4,100"])
    assert result.exit_code == 0, result.output
    tail = result.stdout[result.stdout.rindex("Differences from the best") :]
    assert "structure cuts its chunks to fit B=4" in tail
    assert f"only {len(QUESTIONS)} questions" in tail
    assert "B=100: best on complete@B is" in tail


def test_enough_questions_that_separate_nothing_say_the_run_cannot_decide(
    documents: list[Document], tmp_path: Path
) -> None:
    # structure at its default max_words and the same named by its setting chunk alike.
    report = report_of(documents, tmp_path, 5, "structure", "structure:max_words=200",
                       budgets=(100,))  # fmt: skip
    assert all(c.inside for c in report.comparisons)
    assert few_questions_lines(report) == [
        f"no paired interval excludes 0 over {len(report.questions)} questions: this run "
        "cannot tell the variants apart on any figure"
    ]
    value = report.summaries[0].figure("complete@100").value
    assert best_lines(report) == [
        f"B=100: best on complete@B is structure ({value:.3f}), "
        "ties structure:max_words=200 on every question"
    ]


def test_a_strategy_that_cannot_fill_a_budget_says_so_in_units_not_chunks(
    documents: list[Document], tmp_path: Path
) -> None:
    loaded = load_questions(write_questions(tmp_path / "q.jsonl", QUESTIONS), documents)
    settings = EvalSettings(chunkers=("fixed:size=5",), budgets=(2,), strategies=("window",))
    report = evaluate(documents, loaded, settings)
    n = len(QUESTIONS)
    window = [line for line in budget_lines(report) if line.startswith("window")]
    assert window == [
        f"window cannot fill B=2: {n} of {n} contexts empty (no ranked unit fits 2 words with "
        "its title and headings) — compare at a larger B"
    ]


def test_a_budget_at_the_cap_points_past_the_whole_tables_over_it(
    documents: list[Document], tmp_path: Path
) -> None:
    # A table is kept whole past max_words: B=21 still cuts the 27-word one, so the advice
    # must name the size the chunks run to and the setting that bounds tables.
    report = report_of(documents, tmp_path, 1, "structure:max_words=20", budgets=(20,))
    largest = max(c.words for c in report.runs[0].chunks)
    assert largest > 21
    (line,) = budget_lines(report)
    assert line.endswith(
        f"(its chunks run to {largest}) — compare at B ≥ {largest}, or lower max_table_words"
    )


def test_what_limits_the_best_is_said_per_budget(documents: list[Document], tmp_path: Path) -> None:
    # At 20 words some quotes need more than any set of structure chunks within B; at 50 every
    # quote fits, so what is missed, ranking missed.
    report = report_of(documents, tmp_path, 1, "structure", budgets=(20, 50))
    n = len(report.questions)
    *lines, hint = limit_lines(report)
    assert len(lines) == sum(1 for b in report.summaries[0].budgets if sum(b.misses.values()))
    for b, line in zip(report.summaries[0].budgets, lines, strict=True):
        chunking, ranking = b.misses["chunking"], b.misses["ranking"]
        assert line.startswith(f"B={b.budget}: structure's {chunking + ranking} miss")
        assert f"of {n}: {ranking} ranking, {chunking} chunking " in line
        assert line.endswith(what_limits(chunking, ranking))
    assert report.summaries[0].budgets[0].misses["chunking"] > 0
    # ranking limits at 50 words and every row is BM25's: one line points at a meaning ranker
    assert lines[-1].endswith("a better ranker would find more than other chunk sizes")
    assert hint == MEANING_HINT
    # A run that measured a meaning ranker already is told no more than the limit.
    ranked = tuple(replace(summary, name=f"{summary.name}+hybrid") for summary in report.summaries)
    assert limit_lines(replace(report, summaries=ranked))[-1] != MEANING_HINT


@pytest.mark.parametrize(
    ("chunking", "ranking", "says"),
    [(0, 5, "a better ranker"), (4, 2, "chunks cut otherwise"), (3, 4, "both")],
)
def test_the_limit_is_the_kind_of_miss_twice_the_other(
    chunking: int, ranking: int, says: str
) -> None:
    assert what_limits(chunking, ranking).startswith(says)
