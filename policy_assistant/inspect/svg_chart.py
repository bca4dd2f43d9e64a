"""A line chart as inline SVG, drawn here: one line per series with its interval shaded.

No charting library: the page must open with no network and no files beside it, and a chart
of a few points per line is a few dozen SVG elements.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
"""Okabe–Ito colours, told apart with colour-blindness too."""
DASHES = ("", "7 4", "2 3", "9 3 2 3", "4 2", "1 2")
"""Each line also has its own dash pattern, so it reads without colour."""
MARKERS = ("circle", "square", "diamond", "triangle", "circle", "square")
WIDTH, HEIGHT = 440, 320
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 34, 94
Y_TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)


@dataclass(frozen=True, slots=True)
class Series:
    """One line: a value per x, with the interval around each."""

    name: str
    """The series' name, as the legend shows it."""
    values: tuple[float, ...]
    """The value at each x, in [0, 1]."""
    lows: tuple[float, ...]
    """The interval's low end at each x."""
    highs: tuple[float, ...]
    """The interval's high end at each x."""


def _x_scale(xs: Sequence[int]) -> list[float]:
    """Return pixel x of each budget: log-spaced (budgets double), linear if any is 0."""
    keys = [math.log2(x) if min(xs) > 0 else float(x) for x in xs]
    low, high = min(keys), max(keys)
    span = (high - low) or 1.0
    inner = WIDTH - LEFT - RIGHT
    return [LEFT + inner * ((k - low) / span if high > low else 0.5) for k in keys]


def _y(value: float) -> float:
    return TOP + (HEIGHT - TOP - BOTTOM) * (1.0 - max(0.0, min(1.0, value)))


def _points(xs: list[float], ys: Sequence[float]) -> str:
    return " ".join(f"{x:.1f},{_y(y):.1f}" for x, y in zip(xs, ys, strict=True))


def _marker(kind: str, x: float, y: float, colour: str, label: str) -> str:
    if kind == "square":
        tag, attrs = "rect", f'x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8"'
    elif kind == "diamond":
        corners = f"{x:.1f},{y - 5:.1f} {x + 5:.1f},{y:.1f} {x:.1f},{y + 5:.1f} {x - 5:.1f},{y:.1f}"
        tag, attrs = "polygon", f'points="{corners}"'
    elif kind == "triangle":
        corners = f"{x:.1f},{y - 5:.1f} {x + 5:.1f},{y + 4:.1f} {x - 5:.1f},{y + 4:.1f}"
        tag, attrs = "polygon", f'points="{corners}"'
    else:
        tag, attrs = "circle", f'cx="{x:.1f}" cy="{y:.1f}" r="4"'
    return f'<{tag} {attrs} fill="{colour}" class="pt"><title>{escape(label)}</title></{tag}>'


def _axes(xs: list[float], budgets: Sequence[int], x_label: str, y_label: str) -> list[str]:
    out = []
    for tick in Y_TICKS:
        y = _y(tick)
        out.append(
            f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>'
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{tick:g}</text>'
        )
    base = _y(0.0)
    for x, budget in zip(xs, budgets, strict=True):
        out.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{base:.1f}" y2="{base + 5:.1f}" class="axis"/>'
            f'<text x="{x:.1f}" y="{base + 18:.1f}" text-anchor="middle">{budget}</text>'
        )
    mid_y = (TOP + HEIGHT - BOTTOM) / 2
    out.append(
        f'<text x="{(LEFT + WIDTH - RIGHT) / 2:.1f}" y="{base + 34:.1f}" text-anchor="middle" '
        f'class="label">{escape(x_label)}</text>'
        f'<text x="14" y="{mid_y:.1f}" text-anchor="middle" class="label" '
        f'transform="rotate(-90 14 {mid_y:.1f})">{escape(y_label)}</text>'
    )
    return out


def _legend(series: Sequence[Series]) -> list[str]:
    out = []
    per_row = 2
    for i, line in enumerate(series):
        x = LEFT + (i % per_row) * 180
        y = HEIGHT - 16 - (len(series) - 1) // per_row * 16 + (i // per_row) * 16
        colour, dash = PALETTE[i % len(PALETTE)], DASHES[i % len(DASHES)]
        out.append(
            f'<line x1="{x}" x2="{x + 28}" y1="{y - 4}" y2="{y - 4}" stroke="{colour}" '
            f'stroke-width="2.5" stroke-dasharray="{dash}"/>'
            f'<text x="{x + 34}" y="{y}">{escape(line.name)}</text>'
        )
    return out


def line_chart(
    key: str,
    title: str,
    budgets: Sequence[int],
    series: Sequence[Series],
    labels: tuple[str, str],
) -> str:
    """Return an SVG chart of each series against the budgets, intervals as shaded bands."""
    x_label, y_label = labels
    xs = _x_scale(budgets)
    body = _axes(xs, budgets, x_label, y_label)
    for i, line in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        band = _points(xs, line.highs) + " " + _points(xs[::-1], line.lows[::-1])
        body.append(
            f'<g class="series" data-series="{escape(line.name)}">'
            f'<polygon points="{band}" fill="{colour}" fill-opacity="0.13" class="band"/>'
            f'<polyline points="{_points(xs, line.values)}" fill="none" stroke="{colour}" '
            f'stroke-width="2.5" stroke-dasharray="{DASHES[i % len(DASHES)]}" class="line"/>'
        )
        for x, budget, value, low, high in zip(
            xs, budgets, line.values, line.lows, line.highs, strict=True
        ):
            label = f"{line.name}: {y_label} at {budget} = {value:.3f} [{low:.3f}, {high:.3f}]"
            body.append(_marker(MARKERS[i % len(MARKERS)], x, _y(value), colour, label))
        body.append("</g>")
    body.extend(_legend(series))
    described = f"{title}: " + "; ".join(
        f"{s.name} " + ", ".join(f"{v:.2f} at {b}" for b, v in zip(budgets, s.values, strict=True))
        for s in series
    )
    return (
        f'<svg viewBox="0 0 {WIDTH} {HEIGHT}" class="chart" id="chart-{key}" role="img" '
        f'aria-labelledby="chart-{key}-title chart-{key}-desc">'
        f'<title id="chart-{key}-title">{escape(title)}</title>'
        f'<desc id="chart-{key}-desc">{escape(described)}</desc>'
        f'<text x="{LEFT}" y="20" class="chart-title">{escape(title)}</text>'
        + "".join(body)
        + "</svg>"
    )
