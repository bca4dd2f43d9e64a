from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from policy_assistant.evaluate.locate import Span
from policy_assistant.evaluate.metrics import (
    complete,
    evidence_coverage,
    hit,
    hit_at_k,
    holds,
    is_relevant,
    merge_spans,
    pack_to_budget,
    recall,
)


@dataclass(frozen=True)
class Piece:
    source: str
    start: int
    end: int


@dataclass(frozen=True)
class Passage:
    source: str
    evidence_span: Span
    section_span: Span | None = None

    @property
    def target(self) -> Span:
        return self.section_span or self.evidence_span


def test_packing_stops_before_the_chunk_that_would_pass_the_budget() -> None:
    assert pack_to_budget([50, 40, 30], 100) == 2
    assert pack_to_budget([50, 50, 1], 100) == 2  # exactly the budget fits
    assert pack_to_budget([10, 20], 100) == 2  # everything fits


def test_packing_never_skips_ahead_to_a_smaller_chunk() -> None:
    assert pack_to_budget([50, 80, 10], 100) == 1


def test_a_first_chunk_bigger_than_the_budget_gives_an_empty_context() -> None:
    assert pack_to_budget([150, 10, 10], 100) == 0
    assert pack_to_budget([], 100) == 0


@given(st.lists(st.integers(1, 300), max_size=30), st.integers(1, 1000))
def test_packing_is_the_longest_prefix_within_the_budget(words: list[int], budget: int) -> None:
    n = pack_to_budget(words, budget)
    assert sum(words[:n]) <= budget
    assert n == len(words) or sum(words[: n + 1]) > budget


def test_relevance_is_overlap_with_the_section_span_in_the_same_document() -> None:
    passage = Passage("a.md", evidence_span=(120, 140), section_span=(100, 200))
    assert is_relevant(Piece("a.md", 0, 101), passage)  # touches the section's first character
    assert not is_relevant(Piece("a.md", 0, 100), passage)  # ends where the section starts
    assert not is_relevant(Piece("b.md", 100, 200), passage)
    assert is_relevant(Piece("a.md", 190, 300), passage)  # section, not quote, decides


def test_without_a_section_relevance_is_overlap_with_the_quote() -> None:
    passage = Passage("a.md", evidence_span=(120, 140))
    assert not is_relevant(Piece("a.md", 100, 120), passage)
    assert is_relevant(Piece("a.md", 139, 160), passage)


def test_complete_sees_a_quote_cut_across_two_chunks_that_hit_does_not() -> None:
    passage = Passage("a.md", evidence_span=(40, 60), section_span=(0, 100))
    context = [Piece("a.md", 0, 50), Piece("a.md", 50, 100)]
    assert hit(context, [passage])
    assert not complete(context, [passage])
    assert not any(holds(c, passage) for c in context)
    assert complete([*context, Piece("a.md", 30, 70)], [passage])


def test_complete_needs_every_quote() -> None:
    first = Passage("a.md", evidence_span=(0, 10))
    second = Passage("b.md", evidence_span=(0, 10))
    assert not complete([Piece("a.md", 0, 20)], [first, second])
    assert complete([Piece("a.md", 0, 20), Piece("b.md", 0, 10)], [first, second])
    assert not complete([Piece("a.md", 0, 20)], [])


def test_evidence_gives_partial_credit_by_characters() -> None:
    passage = Passage("a.md", evidence_span=(40, 60))
    assert evidence_coverage([Piece("a.md", 0, 50)], [passage]) == 0.5
    assert evidence_coverage([Piece("a.md", 0, 45), Piece("a.md", 55, 80)], [passage]) == 0.5
    assert evidence_coverage([Piece("b.md", 0, 100)], [passage]) == 0.0


def test_evidence_counts_overlapping_chunks_once_and_weighs_passages_by_length() -> None:
    short = Passage("a.md", evidence_span=(0, 10))
    long = Passage("b.md", evidence_span=(0, 30))
    context = [Piece("a.md", 0, 8), Piece("a.md", 2, 10), Piece("b.md", 0, 15)]
    assert evidence_coverage(context, [short, long]) == (10 + 15) / 40


def test_recall_is_the_share_of_passages_found() -> None:
    first = Passage("a.md", evidence_span=(0, 10))
    second = Passage("b.md", evidence_span=(0, 10))
    assert recall([Piece("a.md", 5, 20)], [first, second]) == 0.5
    assert recall([Piece("a.md", 5, 20), Piece("b.md", 0, 1)], [first, second]) == 1.0
    assert recall([], [first, second]) == 0.0


def test_hit_at_k_looks_only_at_the_first_k() -> None:
    passage = Passage("a.md", evidence_span=(0, 10))
    ranked = [Piece("b.md", 0, 10), Piece("b.md", 10, 20), Piece("a.md", 0, 10)]
    assert not hit_at_k(ranked, [passage], 2)
    assert hit_at_k(ranked, [passage], 3)


def test_merge_spans_joins_overlapping_and_touching_spans() -> None:
    assert merge_spans([(5, 8), (0, 3), (3, 4), (7, 10)]) == [(0, 4), (5, 10)]
