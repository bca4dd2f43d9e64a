"""Build small PDFs in memory for the PDF parser's tests, and parse them with checks."""

from __future__ import annotations

import io
from collections.abc import Sequence

import pymupdf

from policy_assistant.parse.pdf.reader import parse_pdf
from policy_assistant.records import Block, Document, DocumentMeta

A4 = pymupdf.paper_rect("a4")
MARGIN = 56.0
TABLE_HTML = (
    "<h2>Warranty periods</h2><p>Periods run from the date on the receipt.</p>"
    "<table><tr><th>Category</th><th>Period</th><th>Exceptions</th></tr>"
    "<tr><td>Hand tools</td><td>Lifetime</td><td>Blade wear and sharpening of the edges</td></tr>"
    "<tr><td>Mowers</td><td>2 years</td><td>90 days if used commercially</td></tr></table>"
    "<p>Keep your receipt.</p>"
)
"""A heading, a sentence, a ruled three-column table and a closing sentence."""
BODY_CSS = "body { font-family: sans-serif; } th, td { border: 1px solid black; padding: 2px; }"


def story_pdf(html: str, *, columns: int = 1, css: str = BODY_CSS) -> bytes:
    """Lay out HTML with pymupdf's Story on A4 pages, in one or more columns."""
    buffer = io.BytesIO()
    writer = pymupdf.DocumentWriter(buffer)
    story = pymupdf.Story(html=html, user_css=css)
    area = pymupdf.Rect(MARGIN, MARGIN + 20, A4.width - MARGIN, A4.height - MARGIN - 20)
    gap = 20.0
    width = (area.width - gap * (columns - 1)) / columns
    more = 1
    while more:
        device = writer.begin_page(A4)
        for column in range(columns):
            x0 = area.x0 + column * (width + gap)
            more, _ = story.place(pymupdf.Rect(x0, area.y0, x0 + width, area.y1))
            story.draw(device)
            if not more:
                break
        writer.end_page()
    writer.close()
    return buffer.getvalue()


def stamp(pdf: bytes, header: str | None = None, footer: str | None = None) -> bytes:
    """Add a running header and a 'Page N of M' footer (with {n} and {m}) to every page."""
    doc = pymupdf.open("pdf", pdf)
    total = doc.page_count
    for number, page in enumerate(doc, start=1):
        if header:
            page.insert_text((MARGIN, 36), header, fontname="helv", fontsize=8)
        if footer:
            label = footer.format(n=number, m=total)
            page.insert_text((MARGIN, A4.height - 30), label, fontname="helv", fontsize=8)
    return save(doc)


def save(doc: pymupdf.Document, **options: object) -> bytes:
    """Return a document's bytes and close it."""
    data: bytes = doc.tobytes(**options)
    doc.close()
    return data


def lines_pdf(
    pages: Sequence[Sequence[tuple[float, float, str]]],
    fontsize: float = 11,
    fontname: str = "helv",
) -> bytes:
    """Write text at exact positions: one list of (x, baseline y, text) per page."""
    doc = pymupdf.open()
    for items in pages:
        page = doc.new_page(width=A4.width, height=A4.height)
        for x, y, text in items:
            page.insert_text((x, y), text, fontname=fontname, fontsize=fontsize)
    return save(doc)


def draw_table(
    page: pymupdf.Page,
    top: float,
    rows: Sequence[Sequence[str]],
    widths: Sequence[float],
    *,
    left: float = MARGIN,
    row_height: float = 18.0,
    fontsize: float = 9,
    open_top: bool = False,
    style: str = "grid",
) -> float:
    """Draw a ruled table with its text; return the y where it ends.

    open_top leaves out the rule above the first row, as layout engines do on the page
    where a table continues. style "grid" rules every row and column; "inner" leaves out
    the outer column rules (DocBook and LaTeX tables often do); "booktabs" draws only a
    top rule, a rule under the header and a bottom rule, and no column rules.
    """
    right = left + sum(widths)
    bottom = top + row_height * len(rows)
    if style == "booktabs":
        rules = [top, top + row_height, bottom]
    else:
        rules = [top + i * row_height for i in range(1 if open_top else 0, len(rows) + 1)]
    for y in rules:
        page.draw_line((left, y), (right, y), width=0.6)
    x = left
    edges = [0.0, *widths]
    for number, width in enumerate(edges):
        x += width
        outer = number in (0, len(edges) - 1)
        if style == "booktabs" or (style == "inner" and outer):
            continue
        page.draw_line((x, top), (x, bottom), width=0.6)
    for r, row in enumerate(rows):
        x = left
        for cell, width in zip(row, widths, strict=True):
            page.insert_text((x + 3, top + r * row_height + 13), cell, fontsize=fontsize)
            x += width
    return bottom


def zero_page_pdf() -> bytes:
    """Return a minimal well-formed PDF whose page tree is empty (pymupdf refuses to save one)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [] /Count 0 >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def parse(data: bytes, source: str = "docs/sample.pdf", **meta: object) -> Document:
    document = parse_pdf(data, source, DocumentMeta(**meta), "0" * 64)  # type: ignore[arg-type]
    assert_consistent(document)
    return document


def assert_consistent(document: Document) -> None:
    """Offsets map back exactly; pages are listed in order and cover each block's pages."""
    for block in document.blocks:
        assert document.text[block.start : block.end] == block.text
        if block.kind != "code":  # code may start indented
            assert block.text == block.text.strip()
    assert list(document.pages) == sorted(document.pages)
    assert all(0 <= offset <= len(document.text) for offset in document.pages)
    for block in document.blocks:
        for page in block.pages:
            start = document.pages[page - 1]
            end = document.pages[page] if page < len(document.pages) else len(document.text)
            # The block has text on this page: its span overlaps the page's span.
            assert block.start <= end and start <= block.end


def kinds(document: Document) -> list[tuple[str, str]]:
    return [(b.kind, b.text) for b in document.blocks]


def only(document: Document, kind: str) -> list[Block]:
    return [b for b in document.blocks if b.kind == kind]
