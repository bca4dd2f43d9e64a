"""What the figures say, decided once for every renderer: the best, real differences, leaks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from policy_assistant.evaluate.bootstrap import Interval
from policy_assistant.evaluate.budget_units import WORDS, budget_sizes, unit_of
from policy_assistant.evaluate.dense import RANKER_MARK
from policy_assistant.evaluate.report import BUDGET_METRICS, ChunkerSummary, EvalReport, metric_name
from policy_assistant.evaluate.score import CHUNKING, RANKING


@dataclass(frozen=True)
class _Versus:
    """One variant's paired difference from the best on a figure."""

    name: str
    """The variant."""
    difference: Interval
    """Its figure minus the best's, with the paired interval."""

    @property
    def same_everywhere(self) -> bool:
        """Whether the two agree on every question."""
        return self.difference.low == self.difference.high == 0.0

    def describe(self) -> str:
        """Return `fixed -0.150 [-0.250, -0.050]`, or `fixed =` when equal on every question."""
        d = self.difference
        if self.same_everywhere:
            return f"{self.name} ="
        return f"{self.name} {d.value:+.3f} [{d.low:+.3f}, {d.high:+.3f}]"


@dataclass(frozen=True)
class FigureVerdict:
    """Per figure: the best variant, and which others differ from it beyond the noise."""

    figure: str
    """e.g. hit@k or complete@200."""
    best: str
    """The variant with the highest value (first listed on a tie)."""
    best_value: float
    """Its value."""
    within_noise: tuple[_Versus, ...]
    """Variants whose paired interval holds 0: not a difference."""
    different: tuple[_Versus, ...]
    """Variants whose paired interval excludes 0."""


def figure_names(budgets: Sequence[int]) -> list[str]:
    """Return the gated figures' names in the order shown."""
    return ["hit@k", *(metric_name(m, b) for b in budgets for m in BUDGET_METRICS)]


def verdicts(report: EvalReport) -> list[FigureVerdict]:
    """Return one verdict per figure; none when fewer than two variants were compared."""
    if len(report.summaries) < 2:
        return []
    out = []
    for metric in figure_names(report.settings["budgets"]):
        best = best_on(report, metric)
        others = [
            _Versus(o.name, paired(report, metric, o.name, best.name))
            for o in report.summaries
            if o is not best
        ]
        inside = tuple(v for v in others if v.difference.contains(0.0))
        outside = tuple(v for v in others if not v.difference.contains(0.0))
        out.append(FigureVerdict(metric, best.name, best.figure(metric).value, inside, outside))
    return out


def best_on(report: EvalReport, metric: str) -> ChunkerSummary:
    """Return the variant with the highest value of a figure (the first listed on a tie)."""
    return max(report.summaries, key=lambda s: s.figure(metric).value)


def paired(report: EvalReport, metric: str, a: str, b: str) -> Interval:
    """Return the paired difference a - b on one figure, whichever way the report holds it."""
    for c in report.comparisons:
        if c.metric == metric and (c.a, c.b) == (a, b):
            return c.difference
        if c.metric == metric and (c.a, c.b) == (b, a):
            return _negated(c.difference)
    raise KeyError((metric, a, b))


def versus_bm25(report: EvalReport) -> dict[str, dict[str, Interval]]:
    """Return, per row ranked by dense or hybrid, its paired difference from the same variant's
    bm25 row on every gated figure (the spec's `ranker` marks such a row)."""
    names = {s.name for s in report.summaries}
    found: dict[str, dict[str, Interval]] = {}
    for s in report.summaries:
        ranker = s.spec.get("ranker")
        base = s.name.removesuffix(f"+{ranker}") if isinstance(ranker, str) else None
        if base is None or base == s.name or base not in names:
            continue
        figures = figure_names(report.settings["budgets"])
        found[s.name] = {f: paired(report, f, s.name, base) for f in figures}
    return found


def _negated(interval: Interval) -> Interval:
    """Return the interval of the opposite difference."""
    # 0.0 - x, not -x: a zero difference must print as +0.000, not -0.000.
    return Interval(0.0 - interval.value, 0.0 - interval.high, 0.0 - interval.low)


def leak_messages(report: EvalReport) -> list[str]:
    """Return one line per variant that returned non-public chunks to public questions."""
    lines = []
    for s in report.summaries:
        if s.leaks:
            shown = ", ".join(s.leaked_questions[:10])
            lines.append(
                f"{s.name}: {s.leaks} non-public chunks returned to public questions ({shown})"
            )
    return lines


EMPTY_NOTE_SHARE = 0.05
"""Share of empty contexts at a budget from which a variant is said not to fill it."""
MIN_QUESTIONS = 30
"""Below this many questions one question moves a figure by over 3 points: too few to decide."""
CAP_SETTINGS = ("max_words", "size")
"""Settings that cap a variant's chunk size, in the order they are looked for."""


LIMIT_SHARE = 2
"""Misses of one kind name what limits a variant when they are this many times the other's."""


def reading_lines(report: EvalReport) -> list[str]:
    """Return what the figures mean, one line each: budgets not filled, too few questions, the
    best, and what limits it."""
    found = [*budget_lines(report), *few_questions_lines(report), *best_lines(report)]
    return [*found, *limit_lines(report)]


def budget_lines(report: EvalReport) -> list[str]:
    """Return a line per variant and budget where many contexts are empty or cut: chunks over B."""
    n = len(report.questions)
    unit = unit_of(report.settings)
    lines = []
    for run, summary in zip(report.runs, report.summaries, strict=True):
        if not run.chunks:  # a context strategy: units, never cut, and no chunk size to lower
            lines += _unfilled_units(summary, n, unit)
            continue
        largest = max(budget_sizes(run.chunks, unit), default=0)
        for b in summary.budgets:
            advice = _advice(run.spec, unit, largest, b.budget)
            if b.empty_contexts and b.empty_contexts >= EMPTY_NOTE_SHARE * n:
                lines.append(
                    f"{summary.name} cannot fill B={b.budget}: {b.empty_contexts} of {n} "
                    f"contexts empty (first result over {b.budget} {unit}; its chunks run to "
                    f"{largest}) — {advice}"
                )
            if b.cut_contexts and b.cut_contexts >= EMPTY_NOTE_SHARE * n:
                lines.append(
                    f"{summary.name} cuts its chunks to fit B={b.budget}: {b.cut_contexts} of "
                    f"{n} contexts hold only the first sentences of a first result over "
                    f"{b.budget} {unit} (its chunks run to {largest}) — {advice}"
                )
    return lines


def _advice(spec: dict[str, Any], unit: str, largest: int, budget: int) -> str:
    """Return the budget, or the setting to lower, at which a variant's chunks fit."""
    # A cap in words says nothing of a budget in tokens: only the largest chunk does.
    setting = next((s for s in CAP_SETTINGS if s in spec and unit == WORDS), None)
    cap = int(spec[setting]) if setting else largest
    if budget >= cap and largest > budget:
        # only chunks the cap does not bound are over B: whole tables, which a budget just
        # past the cap still cuts
        table = "lower max_table_words" if "max_table_words" in spec else "use smaller chunks"
        return f"compare at B ≥ {largest}, or {table}"
    lower = f"lower {setting}" if setting else "use smaller chunks"
    return f"compare at B ≥ {max(cap, budget + 1)}, or {lower}"


def _unfilled_units(summary: ChunkerSummary, n: int, unit: str) -> list[str]:
    """Return a line per budget where many of a context strategy's contexts are empty."""
    return [
        f"{summary.name} cannot fill B={b.budget}: {b.empty_contexts} of {n} contexts empty "
        f"(no ranked unit fits {b.budget} {unit} with its title and headings) — compare at a "
        "larger B"
        for b in summary.budgets
        if b.empty_contexts and b.empty_contexts >= EMPTY_NOTE_SHARE * n
    ]


def few_questions_lines(report: EvalReport) -> list[str]:
    """Return a line when the questions are too few for the intervals to separate anything."""
    n = len(report.questions)
    separated = any(not c.inside for c in report.comparisons)
    if n >= MIN_QUESTIONS and (separated or len(report.summaries) < 2):
        return []
    widths = [
        s.figure(name).high - s.figure(name).low
        for s in report.summaries
        for name in figure_names(report.settings["budgets"])
    ]
    width = sum(widths) / len(widths) if widths else 0.0
    if n < MIN_QUESTIONS:
        return [
            f"only {n} questions: one question moves a figure by {1 / n:.3f} and the 95% "
            f"intervals are {width:.2f} wide on average; a difference smaller than that cannot "
            f"be told from noise — add questions (at least {MIN_QUESTIONS})"
        ]
    return [
        f"no paired interval excludes 0 over {n} questions: this run cannot tell the variants "
        "apart on any figure"
    ]


def best_lines(report: EvalReport) -> list[str]:
    """Return per budget the best variant on complete@B, and whether it beats the runner-up."""
    lines = []
    for v in verdicts(report):
        if not v.figure.startswith("complete@"):
            continue
        others = (*v.within_noise, *v.different)
        runner = max(others, key=lambda x: x.difference.value)
        if runner.same_everywhere:
            verdict = f"ties {runner.name} on every question"
        elif runner.difference.contains(0.0):
            verdict = (
                f"not separated from the runner-up {runner.name} "
                f"({0.0 - runner.difference.value:+.3f}, paired interval holds 0)"
            )
        else:
            verdict = (
                f"ahead of the runner-up {runner.name} by {0.0 - runner.difference.value:+.3f}, "
                f"paired interval [{0.0 - runner.difference.high:+.3f}, "
                f"{0.0 - runner.difference.low:+.3f}] excludes 0"
            )
        budget = v.figure.partition("@")[2]
        lines.append(f"B={budget}: best on complete@B is {v.best} ({v.best_value:.3f}), {verdict}")
    return lines


def limit_lines(report: EvalReport) -> list[str]:
    """Return per budget what limits the best variant on complete@B: its chunks, which no
    ranking could make hold the evidence within B, or its ranking, which did not bring them."""
    lines = []
    n = len(report.questions)
    # With BM25 rows alone, a ranking limit is worth one measurement more: the meaning ranker.
    lexical, hint = not any(RANKER_MARK in s.name for s in report.summaries), False
    for budget in report.settings["budgets"]:
        best = best_on(report, metric_name("complete", budget))
        at = next(b for b in best.budgets if b.budget == budget)
        chunking, ranking = at.misses.get(CHUNKING, 0), at.misses.get(RANKING, 0)
        total = chunking + ranking
        if total:
            lines.append(
                f"B={budget}: {best.name}'s {total} miss{'es' if total > 1 else ''} of {n}: "
                f"{ranking} ranking, {chunking} chunking (ceiling {at.ceiling.value:.3f}) — "
                f"{what_limits(chunking, ranking)}"
            )
            hint = hint or (lexical and ranking_limits(chunking, ranking))
    return [*lines, MEANING_HINT] if hint else lines


MEANING_HINT = (
    "to measure a ranker that matches meaning: eval --retriever bm25,hybrid (the dense extra)"
)
"""Said once after the limit lines when ranking limits a run of BM25 rows only."""


def ranking_limits(chunking: int, ranking: int) -> bool:
    """Return whether ranking misses name the limit: at least LIMIT_SHARE times the chunking's."""
    return ranking >= LIMIT_SHARE * chunking


def what_limits(chunking: int, ranking: int) -> str:
    """Say which kind of miss limits a variant, and so what would find more."""
    if ranking_limits(chunking, ranking):
        return "a better ranker would find more than other chunk sizes"
    if chunking >= LIMIT_SHARE * ranking:
        return "chunks cut otherwise would find more than a better ranker"
    return "both a better ranker and other chunks would find more"
