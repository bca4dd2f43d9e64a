"""Text drawn turned on the sheet that /Rotate shows upright (landscape slides) is read."""

from __future__ import annotations

import pymupdf
import pytest
from support.pdf_factory import parse, save, story_pdf

from policy_assistant.parse.pdf.coverage import coverage
from policy_assistant.parse.pdf.reader import text_layer_words
from policy_assistant.parse.pdf.turn import as_shown, turned_pages_note

HTML = (
    "<h1>Mower Safety</h1><p>Stop the engine and pull the plug lead before you clear the "
    "blade housing, and wear gloves: the blade stays sharp after the season.</p>"
)


def turned(degrees: int, pages: int = 2) -> bytes:
    """Draw each page turned on a landscape sheet, then /Rotate the sheet back upright."""
    source = pymupdf.open("pdf", story_pdf(HTML * 3))
    out = pymupdf.open()
    for _ in range(pages):
        sheet = out.new_page(width=source[0].rect.height, height=source[0].rect.width)
        sheet.show_pdf_page(sheet.rect, source, 0, rotate=degrees)
        sheet.set_rotation(degrees)
    return save(out)


@pytest.mark.parametrize("degrees", [90, 270])
def test_text_turned_on_the_sheet_is_read_as_shown(degrees: int) -> None:
    data = turned(degrees)
    document = parse(data)
    assert document.blocks[0].text == "Mower Safety"
    assert "pull the plug lead" in document.text
    assert document.notes == (turned_pages_note([1, 2]),)
    assert coverage(document, text_layer_words(data)).lost == ()


def test_as_shown_turns_boxes_and_directions() -> None:
    page_dict = {
        "blocks": [
            {
                "type": 0,
                "bbox": (10, 20, 30, 120),
                "lines": [
                    {
                        "dir": (0.0, -1.0),
                        "bbox": (10, 20, 30, 120),
                        "spans": [{"bbox": (10, 20, 30, 120), "origin": (28, 120), "text": "x"}],
                    }
                ],
            }
        ]
    }
    shown = as_shown(page_dict, (0.0, 1.0, -1.0, 0.0, 612.0, 0.0))
    line = shown["blocks"][0]["lines"][0]
    assert line["dir"] == (1.0, 0.0)
    assert line["bbox"] == (492.0, 10.0, 592.0, 30.0)
    assert line["spans"][0]["origin"] == (492.0, 28.0)


def test_the_note_lists_pages_as_ranges() -> None:
    assert turned_pages_note([1, 2, 3, 7]).startswith("pages 1-3, 7: text turned")
    assert turned_pages_note([4]).startswith("page 4: ")
