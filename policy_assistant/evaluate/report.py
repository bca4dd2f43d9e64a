"""The eval report: per-chunker figures with intervals, paired comparisons, per-question rows.

Figures are named `hit@k`, and `hit@B`, `recall@B`, `complete@B`, `evidence@B` for each budget
B; all are shares of questions in [0, 1], higher is better, and all are gated by a baseline.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
from numpy.typing import NDArray

from policy_assistant.codec import to_json_dict
from policy_assistant.evaluate.bootstrap import Bootstrap, Interval
from policy_assistant.evaluate.questions import InvalidQuestion, Question
from policy_assistant.evaluate.score import LIMITS, BudgetOutcome, QuestionOutcome
from policy_assistant.records import Chunk

BUDGET_METRICS = ("hit", "recall", "complete", "evidence")
"""Figures measured at each budget, in the order they are shown."""
SCORE_DIGITS = 4
"""Retrieval scores in the report are rounded to this many decimals."""


def metric_name(metric: str, budget: int | None) -> str:
    """Return a figure's name: `hit@k`, or `complete@200`."""
    return f"{metric}@{'k' if budget is None else budget}"


@dataclass(frozen=True, slots=True)
class ChunkerRun:
    """One chunker's chunks and every question's outcome with them."""

    name: str
    """The chunker's registry name."""
    spec: dict[str, Any]
    """The chunker's name and effective settings."""
    chunks: tuple[Chunk, ...]
    """The chunks it made of the corpus."""
    outcomes: tuple[QuestionOutcome, ...]
    """One outcome per question, in question order."""


@dataclass(frozen=True, slots=True)
class _BudgetSummary:
    """One chunker's figures at one budget."""

    budget: int
    """The budget in words."""
    figures: dict[str, Interval]
    """hit, recall, complete and evidence, each with its interval."""
    empty_contexts: int
    """Questions whose context is empty: the first result alone is over the budget."""
    context_words: Interval
    """Median words in the context."""
    cut_contexts: int
    """Questions whose context is the first result cut to the budget."""
    ceiling: Interval
    """complete@B if ranking were perfect: the share of questions whose ceiling is reached."""
    misses: dict[str, int]
    """Incomplete contexts by what limited them: chunking, ranking (score.LIMITS)."""


@dataclass(frozen=True, slots=True)
class ChunkerSummary:
    """One chunker's aggregate figures."""

    name: str
    """The chunker's registry name."""
    spec: dict[str, Any]
    """The chunker's name and effective settings."""
    chunks: int
    """How many chunks it made."""
    hit_at_k: Interval
    """Share of questions with a relevant chunk in the top k."""
    words_at_k: Interval
    """Median words in the top k: more text finds more evidence."""
    leaks: int
    """Results of access other than public returned to public questions; must be 0."""
    leaked_questions: tuple[str, ...]
    """IDs of the questions that saw them."""
    budgets: tuple[_BudgetSummary, ...]
    """Figures at each budget, smallest first."""

    def figure(self, name: str) -> Interval:
        """Return a gated figure by name (`hit@k`, `complete@200`)."""
        if name == "hit@k":
            return self.hit_at_k
        metric, _, budget = name.partition("@")
        for summary in self.budgets:
            if str(summary.budget) == budget:
                return summary.figures[metric]
        raise KeyError(name)


@dataclass(frozen=True, slots=True)
class Comparison:
    """A paired difference between two chunkers on one figure."""

    metric: str
    """The figure's name."""
    a: str
    """The first chunker."""
    b: str
    """The second chunker."""
    difference: Interval
    """a minus b, with the interval of the paired bootstrap."""

    @property
    def inside(self) -> bool:
        """Whether zero lies in the interval: the data cannot tell the two apart."""
        return self.difference.contains(0.0)


def per_question(outcomes: Sequence[QuestionOutcome], budgets: Sequence[int]) -> dict[str, Any]:
    """Return each gated figure as a vector over questions."""
    vectors: dict[str, NDArray[np.float64]] = {
        "hit@k": np.array([o.hit_at_k for o in outcomes], dtype=np.float64)
    }
    for i, budget in enumerate(budgets):
        for metric in BUDGET_METRICS:
            values = [float(getattr(o.budgets[i], metric)) for o in outcomes]
            vectors[metric_name(metric, budget)] = np.array(values, dtype=np.float64)
    return vectors


def summarize(run: ChunkerRun, budgets: Sequence[int], boot: Bootstrap) -> ChunkerSummary:
    """Aggregate one chunker's outcomes, each figure with its bootstrap interval."""
    outcomes = run.outcomes
    vectors = per_question(outcomes, budgets)
    figures = dict(zip(vectors, boot.means(np.column_stack(list(vectors.values()))), strict=True))
    ceilings = _ceiling_intervals(outcomes, len(budgets), boot)
    summaries = []
    for i, budget in enumerate(budgets):
        at: list[BudgetOutcome] = [o.budgets[i] for o in outcomes]
        summaries.append(
            _BudgetSummary(
                budget=budget,
                figures={m: figures[metric_name(m, budget)] for m in BUDGET_METRICS},
                empty_contexts=sum(b.packed == 0 for b in at),
                context_words=boot.median(np.array([b.words for b in at], dtype=np.float64)),
                cut_contexts=sum(b.cut for b in at),
                ceiling=ceilings[i],
                misses={limit: sum(b.limit == limit for b in at) for limit in LIMITS},
            )
        )
    leaked = tuple(o.question.id for o in outcomes if o.leaks)
    return ChunkerSummary(
        name=run.name,
        spec=run.spec,
        chunks=len(run.chunks),
        hit_at_k=figures["hit@k"],
        words_at_k=boot.median(np.array([o.words_at_k for o in outcomes], dtype=np.float64)),
        leaks=sum(o.leaks for o in outcomes),
        leaked_questions=leaked,
        budgets=tuple(summaries),
    )


def _ceiling_intervals(
    outcomes: Sequence[QuestionOutcome], budgets: int, boot: Bootstrap
) -> list[Interval]:
    """Return the ceiling at each budget with its interval (not gated, not compared)."""
    if not budgets:
        return []
    columns = [[float(o.budgets[i].ceiling) for o in outcomes] for i in range(budgets)]
    return boot.means(np.array(columns, dtype=np.float64).T)


def compare(
    runs: Sequence[ChunkerRun], budgets: Sequence[int], boot: Bootstrap
) -> list[Comparison]:
    """Return the paired difference of every pair of chunkers on every gated figure."""
    vectors = {run.name: per_question(run.outcomes, budgets) for run in runs}
    pairs = [
        (metric, a, b)
        for a, b in combinations([run.name for run in runs], 2)
        for metric in vectors[a]
    ]
    if not pairs:
        return []
    # Every paired difference in one pass over the resamples (Bootstrap.means).
    differences = np.column_stack([vectors[a][m] - vectors[b][m] for m, a, b in pairs])
    intervals = boot.means(differences)
    return [Comparison(m, a, b, d) for (m, a, b), d in zip(pairs, intervals, strict=True)]


@dataclass(frozen=True, slots=True)
class EvalReport:
    """Everything one eval run measured."""

    settings: dict[str, Any]
    """What the figures depend on: corpus, questions, chunkers, budgets, k, ranker, seed."""
    questions: tuple[Question, ...]
    """The questions, in file order."""
    runs: tuple[ChunkerRun, ...]
    """Per chunker: chunks and outcomes."""
    summaries: tuple[ChunkerSummary, ...]
    """Per chunker: aggregate figures."""
    comparisons: tuple[Comparison, ...]
    """Every pair of chunkers on every gated figure."""
    warnings: tuple[str, ...] = ()
    """What the user should know (parsing, questions left out); not part of the JSON form."""
    invalid: tuple[InvalidQuestion, ...] = ()
    """Questions of the file left out as invalid, each with its reason."""

    @property
    def leaks(self) -> int:
        """Leaks over all chunkers; any leak fails the run."""
        return sum(s.leaks for s in self.summaries)

    def to_dict(self, detail: bool = True) -> dict[str, Any]:
        """Return the JSON form; without detail, only settings, figures and status lines.

        The short form is the one to commit as a baseline: a few hundred lines, and a diff
        shows which questions changed. The detail adds every pairwise comparison and, per
        question, what was retrieved and packed.
        """
        # Hand-written: figures summarized and outcomes keyed by question, a short and a long form.
        out: dict[str, Any] = {
            "settings": self.settings,
            "chunkers": {s.name: _summary_dict(s) for s in self.summaries},
            "outcomes": {
                q.id: {run.name: outcome_line(run.outcomes[i]) for run in self.runs}
                for i, q in enumerate(self.questions)
            },
        }
        if self.invalid:
            # Only when some were left out: a clean run's JSON (and baseline) keeps its form.
            out["invalid_questions"] = [
                {"line": q.line, "id": q.id, "reason": q.reason} for q in self.invalid
            ]
        if detail:
            out["comparisons"] = [comparison_dict(c) for c in self.comparisons]
            out["questions"] = [
                _question_dict(i, q, self.runs) for i, q in enumerate(self.questions)
            ]
        return out


def _budget_status(outcome: BudgetOutcome) -> str:
    """Return one word for a context: complete, hit,<why not complete>, or <why no hit>."""
    if outcome.miss is None:
        return "complete"
    return f"hit,{outcome.miss}" if outcome.hit else outcome.miss


def outcome_line(outcome: QuestionOutcome) -> str:
    """Return a question's outcome as one line: `k=hit 100=hit,cut 200=complete`."""
    parts = [f"k={'hit' if outcome.hit_at_k else 'miss'}"]
    parts += [f"{b.budget}={_budget_status(b)}" for b in outcome.budgets]
    return " ".join(parts)


def _summary_dict(summary: ChunkerSummary) -> dict[str, Any]:
    """Return one chunker's aggregate figures as JSON."""
    budgets = {
        str(b.budget): {
            **{m: b.figures[m].to_dict() for m in BUDGET_METRICS},
            "empty_contexts": b.empty_contexts,
            "context_words_median": b.context_words.to_dict(),
            "cut_contexts": b.cut_contexts,
            "ceiling": b.ceiling.to_dict(),
            "misses": dict(b.misses),
        }
        for b in summary.budgets
    }
    return {
        "spec": summary.spec,
        "chunks": summary.chunks,
        "hit@k": summary.hit_at_k.to_dict(),
        "words@k_median": summary.words_at_k.to_dict(),
        "leaks": summary.leaks,
        "leaked_questions": list(summary.leaked_questions),
        "budgets": budgets,
    }


def comparison_dict(comparison: Comparison) -> dict[str, Any]:
    """Return one paired comparison as JSON."""
    return {
        "metric": comparison.metric,
        "a": comparison.a,
        "b": comparison.b,
        "difference": comparison.difference.to_dict(),
        "inside_interval": comparison.inside,
    }


def _question_dict(index: int, question: Question, runs: Sequence[ChunkerRun]) -> dict[str, Any]:
    """Return one question's row: its passages and, per chunker, what was retrieved and why."""
    return {
        "id": question.id,
        "question": question.question,
        "audience": question.audience,
        "tags": list(question.tags),
        "relevant": [
            {
                "source": p.source,
                "section": p.section,
                "evidence": p.evidence,
                "evidence_span": list(p.evidence_span),
                "section_span": list(p.section_span) if p.section_span else None,
            }
            for p in question.relevant
        ],
        "chunkers": {run.name: _outcome_dict(run.outcomes[index]) for run in runs},
    }


def _outcome_dict(outcome: QuestionOutcome) -> dict[str, Any]:
    """Return one question's outcome for one chunker as JSON."""
    return {
        "hit@k": outcome.hit_at_k,
        "words@k": outcome.words_at_k,
        "leaks": outcome.leaks,
        "retrieved": [
            {
                "rank": r.rank,
                "chunk": r.chunk.id,
                "source": r.chunk.source,
                "position": r.chunk.position,
                "access": r.chunk.access,
                "words": r.chunk.words,
                "score": round(r.score, SCORE_DIGITS),
                "relevant": r.relevant,
                "holds_evidence": r.holds,
            }
            for r in outcome.retrieved
        ],
        "budgets": {str(b.budget): _budget_dict(b) for b in outcome.budgets},
    }


def _budget_dict(outcome: BudgetOutcome) -> dict[str, Any]:
    """Return one question's context at one budget as JSON."""
    return {
        "packed": outcome.packed,
        "words": outcome.words,
        "hit": outcome.hit,
        "recall": round(outcome.recall, 6),
        "complete": outcome.complete,
        "evidence": round(outcome.evidence, 6),
        "miss": outcome.miss,
        "cut": outcome.cut,
        "ceiling": outcome.ceiling,
        "limit": outcome.limit,
        "passages": [{"status": p.status, "chunks": list(p.chunks)} for p in outcome.passages],
        **({"context": [to_json_dict(p) for p in outcome.context]} if outcome.context else {}),
    }
