"""The Word and PowerPoint parsers on files made by Word and PowerPoint (python-docx's and
python-pptx's own test files, MIT): no letter or digit of the XML's text is lost."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.format_checks import check_document
from support.markdown_truth import missing
from support.office_truth import office_text

from policy_assistant.parse.docx import parse_docx
from policy_assistant.parse.pptx import parse_pptx
from policy_assistant.records import Document, DocumentMeta

FORMATS = Path(__file__).parent / "fixtures" / "formats"


def parse(path: Path) -> Document:
    parser = parse_docx if path.suffix == ".docx" else parse_pptx
    return parser(path.read_bytes(), path.name, DocumentMeta(), "0" * 64)


def kept(doc: Document) -> str:
    return doc.text + "\n" + "\n".join(d.text for d in doc.dropped)


def test_nested_table_text_is_kept_in_its_cell() -> None:
    doc = parse(FORMATS / "python-docx-blk-paras-and-tables.docx")
    assert not missing(office_text(FORMATS / "python-docx-blk-paras-and-tables.docx"), kept(doc))
    tables = [b.text for b in doc.blocks if b.kind == "table"]
    assert "Text before Table Between Text after" in tables
    check_document(doc)


def test_placeholders_and_notes_of_a_real_deck() -> None:
    path = FORMATS / "python-pptx-ph-inherit-props.pptx"
    doc = parse(path)
    assert not missing(office_text(path), kept(doc))
    assert [b.text for b in doc.blocks] == [
        "Title Text",
        "Body Text",
        "Notes in inherited position and size.",
        "Notes in modified position and size.",
    ]
    assert doc.blocks[0].kind == "heading" and doc.title == "Title Text"


def test_real_office_files_lose_no_character() -> None:
    # Every .docx and .pptx of the two sdists, fetched by tests/fixtures/formats/fetch.sh.
    folder = Path(os.environ.get("POLICY_ASSISTANT_REAL_OFFICE", "build/real-office"))
    files = sorted(folder.glob("*.[dp][op][ct]x")) if folder.is_dir() else []
    if not files:
        pytest.skip(f"no fetched Office files in {folder}: run tests/fixtures/formats/fetch.sh")
    assert len(files) >= 100
    losses = {}
    for path in files:
        doc = parse(path)
        for block in doc.blocks:
            assert doc.text[block.start : block.end] == block.text
        losses[path.name] = missing(office_text(path), kept(doc))
    assert {name: lost for name, lost in losses.items() if lost} == {}
