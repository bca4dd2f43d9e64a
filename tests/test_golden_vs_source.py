"""Each bundled PDF against its HTML source in corpus-src/: an independent truth.

The PDFs are rendered from corpus-src/ by scripts/build_corpus.py, which stamps a running
header and a "Greenhaven Home & Garden ... Page N of M" footer on every page. The source
is read here with the standard library's html.parser, not with anything the parser under
test uses, and the parse must give back exactly the source's headings (text and level),
paragraphs and list items (text, in order) and table cells, and nothing else: the
stamped header and footer must be gone from the blocks and found in Document.dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
from support.pdf_factory import parse

from policy_assistant.records import Document

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "corpus-src").glob("**/*.html"))
COMPANY = "Greenhaven Home & Garden"
PROSE_TAGS = {"p": "paragraph", "li": "list_item"}


@dataclass
class SourceDocument:
    """What an HTML source holds, element by element."""

    title: str = ""
    header_note: str | None = None
    headings: list[tuple[int, str]] = field(default_factory=list)
    prose: list[tuple[str, str]] = field(default_factory=list)
    tables: list[list[list[str]]] = field(default_factory=list)


class _Reader(HTMLParser):
    """Collect headings, paragraphs, list items and table cells from corpus-src HTML."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found = SourceDocument()
        self._text: list[str] | None = None
        self._tag = ""
        self._row: list[str] | None = None
        self._numbers: list[int | None] = []
        """Per open list: the next item's number in an <ol>, None in a <ul>."""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "meta" and dict(attrs).get("name") == "header-note":
            self.found.header_note = dict(attrs).get("content")
        elif tag in ("ol", "ul"):
            self._numbers.append(1 if tag == "ol" else None)
        elif tag == "table":
            self.found.tables.append([])
        elif tag == "tr":
            self._row = []
        elif tag in ("title", "p", "li", "td", "th") or (len(tag) == 2 and tag[0] == "h"):
            self._text, self._tag = [], tag

    def handle_endtag(self, tag: str) -> None:
        if tag in ("ol", "ul") and self._numbers:
            self._numbers.pop()
        if tag == "tr" and self._row is not None:
            self.found.tables[-1].append(self._row)
            self._row = None
        if self._text is None or tag != self._tag:
            return
        text = " ".join("".join(self._text).split())
        self._text = None
        if tag == "title":
            self.found.title = text
        elif tag in PROSE_TAGS:
            self.found.prose.append((PROSE_TAGS[tag], self._numbered(tag, text)))
        elif tag in ("td", "th") and self._row is not None:
            self._row.append(text)
        elif tag[1:].isdigit():
            self.found.headings.append((int(tag[1:]), text))

    def _numbered(self, tag: str, text: str) -> str:
        """Put an ordered list's number in front of its item: the PDF prints it."""
        number = self._numbers[-1] if tag == "li" and self._numbers else None
        if number is None:
            return text
        self._numbers[-1] = number + 1
        return f"{number}. {text}"

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def read_source(path: Path) -> SourceDocument:
    """Return the elements of one corpus-src HTML file."""
    reader = _Reader()
    reader.feed(path.read_text(encoding="utf-8"))
    reader.close()
    return reader.found


def parsed(path: Path) -> Document:
    """Parse the bundled PDF built from a corpus-src file."""
    source = path.relative_to(ROOT / "corpus-src").with_suffix(".pdf").as_posix()
    return parse((ROOT / "corpus" / source).read_bytes(), source)


def test_every_source_has_its_pdf() -> None:
    assert len(SOURCES) == 15
    for path in SOURCES:
        relative = path.relative_to(ROOT / "corpus-src").with_suffix(".pdf")
        assert (ROOT / "corpus" / relative).exists(), relative


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_headings_match_the_source(path: Path) -> None:
    source, document = read_source(path), parsed(path)
    found = [(b.level, b.text) for b in document.blocks if b.kind == "heading"]
    assert found == source.headings
    assert document.title == source.title


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_paragraphs_and_list_items_match_the_source(path: Path) -> None:
    source, document = read_source(path), parsed(path)
    found = [(b.kind, b.text) for b in document.blocks if b.kind in ("paragraph", "list_item")]
    assert found == source.prose


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_table_cells_match_the_source(path: Path) -> None:
    source, document = read_source(path), parsed(path)
    found = [
        [row.split(" | ") for row in b.text.split("\n")]
        for b in document.blocks
        if b.kind == "table"
    ]
    assert found == source.tables


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_stamped_header_and_footer_are_dropped_not_kept(path: Path) -> None:
    source, document = read_source(path), parsed(path)
    assert all(COMPANY not in b.text or COMPANY in _source_text(source) for b in document.blocks)
    assert not any(b.text == COMPANY for b in document.blocks)
    pages = len(document.pages)
    footers = [d for d in document.dropped if d.reason == "footer"]
    numbers = [d.text for d in document.dropped if d.reason == "page number"]
    assert [d.text for d in footers] == [COMPANY] * pages
    assert numbers == [f"Page {n} of {pages}" for n in range(1, pages + 1)]
    heads = [d.text for d in document.dropped if d.reason == "running head"]
    expected = [source.title] if source.header_note is None else [source.title, source.header_note]
    assert heads == expected * pages


def _source_text(source: SourceDocument) -> str:
    """All the text of a source's elements, for 'is this in the source' checks."""
    cells = [cell for table in source.tables for row in table for cell in row]
    return "\n".join([text for _, text in source.headings + source.prose] + cells)
