"""Structure: title-page lines are not headings, section numbers join their headings, titles."""

from __future__ import annotations

import pymupdf
import pytest
from support.pdf_factory import MARGIN, only, parse, save

from policy_assistant.parse.pdf.titlepage import is_title_page_line

BODY = "Body text about drip lines, timers and the water they save in a dry summer."


def body(page: pymupdf.Page, top: float, lines: int = 6) -> float:
    """Write body-size lines from top; return the y below them."""
    for i in range(lines):
        page.insert_text((MARGIN, top + 14 * i), f"{BODY} Line {i}.", fontsize=10)
    return top + 14 * lines


def heading(page: pymupdf.Page, y: float, number: str, text: str, gap: float = 40) -> None:
    page.insert_text((MARGIN, y), number, fontsize=14, fontname="hebo")
    page.insert_text((MARGIN + gap, y), text, fontsize=14, fontname="hebo")


def title_page() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text(
        (MARGIN, 100), "Watering Systems for Small Gardens", fontsize=20, fontname="hebo"
    )
    for y, text in [
        (130, "Ana Silva, Tom Berg and Li Wei"),
        (150, "Greenhaven Research, 12 Mill Road, Leeds LS1 4AB"),
        (170, "14 March 2025"),
    ]:
        page.insert_text((MARGIN, y), text, fontsize=13)
    heading(page, 210, "1", "Introduction")
    end = body(page, 230)
    heading(page, end + 30, "2.1", "Drip kits")
    body(page, end + 50)
    return save(doc)


def test_authors_affiliation_and_date_are_not_headings() -> None:
    document = parse(title_page())
    headings = [b.text for b in only(document, "heading")]
    assert headings == ["Watering Systems for Small Gardens", "1 Introduction", "2.1 Drip kits"]
    assert document.title == "Watering Systems for Small Gardens"
    assert [b.text for b in document.blocks[1:4]] == [
        "Ana Silva, Tom Berg and Li Wei",
        "Greenhaven Research, 12 Mill Road, Leeds LS1 4AB",
        "14 March 2025",
    ]
    assert only(document, "heading")[1].section == (
        "Watering Systems for Small Gardens",
        "1 Introduction",
    )


def test_section_number_set_above_its_heading_is_joined() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((MARGIN, 100), "3", fontsize=16, fontname="hebo")
    page.insert_text((MARGIN, 120), "Frost protection", fontsize=16, fontname="hebo")
    body(page, 150)
    document = parse(save(doc))
    assert [b.text for b in only(document, "heading")] == ["3 Frost protection"]


@pytest.mark.parametrize(
    ("text", "metadata"),
    [
        ("Ana Silva, Tom Berg and Li Wei", True),
        ("by Ana Silva and Tom Berg", True),
        ("Department of Horticulture, University of Leeds", True),
        ("ana.silva@greenhaven.example", True),
        ("March 14, 2025", True),
        ("2025-03-14", True),
        ("Watering in Dry Summers", False),
        ("A Practical Guide", False),
        ("Installing and Testing", False),
    ],
)
def test_title_page_line_patterns(text: str, metadata: bool) -> None:
    assert is_title_page_line(text) is metadata


def test_a_heading_from_the_middle_is_never_the_title() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    end = body(page, 80, lines=10)
    page.insert_text((MARGIN, end + 30), "Storing the Hose", fontsize=20, fontname="hebo")
    body(page, end + 60)
    document = parse(save(doc), source="guides/hose-care.pdf")
    assert [b.text for b in only(document, "heading")] == ["Storing the Hose"]
    assert document.title == "hose-care"


def test_a_long_first_heading_is_not_the_title() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    long = "A " + " ".join(f"word{n}" for n in range(24))
    page.insert_textbox(pymupdf.Rect(MARGIN, 60, 540, 200), long, fontsize=18, fontname="hebo")
    body(page, 220)
    document = parse(save(doc), source="guides/long.pdf")
    assert document.title == "long"


def test_metadata_title_wins_and_a_long_one_is_refused() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((MARGIN, 100), "Cover Heading", fontsize=20, fontname="hebo")
    body(page, 130)
    doc.set_metadata({"title": "Hose Care Guide"})
    assert parse(save(doc)).title == "Hose Care Guide"
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((MARGIN, 100), "Cover Heading", fontsize=20, fontname="hebo")
    body(page, 130)
    doc.set_metadata({"title": " ".join(["long"] * 25)})
    assert parse(save(doc)).title == "Cover Heading"
