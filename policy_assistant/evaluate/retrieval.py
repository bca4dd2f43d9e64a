"""Rankings for eval: an index per variant, searched with each question's audience."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from policy_assistant.evaluate.questions import Question
from policy_assistant.index.chunks.search import Index, QueryEncoder, memory_index
from policy_assistant.index.chunks.segment import Vectors
from policy_assistant.index.settings import (
    BM25_DEFAULTS,
    BM25Settings,
    Ranker,
    RankerSettings,
    ranker_settings,
)
from policy_assistant.index.tokenize import tokenize
from policy_assistant.records import Chunk

FIRST_DEPTH = 32
"""Results asked for first; the depth doubles until the largest budget is overfilled."""


class Retriever(Protocol):
    """Anything that ranks chunk rows for a question (the BM25 index, or a test's fake)."""

    def search(self, question: Question, n: int) -> list[tuple[int, float]]:
        """Return up to n (row, score) pairs, best first."""


class IndexRetriever:
    """Eval's view of an Index: each question searched with its audience, through
    Index.search_rows (search_terms' ranking and checks, without building its hits).

    The access filter eval measures (`leaks`) is therefore the product's own: the mask and the
    second check of each returned record, shared by search_terms and search_rows.
    """

    def __init__(self, index: Index, ranker: Ranker | RankerSettings | None = None) -> None:
        self.index = index
        self.ranker = index.default_ranker() if ranker is None else ranker_settings(ranker)
        """What ranks: the index's default (search's) unless one is named."""
        self._terms: dict[str, list[str]] = {}

    def search(self, question: Question, n: int) -> list[tuple[int, float]]:
        """Return the top n rows the question's audience may see."""
        if self.ranker.uses_vectors:  # the text: the index encodes it (once) for dense
            return self.index.search_rows(question.question, n, question.audience, self.ranker)
        terms = self._terms.get(question.question)
        if terms is None:
            terms = self._terms[question.question] = tokenize(question.question)
        return self.index.search_rows(terms, n, question.audience, self.ranker)


def chunk_retriever(
    chunks: Sequence[Chunk],
    bm25: BM25Settings = BM25_DEFAULTS,
    vectors: Vectors | None = None,
    encoder: QueryEncoder | None = None,
    ranker: Ranker | RankerSettings | None = None,
) -> IndexRetriever:
    """Return a retriever over an in-memory index of chunks, rows in the order given;
    vectors (one per chunk) and a query encoder let it rank dense or hybrid."""
    return IndexRetriever(memory_index(chunks, bm25, vectors, encoder), ranker)


def candidates(
    retriever: Retriever, question: Question, words: Sequence[int], k: int, max_budget: int
) -> list[tuple[int, float]]:
    """Return the ranking down to k results and past the first that overfills max_budget.

    This depth is what every figure sees: a relevant chunk below it could not reach any
    budget's context (nor the top k), so it counts as not retrieved.
    """
    n = max(k, FIRST_DEPTH)
    while True:
        ranking = retriever.search(question, n)
        depth = needed_depth([words[row] for row, _ in ranking], k, max_budget)
        if depth is not None or len(ranking) < n:
            return ranking[: depth or len(ranking)]
        n *= 2


def needed_depth(sizes: Sequence[int], k: int, max_budget: int) -> int | None:
    """Return the shortest prefix holding k results and overfilling max_budget, if any."""
    total = 0
    for count, size in enumerate(sizes, 1):
        total += size
        if total > max_budget and count >= k:
            return count
    return None
