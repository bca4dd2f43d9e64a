from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from support.eval_corpus import QUESTIONS, parsed_corpus, write_questions

from policy_assistant.evaluate.questions import Passage, Question, load_questions
from policy_assistant.evaluate.report import outcome_line
from policy_assistant.evaluate.retrieval import candidates, needed_depth
from policy_assistant.evaluate.run import EvalSettings, evaluate
from policy_assistant.evaluate.score import (
    BELOW_BUDGET,
    COMPLETE,
    CUT,
    NOT_RETRIEVED,
    Layout,
    score_question,
)
from policy_assistant.records import Chunk

TEXT = "alpha beta gamma delta. " * 10


def chunk(name: str, start: int, end: int, words: int, source: str = "a.md") -> Chunk:
    return Chunk(
        id=name,
        source=source,
        title="A",
        version="1",
        access="staff" if source.startswith("staff") else "public",
        language="en",
        chunker={"name": "hand"},
        position=0,
        start=start,
        end=end,
        pages=(),
        sections=(),
        text=TEXT[start:end],
        words=words,
    )


def question(*passages: Passage, audience: str = "public") -> Question:
    return Question("q", "what?", audience, passages)


def passage(start: int, end: int, section: tuple[int, int] | None = None) -> Passage:
    return Passage("a.md", "S" if section else None, TEXT[start:end], (start, end), section)


# Four chunks over one document: [0,50) [50,100) [100,150) [150,200).
CHUNKS = [chunk(f"c{i}", 50 * i, 50 * (i + 1), 40) for i in range(4)]


def test_a_quote_inside_a_packed_chunk_is_complete() -> None:
    q = question(passage(60, 90))
    outcome = score_question(q, [(1, 3.0), (0, 2.0)], CHUNKS, Layout(CHUNKS), 5, [40, 80])
    at40, at80 = outcome.budgets
    assert (at40.packed, at40.words, at40.complete, at40.miss) == (1, 40, True, None)
    assert at80.packed == 2 and at80.passages[0].status == COMPLETE
    assert outcome.retrieved[0].relevant and outcome.retrieved[0].holds


def test_a_quote_across_two_chunks_is_cut_and_names_the_pieces() -> None:
    q = question(passage(40, 60))
    outcome = score_question(q, [(0, 3.0), (1, 2.0)], CHUNKS, Layout(CHUNKS), 5, [40, 80])
    at40, at80 = outcome.budgets
    assert at80.hit and not at80.complete
    assert at80.evidence == 1.0  # every character is there, just not in one piece
    assert at80.miss == CUT
    assert at80.passages[0].chunks == ("c0", "c1")
    assert at40.evidence == 0.5


def test_a_relevant_chunk_ranked_past_the_budget_is_below_budget() -> None:
    q = question(passage(160, 170))
    outcome = score_question(q, [(0, 3.0), (3, 2.0)], CHUNKS, Layout(CHUNKS), 1, [40, 80])
    at40, at80 = outcome.budgets
    assert not outcome.hit_at_k
    assert (at40.hit, at40.miss, at40.passages[0].status) == (False, BELOW_BUDGET, BELOW_BUDGET)
    assert at80.complete


def test_a_relevant_chunk_not_in_the_ranking_is_not_retrieved() -> None:
    q = question(passage(160, 170))
    outcome = score_question(q, [(0, 3.0), (1, 2.0)], CHUNKS, Layout(CHUNKS), 5, [400])
    assert outcome.budgets[0].miss == NOT_RETRIEVED
    assert outcome.budgets[0].passages[0].status == NOT_RETRIEVED


def test_a_hit_on_the_section_can_still_miss_the_quote() -> None:
    # The section spans the whole document; the chunk that holds the quote is ranked second.
    q = question(passage(160, 170, section=(0, 200)))
    outcome = score_question(q, [(0, 3.0), (3, 2.0)], CHUNKS, Layout(CHUNKS), 5, [40])
    (at40,) = outcome.budgets
    assert at40.hit and at40.recall == 1.0 and not at40.complete
    assert at40.miss == BELOW_BUDGET


def test_an_empty_context_holds_nothing() -> None:
    big = [chunk("big", 0, 200, 500)]
    outcome = score_question(question(passage(0, 10)), [(0, 1.0)], big, Layout(big), 5, [0])
    (at0,) = outcome.budgets
    assert (at0.packed, at0.words, at0.hit, at0.miss, at0.cut) == (0, 0, False, BELOW_BUDGET, False)
    assert outcome.words_at_k == 500 and outcome.hit_at_k


class Ranked:
    """A fake retriever: the given rows in order for every question, counting its calls."""

    def __init__(self, order: Sequence[int], public: Sequence[bool] | None = None) -> None:
        self.order = list(order)
        self.public = public
        self.calls: list[int] = []

    def search(self, q: Question, n: int) -> list[tuple[int, float]]:
        self.calls.append(n)
        rows = self.order
        if self.public is not None and q.audience == "public":
            rows = [r for r in rows if self.public[r]]
        return [(r, 1.0 / (1 + rank)) for rank, r in enumerate(rows)][:n]


def test_candidates_go_past_the_largest_budget_and_at_least_to_k() -> None:
    words = [30] * 200
    fake = Ranked(range(200))
    ranking = candidates(fake, question(passage(0, 1)), words, k=5, max_budget=400)
    assert len(ranking) == 14  # 13 chunks hold 390 words; the 14th overfills 400
    assert fake.calls == [32]
    assert len(candidates(fake, question(passage(0, 1)), words, k=20, max_budget=100)) == 20
    assert needed_depth([500], 1, 100) == 1
    assert needed_depth([10, 10], 1, 100) is None


def test_candidates_ask_for_more_until_the_budget_is_overfilled() -> None:
    fake = Ranked(range(1000))
    ranking = candidates(fake, question(passage(0, 1)), [1] * 1000, k=5, max_budget=100)
    assert fake.calls == [32, 64, 128]
    assert len(ranking) == 101
    short = Ranked(range(10))
    assert len(candidates(short, question(passage(0, 1)), [1] * 10, k=5, max_budget=100)) == 10


def test_leaks_are_counted_from_what_the_retriever_returned(tmp_path: Path) -> None:
    documents = parsed_corpus(tmp_path / "corpus")
    question_set = load_questions(write_questions(tmp_path / "q.jsonl", QUESTIONS), documents)
    settings = EvalSettings(chunkers=("fixed",), chunker_options={"size": 20}, budgets=(100,))
    made: list[list[Chunk]] = []

    def leaky(chunks: Sequence[Chunk]) -> Ranked:
        # Staff chunks first, so every public question sees them all within its budget.
        made.append(list(chunks))
        return Ranked(sorted(range(len(chunks)), key=lambda r: chunks[r].access != "staff"))

    report = evaluate(documents, question_set, settings, make_retriever=leaky)
    staff = sum(c.access == "staff" for c in made[0])
    public_questions = [q["id"] for q in QUESTIONS if q["audience"] == "public"]
    (summary,) = report.summaries
    assert staff > 0
    assert summary.leaks == staff * len(public_questions)
    assert summary.leaked_questions == tuple(public_questions)
    assert report.leaks == summary.leaks

    def masked(chunks: Sequence[Chunk]) -> Ranked:
        order = sorted(range(len(chunks)), key=lambda r: chunks[r].access != "staff")
        return Ranked(order, [c.access == "public" for c in chunks])

    assert evaluate(documents, question_set, settings, make_retriever=masked).leaks == 0


def test_outcome_lines_say_complete_or_why_not() -> None:
    below = question(passage(160, 170))
    outcome = score_question(below, [(0, 3.0), (3, 2.0)], CHUNKS, Layout(CHUNKS), 1, [40, 80])
    assert outcome_line(outcome) == "k=miss 40=below_budget 80=complete"
    cut = question(passage(40, 60))
    outcome = score_question(cut, [(0, 3.0), (1, 2.0)], CHUNKS, Layout(CHUNKS), 5, [40, 80])
    assert outcome_line(outcome) == "k=hit 40=hit,cut 80=hit,cut"


def test_budgets_are_kept_in_one_order_whatever_order_they_are_given_in(tmp_path: Path) -> None:
    documents = parsed_corpus(tmp_path / "corpus")
    question_set = load_questions(write_questions(tmp_path / "q.jsonl", QUESTIONS), documents)
    settings = EvalSettings(chunkers=("structure",), budgets=(400, 30, 400, 100))
    assert settings.budgets == (30, 100, 400)

    def first_rows(chunks: Sequence[Chunk]) -> Ranked:
        return Ranked(range(len(chunks)), [c.access == "public" for c in chunks])

    report = evaluate(documents, question_set, settings, make_retriever=first_rows)
    (summary,) = report.summaries
    assert [b.budget for b in summary.budgets] == [30, 100, 400]
    for outcome in report.runs[0].outcomes:
        assert [b.budget for b in outcome.budgets] == [30, 100, 400]
        assert [b.words <= b.budget for b in outcome.budgets] == [True, True, True]
