"""A plain ruled grid (every rule edge to edge) is read from its rules, as MuPDF would."""

from __future__ import annotations

from typing import Any

import pymupdf
import pytest
from support.pdf_factory import A4, MARGIN, draw_table, only, parse, save, story_pdf

from policy_assistant.parse.pdf import reader as pdf
from policy_assistant.parse.pdf import rules as pdf_rules

ROWS = [["Zone", "Distance", "Fee"], ["Zone 1", "25 km", "$40"], ["Zone 2", "50 km", "$80"]]


def grid_pdf(style: str = "grid") -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=A4.width, height=A4.height)
    draw_table(page, 100, ROWS, [120, 120, 120], style=style)
    return save(doc)


def tables_without_fast_path(data: bytes, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    with monkeypatch.context() as patch:
        patch.setattr(pdf_rules, "plain_grid", lambda group, box: None)
        return [b.text for b in only(parse(data), "table")]


def test_a_plain_grid_is_found_and_reads_as_the_finder_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = grid_pdf()
    (table,) = only(parse(data), "table")
    assert table.text == "Zone | Distance | Fee\nZone 1 | 25 km | $40\nZone 2 | 50 km | $80"
    assert tables_without_fast_path(data, monkeypatch) == [table.text]


def test_plain_grid_needs_every_rule_to_run_edge_to_edge() -> None:
    h = [("h", (0.0, y, 300.0, y)) for y in (0.0, 20.0, 40.0)]
    v = [("v", (x, 0.0, x, 40.0)) for x in (0.0, 150.0, 300.0)]
    assert pdf_rules.plain_grid(h + v, (0.0, 0.0, 300.0, 40.0)) == (
        (0.0, 150.0, 300.0),
        (0.0, 20.0, 40.0),
    )
    short = [*h, ("v", (0.0, 0.0, 0.0, 40.0)), ("v", (150.0, 0.0, 150.0, 20.0)), v[2]]
    assert pdf_rules.plain_grid(short, (0.0, 0.0, 300.0, 40.0)) is None  # a cell spans rows
    boxes = [("box", (x, y, x + 150.0, y + 20.0)) for x in (0.0, 150.0) for y in (0.0, 20.0)]
    assert pdf_rules.plain_grid(boxes, (0.0, 0.0, 300.0, 40.0)) == (
        (0.0, 150.0, 300.0),
        (0.0, 20.0, 40.0),
    )


def docbook_pdf() -> bytes:
    """A table drawn as dblatex draws DocBook's: each cell's rules apart, no outer columns."""
    doc = pymupdf.open()
    page = doc.new_page(width=A4.width, height=A4.height)
    edges, top, height = [MARGIN, MARGIN + 200, MARGIN + 480], 100.0, 12.0
    for r, row in enumerate(ROWS):
        y = top + r * height
        for c, cell in enumerate(row[:2]):
            page.draw_line((edges[c], y), (edges[c + 1], y), width=0.4)
            page.insert_text((edges[c] + 3, y + 9), cell, fontsize=8)
        page.draw_line((edges[1], y), (edges[1], y + height), width=0.4)
    bottom = top + len(ROWS) * height
    page.draw_line((edges[0], bottom), (edges[2], bottom), width=0.4)
    return save(doc)


def _count_finder_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    runs: list[int] = []
    real = pdf._run_finder

    def counting(page: Any, options: dict[str, Any], lines: list[Any]) -> Any:
        runs.append(page.number)
        return real(page, options, lines)

    monkeypatch.setattr(pdf, "_run_finder", counting)
    return runs


@pytest.mark.parametrize("make", [lambda: grid_pdf("inner"), docbook_pdf])
def test_inner_column_rules_make_a_plain_grid(make: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    data = make()
    runs = _count_finder_runs(monkeypatch)
    (table,) = only(parse(data), "table")
    assert runs == []
    assert table.text.startswith("Zone | Distance") and "\nZone 1 | 25 km" in table.text
    assert tables_without_fast_path(data, monkeypatch) == [table.text]
    assert runs == [0]


def test_outer_columns_are_the_closing_lines_where_none_is_drawn() -> None:
    h = [("h", (0.0, y, 300.0, y)) for y in (0.0, 20.0, 40.0)]
    inner = ("v", (150.0, 0.0, 150.0, 40.0))
    box = (0.0, 0.0, 300.0, 40.0)
    assert pdf_rules.plain_grid([*h, inner], box) == ((0.0, 150.0, 300.0), (0.0, 20.0, 40.0))
    short = ("v", (150.0, 0.0, 150.0, 20.0))  # a cell spans the lower row
    assert pdf_rules.plain_grid([*h, short], box) is None
    assert pdf_rules.plain_grid(h, box) is None


def test_html_tables_with_cell_borders_read_the_same_both_ways(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    html = (
        "<p>Fees by zone.</p><table><tr><th>Zone</th><th>Fee</th></tr>"
        "<tr><td>Near</td><td>$4</td></tr><tr><td>Far</td><td>$9</td></tr></table>"
    )
    data = story_pdf(html)
    found = [b.text for b in only(parse(data), "table")]
    assert found == tables_without_fast_path(data, monkeypatch)
    assert found and "Near | $4" in found[0]
