"""A plain ruled grid (every rule edge to edge) is read from its rules, as MuPDF would."""

from __future__ import annotations

import pymupdf
import pytest
from pdf_factory import A4, draw_table, only, parse, save, story_pdf

from policy_assistant.parse import pdf_rules

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
