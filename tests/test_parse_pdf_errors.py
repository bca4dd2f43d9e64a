"""The PDF parser on inputs it must refuse, or repair, without a pymupdf error escaping."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest
from support.pdf_factory import TABLE_HTML, parse, save, story_pdf, zero_page_pdf

from policy_assistant.errors import DocumentError
from policy_assistant.parse.pdf.reader import parse_pdf
from policy_assistant.records import DocumentMeta


def problem(data: bytes) -> str:
    with pytest.raises(DocumentError) as caught:
        parse_pdf(data, "bad/input.pdf", DocumentMeta(), "x")
    assert caught.value.source == "bad/input.pdf"
    return caught.value.problem


def test_encrypted_pdf_is_refused_with_a_clear_message() -> None:
    doc = pymupdf.open("pdf", story_pdf("<p>Secret.</p>"))
    data = save(doc, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="u", owner_pw="o")
    assert problem(data) == "encrypted PDF: needs a password"


def test_pdf_with_only_an_owner_password_opens() -> None:
    doc = pymupdf.open("pdf", story_pdf("<p>Readable by anyone.</p>"))
    data = save(doc, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o")
    assert parse(data).text == "Readable by anyone."


@pytest.mark.parametrize(
    "data",
    [b"", b"hello, not a pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3 truncated"],
    ids=["empty", "text", "truncated"],
)
def test_unreadable_bytes_are_refused(data: bytes) -> None:
    assert problem(data).startswith("not a readable PDF: ")


def test_pdf_with_no_pages_is_refused() -> None:
    assert problem(zero_page_pdf()) == "PDF has no pages"


def test_pdf_without_text_is_refused() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.draw_rect(pymupdf.Rect(50, 50, 300, 300), fill=(0.5, 0.5, 0.5))
    assert problem(save(doc)) == "PDF has no extractable text (scanned images?)"


def test_damaged_cross_reference_is_repaired_and_parsed() -> None:
    data = story_pdf("<h1>Still here</h1><p>The text survives a broken xref.</p>")
    damaged = data.replace(b"startxref", b"startxrex")
    assert parse(damaged).title == "Still here"


@pytest.mark.slow
def test_parsing_prints_nothing(tmp_path: Path) -> None:
    # A fresh interpreter: pymupdf prints its table-finder advert only once per process.
    sample = tmp_path / "table.pdf"
    sample.write_bytes(story_pdf(TABLE_HTML))
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from policy_assistant.errors import DocumentError\n"
        "from policy_assistant.parse.pdf.reader import parse_pdf\n"
        "from policy_assistant.records import DocumentMeta\n"
        "parse_pdf(Path(sys.argv[1]).read_bytes(), 't.pdf', DocumentMeta(), 'x')\n"
        "try:\n"
        "    parse_pdf(b'%PDF-1.7 junk', 'x.pdf', DocumentMeta(), 'x')\n"
        "except DocumentError:\n"
        "    pass\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(sample)], capture_output=True, text=True, check=True
    )
    assert (done.stdout, done.stderr) == ("", "")
