"""Work bounds per page and per document (issue 14 item 2): degrade, note it, or fail in a line."""

from __future__ import annotations

import re
import time

import pymupdf
import pytest
from support.pdf_factory import TABLE_HTML, only, parse, save, story_pdf

from policy_assistant.errors import DocumentError
from policy_assistant.parse.pdf import bounds as pdf_bounds
from policy_assistant.parse.pdf.coverage import coverage
from policy_assistant.parse.pdf.reader import parse_pdf_with_stats, text_layer_words
from policy_assistant.records import DocumentMeta


def ruled_grid(n: int = 120) -> bytes:
    """One page ruled into an n x n grid, with a digit in some of its cells."""
    doc = pymupdf.open()
    page = doc.new_page(width=1200, height=1200)
    step = 1100 / n
    shape = page.new_shape()
    for i in range(n + 1):
        shape.draw_line((50, 50 + i * step), (1150, 50 + i * step))
        shape.draw_line((50 + i * step, 50), (50 + i * step, 1150))
    shape.finish(width=0.3)
    shape.commit()
    for r in range(0, n, 7):
        for c in range(0, n, 9):
            page.insert_text((52 + c * step, 57 + r * step), str(r * c % 10), fontsize=4)
    return save(doc)


def test_a_120_by_120_ruled_grid_skips_table_detection_and_says_so() -> None:
    data = ruled_grid()
    started = time.perf_counter()
    document, stats = parse_pdf_with_stats(data, "grid.pdf", DocumentMeta(), "x")
    elapsed = time.perf_counter() - started
    # Unbounded, MuPDF's table finder takes 30 s and more on this page.
    assert elapsed < 5
    assert stats.tables == 0
    assert only(document, "table") == []
    [note] = document.notes
    found = re.match(
        r"page 1: table detection skipped on a ruled grid of about ([\d,]+) cells", note
    )
    assert found is not None
    assert 14_000 <= int(found.group(1).replace(",", "")) <= 15_000
    assert coverage(document, text_layer_words(data)).lost == ()


def test_a_ruled_table_within_the_bounds_is_still_found() -> None:
    document = parse(story_pdf(TABLE_HTML))
    assert len(only(document, "table")) == 1
    assert document.notes == ()


def test_too_many_drawing_items_skip_the_tables_of_that_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pdf_bounds, "MAX_DRAWING_ITEMS", 5)
    data = story_pdf(TABLE_HTML)
    document = parse(data)
    assert only(document, "table") == []
    [note] = document.notes
    assert note.startswith("page 1: table detection skipped: ") and "drawing items" in note
    assert coverage(document, text_layer_words(data)).lost == ()


def test_huge_content_streams_skip_the_drawings_of_that_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pdf_bounds, "MAX_CONTENT_BYTES", 100)
    document = parse(story_pdf(TABLE_HTML))
    assert only(document, "table") == []
    assert "MB of drawing commands" in document.notes[0]


def test_the_document_time_limit_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf_bounds, "DOCUMENT_TIME_LIMIT", 0.0)
    data = story_pdf(TABLE_HTML * 30)
    with pytest.raises(DocumentError) as caught:
        parse_pdf_with_stats(data, "big/manual.pdf", DocumentMeta(), "x")
    message = str(caught.value)
    assert "\n" not in message
    assert "big/manual.pdf" in message
    assert "at page 2 of" in message and "limit per document" in message


def test_no_time_limit_when_it_is_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf_bounds, "DOCUMENT_TIME_LIMIT", None)
    assert len(parse(story_pdf(TABLE_HTML * 30)).pages) > 1
