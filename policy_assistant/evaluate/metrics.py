"""Pure metric functions over ranked chunks and a question's relevant passages.

A chunk is anything with a source and a body span [start, end) in its document's text (a
Chunk, or a hand-built stand-in in tests); a passage has a source, a target span (its
section's, else its quote's) and an evidence span (its quote's).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from policy_assistant.evaluate.locate import Span
from policy_assistant.sentences import line_spans, sentence_spans
from policy_assistant.text import word_spans


class Located(Protocol):
    """A chunk as the metrics see it: which document, and where its body lies."""

    @property
    def source(self) -> str:
        """The document's source path."""

    @property
    def start(self) -> int:
        """Offset of the body's first character."""

    @property
    def end(self) -> int:
        """Offset one past the body's last character."""


class Target(Protocol):
    """A relevant passage as the metrics see it."""

    @property
    def source(self) -> str:
        """The document's source path."""

    @property
    def target(self) -> Span:
        """The span a chunk must overlap to be relevant."""

    @property
    def evidence_span(self) -> Span:
        """Where the evidence quote lies."""


def overlaps(a: Span, b: Span) -> bool:
    """Return whether two half-open spans share at least one character."""
    return a[0] < b[1] and b[0] < a[1]


def is_relevant(chunk: Located, passage: Target) -> bool:
    """Return whether the chunk's body overlaps the passage's section (or quote)."""
    return chunk.source == passage.source and overlaps((chunk.start, chunk.end), passage.target)


def holds(chunk: Located, passage: Target) -> bool:
    """Return whether the chunk's body contains the passage's whole quote."""
    start, end = passage.evidence_span
    return chunk.source == passage.source and chunk.start <= start and end <= chunk.end


def pack_to_budget(words: Sequence[int], budget: int) -> int:
    """Return how many leading results fit in `budget` words, stopping at the first that won't.

    A later, smaller result is never skipped to: the context is a prefix of the ranking. A
    first result larger than the budget gives 0 here; the scoring (score.py) then cuts that
    result to its first sentences that fit (cut_point), so a context is empty only when not
    even the result's first word fits.
    """
    total = 0
    for count, size in enumerate(words):
        total += size
        if total > budget:
            return count
    return len(words)


def cut_point(text: str, body_start: int, budget: int, measure: Callable[[str], int]) -> int:
    """Return where to end text so it fits `budget`: after its last whole sentence that fits.

    text is a result's prefix then its body (from body_start); measure counts the budget's unit
    in a text. The cut falls at the end of a sentence (or of a line: a table row, a list item)
    of the body, the latest whose text up to there fits; when not even the first sentence fits,
    at the end of the body's last word that fits. Returns body_start when nothing of the body
    fits.
    """
    ends = [e for s0, e0 in line_spans(text, body_start) for _, e in sentence_spans(text, s0, e0)]
    best = _last_fitting(text, ends, budget, measure)
    if best is not None:
        return best
    words = [end for _, end in word_spans(text, body_start)]
    best = _last_fitting(text, words, budget, measure)
    return body_start if best is None else best


def _last_fitting(
    text: str, ends: Sequence[int], budget: int, measure: Callable[[str], int]
) -> int | None:
    """Return the largest of the ascending ends whose text[:end] fits the budget, or None."""
    low, high, found = 0, len(ends) - 1, None
    while low <= high:  # measure grows with the end: bisect
        middle = (low + high) // 2
        if measure(text[: ends[middle]]) <= budget:
            found, low = ends[middle], middle + 1
        else:
            high = middle - 1
    return found


def hit(chunks: Iterable[Located], passages: Sequence[Target]) -> bool:
    """Return whether any chunk is relevant to any passage."""
    return any(is_relevant(c, p) for c in chunks for p in passages)


def hit_at_k(ranked: Sequence[Located], passages: Sequence[Target], k: int) -> bool:
    """Return whether a relevant chunk is among the first k."""
    return hit(ranked[:k], passages)


def recall(context: Sequence[Located], passages: Sequence[Target]) -> float:
    """Return the share of passages that at least one chunk of the context is relevant to."""
    if not passages:
        return 0.0
    found = sum(any(is_relevant(c, p) for c in context) for p in passages)
    return found / len(passages)


def complete(context: Sequence[Located], passages: Sequence[Target]) -> bool:
    """Return whether every passage's quote lies whole inside one chunk of the context."""
    return bool(passages) and all(any(holds(c, p) for c in context) for p in passages)


def merge_spans(spans: Iterable[Span]) -> list[Span]:
    """Return the union of spans as sorted, disjoint spans."""
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def covered(span: Span, union: Sequence[Span]) -> int:
    """Return how many characters of `span` the disjoint spans in `union` cover."""
    return sum(max(0, min(span[1], e) - max(span[0], s)) for s, e in union)


def evidence_coverage(context: Sequence[Located], passages: Sequence[Target]) -> float:
    """Return the share of all evidence characters that the context's bodies cover."""
    total = sum(p.evidence_span[1] - p.evidence_span[0] for p in passages)
    if total == 0:
        return 0.0
    unions: dict[str, list[Span]] = {}
    for source in {p.source for p in passages}:
        unions[source] = merge_spans((c.start, c.end) for c in context if c.source == source)
    return sum(covered(p.evidence_span, unions[p.source]) for p in passages) / total
