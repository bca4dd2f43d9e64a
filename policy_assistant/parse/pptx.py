"""PowerPoint (.pptx) to blocks with python-pptx; the only python-pptx import.

Each slide is a page (Document.pages holds where each slide's text starts; a slide without
text starts where the next one does). The slide's title placeholder is a level-1 heading, so
every block of the slide sits in its section. The other shapes follow in reading order, top
to bottom then left to right (a group's shapes in their own order inside it): a body or
content placeholder's paragraphs are list items, other text boxes give paragraphs, a table is
one block (a row per line, cells joined by " | "). The speaker notes come last, as paragraphs
under the slide: they are often the densest text. A slide with a picture and fewer than
MOSTLY_IMAGE_WORDS words of text on it gets a note "slide N: mostly image" in Document.notes.
The title is the catalog's, else the first slide's title, else the core properties' title,
else the file name.
"""

from __future__ import annotations

import io
import re
from dataclasses import replace
from typing import Any

import pptx
from pptx.enum.shapes import MSO_SHAPE_TYPE, PP_PLACEHOLDER

from policy_assistant.errors import DocumentError
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.parse.office_zip import check_package
from policy_assistant.parse.text import file_stem, finish, office_problem
from policy_assistant.records import BlockKind, Document, DocumentMeta
from policy_assistant.text import count_words

MOSTLY_IMAGE_WORDS = 30
"""A slide with a picture and fewer words than this is noted as mostly image."""
MAX_SLIDES = 5_000
"""Slides in one deck; a deck with more is refused (python-pptx takes milliseconds a slide)."""
MAX_SHAPES = 20_000
"""Shapes in one deck, groups' shapes included; a deck with more is refused."""

_SPACES = re.compile(r"[^\S\n]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_TITLES = {PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE, PP_PLACEHOLDER.VERTICAL_TITLE}
_BULLETED = {PP_PLACEHOLDER.BODY, PP_PLACEHOLDER.OBJECT, PP_PLACEHOLDER.VERTICAL_BODY}


def parse_pptx(data: bytes, source: str, meta: DocumentMeta, sha256: str) -> Document:
    """Parse a .pptx file's bytes into a Document, one page per slide."""
    check_package(data, source)  # before the library inflates it all
    try:
        presentation = pptx.Presentation(io.BytesIO(data))
    except Exception as exc:  # python-pptx raises zip, XML and key errors alike on bad files
        raise DocumentError(source, office_problem(data, ".pptx", exc)) from exc
    builder = DocumentBuilder()
    notes: list[str] = []
    first_title: str | None = None
    slides = presentation.slides
    _refuse_past(source, len(slides), MAX_SLIDES, "slides")
    shapes = 0
    for number, slide in enumerate(slides, 1):
        shapes += _shape_count(slide.shapes)
        _refuse_past(source, shapes, MAX_SHAPES, "shapes")
        title, words, pictures = _slide(builder, slide, number)
        first_title = first_title or (title if number == 1 else None)
        if pictures and words < MOSTLY_IMAGE_WORDS:
            notes.append(f"slide {number}: mostly image")
    title = (
        meta.title
        or first_title
        or (presentation.core_properties.title or "").strip()
        or file_stem(source)
    )
    return finish(builder, source, sha256, replace(meta, title=title), notes=tuple(notes))


def _refuse_past(source: str, count: int, limit: int, what: str) -> None:
    """Raise DocumentError when a deck holds more than `limit` of `what`."""
    if count > limit:
        raise DocumentError(source, f"refused: over {limit:,} {what} in one deck")


def _shape_count(shapes: Any) -> int:
    """Return the shapes on a slide, those inside groups included (XML only: cheap)."""
    tree = shapes._spTree
    return sum(
        1
        for element in tree.iter()
        if element.tag.endswith(("}sp", "}pic", "}graphicFrame", "}cxnSp"))
    )


def clean(text: str) -> str:
    """Collapse spaces and tabs, keep line breaks, drop control characters."""
    lines = (_SPACES.sub(" ", line).strip() for line in _CONTROL.sub("", text).split("\n"))
    return "\n".join(line for line in lines if line)


def _slide(builder: DocumentBuilder, slide: Any, number: int) -> tuple[str | None, int, int]:
    """Add one slide's blocks; return its title, its words on the slide, and its pictures."""
    builder.begin_page(number)
    page = (number,)
    shapes = _reading_order(slide.shapes)
    title_shape = next((s for s in shapes if _placeholder_type(s) in _TITLES), None)
    title = clean(title_shape.text_frame.text).replace("\n", " ") if title_shape else ""
    words = count_words(title)
    if title:
        builder.heading(title, 1, page)
    pictures = 0
    for shape in shapes:
        if shape is title_shape:
            continue
        pictures += _is_picture(shape)
        for kind, text in _shape_blocks(shape):
            words += count_words(text)
            builder.add(kind, text, page)
    if slide.has_notes_slide:
        frame = slide.notes_slide.notes_text_frame
        for paragraph in frame.paragraphs if frame is not None else ():
            builder.add("paragraph", clean(_paragraph_text(paragraph)), page)
    return title or None, words, pictures


def _reading_order(shapes: Any) -> list[Any]:
    """Return shapes top to bottom, then left to right; groups flattened in place."""
    ordered = sorted(shapes, key=lambda s: (s.top or 0, s.left or 0))
    out: list[Any] = []
    for shape in ordered:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            out.extend(_reading_order(shape.shapes))
        else:
            out.append(shape)
    return out


def _placeholder_type(shape: Any) -> Any:
    return shape.placeholder_format.type if shape.is_placeholder else None


def _is_picture(shape: Any) -> bool:
    if shape.shape_type == MSO_SHAPE_TYPE.PICTURE:
        return True
    return shape.is_placeholder and hasattr(shape, "image")


def _shape_blocks(shape: Any) -> list[tuple[BlockKind, str]]:
    """Return (kind, text) for the blocks of one shape."""
    if shape.has_table:
        rows = []
        for row in shape.table.rows:
            cells = [clean(c.text).replace("\n", " ") for c in row.cells if not c.is_spanned]
            rows.append(" | ".join(cells).rstrip())
        return [("table", "\n".join(r for r in rows if r.strip(" |")))]
    if not shape.has_text_frame:
        return []
    kind: BlockKind = "list_item" if _placeholder_type(shape) in _BULLETED else "paragraph"
    texts = (clean(_paragraph_text(p)) for p in shape.text_frame.paragraphs)
    return [(kind, text) for text in texts if text]


def _paragraph_text(paragraph: Any) -> str:
    # A vertical tab is PowerPoint's line break inside a paragraph.
    return str(paragraph.text).replace("\v", "\n")
