from __future__ import annotations

import hashlib
import io

import docx
import pytest
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from support.format_checks import check_document, kinds

from policy_assistant.errors import DocumentError
from policy_assistant.parse.docx import parse_docx
from policy_assistant.records import Document, DocumentMeta


def save(document: docx.document.Document) -> bytes:
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def parse(data: bytes, source: str = "hr/leave.docx", **meta: str) -> Document:
    return parse_docx(data, source, DocumentMeta(**meta), hashlib.sha256(data).hexdigest())


def number(paragraph, num_id: int, level: int) -> None:  # type: ignore[no-untyped-def]
    """Give a paragraph explicit numbering (numPr), as Word writes for a restarted list."""
    props = paragraph._p.get_or_add_pPr()
    num = OxmlElement("w:numPr")
    ilvl = OxmlElement("w:ilvl")
    ilvl.set(qn("w:val"), str(level))
    num_id_element = OxmlElement("w:numId")
    num_id_element.set(qn("w:val"), str(num_id))
    num.append(ilvl)
    num.append(num_id_element)
    props.append(num)


def sample() -> bytes:
    d = docx.Document()
    d.core_properties.title = "core title"
    d.sections[0].header.paragraphs[0].text = "Greenhaven — staff handbook"
    d.sections[0].footer.paragraphs[0].text = "Confidential"
    d.add_paragraph("Leave Policy", style="Title")
    d.add_paragraph("Staff accrue leave monthly.\tTabs   and  spaces collapse.")
    d.add_heading("Annual leave", 1)
    p = d.add_paragraph("First line")
    p.add_run().add_break()
    p.add_run("second line")
    d.add_paragraph("Apply in the portal", style="List Number")
    d.add_paragraph("Wait for approval", style="List Number")
    d.add_paragraph("Managers decide within a week", style="List Bullet")
    d.add_heading("Carry-over", 2)
    table = d.add_table(rows=3, cols=3)
    for r, row in enumerate([("Years", "Days", "Notes"), ("0-2", "20", ""), ("3+", "25", "x")]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    table.cell(2, 1).merge(table.cell(2, 2))
    table.cell(2, 1).text = "25 (merged)"
    d.add_heading("Sick leave", 1)
    d.add_paragraph("")  # empty paragraphs are layout, not text
    d.add_paragraph("Tell your manager.")
    return save(d)


def test_blocks_are_what_the_document_holds() -> None:
    doc = parse(sample())
    assert kinds(doc) == [
        ("heading", "Leave Policy"),
        ("paragraph", "Staff accrue leave monthly. Tabs and spaces collapse."),
        ("heading", "Annual leave"),
        ("paragraph", "First line\nsecond line"),
        ("list_item", "1. Apply in the portal"),
        ("list_item", "2. Wait for approval"),
        ("list_item", "Managers decide within a week"),
        ("heading", "Carry-over"),
        ("table", "Years | Days | Notes\n0-2 | 20 |\n3+ | 25 (merged)"),
        ("heading", "Sick leave"),
        ("paragraph", "Tell your manager."),
    ]
    levels = [(b.text, b.level, b.section) for b in doc.blocks if b.kind == "heading"]
    assert levels == [
        ("Leave Policy", 1, ("Leave Policy",)),
        ("Annual leave", 2, ("Leave Policy", "Annual leave")),
        ("Carry-over", 3, ("Leave Policy", "Annual leave", "Carry-over")),
        ("Sick leave", 2, ("Leave Policy", "Sick leave")),
    ]
    assert doc.title == "Leave Policy"
    assert doc.pages == ()
    check_document(doc)


def test_headers_and_footers_are_dropped_with_a_record() -> None:
    doc = parse(sample())
    assert [(d.reason, d.text) for d in doc.dropped] == [
        ("page header", "Greenhaven — staff handbook"),
        ("page footer", "Confidential"),
    ]
    assert "Confidential" not in doc.text


def test_without_a_title_paragraph_heading_levels_are_the_styles() -> None:
    d = docx.Document()
    d.add_heading("Scope", 1)
    d.add_paragraph("Text.")
    d.add_heading("Detail", 2)
    doc = parse(save(d))
    assert [(b.text, b.level) for b in doc.blocks if b.kind == "heading"] == [
        ("Scope", 1),
        ("Detail", 2),
    ]
    assert doc.title == "Scope"


def test_title_falls_back_to_core_properties_then_file_name() -> None:
    d = docx.Document()
    d.add_paragraph("Body first.")
    d.core_properties.title = "From properties"
    assert parse(save(d)).title == "From properties"
    d.core_properties.title = ""
    assert parse(save(d)).title == "leave"
    assert parse(save(d), title="Catalog").title == "Catalog"


def test_explicit_numbering_counts_per_list_and_level() -> None:
    d = docx.Document()
    d.add_paragraph("Seed", style="List Number")
    num_id = d.styles["List Number"].element.pPr.numPr.numId.val  # the style's own list
    for text, level in [("One", 0), ("Sub a", 1), ("Sub b", 1), ("Two", 0), ("Sub c", 1)]:
        number(d.add_paragraph(text), num_id, level)
    off = d.add_paragraph("Not numbered", style="List Number")
    number(off, 0, 0)  # numId 0 switches a style's numbering off
    doc = parse(save(d))
    assert [t for k, t in kinds(doc)] == [
        "1. Seed",
        "2. One",
        "1. Sub a",
        "2. Sub b",
        "3. Two",
        "1. Sub c",
        "Not numbered",
    ]
    assert [k for k, t in kinds(doc)] == ["list_item"] * 7


def test_content_controls_are_read() -> None:
    d = docx.Document()
    d.add_paragraph("Before.")
    inner = d.add_paragraph("Inside a content control.")
    sdt = OxmlElement("w:sdt")
    content = OxmlElement("w:sdtContent")
    sdt.append(content)
    inner._p.addprevious(sdt)
    content.append(inner._p)
    d.add_paragraph("After.")
    assert [t for _, t in kinds(parse(save(d)))] == [
        "Before.",
        "Inside a content control.",
        "After.",
    ]


@pytest.mark.parametrize("data", [b"", b"not a zip", b"PK\x03\x04broken"])
def test_bad_files_are_one_line_errors_naming_the_file(data: bytes) -> None:
    with pytest.raises(DocumentError, match=r"^hr/leave\.docx: not a readable \.docx file"):
        parse(data)


def test_empty_document_gives_no_blocks() -> None:
    doc = parse(save(docx.Document()))
    assert doc.blocks == () and doc.text == ""


def test_same_bytes_same_document() -> None:
    data = sample()
    assert parse(data).to_dict() == parse(data).to_dict()


FOOTNOTES = (
    '<w:footnotes xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
    '<w:footnote w:id="1"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve">'
    " Since the 2024 agreement.</w:t></w:r></w:p></w:footnote>"
    "</w:footnotes>"
)


def test_footnotes_follow_the_paragraph_that_refers_to_them() -> None:
    from docx.opc.constants import CONTENT_TYPE, RELATIONSHIP_TYPE
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    d = docx.Document()
    d.add_heading("Leave", 1)
    paragraph = d.add_paragraph("Staff get 25 days.")
    reference = OxmlElement("w:footnoteReference")
    reference.set(qn("w:id"), "1")
    paragraph.add_run()._r.append(reference)
    d.add_heading("Sick leave", 1)
    d.add_paragraph("Tell your manager.")
    part = Part(
        PackURI("/word/footnotes.xml"),
        CONTENT_TYPE.WML_FOOTNOTES,
        FOOTNOTES.encode(),
        d.part.package,
    )
    d.part.relate_to(part, RELATIONSHIP_TYPE.FOOTNOTES)
    doc = parse(save(d))
    assert kinds(doc) == [
        ("heading", "Leave"),
        ("paragraph", "Staff get 25 days."),
        ("paragraph", "Since the 2024 agreement."),
        ("heading", "Sick leave"),
        ("paragraph", "Tell your manager."),
    ]
    assert doc.blocks[2].section == ("Leave",)


def test_encrypted_or_legacy_file_says_so() -> None:
    with pytest.raises(DocumentError, match=r"^hr/leave\.docx: .*encrypted, or an old \.doc/\.ppt"):
        parse(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504))


def test_a_file_that_is_not_a_zip_says_so() -> None:
    with pytest.raises(DocumentError) as info:
        parse(b"plain text, not a Word file")
    assert str(info.value) == "hr/leave.docx: not a readable .docx file (not a zip archive)"


def test_a_page_laid_out_in_a_table_keeps_its_headings_and_paragraphs() -> None:
    # A report or CV template puts the page in a table: it became one row of all its text.
    d = docx.Document()
    table = d.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "Menu"
    cell = table.cell(0, 1)
    cell.paragraphs[0].text = "Annual review"
    cell.paragraphs[0].style = d.styles["Heading 1"]
    cell.add_paragraph("Revenue rose.")
    data = d.add_table(rows=1, cols=2)
    data.cell(0, 0).text, data.cell(0, 1).text = "Year", "2023"
    assert kinds(parse(save(d))) == [
        ("paragraph", "Menu"),
        ("heading", "Annual review"),
        ("paragraph", "Revenue rose."),
        ("table", "Year | 2023"),
    ]
