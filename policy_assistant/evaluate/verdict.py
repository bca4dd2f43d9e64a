"""What the figures say, decided once for every renderer: the best, real differences, leaks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from policy_assistant.evaluate.bootstrap import Interval
from policy_assistant.evaluate.report import BUDGET_METRICS, EvalReport, metric_name


@dataclass(frozen=True)
class Versus:
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
    within_noise: tuple[Versus, ...]
    """Variants whose paired interval holds 0: not a difference."""
    different: tuple[Versus, ...]
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
        best = max(report.summaries, key=lambda s: s.figure(metric).value)
        others = [
            Versus(o.name, paired(report, metric, o.name, best.name))
            for o in report.summaries
            if o is not best
        ]
        inside = tuple(v for v in others if v.difference.contains(0.0))
        outside = tuple(v for v in others if not v.difference.contains(0.0))
        out.append(FigureVerdict(metric, best.name, best.figure(metric).value, inside, outside))
    return out


def paired(report: EvalReport, metric: str, a: str, b: str) -> Interval:
    """Return the paired difference a - b on one figure, whichever way the report holds it."""
    for c in report.comparisons:
        if c.metric == metric and (c.a, c.b) == (a, b):
            return c.difference
        if c.metric == metric and (c.a, c.b) == (b, a):
            return negated(c.difference)
    raise KeyError((metric, a, b))


def negated(interval: Interval) -> Interval:
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
