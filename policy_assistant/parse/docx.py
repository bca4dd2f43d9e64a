"""Word (.docx) to blocks with python-docx; the only python-docx import.

The body is read in order, content controls included. A paragraph styled "Heading N" (or a
style based on one) is a heading of level N; with a "Title" paragraph in the document, that
paragraph is level 1 and every "Heading N" is level N + 1, so sections sit under the title.
A paragraph with numbering (its own or its style's, as "List Bullet" and "List Number" have)
or a "List ..." style is a list item; a numbered one is prefixed "1. ", "2. " as in Markdown,
counted per list and level. A table is one block, a row per line, cells joined by " | "
(a merged cell once), unless a cell holds a heading and another paragraph or table: such a
table lays out a page and is read as its cells' contents in turn. A footnote or endnote
follows, as paragraphs, the paragraph that refers to it, so it stays in that paragraph's
section. Line breaks inside a paragraph stay; other
whitespace collapses. Page headers and footers are left out and recorded in
Document.dropped. Word files have no pages the parser can see (layout is the reader's), so
Document.pages is empty. The title is the catalog's, else the Title paragraph, else a leading
heading, else the core properties' title, else the file name.
"""

from __future__ import annotations

import io
import re
from dataclasses import replace
from typing import Any

import docx
from docx.opc.constants import RELATIONSHIP_TYPE
from docx.oxml import parse_xml
from docx.table import Table
from docx.text.paragraph import Paragraph

from policy_assistant.errors import DocumentError
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.parse.office_zip import check_package
from policy_assistant.parse.text import file_stem, finish, leading_title, office_problem
from policy_assistant.records import Document, DocumentMeta, Dropped

_HEADING_STYLE = re.compile(r"heading ([1-9])", re.IGNORECASE)
_SPACES = re.compile(r"[^\S\n]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
# Not shown: a Fallback repeats its Choice; tracked deletions and moves-away are gone.
_HIDDEN = {_FALLBACK, f"{_W}del", f"{_W}moveFrom"}
_CHARACTERS = {f"{_W}tab": "\t", f"{_W}br": "\n", f"{_W}cr": "\n", f"{_W}noBreakHyphen": "-"}


def parse_docx(data: bytes, source: str, meta: DocumentMeta, sha256: str) -> Document:
    """Parse a .docx file's bytes into a Document; headers and footers are recorded as dropped."""
    check_package(data, source)  # before the library inflates it all
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises zip, XML and key errors alike on bad files
        raise DocumentError(source, office_problem(data, ".docx", exc)) from exc
    reader = _Reader(document)
    reader.read(document.element.body)
    builder = reader.builder
    title = (
        meta.title
        or reader.title
        or leading_title(builder.blocks)
        or (document.core_properties.title or "").strip()
        or file_stem(source)
    )
    return finish(builder, source, sha256, replace(meta, title=title), _chrome(document))


def _chrome(document: Any) -> tuple[Dropped, ...]:
    seen: dict[tuple[str, str], None] = {}
    for section in document.sections:
        for part, reason in ((section.header, "page header"), (section.footer, "page footer")):
            if part.is_linked_to_previous and seen:
                continue
            text = clean(" ".join(p.text for p in part.paragraphs)).replace("\n", " ")
            if text:
                seen.setdefault((text, reason), None)
    return tuple(Dropped(text, reason) for text, reason in seen)


def clean(text: str) -> str:
    """Collapse spaces and tabs, keep line breaks, drop control characters."""
    lines = (_SPACES.sub(" ", line).strip() for line in _CONTROL.sub("", text).split("\n"))
    return "\n".join(line for line in lines if line)


class _Reader:
    """Read body elements in order into a DocumentBuilder."""

    def __init__(self, document: Any) -> None:
        self.document = document
        self.builder = DocumentBuilder()
        self.title: str | None = None
        self.styles = _Styles()
        self.has_title = any(self.styles.names(p)[:1] == ["title"] for p in document.paragraphs)
        self.counters: dict[tuple[str, int], int] = {}
        self.formats = _NumberFormats(document)
        self.notes = _notes(document)

    def read(self, container: Any) -> None:
        for child in container.iterchildren():
            if child.tag == f"{_W}p":
                self._paragraph(Paragraph(child, self.document._body))
            elif child.tag == f"{_W}tbl":
                self._table(Table(child, self.document._body))
            elif child.tag == f"{_W}sdt":
                content = child.find(f"{_W}sdtContent")
                if content is not None:
                    self.read(content)

    def _paragraph(self, paragraph: Any) -> None:
        text = clean(_element_text(paragraph._p))
        if not text:
            return
        names = self.styles.names(paragraph)
        level = _heading_level(names)
        if names[:1] == ["title"]:
            self.title = self.title or text.replace("\n", " ")
            self.builder.heading(text.replace("\n", " "), 1)
        elif level:
            self.builder.heading(text.replace("\n", " "), level + self.has_title)
        elif (numbering := _numbering(paragraph, self.styles)) is not None:
            self.builder.add("list_item", self._marker(*numbering) + text)
        elif any(name.startswith("list") for name in names):
            self.builder.add("list_item", text)
        else:
            self.builder.add("paragraph", text)
        self._notes_of(paragraph._p)

    def _notes_of(self, element: Any) -> None:
        """Add the footnotes and endnotes a paragraph refers to, right after it."""
        for kind in ("footnote", "endnote"):
            for reference in element.iter(f"{_W}{kind}Reference"):
                for text in self.notes.pop((kind, reference.get(f"{_W}id")), []):
                    self.builder.add("paragraph", text)

    def _marker(self, num_id: str, level: int) -> str:
        if self.formats.format(num_id, level) in ("bullet", "none"):
            return ""
        for key in [k for k in self.counters if k[0] == num_id and k[1] > level]:
            del self.counters[key]  # a deeper list restarts under each new item
        count = self.counters[(num_id, level)] = self.counters.get((num_id, level), 0) + 1
        return f"{count}. "

    def _table(self, table: Any) -> None:
        grid = []
        for row in table.rows:
            cells: list[Any] = []
            for cell in row.cells:
                if not cells or cell._tc is not cells[-1]._tc:  # a merged cell comes repeated
                    cells.append(cell)
            grid.append(cells)
        if any(self._lays_out(cell) for cells in grid for cell in cells):
            for cell in (cell for cells in grid for cell in cells):
                self.read(cell._tc)  # a page laid out in a table: its cells are the page
            return
        rows = [" | ".join(_cell_text(c) for c in cells).rstrip() for cells in grid]
        self.builder.add("table", "\n".join(r for r in rows if r.strip(" |")))

    def _lays_out(self, cell: Any) -> bool:
        """Whether a cell holds a heading and another paragraph or table: its table lays out a
        page (a report, a CV template), which read as data became one row of all its text."""
        paragraphs = cell.paragraphs
        if not any(_heading_level(self.styles.names(p)) for p in paragraphs):
            return False
        return len([p for p in paragraphs if clean(_element_text(p._p))] + cell.tables) > 1


def _element_text(element: Any) -> str:
    """Return the text of a paragraph's XML: runs in insertions, fields, content controls,
    hyperlinks and text boxes included (python-docx's Paragraph.text skips some of these)."""
    parts: list[str] = []
    for child in element:
        tag = child.tag
        if tag == f"{_W}t":
            parts.append(child.text or "")
        elif tag in _CHARACTERS:
            parts.append(_CHARACTERS[tag])
        elif tag == f"{_W}p" and parts:
            parts.append("\n" + _element_text(child))  # a text box's paragraphs
        elif tag not in _HIDDEN and isinstance(tag, str):
            parts.append(_element_text(child))
    return "".join(parts)


def _cell_text(cell: Any) -> str:
    """Return a cell's text on one line, a nested table's cells included."""
    outer = (p for p in cell._tc.iter(f"{_W}p") if next(p.iterancestors(f"{_W}p"), None) is None)
    paragraphs = (clean(_element_text(p)) for p in outer)
    return " ".join(text for text in paragraphs if text).replace("\n", " ")


def _notes(document: Any) -> dict[tuple[str, str | None], list[str]]:
    """Return each footnote's and endnote's paragraphs, keyed by (kind, id)."""
    notes: dict[tuple[str, str | None], list[str]] = {}
    for kind in ("footnote", "endnote"):
        try:
            part = document.part.part_related_by(getattr(RELATIONSHIP_TYPE, f"{kind.upper()}S"))
        except KeyError:
            continue
        for note in parse_xml(part.blob).iter(f"{_W}{kind}"):
            texts = (clean(_element_text(p)) for p in note.iter(f"{_W}p"))
            notes[(kind, note.get(f"{_W}id"))] = [t for t in texts if t]
    return notes


class _Styles:
    """A paragraph's style chain, looked up once per style: python-docx finds a paragraph's
    default style by a scan of every style, which made a large document's parse take hours."""

    def __init__(self) -> None:
        self._chains: dict[str | None, tuple[list[str], list[Any]]] = {}

    def _chain(self, paragraph: Any) -> tuple[list[str], list[Any]]:
        key = paragraph._p.style  # the style ID the paragraph names, None for the default
        chain = self._chains.get(key)
        if chain is None:
            chain = self._chains[key] = _style_chain(paragraph)
        return chain

    def names(self, paragraph: Any) -> list[str]:
        """Return the paragraph's style name and those it is based on, lower case."""
        return self._chain(paragraph)[0]

    def elements(self, paragraph: Any) -> list[Any]:
        """Return the XML of the paragraph's style and those it is based on."""
        return self._chain(paragraph)[1]


def _style_chain(paragraph: Any) -> tuple[list[str], list[Any]]:
    """Return the names (lower case) and XML of the paragraph's style and its bases."""
    names: list[str] = []
    elements: list[Any] = []
    style = paragraph.style
    while style is not None and len(names) < 8:
        names.append((style.name or "").lower())
        elements.append(style.element)
        style = style.base_style
    return names, elements


def _heading_level(names: list[str]) -> int:
    for name in names:
        match = _HEADING_STYLE.fullmatch(name)
        if match:
            return int(match.group(1))
    return 0


def _numbering(paragraph: Any, styles: _Styles) -> tuple[str, int] | None:
    """Return (numId, level) from the paragraph's numbering, else its style's."""
    for element in (paragraph._p, *styles.elements(paragraph)):
        props = element.find(f"{_W}pPr")
        num = props.find(f"{_W}numPr") if props is not None else None
        if num is None:
            continue
        num_id = num.find(f"{_W}numId")
        level = num.find(f"{_W}ilvl")
        if num_id is None or num_id.get(f"{_W}val") == "0":
            return None  # numId 0 switches numbering off
        return num_id.get(f"{_W}val"), int(level.get(f"{_W}val")) if level is not None else 0
    return None


class _NumberFormats:
    """numId and level to the numbering's format ("decimal", "bullet", ...)."""

    def __init__(self, document: Any) -> None:
        try:
            self.root = document.part.numbering_part.element
        except (KeyError, NotImplementedError, AttributeError):
            self.root = None

    def format(self, num_id: str, level: int) -> str:
        """Return the format of level `level` of list `num_id`, "decimal" when unknown."""
        if self.root is None or not num_id.isdigit():
            return "decimal"
        abstract = self.root.xpath(f'./w:num[@w:numId="{num_id}"]/w:abstractNumId/@w:val')
        if not abstract:
            return "decimal"
        found = self.root.xpath(
            f'./w:abstractNum[@w:abstractNumId="{abstract[0]}"]'
            f'/w:lvl[@w:ilvl="{level}"]/w:numFmt/@w:val'
        )
        return str(found[0]) if found else "decimal"
