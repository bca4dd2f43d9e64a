"""The CI gate: compare a report with a committed baseline report, figure by figure."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policy_assistant.errors import ExitCode, PolicyAssistantError
from policy_assistant.evaluate.budget_units import unit_of
from policy_assistant.evaluate.report import BUDGET_METRICS, metric_name
from policy_assistant.jsonio import JSONDecodeError, json_text, loads

EPSILON = 1e-9
"""Float slack, so a drop of exactly the tolerance passes."""
GATED_SETTINGS = (
    "corpus",
    "questions",
    "chunkers",
    "budgets",
    "budget_unit",
    "k",
    "bm25",
    "tokenizer",
    "retrieval_units",
)
"""Settings the figures depend on: when one differs from the baseline's, the gate fails (unless
the user accepts the difference), since a figure measured differently is no evidence of a fall."""
NOTED_SETTINGS = ("tool", "bootstrap")
"""Settings that differ without changing the gated figures: a warning at most."""
ENVIRONMENT_KEYS = {"tokenizer": ("stemmer_library",)}
"""Parts of a gated setting that name the machine's libraries, not the method: noted only."""


@dataclass(frozen=True, slots=True)
class Fall:
    """A figure that fell below its baseline by more than the tolerance."""

    chunker: str
    """The chunker."""
    metric: str
    """The figure's name."""
    baseline: float
    """The baseline's value."""
    current: float
    """This run's value."""
    changed: tuple[str, ...] = ()
    """Questions whose outcome at this figure's budget changed: `q017 complete -> hit,cut`."""

    def describe(self, limit: int = 8) -> str:
        """Return one line for the user, naming up to `limit` questions that changed."""
        line = (
            f"{self.chunker} {self.metric} fell to {self.current:.4f} from {self.baseline:.4f} "
            f"({self.current - self.baseline:+.4f})"
        )
        if self.changed:
            more = len(self.changed) - limit
            shown = "; ".join(self.changed[:limit]) + (f"; and {more} more" if more > 0 else "")
            line += f"; changed: {shown}"
        return line


@dataclass(frozen=True, slots=True)
class GateResult:
    """The outcome of comparing a report with a baseline."""

    tolerance: float
    """How far a figure may fall before the gate fails."""
    compared: int
    """How many figures were compared."""
    falls: tuple[Fall, ...]
    """Figures that fell by more than the tolerance."""
    missing: tuple[str, ...]
    """Figures the baseline has and this run does not measure."""
    notes: tuple[str, ...]
    """Differences from the baseline's settings that leave the figures comparable."""
    differences: tuple[str, ...] = ()
    """Gated settings that differ from the baseline's: `budgets [100, 200, 400] -> [100]`."""
    accepted: bool = False
    """Whether the user accepted differing settings (`--accept-settings`)."""

    @property
    def settings_differ(self) -> bool:
        """Whether the figures were measured differently from the baseline's, unaccepted."""
        return bool(self.differences) and not self.accepted

    @property
    def passed(self) -> bool:
        """Whether the settings match (or were accepted), no figure fell and none is missing."""
        return not self.settings_differ and not self.falls and not self.missing

    def settings_line(self, baseline: str) -> str:
        """Return the one line that says which settings differ from the baseline's, and why."""
        return (
            f"settings differ from the baseline {baseline}, so its figures are not comparable: "
            f"{'; '.join(self.differences)} (run `make baseline` to adopt them, or pass "
            "--accept-settings to compare anyway)"
        )


def default_tolerance(questions: int) -> float:
    """Return one question's worth: 1 / the number of questions."""
    return 1.0 / questions


def load_baseline(path: Path) -> dict[str, Any]:
    """Read a baseline report, or raise naming the file and the problem."""
    try:
        data = loads(path.read_bytes())
    except OSError as exc:
        raise PolicyAssistantError(f"{path}: cannot read baseline: {exc.strerror or exc}") from exc
    except JSONDecodeError as exc:
        raise PolicyAssistantError(f"{path}: baseline is not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("chunkers"), dict):
        raise PolicyAssistantError(f"{path}: not an eval report (no chunkers)")
    return data


def gated_figures(report: dict[str, Any]) -> dict[tuple[str, str], float]:
    """Return every gated figure of a report's JSON form, keyed by (chunker, figure name)."""
    out: dict[tuple[str, str], float] = {}
    for chunker, summary in report.get("chunkers", {}).items():
        out[(chunker, "hit@k")] = float(summary["hit@k"]["value"])
        for budget, figures in summary.get("budgets", {}).items():
            for metric in BUDGET_METRICS:
                out[(chunker, metric_name(metric, int(budget)))] = float(figures[metric]["value"])
    return out


def compare_to_baseline(
    current: dict[str, Any], baseline: dict[str, Any], tolerance: float, accept: bool = False
) -> GateResult:
    """Compare the settings, then every figure the baseline has.

    A gated setting that differs fails the gate unless `accept`; a drop of more than
    `tolerance` is a fall.
    """
    _check_same_unit(current, baseline)
    try:
        now, before = gated_figures(current), gated_figures(baseline)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise PolicyAssistantError(f"baseline is not an eval report: missing {exc}") from exc
    falls: list[Fall] = []
    missing: list[str] = []
    for key in sorted(before, key=lambda k: (k[0], _sort_key(k[1]))):
        if key not in now:
            missing.append(f"{key[0]} {key[1]}")
        elif before[key] - now[key] > tolerance + EPSILON:
            changed = _changed_outcomes(current, baseline, *key)
            falls.append(Fall(key[0], key[1], before[key], now[key], changed))
    differences, notes = _setting_differences(current, baseline)
    compared = sum(key in now for key in before)
    return GateResult(tolerance, compared, tuple(falls), tuple(missing), notes, differences, accept)


def _setting_differences(
    current: dict[str, Any], baseline: dict[str, Any]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return (gated settings that differ, each `name before -> now`; the noted ones)."""
    now, before = current.get("settings", {}), baseline.get("settings", {})
    differences = []
    notes = [
        f"{name} differs from the baseline's"
        for name in NOTED_SETTINGS
        if now.get(name) != before.get(name)
    ]
    for name in GATED_SETTINGS:
        old, new = _gated_value(before, name), _gated_value(now, name)
        if old != new:
            differences.append(f"{name} {short(old)} -> {short(new)}")
        for key in ENVIRONMENT_KEYS.get(name, ()):
            if (before.get(name) or {}).get(key) != (now.get(name) or {}).get(key):
                notes.append(f"{name} {key} differs from the baseline's")
    return tuple(differences), tuple(notes)


def _gated_value(settings: dict[str, Any], name: str) -> Any:
    """Return the part of a setting the figures depend on.

    The questions file and the corpus by their digests (not where they were read from); the
    budget unit as words when a report predates it; no library versions.
    """
    value = settings.get(name)
    if name == "questions" and isinstance(value, dict):
        return value.get("sha256")
    if name == "corpus" and isinstance(value, dict):
        return value.get("id")
    if name == "budget_unit":
        return unit_of(settings)
    if isinstance(value, dict) and name in ENVIRONMENT_KEYS:
        return {k: v for k, v in value.items() if k not in ENVIRONMENT_KEYS[name]}
    return value


SHOWN = 40
"""Characters of a differing setting's value the gate's line shows."""


def short(value: Any) -> str:
    """Return a setting's value for one line: compact JSON, a digest's first 12 characters."""
    if isinstance(value, str) and len(value) >= 16:
        return value[:12]
    text = json_text(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def gate_exit_code(leaks: int, gate: GateResult | None) -> ExitCode:
    """Return the exit code eval's verdict leads to: FAILURE on a leak or a failed gate."""
    if leaks > 0 or (gate is not None and not gate.passed):
        return ExitCode.FAILURE
    return ExitCode.OK


def _check_same_unit(current: dict[str, Any], baseline: dict[str, Any]) -> None:
    """Refuse to gate budgets counted in one unit against a baseline counted in another."""
    now = unit_of(current.get("settings", {}))
    before = unit_of(baseline.get("settings", {}))
    if now != before:
        raise PolicyAssistantError(
            f"the baseline's budgets count {before} and this run's count {now}: "
            f"run eval with --budget-unit {before}, or make a baseline in {now}"
        )


def _outcome_statuses(report: dict[str, Any], chunker: str) -> dict[str, dict[str, str]]:
    """Return each question's status per budget (and at k) from a report's outcome lines."""
    out: dict[str, dict[str, str]] = {}
    for question, lines in report.get("outcomes", {}).items():
        line = lines.get(chunker, "") if isinstance(lines, dict) else ""
        out[question] = dict(part.partition("=")[::2] for part in str(line).split())
    return out


def _changed_outcomes(
    current: dict[str, Any], baseline: dict[str, Any], chunker: str, metric: str
) -> tuple[str, ...]:
    """Return the questions whose status at the figure's budget differs from the baseline's."""
    at = metric.partition("@")[2]
    now = _outcome_statuses(current, chunker)
    before = _outcome_statuses(baseline, chunker)
    changed = []
    for question in sorted(set(now) & set(before)):
        old, new = before[question].get(at), now[question].get(at)
        if old is not None and new is not None and old != new:
            changed.append(f"{question} {old} -> {new}")
    return tuple(changed)


def _sort_key(metric: str) -> tuple[int, str]:
    """Order figure names by budget (hit@k first), then name."""
    name, _, budget = metric.partition("@")
    return (-1 if budget == "k" else int(budget), name)
