"""The cut of an oversized first result, the ceiling under perfect ranking, and the split of
each miss into a chunking miss and a ranking miss, on hand-made chunks whose answer is known."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import APP, runner
from support.eval_corpus import QUESTIONS, parsed_corpus, write_eval_corpus, write_questions

from policy_assistant.evaluate.metrics import cut_point
from policy_assistant.evaluate.questions import Passage, Question, load_questions
from policy_assistant.evaluate.report import EvalReport
from policy_assistant.evaluate.run import EvalSettings, evaluate
from policy_assistant.evaluate.score import (
    CHUNKING,
    RANKING,
    Layout,
    score_question,
    smallest_cover,
)
from policy_assistant.evaluate.strategies import evidence_words
from policy_assistant.index.context.units import build_units
from policy_assistant.records import Chunk
from policy_assistant.text import count_words

# Ten sentences of five words each: sentence i spans [29 * i, 29 * i + 28).
TEXT = "".join(f"Sentence {i:02d} says five words. " for i in range(10))


def chunk(name: str, start: int, end: int, prefix: str = "") -> Chunk:
    body = TEXT[start:end].strip()
    return Chunk(
        id=name, source="a.md", title="A", version="1", access="public", language="en",
        chunker={"name": "hand"}, position=0, start=start, end=start + len(body), pages=(),
        sections=(), text=prefix + body, words=count_words(prefix + body),
    )  # fmt: skip


def question(*spans: tuple[int, int]) -> Question:
    passages = tuple(Passage("a.md", None, TEXT[s:e], (s, e), None) for s, e in spans)
    return Question("q", "what?", "public", passages)


def sentence(i: int) -> tuple[int, int]:
    return 29 * i, 29 * i + 28


def test_the_cut_ends_at_the_last_sentence_that_fits() -> None:
    text = "Title\n\n" + TEXT
    assert cut_point(text, 7, 12, count_words) == 7 + 29 + 28  # title, two sentences
    assert cut_point(text, 7, 6, count_words) == 7 + 28  # the title and one sentence
    # Not even one sentence fits: the first words that do.
    assert cut_point(text, 7, 4, count_words) == 7 + len("Sentence 00 says")
    assert cut_point(text, 7, 1, count_words) == 7  # the prefix alone fills it: nothing of the body


def test_a_first_result_over_the_budget_is_cut_not_dropped() -> None:
    big = [chunk("big", 0, 290, "Title\n\n")]  # 51 words
    early, late = question(sentence(1)), question(sentence(8))
    (at20,) = score_question(early, [(0, 1.0)], big, Layout(big), 5, [20]).budgets
    assert (at20.packed, at20.words, at20.cut, at20.complete, at20.evidence) == (
        1,
        16,
        True,
        True,
        1.0,
    )
    assert at20.ceiling and at20.limit is None
    (at20,) = score_question(late, [(0, 1.0)], big, Layout(big), 5, [20]).budgets
    # The quote lies past the cut, and the chunk is the only one that holds it: chunking.
    assert at20.cut and not at20.complete and at20.evidence == 0.0
    assert (at20.ceiling, at20.limit) == (False, CHUNKING)


def test_evidence_ranked_third_with_room_for_one_is_a_ranking_miss() -> None:
    chunks = [chunk(f"c{i}", 58 * i, 58 * i + 57) for i in range(5)]  # ten words each
    q = question(sentence(4))  # in c2
    ranking = [(0, 3.0), (1, 2.0), (2, 1.0)]
    (at10,) = score_question(q, ranking, chunks, Layout(chunks), 5, [10]).budgets
    assert (at10.packed, at10.complete, at10.miss) == (1, False, "below_budget")
    assert (at10.ceiling, at10.limit) == (True, RANKING)


def test_evidence_split_over_two_chunks_that_cannot_both_fit_is_a_chunking_miss() -> None:
    chunks = [chunk(f"c{i}", 58 * i, 58 * i + 57) for i in range(5)]
    q = question(sentence(0), sentence(9))  # in c0 and c4: twenty words in all
    ranking = [(0, 2.0), (4, 1.0)]
    at10, at20 = score_question(q, ranking, chunks, Layout(chunks), 5, [10, 20]).budgets
    assert (at10.complete, at10.ceiling, at10.limit) == (False, False, CHUNKING)
    assert (at20.complete, at20.ceiling, at20.limit) == (True, True, None)
    # Ranked badly, the same twenty words are a ranking miss.
    bad = [(0, 3.0), (1, 2.0), (4, 1.0)]
    (at20,) = score_question(q, bad, chunks, Layout(chunks), 5, [20]).budgets
    assert (at20.complete, at20.ceiling, at20.limit) == (False, True, RANKING)


def test_a_quote_no_chunk_holds_is_a_chunking_miss_at_any_budget() -> None:
    chunks = [chunk("a", 0, 40), chunk("b", 40, 290)]  # sentence 1 is cut in two
    (at400,) = score_question(question(sentence(1)), [(0, 2.0), (1, 1.0)], chunks,
                              Layout(chunks), 5, [400]).budgets  # fmt: skip
    assert (at400.miss, at400.ceiling, at400.limit) == ("cut", False, CHUNKING)


def test_the_smallest_cover_counts_a_shared_chunk_once() -> None:
    assert smallest_cover([[("a", 30), ("b", 10)], [("a", 30), ("c", 25)]]) == 30
    assert smallest_cover([[("a", 5)], [("b", 7)]]) == 12
    many = [[(f"x{i}", 10), (f"y{i}", 3), ("big", 50)] for i in range(9)]  # 3^9 choices: greedy
    assert smallest_cover(many) == 27


def test_a_strategys_ceiling_is_the_run_of_units_covering_the_quotes(tmp_path: Path) -> None:
    documents = parsed_corpus(tmp_path / "corpus")
    units = build_units(documents)
    loaded = load_questions(write_questions(tmp_path / "q.jsonl", QUESTIONS), documents)
    for q in loaded.questions:
        needed = evidence_words(units, q.relevant)
        assert needed is not None and needed >= sum(len(p.evidence.split()) for p in q.relevant)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> EvalReport:
    root = tmp_path_factory.mktemp("ceiling")
    documents = parsed_corpus(root / "corpus")
    loaded = load_questions(write_questions(root / "q.jsonl", QUESTIONS), documents)
    settings = EvalSettings(budgets=(10, 50, 100, 400), strategies=("window",))
    return evaluate(documents, loaded, settings)


def test_default_rows_leave_no_context_empty_from_50_words(report: EvalReport) -> None:
    for summary in report.summaries:
        for at in summary.budgets:
            if at.budget >= 50:
                assert at.empty_contexts == 0, (summary.name, at.budget)


def test_complete_and_misses_add_up_to_the_ceiling(report: EvalReport) -> None:
    n = len(report.questions)
    for summary in report.summaries:
        for at in summary.budgets:
            complete = round(at.figures["complete"].value * n)
            assert complete + at.misses[RANKING] == round(at.ceiling.value * n)
            assert complete + at.misses[RANKING] + at.misses[CHUNKING] == n
    data = report.to_dict()
    at100 = data["chunkers"]["window"]["budgets"]["100"]
    assert {"ceiling", "cut_contexts", "misses", "evidence"} <= set(at100)
    row = data["questions"][0]["chunkers"]["structure"]["budgets"]["100"]
    assert {"cut", "ceiling", "limit"} <= set(row)


def test_the_table_explain_and_page_show_the_ceiling_and_the_split(tmp_path: Path) -> None:
    corpus = write_eval_corpus(tmp_path / "corpus")
    questions = write_questions(tmp_path / "q.jsonl", QUESTIONS)
    args = ["eval", "--corpus", str(corpus), "--questions", str(questions), "-q"]
    table = runner.invoke(APP, [*args, "--budget", "10,100"], env={"COLUMNS": "250"})
    assert table.exit_code == 0, table.output
    assert "ceiling@B" in table.stdout and "miss chunk/rank" in table.stdout
    assert "window" in table.stdout  # search's own context strategy, by default
    explain = runner.invoke(APP, [*args, "--explain", "sprinkler", "--budget", "10,100"])
    flat = " ".join(explain.stdout.split())
    assert "ceiling" in flat and ("chunking miss" in flat or "ranking miss" in flat)
    page = tmp_path / "eval.html"
    assert runner.invoke(APP, [*args, "--html", str(page)]).exit_code == 0
    html = page.read_text()
    assert "ceiling@B" in html and "miss chunk/rank" in html and "holds " in html
