"""Score one question's ranking for one chunker: the metrics at k and at each budget, and why
a miss missed.

Packing: the results go into the context whole, in rank order, until the next would take it
past the budget (metrics.pack_to_budget); when the first result alone is over the budget, it is
cut to its first sentences that fit (metrics.cut_point: whole sentences or lines, else its first
words), as an assistant given one long passage would cut it, and the context counts as cut.

The ceiling at a budget is what perfect ranking would reach: whether some set of the row's
chunks, placed first, makes the context complete (smallest_cover). A miss is a chunking miss
when no such set fits the budget, and a ranking miss when one does but the ranking did not
bring it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import product

from policy_assistant.evaluate import metrics
from policy_assistant.evaluate.questions import Passage, Question
from policy_assistant.records import Chunk
from policy_assistant.text import count_words

COMPLETE = "complete"
"""The passage's quote lies whole in one chunk of the context."""
CUT = "cut"
"""No chunk of the index holds the quote whole: the chunker cut it across chunks."""
BELOW_BUDGET = "below_budget"
"""A chunk that would do was retrieved, but ranked below what the budget packs."""
NOT_RETRIEVED = "not_retrieved"
"""No chunk that would do was among the candidates retrieved."""
MISS_ORDER = (CUT, BELOW_BUDGET, NOT_RETRIEVED)
"""When passages miss for different reasons, the question's reason is the first of these."""
CHUNKING = "chunking"
"""A miss no ranking could avoid: no set of the row's chunks (or passages) fits B and holds
every quote whole."""
RANKING = "ranking"
"""A miss a perfect ranking would have avoided: such a set fits B, but was not ranked first."""
LIMITS = (CHUNKING, RANKING)
"""The two kinds of miss, in the order shown."""
COVER_LIMIT = 4096
"""Choices of holders tried exhaustively for a question's smallest cover; past it, greedy."""


@dataclass(frozen=True, slots=True)
class _Retrieved:
    """One result of a question's ranking."""

    rank: int
    """1-based rank."""
    chunk: Chunk
    """The chunk retrieved."""
    score: float
    """The retriever's score."""
    relevant: bool
    """Whether the body overlaps a relevant passage's section (or quote)."""
    holds: bool
    """Whether the body holds a relevant passage's quote whole."""


@dataclass(frozen=True, slots=True)
class PassageOutcome:
    """What became of one relevant passage at one budget."""

    status: str
    """COMPLETE, CUT, BELOW_BUDGET or NOT_RETRIEVED."""
    chunks: tuple[str, ...] = ()
    """For CUT: the IDs of the chunks that each hold a piece of the quote, in order."""


@dataclass(frozen=True, slots=True)
class ContextPart:
    """One passage of a strategy's context, where it lies and what it holds of the quotes."""

    source: str
    """The document's source path."""
    start: int
    """Offset of the body's first character in the document's text."""
    end: int
    """Offset one past the body's last character."""
    words: int
    """Its size in the budget unit, prefix included."""
    pages: tuple[int, ...]
    """PDF pages the body touches; empty for other formats."""
    section: str
    """The heading path of the section the body starts in (" > " between headings)."""
    quote: str
    """"whole" when the body holds a quote whole, "part" when it shares characters with one,
    else ""."""


@dataclass(frozen=True, slots=True)
class BudgetOutcome:
    """One question's context at one budget, and what it holds."""

    budget: int
    """The budget, in the run's budget unit (words unless tokens were asked for)."""
    packed: int
    """How many leading results the context holds."""
    words: int
    """Size of the context in the budget unit, prefixes included."""
    hit: bool
    """Whether a chunk of the context is relevant."""
    recall: float
    """Share of the passages that a chunk of the context is relevant to."""
    complete: bool
    """Whether every quote lies whole in one chunk of the context."""
    evidence: float
    """Share of the quotes' characters the context covers."""
    miss: str | None
    """None when complete, else why not: CUT, BELOW_BUDGET or NOT_RETRIEVED."""
    passages: tuple[PassageOutcome, ...]
    """What became of each passage, in the question's order."""
    cut: bool = False
    """Whether the context is the first result cut to the budget (it alone was over B)."""
    ceiling: bool = False
    """Whether perfect ranking would make this context complete (see the module)."""
    limit: str | None = None
    """None when complete, else CHUNKING or RANKING."""
    context: tuple[ContextPart, ...] = ()
    """A context strategy's passages, in context order (a chunker's are its first results)."""


@dataclass(frozen=True, slots=True)
class QuestionOutcome:
    """One question's ranking for one chunker, scored."""

    question: Question
    """The question."""
    retrieved: tuple[_Retrieved, ...]
    """The candidates, in rank order."""
    hit_at_k: bool
    """Whether a relevant chunk is among the first k."""
    words_at_k: int
    """Words in the first k results."""
    leaks: int
    """Results a public question should never have seen (access other than public)."""
    budgets: tuple[BudgetOutcome, ...]
    """The context at each budget, smallest budget first."""


class Layout:
    """The chunks of one chunker grouped by document, to see which hold each quote.

    sizes are the chunks' sizes in the budget unit (default: their words), measure counts that
    unit in a text (default: words).
    """

    def __init__(
        self,
        chunks: Sequence[Chunk],
        sizes: Sequence[int] | None = None,
        measure: Callable[[str], int] = count_words,
    ) -> None:
        self.by_source: dict[str, list[Chunk]] = {}
        for chunk in chunks:
            self.by_source.setdefault(chunk.source, []).append(chunk)
        counts = [c.words for c in chunks] if sizes is None else sizes
        self.size = {c.id: n for c, n in zip(chunks, counts, strict=True)}
        self.measure = measure
        self._cache: dict[tuple[str, int, int], tuple[bool, tuple[str, ...]]] = {}
        self._fitted: dict[tuple[str, int], tuple[Chunk, int] | None] = {}

    def fit_first(self, chunk: Chunk, budget: int) -> tuple[Chunk, int] | None:
        """Return the chunk cut to its first sentences that fit `budget`, and their size."""
        key = (chunk.id, budget)
        if key not in self._fitted:
            body = chunk.prefix_length
            end = metrics.cut_point(chunk.text, body, budget, self.measure)
            text = chunk.text[:end]
            cut = replace(chunk, end=chunk.start + end - body, text=text, words=count_words(text))
            self._fitted[key] = (cut, self.measure(text)) if end > body else None
        return self._fitted[key]

    def holders(self, passage: Passage) -> list[Chunk]:
        """Return the chunks that hold the passage's quote whole."""
        return [c for c in self.by_source.get(passage.source, []) if metrics.holds(c, passage)]

    def ceiling(self, passages: Sequence[Passage], budget: int) -> bool:
        """Return whether some of the chunks, placed first, fit `budget` and hold every quote.

        Either whole chunks, the smallest cover of the quotes by size (smallest_cover), or one
        chunk holding them all, cut to the budget as a first result is.
        """
        holders = [self.holders(p) for p in passages]
        if not passages or not all(holders):
            return False
        sized = [[(c.id, self.size[c.id]) for c in found] for found in holders]
        if smallest_cover(sized) <= budget:
            return True
        shared = set.intersection(*({c.id for c in found} for found in holders))
        firsts = [c for c in holders[0] if c.id in shared]
        fitted = [self.fit_first(c, budget) for c in firsts]
        return any(f is not None and metrics.complete([f[0]], passages) for f in fitted)

    def cut(self, passage: Passage) -> tuple[bool, tuple[str, ...]]:
        """Return whether no chunk holds the quote whole, and the chunks holding its pieces."""
        key = (passage.source, *passage.evidence_span)
        if key not in self._cache:
            chunks = self.by_source.get(passage.source, [])
            held = any(metrics.holds(c, passage) for c in chunks)
            span = passage.evidence_span
            pieces = tuple(c.id for c in chunks if metrics.overlaps((c.start, c.end), span))
            self._cache[key] = (not held, () if held else pieces)
        return self._cache[key]


def smallest_cover(holders: Sequence[Sequence[tuple[str, int]]]) -> int:
    """Return the smallest total size of chunks holding every quote: one (id, size) per quote.

    Exhaustive up to COVER_LIMIT choices (a chunk chosen twice counts once), else greedy: each
    quote in turn takes its smallest holder, free when an earlier quote already took it.
    """
    choices = 1
    for found in holders:
        choices *= len(found)
    if choices <= COVER_LIMIT:
        return min(sum(dict(choice).values()) for choice in product(*holders))
    taken: dict[str, int] = {}
    for found in holders:
        if not any(chunk_id in taken for chunk_id, _ in found):
            chunk_id, size = min(found, key=lambda pair: pair[1])
            taken[chunk_id] = size
    return sum(taken.values())


def score_question(
    question: Question,
    ranking: Sequence[tuple[int, float]],
    chunks: Sequence[Chunk],
    layout: Layout,
    k: int,
    budgets: Sequence[int],
    sizes: Sequence[int] | None = None,
) -> QuestionOutcome:
    """Score a ranking of chunk rows against the question's passages (sizes: budget units)."""
    passages = question.relevant
    retrieved = tuple(
        _Retrieved(
            rank=rank,
            chunk=chunks[row],
            score=score,
            relevant=any(metrics.is_relevant(chunks[row], p) for p in passages),
            holds=any(metrics.holds(chunks[row], p) for p in passages),
        )
        for rank, (row, score) in enumerate(ranking, 1)
    )
    ranked = [r.chunk for r in retrieved]
    ranked_sizes = [c.words for c in ranked] if sizes is None else [sizes[r] for r, _ in ranking]
    leaks = sum(c.access != "public" for c in ranked) if question.audience == "public" else 0
    return QuestionOutcome(
        question=question,
        retrieved=retrieved,
        hit_at_k=metrics.hit_at_k(ranked, passages, k),
        words_at_k=sum(c.words for c in ranked[:k]),
        leaks=leaks,
        budgets=tuple(_score_budget(passages, ranked, layout, b, ranked_sizes) for b in budgets),
    )


def _score_budget(
    passages: Sequence[Passage],
    ranked: Sequence[Chunk],
    layout: Layout,
    budget: int,
    sizes: Sequence[int] | None = None,
) -> BudgetOutcome:
    """Pack the ranking into `budget` (words, or the sizes given) and measure what it holds."""
    sizes = [c.words for c in ranked] if sizes is None else sizes
    packed = metrics.pack_to_budget(sizes, budget)
    context: Sequence[Chunk] = ranked[:packed]
    words = sum(sizes[:packed])
    fitted = layout.fit_first(ranked[0], budget) if not packed and ranked else None
    if fitted is not None:
        context, words, packed = [fitted[0]], fitted[1], 1
    hit = metrics.hit(context, passages)
    outcomes = tuple(_passage_outcome(p, context, ranked, layout) for p in passages)
    complete = all(o.status == COMPLETE for o in outcomes)
    ceiling = complete or layout.ceiling(passages, budget)
    return BudgetOutcome(
        budget=budget,
        packed=packed,
        words=words,
        hit=hit,
        recall=metrics.recall(context, passages),
        complete=complete,
        evidence=metrics.evidence_coverage(context, passages),
        miss=None if complete else _miss_reason(hit, passages, ranked, outcomes),
        passages=outcomes,
        cut=fitted is not None,
        ceiling=ceiling,
        limit=limit_of(complete, ceiling),
    )


def limit_of(complete: bool, ceiling: bool) -> str | None:
    """Return what limited a context: None when complete, else CHUNKING or RANKING."""
    if complete:
        return None
    return RANKING if ceiling else CHUNKING


def _passage_outcome(
    passage: Passage, context: Sequence[Chunk], ranked: Sequence[Chunk], layout: Layout
) -> PassageOutcome:
    """Return whether a passage's quote made it whole into the context, and if not, why."""
    if any(metrics.holds(c, passage) for c in context):
        return PassageOutcome(COMPLETE)
    is_cut, pieces = layout.cut(passage)
    if is_cut:
        return PassageOutcome(CUT, pieces)
    if any(metrics.holds(c, passage) for c in ranked):
        return PassageOutcome(BELOW_BUDGET)
    return PassageOutcome(NOT_RETRIEVED)


def _miss_reason(
    hit: bool,
    passages: Sequence[Passage],
    ranked: Sequence[Chunk],
    outcomes: Sequence[PassageOutcome],
) -> str:
    """Return why a question's context is not complete.

    Without a relevant chunk in the context, the reason is about relevance (was a relevant
    chunk retrieved at all?); with one, it is the first of MISS_ORDER among the passages.
    """
    if not hit:
        return BELOW_BUDGET if metrics.hit(ranked, passages) else NOT_RETRIEVED
    statuses = {o.status for o in outcomes}
    return next(reason for reason in MISS_ORDER if reason in statuses)
