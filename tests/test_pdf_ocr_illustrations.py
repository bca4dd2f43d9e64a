"""OCR'd pages with an illustration: what OCR reads off the picture is dropped, not indexed."""

from __future__ import annotations

import random
from typing import Any

import pymupdf
import pytest
from support.ocr_pages import CSS, HTML, needs_tesseract
from support.pdf_factory import parse, save, story_pdf

from policy_assistant.parse.pdf import illustration


def draw_picture(page: Any, area: pymupdf.Rect, seed: int = 7) -> None:
    """Draw a drawing of circles and strokes, some filled grey: marks OCR reads as letters."""
    rng = random.Random(seed)
    shape = page.new_shape()
    for _ in range(160):
        centre = (rng.uniform(area.x0, area.x1), rng.uniform(area.y0, area.y1))
        shape.draw_circle(centre, rng.uniform(2, 18))
        fill = (rng.random() * 0.6,) * 3 if rng.random() < 0.5 else None
        shape.finish(color=(0, 0, 0), fill=fill, width=rng.uniform(0.5, 2.5))
    for _ in range(40):
        start = (rng.uniform(area.x0, area.x1), rng.uniform(area.y0, area.y1))
        end = (rng.uniform(area.x0, area.x1), rng.uniform(area.y0, area.y1))
        shape.draw_line(start, end)
        shape.finish(color=(0, 0, 0), width=rng.uniform(1, 4))
    shape.commit()


def scan(html: str, picture: bool) -> tuple[bytes, set[str]]:
    """Render html (with a picture under it) to an image PDF; return it and the page's words."""
    source = pymupdf.open("pdf", story_pdf(html, css=CSS))
    page = source[0]
    words = {w[4].strip(".,").casefold() for w in page.get_text("words")}
    if picture:
        draw_picture(page, pymupdf.Rect(80, 420, 500, 700))
    out = pymupdf.open()
    target = out.new_page(width=page.rect.width, height=page.rect.height)
    target.insert_image(target.rect, pixmap=page.get_pixmap(dpi=200))
    return save(out), words


@needs_tesseract
def test_text_read_off_an_illustration_is_dropped_and_recorded() -> None:
    data, words = scan(HTML * 2, picture=True)
    document = parse(data)
    assert document.ocr_pages == (1,)
    assert document.title == "Hose Reel Care"
    headings = [document.text[b.start : b.end] for b in document.blocks if b.kind == "heading"]
    assert headings == ["Hose Reel Care", "Hose Reel Care"]
    found = {w.strip(".,").casefold() for w in document.text.split()}
    # Bare numbers read off the picture stay (numbers are never judged: page numbers and
    # table figures are numbers too); no word of letters the page does not hold does.
    assert {w for w in found - words if any(c.isalpha() for c in w)} == set()
    assert words <= found, "text of the page was lost"
    junk = [d for d in document.dropped if d.reason == "illustration"]
    assert len(junk) >= 10
    assert all(d.page == 1 for d in junk)


@needs_tesseract
def test_a_heading_of_words_found_nowhere_else_is_kept() -> None:
    html = "<h1>Quarterly Pruning Calendar</h1>" + HTML.replace("<h1>Hose Reel Care</h1>", "")
    data, _ = scan(html, picture=False)
    document = parse(data)
    headings = [document.text[b.start : b.end] for b in document.blocks if b.kind == "heading"]
    assert headings == ["Quarterly Pruning Calendar"]
    assert not [d for d in document.dropped if d.reason == "illustration"]


@needs_tesseract
def test_a_clean_scan_costs_no_second_tesseract_run(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = illustration.tesseract_words

    def counting(page: Any, dpi: int, language: str, tessdata: str | None) -> Any:
        calls.append(page.number)
        return real(page, dpi, language, tessdata)

    monkeypatch.setattr(illustration, "tesseract_words", counting)
    parse(scan(HTML * 2, picture=False)[0])
    assert calls == []
    parse(scan(HTML * 2, picture=True)[0])
    assert calls == [0]


def span(text: str, box: tuple[float, float, float, float]) -> dict[str, Any]:
    """A span of a page dict."""
    return {"text": text, "bbox": box}


def test_marks_under_a_line_are_judged_apart_from_it() -> None:
    line = {
        "bbox": (71, 400, 297, 447),
        "spans": [span("seals.", (71, 400, 105, 411)), span("as Le", (80, 411, 297, 447))],
    }
    prose = {
        "bbox": (71, 380, 297, 395),
        "spans": [span("its seals are kept dry in the shed", (71, 380, 297, 395))],
    }
    page_dict = {"blocks": [{"type": 0, "lines": [prose, line]}]}
    read = [(88.0, 405.0), (180.0, 387.0)]  # Tesseract saw no text under "seals."
    dropped = illustration.drop_illustration_text(None, page_dict, frozenset(), lambda *_: read)
    assert dropped == ["as Le"]
    assert [s["text"] for s in page_dict["blocks"][0]["lines"][1]["spans"]] == ["seals."]
    assert page_dict["blocks"][0]["lines"][1]["bbox"] == (71, 400, 105, 411)


def test_nothing_is_dropped_when_tesseract_cannot_say() -> None:
    line = {"bbox": (0, 0, 50, 20), "spans": [span("Vikom", (0, 0, 50, 20))]}
    page_dict = {"blocks": [{"type": 0, "lines": [line]}]}
    assert illustration.drop_illustration_text(None, page_dict, frozenset(), lambda *_: None) == []
    assert page_dict["blocks"][0]["lines"] == [line]


def test_only_runs_of_few_known_words_where_tesseract_reads_nothing_are_dropped() -> None:
    texts = ["Q9OO0Ox9O000 pixels at GOO DPI", "as Le", "the reel", "habter", "reel", "12", "Vikom"]
    lines = [{"bbox": (0, 30 * i, 90, 30 * i + 20)} for i in range(len(texts))]
    for line, text in zip(lines, texts, strict=True):
        line["spans"] = [span(text, line["bbox"])]
    page_dict = {"blocks": [{"type": 0, "lines": lines}]}
    common = frozenset({"the", "at", "as", "le"})
    read = [(45.0, 30.0 * 6 + 10)]  # Tesseract read a word on "Vikom" alone
    dropped = illustration.drop_illustration_text(None, page_dict, common, lambda *_: read)
    # "reel" stands on two lines; two-letter words ("as", "Le") say nothing; nor do numbers.
    assert dropped == ["Q9OO0Ox9O000 pixels at GOO DPI", "as Le", "habter"]
