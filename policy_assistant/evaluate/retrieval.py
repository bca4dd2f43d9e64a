"""Rankings for eval: a BM25 index per chunker, filtered to each question's audience."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from policy_assistant.evaluate.questions import Question
from policy_assistant.index import build_bm25
from policy_assistant.index.tokenize import tokenize
from policy_assistant.records import Chunk

FIRST_DEPTH = 32
"""Results asked for first; the depth doubles until the largest budget is overfilled."""


class Retriever(Protocol):
    """Anything that ranks chunk rows for a question (the BM25 index, or a test's fake)."""

    def search(self, question: Question, n: int) -> list[tuple[int, float]]:
        """Return up to n (row, score) pairs, best first."""


class BM25Retriever:
    """BM25 over the chunks' full text, built exactly as the index command builds it."""

    def __init__(self, chunks: Sequence[Chunk], **bm25: Any) -> None:
        self.index = build_bm25(chunks, **bm25)
        # Public questions search public chunks only; the mask is built once per chunker.
        self.public: NDArray[np.bool_] = np.array([c.access == "public" for c in chunks], bool)
        self._terms: dict[str, list[str]] = {}

    def search(self, question: Question, n: int) -> list[tuple[int, float]]:
        """Return the top n rows the question's audience may see."""
        terms = self._terms.get(question.question)
        if terms is None:
            terms = self._terms[question.question] = tokenize(question.question)
        allowed = None if question.audience == "staff" else self.public
        return [(int(r), float(s)) for r, s in self.index.search(terms, n, allowed)]


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
