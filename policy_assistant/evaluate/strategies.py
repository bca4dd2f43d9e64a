"""Context strategies as an eval dimension beside the chunkers, scored with the same figures.

A strategy run ranks units and assembles each question's context at every budget exactly as
`search --budget` does (Index.context): the documents' units are written by the index's own
writer as a one-segment store (store/units.units_of), ranked by its one ranker
(context/unit_rank.py) and assembled by context/assembler.py's ranked_units and
assemble_ranked, the two halves of context_for; its outcomes are the chunker runs' records,
so summaries, paired comparisons and the report treat a strategy like a chunker:

- hit@k: a relevant unit among the first k unit hits; words@k: their words.
- hit, recall, complete, evidence at B: over the context's passages, as for chunks
  (complete@B: each quote whole inside one passage); `packed` counts passages, so an empty
  context is one with no passage.
- why a passage missed: `cut_by_budget` (a passage of the context holds part of the quote,
  not all of it), `below_budget` (a unit hit inside the quote was retrieved, but the context
  holds none of it), `not_retrieved` (no unit hit touches the quote).
- the ceiling at B: whether the passages the strategy could assemble, placed first, fit B and
  hold every quote whole: per quote the shortest run of units covering it, runs of one
  document that overlap or touch merged, each behind its prefix (evidence_words); a miss is a
  chunking miss when they do not fit B, else a ranking miss.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from policy_assistant.errors import UsageError
from policy_assistant.evaluate import metrics
from policy_assistant.evaluate.bootstrap import Bootstrap
from policy_assistant.evaluate.dense import ModelUnavailable, as_ranker, ranker_row
from policy_assistant.evaluate.questions import Passage, Question, QuestionSet
from policy_assistant.evaluate.report import ChunkerRun, EvalReport, compare, summarize
from policy_assistant.evaluate.score import (
    BELOW_BUDGET,
    COMPLETE,
    NOT_RETRIEVED,
    BudgetOutcome,
    ContextPart,
    PassageOutcome,
    QuestionOutcome,
    limit_of,
)
from policy_assistant.index.context.assembler import (
    DEFAULT_CONTEXT,
    ContextSettings,
    assemble_ranked,
    ranked_settings,
    ranked_units,
)
from policy_assistant.index.context.passages import (
    PATH_SEPARATOR,
    ContextPassage,
    passage_prefix_words,
)
from policy_assistant.index.context.unit_rank import SegmentedUnits
from policy_assistant.index.context.units import UnitSet, build_units
from policy_assistant.index.settings import BM25_DEFAULTS, UNIT_SETTINGS, RankerSettings
from policy_assistant.index.store.units import units_of
from policy_assistant.index.store.vectors import Embedding, window_scorer
from policy_assistant.records import Document

NAMED_STRATEGIES: dict[str, ContextSettings] = {
    "units": ContextSettings("units"),
    "window": DEFAULT_CONTEXT,
    "window-plain": ContextSettings("window", window=2, narrow_below=150),
    "window-1": ContextSettings("window", window=1),
    "window-2": ContextSettings("window", window=2, narrow_below=0),
    "automerge": ContextSettings("automerge"),
    "passages": ContextSettings("passages"),
    "window-dense": replace(DEFAULT_CONTEXT, dense_windows=1.0),
}
"""What `eval --strategy` can name: context strategies over units, beside the chunkers
("window" is what search --budget assembles; "window-plain" the same windows, every hit +-2,
ordered by the hits' own scores; "window-dense" window's hits ordered by score plus their
window's cosine to the question, each window embedded at query time: for dense and hybrid
units only: eval leaves its BM25 row out)."""

NEEDS_VECTORS = "it orders hits by their window's meaning, which needs --retriever dense or hybrid"
"""Why a strategy with dense_windows has no BM25 row."""


def runs_under(context: ContextSettings, ranker: str) -> bool:
    """Return whether a strategy can rank under ranker: ordering by a window's meaning needs
    a question vector, which BM25 has not."""
    return ranker != "bm25" or not context.dense_windows


DEFAULT_NAME = next(name for name, c in NAMED_STRATEGIES.items() if c == DEFAULT_CONTEXT)
"""The strategy `search --budget` assembles, which eval shows beside the default chunkers."""

CUT_BY_BUDGET = "cut_by_budget"
"""A passage of the context holds part of the quote but not all of it."""
STRATEGY_MISS_ORDER = (CUT_BY_BUDGET, BELOW_BUDGET, NOT_RETRIEVED)
"""When passages miss for different reasons, the question's reason is the first of these."""


@dataclass(frozen=True, slots=True)
class _Hit:
    """A unit hit as the metrics see it (source and span)."""

    source: str
    start: int
    end: int
    words: int
    access: str


@dataclass(frozen=True, slots=True)
class Strategy:
    """A named context strategy to evaluate."""

    name: str
    """The name the report shows (unique beside the chunkers')."""
    context: ContextSettings
    """How contexts are assembled."""
    weights: dict[str, float] | None = None
    """Field weights of the unit ranking (None: the defaults)."""
    bm25: dict[str, float] | None = None
    """Changes to the default BM25 settings of the four unit fields (k1, b; None: none),
    kept as given since the report records them so (BM25Settings.with_changes applies them)."""


def named_strategies(names: Sequence[str]) -> list[Strategy]:
    """Return the strategies of these NAMED_STRATEGIES names; UsageError for another name."""
    unknown = [n for n in names if n not in NAMED_STRATEGIES]
    if unknown:
        known = ", ".join(NAMED_STRATEGIES)
        raise UsageError(f"unknown strategy {unknown[0]!r}; choose from {known}")
    if len(set(names)) != len(names):
        raise UsageError("a strategy is named twice")
    return [Strategy(n, NAMED_STRATEGIES[n]) for n in names]


def unit_strategy_runs(
    documents: Sequence[Document], questions: Sequence[Question], names: Sequence[str],
    settings: Any, model: Any = None,
) -> tuple[list[ChunkerRun], list[str]]:  # fmt: skip
    """Return the named strategies' runs over the documents' units, one per strategy and
    ranker of settings.rankers (EvalSettings: k, budgets, rankers), and a line per row left
    out. The units of dense and hybrid rows carry vectors from model (an EvalModel), written
    by the index's own writer, as `ingest --embed` writes them."""
    named, runs, skipped = named_strategies(names), [], []
    for ranker in settings.rankers:
        chosen = [s for s in named if runs_under(s.context, ranker)]
        left = [ranker_row(s.name, ranker) for s in named if s not in chosen]
        skipped += [f"left out {row}: {NEEDS_VECTORS}" for row in left]
        if not chosen:
            continue
        try:
            index, encoder = strategy_units(documents, ranker, model)
        except ModelUnavailable as exc:
            skipped.append(
                f"left out {', '.join(ranker_row(s.name, ranker) for s in chosen)}: {exc}"
            )
            continue
        try:
            runs += strategy_runs(
                index, questions, chosen, settings.k, settings.budgets, ranker, encoder
            )
        finally:
            index.close()
    return runs, skipped


def strategy_units(documents: Sequence[Document], ranker: str, model: Any) -> tuple[Any, Any]:
    """Return the documents' units (with vectors for a vector ranker) and its query encoder."""
    if ranker == "bm25":
        return units_of(documents), None
    encoder = model.encoder()
    return units_of(documents, extra=Embedding(encoder, str(model.path)).unit_files), encoder


def strategy_runs(
    index: SegmentedUnits, questions: Sequence[Question], strategies: Sequence[Strategy],
    k: int, budgets: Sequence[int], ranker: str = "bm25", encoder: Any = None,
) -> list[ChunkerRun]:  # fmt: skip
    """Return one run per strategy, each question's context assembled at every budget."""
    runs = []
    chosen = None if ranker == "bm25" else as_ranker(ranker, units=True)
    for strategy in strategies:
        strategy.context.check()
        ranked = index.with_options(strategy.weights)
        outcomes = tuple(
            score_strategy(ranked, q, strategy.context, k, budgets, chosen, encoder)
            for q in questions
        )
        spec = {"name": strategy.name, "strategy": strategy.context.strategy}
        if chosen is not None:
            spec["ranker"] = ranker
        runs.append(ChunkerRun(ranker_row(strategy.name, ranker), spec, (), outcomes))
    return runs


def score_strategy(
    index: SegmentedUnits, question: Question, settings: ContextSettings, k: int,
    budgets: Sequence[int], ranker: RankerSettings | None = None, encoder: Any = None,
) -> QuestionOutcome:  # fmt: skip
    """Rank units for one question (by BM25, or by ranker with the encoder's query vector)
    and score its context at each budget."""
    vector = None if ranker is None else encoder.encode([question.question])[0]
    settings = ranked_settings(settings, ranker)
    text, audience = question.question, question.audience
    ranked = ranked_units(index, text, audience, settings, k, ranker, vector)
    units, pairs, _ = ranked
    cols = units.columns
    hits = [
        _Hit(
            units.docs[int(cols["unit_doc"][row])].source,
            int(cols["unit_start"][row]),
            int(cols["unit_end"][row]),
            int(cols["unit_words"][row]),
            units.docs[int(cols["unit_doc"][row])].access,
        )
        for row, _ in pairs
    ]
    passages = question.relevant
    leaks = sum(h.access != "public" for h in hits) if question.audience == "public" else 0
    windows = window_scorer(settings.dense_windows, encoder, vector)
    contexts = [assemble_ranked(ranked, b, settings, windows) for b in budgets]
    needed = evidence_words(units, passages)
    scored = (
        _score_context(passages, c, hits, b, needed) for c, b in zip(contexts, budgets, strict=True)
    )
    return QuestionOutcome(
        question=question,
        retrieved=(),
        hit_at_k=metrics.hit_at_k(hits, passages, k),
        words_at_k=sum(h.words for h in hits[:k]),
        leaks=leaks,
        budgets=tuple(scored),
    )


def _score_context(
    passages: Sequence[Passage], context: Sequence[ContextPassage], hits: Sequence[_Hit],
    budget: int, needed: int | None = None,
) -> BudgetOutcome:  # fmt: skip
    """Measure what one assembled context holds (needed: evidence_words of the passages)."""
    outcomes = tuple(_passage_status(p, context, hits) for p in passages)
    complete = all(o.status == COMPLETE for o in outcomes)
    ceiling = complete or (needed is not None and needed <= budget)
    hit = metrics.hit(context, passages)
    miss = None
    if not complete:
        statuses = {o.status for o in outcomes}
        miss = next(r for r in STRATEGY_MISS_ORDER if r in statuses)
    return BudgetOutcome(
        budget=budget,
        packed=len(context),
        words=sum(p.words for p in context),
        hit=hit,
        recall=metrics.recall(context, passages),
        complete=complete,
        evidence=metrics.evidence_coverage(context, passages),
        miss=miss,
        passages=outcomes,
        ceiling=ceiling,
        limit=limit_of(complete, ceiling),
        context=tuple(_part(p, passages) for p in context),
    )


def _part(passage: ContextPassage, quotes: Sequence[Passage]) -> ContextPart:
    """Return where one passage of a context lies and what it holds of the quotes."""
    holds = any(metrics.holds(passage, q) for q in quotes)
    quote = "whole" if holds else "part" if any(_touches(passage, q) for q in quotes) else ""
    section = PATH_SEPARATOR.join(passage.sections[0]) if passage.sections else ""
    return ContextPart(passage.source, passage.start, passage.end, passage.words,
                       passage.pages, section, quote)  # fmt: skip


def evidence_words(units: UnitSet, passages: Sequence[Passage]) -> int | None:
    """Return the fewest words of passages the strategy could assemble holding every quote.

    Per quote the shortest run of units covering it; runs of one document that overlap or
    touch are merged; each run counts its units' words and its prefix's. None when a quote lies
    outside every unit.
    """
    runs = [_unit_run(units, p) for p in passages]
    if not runs or None in runs:
        return None
    merged: list[tuple[int, int]] = []
    for first, last in sorted(r for r in runs if r is not None):
        if merged and first <= merged[-1][1] + 1 and _same_doc(units, first, merged[-1][0]):
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return sum(units.words(f, la) + passage_prefix_words(units, f) for f, la in merged)


def _same_doc(units: UnitSet, a: int, b: int) -> bool:
    doc = units.col("unit_doc")
    return bool(doc[a] == doc[b])


def _unit_run(units: UnitSet, passage: Passage) -> tuple[int, int] | None:
    """Return the first and last unit rows of the shortest run covering the passage's quote."""
    doc = next((i for i, d in enumerate(units.docs) if d.source == passage.source), None)
    if doc is None:
        return None
    rows = np.flatnonzero(units.col("unit_doc") == doc)
    start, end = passage.evidence_span
    starts, ends = units.col("unit_start")[rows], units.col("unit_end")[rows]
    first = int(np.searchsorted(ends, start, side="right"))  # first unit ending past the start
    last = int(np.searchsorted(starts, end, side="left")) - 1  # last unit starting before the end
    if first >= len(rows) or last < first:
        return None
    return int(rows[first]), int(rows[last])


def _passage_status(
    passage: Passage, context: Sequence[ContextPassage], hits: Sequence[_Hit]
) -> PassageOutcome:
    """Return whether a quote lies whole in one passage of the context, and if not, why."""
    if any(metrics.holds(p, passage) for p in context):
        return PassageOutcome(COMPLETE)
    if any(_touches(p, passage) for p in context):
        return PassageOutcome(CUT_BY_BUDGET)
    if any(_touches(h, passage) for h in hits):
        return PassageOutcome(BELOW_BUDGET)
    return PassageOutcome(NOT_RETRIEVED)


def _touches(found: metrics.Located, passage: Passage) -> bool:
    """Return whether a passage or hit shares a character with the quote."""
    span = passage.evidence_span
    return found.source == passage.source and metrics.overlaps((found.start, found.end), span)


def with_strategies(
    report: EvalReport,
    documents: Sequence[Document],
    question_set: QuestionSet,
    strategies: Sequence[Strategy],
    boot: Bootstrap,
    ranker: str = "bm25",
    model: Any = None,
) -> EvalReport:
    """Return the report with the strategies' runs beside its chunkers', compared pairwise,
    their units ranked by ranker (dense and hybrid embed with model, an EvalModel)."""
    budgets = tuple(report.settings["budgets"])
    indexes: dict[tuple[tuple[str, float], ...], SegmentedUnits] = {}
    found, encoder = [], None
    try:
        for strategy in strategies:
            params = tuple(sorted((strategy.bm25 or {}).items()))
            if params and ranker != "bm25":
                raise UsageError(f"{strategy.name}: BM25 settings are for the bm25 ranker")
            if params not in indexes:  # one store per BM25 setting, shared by its strategies
                if ranker == "bm25":
                    indexes[params] = units_of(documents, BM25_DEFAULTS.with_changes(dict(params)))
                else:
                    indexes[params], encoder = strategy_units(documents, ranker, model)
            found += strategy_runs(indexes[params], question_set.questions, [strategy],
                                   report.settings["k"], budgets, ranker, encoder)  # fmt: skip
        size = len(next(iter(indexes.values()))) if indexes else len(build_units(documents))
    finally:
        for index in indexes.values():
            index.close()
    runs = (*report.runs, *found)
    settings = {
        **report.settings,
        "strategies": [{"name": s.name, **_settings_dict(s)} for s in strategies],
        "units": size,
        "retrieval_units": UNIT_SETTINGS,
    }
    return replace(
        report,
        settings=settings,
        runs=runs,
        summaries=tuple(summarize(run, budgets, boot) for run in runs),
        comparisons=tuple(compare(runs, budgets, boot)),
    )


def _settings_dict(strategy: Strategy) -> dict[str, object]:
    """Return what the report records of a strategy: the settings that shape its contexts."""
    c = strategy.context
    out: dict[str, object] = {"strategy": c.strategy, "candidates": c.candidates}
    if c.strategy == "window":
        out["window"] = c.window
        if c.narrow_below:
            out["narrow_below"] = c.narrow_below
        if c.wide_hits:
            out.update(wide_hits=c.wide_hits, narrow=c.narrow)
        if c.maxp:
            out["maxp"] = c.maxp
    if c.strategy == "automerge":
        out.update(share=c.share, decay=c.decay)
    if strategy.weights is not None:
        out["weights"] = dict(strategy.weights)
    if strategy.bm25:
        out["bm25"] = dict(strategy.bm25)
    return out
