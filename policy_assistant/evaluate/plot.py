"""Draw hit@B and complete@B against the budget, one line per chunker (matplotlib, optional)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from policy_assistant.atomic import atomic_write_bytes
from policy_assistant.errors import UsageError
from policy_assistant.evaluate.report import EvalReport

PLOTTED = (
    ("hit", "hit@B: a relevant chunk in the context"),
    ("complete", "complete@B: whole quotes"),
)
"""The figures drawn, each in its own panel, with the panel's title."""
FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
"""File endings the plot can be written as."""
# Dates and tool versions would make the same figures give different bytes.
_STABLE_METADATA: dict[str, dict[str, Any]] = {
    "png": {"Software": None},
    "svg": {"Date": None, "Creator": None},
    "pdf": {"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None},
}


def check_plot_path(path: Path) -> str:
    """Return the format for `path`, or raise UsageError when it cannot be drawn there."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise UsageError(f"--plot {path}: use a file ending in {', '.join(FORMATS)}")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install 'policy-assistant[plot]'") from None
    return fmt


def plot_report(report: EvalReport, path: Path) -> None:
    """Write the figure for a report to `path` (.png, .svg or .pdf)."""
    fmt = check_plot_path(path)
    # A bare Figure draws to a file without pyplot, so no window and no global backend change.
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 4), layout="constrained")
    axes = figure.subplots(1, len(PLOTTED), sharey=True)
    for ax, (metric, title) in zip(axes, PLOTTED, strict=True):
        for summary in report.summaries:
            budgets = [b.budget for b in summary.budgets]
            values = [b.figures[metric] for b in summary.budgets]
            (line,) = ax.plot(budgets, [v.value for v in values], marker="o", label=summary.name)
            lows, highs = [v.low for v in values], [v.high for v in values]
            ax.fill_between(budgets, lows, highs, color=line.get_color(), alpha=0.12)
            ax.set_xticks(budgets)
        ax.set_title(title)
        ax.set_xlabel("budget (words in the context)")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("share of questions (95% interval shaded)")
    axes[0].legend(loc="lower right")
    buffer = io.BytesIO()
    figure.savefig(buffer, format=fmt, metadata=_STABLE_METADATA[fmt])
    atomic_write_bytes(path, buffer.getvalue())
