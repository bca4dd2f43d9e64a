"""Hostile documents made in memory: zip bombs, huge, deep and wide files of every format."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable

import docx
import pptx

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _office_skeleton(kind: str) -> bytes:
    """An empty document saved by python-docx or python-pptx."""
    out = io.BytesIO()
    (docx.Document() if kind == "docx" else pptx.Presentation()).save(out)
    return out.getvalue()


def replace_part(package: bytes, name: str, chunks: Iterable[bytes]) -> bytes:
    """Return the package with part `name` written from `chunks` (streamed: never whole)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(package)) as old, zipfile.ZipFile(out, "w") as new:
        for item in old.infolist():
            if item.filename == name:
                continue
            new.writestr(item, old.read(item.filename), compress_type=zipfile.ZIP_DEFLATED)
        info = zipfile.ZipInfo(name)
        info.compress_type = zipfile.ZIP_DEFLATED
        with new.open(info, "w", force_zip64=True) as part:
            for chunk in chunks:
                part.write(chunk)
    return out.getvalue()


def docx_body(body: Iterable[bytes]) -> bytes:
    """A .docx whose document body is the XML `body` yields."""

    def chunks() -> Iterable[bytes]:
        yield f'<?xml version="1.0" encoding="UTF-8"?><w:document {W}><w:body>'.encode()
        yield from body
        yield b"</w:body></w:document>"

    return replace_part(_office_skeleton("docx"), "word/document.xml", chunks())


def repeated(piece: bytes, count: int, per_chunk: int = 100_000) -> Iterable[bytes]:
    """`piece` `count` times, in chunks."""
    while count > 0:
        n = min(count, per_chunk)
        yield piece * n
        count -= n


def docx_empty_paragraphs(megabytes: int) -> bytes:
    """A zip bomb: a small .docx whose body inflates to `megabytes` MB of empty paragraphs."""
    return docx_body(repeated(b"<w:p/>", megabytes * 1_000_000 // 6))


def docx_paragraphs(count: int) -> bytes:
    """A .docx of `count` short paragraphs."""
    return docx_body(repeated(b"<w:p><w:r><w:t>Hose warranty text.</w:t></w:r></w:p>", count))


def pptx_slide_shapes(shapes: int) -> bytes:
    """A .pptx of one slide holding `shapes` text boxes."""
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[6])
    box = slide.shapes.add_textbox(0, 0, 100, 100)
    box.text_frame.text = "Sprinkler warranty"
    out = io.BytesIO()
    deck.save(out)
    with zipfile.ZipFile(io.BytesIO(out.getvalue())) as package:
        xml = package.read("ppt/slides/slide1.xml")
    start, end = xml.index(b"<p:sp>"), xml.index(b"</p:sp>") + len(b"</p:sp>")
    shape = xml[start:end]
    return replace_part(
        out.getvalue(),
        "ppt/slides/slide1.xml",
        [xml[:start], *repeated(shape, shapes, 10_000), xml[end:]],
    )


def pptx_slides(count: int) -> bytes:
    """A .pptx of `count` slides, each with a title and a line of text."""
    deck = pptx.Presentation()
    for number in range(count):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = f"Slide {number}"
        slide.placeholders[1].text = "Watering schedules for lawns."
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def pptx_inflating(megabytes: int) -> bytes:
    """A zip bomb: a small .pptx whose one slide inflates to `megabytes` MB (blank padding)."""
    deck = pptx.Presentation()
    deck.slides.add_slide(deck.slide_layouts[6]).shapes.add_textbox(0, 0, 9, 9).text = "Hoses"
    out = io.BytesIO()
    deck.save(out)
    with zipfile.ZipFile(io.BytesIO(out.getvalue())) as package:
        xml = package.read("ppt/slides/slide1.xml")
    cut = xml.index(b"<p:sp>")
    padding = repeated(b" ", megabytes * 1_000_000, 10_000_000)
    return replace_part(out.getvalue(), "ppt/slides/slide1.xml", [xml[:cut], *padding, xml[cut:]])


def html_headings(count: int) -> bytes:
    """An HTML page of `count` headings."""
    return b"<html><body>" + b"<h2>Pruning roses</h2>" * count + b"</body></html>"


def html_table(rows: int, cells: int) -> bytes:
    """An HTML page of one table."""
    row = b"<tr>" + b"<td>x</td>" * cells + b"</tr>"
    return b"<html><body><table>" + row * rows + b"</table></body></html>"


def html_deep(depth: int) -> bytes:
    """An HTML page of `depth` nested elements."""
    return b"<html><body>" + b"<div><span>" * depth + b"deep" + b"</span></div>" * depth


def html_unclosed_headings(count: int) -> bytes:
    """An HTML page of `count` headings never closed."""
    return b"<html><body>" + b"<h2>Pruning roses" * count


def html_nested_tables(depth: int) -> bytes:
    """An HTML page of tables nested `depth` deep, a cell of text at each level."""
    return b"<html><body>" + b"<table><tr><td>cell text<td>" * depth


def html_wide_row(cells: int) -> bytes:
    """An HTML table of one row of `cells` cells, never closed."""
    return b"<html><body><table><tr>" + b"<td>x" * cells
