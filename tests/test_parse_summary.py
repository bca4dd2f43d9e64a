"""The parse command's terminal summary: what was dropped, OCR'd pages and notes."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from typer.testing import CliRunner

from policy_assistant.cli import app
from policy_assistant.cli.parse_cmd import document_remarks
from policy_assistant.parse.pdf import ocr as pdf_ocr
from policy_assistant.records import Document, Dropped

runner = CliRunner()


def _handbook(path: Path) -> None:
    """Write three pages with a running head, a page number and body text each."""
    doc = pymupdf.open()
    for number in range(1, 4):
        page = doc.new_page(width=595, height=842)
        page.insert_text((56, 40), "Staff Handbook", fontsize=8)
        page.insert_text((290, 815), str(number), fontsize=8)
        body = f"Section {number} body text about refunds and returns at the till."
        page.insert_textbox(pymupdf.Rect(56, 100, 540, 300), body, fontsize=11)
    scan = doc.new_page(width=595, height=842)
    picture = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 40, 40), False)
    picture.clear_with(200)
    scan.insert_image(pymupdf.Rect(56, 56, 500, 500), pixmap=picture)
    doc.save(path)
    doc.close()


def test_summary_shows_drops_by_reason_and_scanned_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pdf_ocr, "ENABLED", True)  # --no-ocr switches it off for the process
    corpus = tmp_path / "c"
    corpus.mkdir()
    _handbook(corpus / "handbook.pdf")
    result = runner.invoke(app, ["parse", str(corpus), "--no-ocr"])
    assert result.exit_code == 0, result.output
    out = " ".join(result.stdout.split())
    assert "handbook.pdf: dropped: page number 3, running head 3" in out
    assert "handbook.pdf: note: page 4: scanned" in out
    assert "OCR is switched off" in out


def test_remarks_name_ocr_pages_as_ranges() -> None:
    document = Document(
        source="scan.pdf",
        title="Scan",
        version="1",
        access="public",
        language="en",
        sha256="0",
        text="",
        ocr_pages=(1, 2, 3, 7),
        dropped=(Dropped("12", "page number", 1),),
    )
    assert document_remarks(document) == [
        "scan.pdf: dropped: page number 1",
        "scan.pdf: OCR'd pages: 1-3, 7",
    ]
