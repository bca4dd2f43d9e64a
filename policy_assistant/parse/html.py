"""HTML (.html, .htm) to blocks with lxml's HTML parser; the only lxml import.

Headings `h1`-`h6` open sections; `p`, `div` and the other block elements give paragraphs;
`li` gives list items (ordered ones numbered "1. " as in Markdown); a `table` is one block,
a row per line, cells joined by " | ", the header row kept where it stands (a table with a
cell holding a heading and another block lays out a page and is read as its cells' contents);
`pre` is a code
block, its text as written. Inside a block whitespace collapses to one space, as a browser
shows it, and `<br>` is a line break. Page chrome is left out and recorded in Document.dropped
with the reason: `script`, `style`, `noscript` and `template`, `nav` (and `role=navigation`, or
a class or id such as `navheader`, `navbar`, `breadcrumbs`, `sidebar`, as older pages mark it),
a `header`/`footer` that belongs to the page rather than to an article or section, the link
bars of generated manuals (texinfo's "Next: / Previous: / Up:" rows, link bars set apart by
"|" or "·", and the class names Javadoc and Doxygen give their bars), and elements marked
`hidden`. The title is the `<title>`, else the first `h1`, else
the file name.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import lxml.html
from lxml.etree import ParserError

from policy_assistant.errors import DocumentError
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.parse.text import CONTROL, TITLE_MAX_WORDS, file_stem, finish
from policy_assistant.records import Document, DocumentMeta, Dropped
from policy_assistant.text import count_words

MAX_TAGS = 2_000_000
"""Tags in one page; a page with more is refused (its tree would take gigabytes)."""
MAX_DEPTH = 255
"""Elements open at once that libxml2 reads (its limit without XML_PARSE_HUGE, which this
recursive walker could not follow); a page nested deeper is refused."""
DROPPED_PREVIEW = 200
"""Characters of a dropped script or style kept in its record: enough to recognize it."""

_SPACES = re.compile(r"\s+")
_BREAK = "\x00"  # a <br> inside collected inline text; never in decoded HTML (control chars go)
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)""", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"""\s*<\?xml[^>]*?encoding\s*=\s*["']([\w.:-]+)""", re.IGNORECASE)
_XML_DECLARATION = re.compile(r"\A\s*<\?xml[^>]*\?>")
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_BLOCK_NAMES = """address article aside blockquote body caption center dd details dialog dir div
    dl dt fieldset figcaption figure form hgroup hr li main menu ol p section summary ul"""
_BLOCKS = frozenset(_BLOCK_NAMES.split())
_CODE_ONLY = {"script": "script", "style": "style", "noscript": "noscript", "template": "template"}
_SECTIONING = frozenset({"article", "main", "section", "aside"})
# Class or id names that mark navigation in pages older than <nav> (DocBook's NAVHEADER, ...).
_NAV_NAMES = re.compile(
    r"nav|navbar|navheader|navfooter|navigation|breadcrumbs?|sidebar|skip-?link|site-?(?:header|footer)"
    r"|nav-?(?:list|panel|path)|(?:top|sub|bottom)-?nav|navrow\d*"
)
_ROLES = {"navigation": "navigation", "banner": "page header", "contentinfo": "page footer"}


def _decode_html(data: bytes, source: str) -> str:
    """Decode by byte-order mark, else the XML declaration or `<meta charset>`, else UTF-8,
    else windows-1252."""
    for bom, encoding in ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le")):
        if data.startswith(bom):
            return _decode(data[len(bom) :], encoding, source)
    if data.startswith(b"\xfe\xff"):
        return _decode(data[2:], "utf-16-be", source)
    declared = _XML_ENCODING.match(data) or _CHARSET.search(data[:4096])
    if declared:
        return _decode(data, declared.group(1).decode("ascii"), source)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        # The HTML standard's fallback for an unlabelled page.
        return _decode(data, "windows-1252", source)


def _decode(data: bytes, encoding: str, source: str) -> str:
    try:
        return data.decode(encoding)
    except LookupError as exc:
        raise DocumentError(source, f"unknown character encoding {encoding!r}") from exc
    except UnicodeDecodeError as exc:
        problem = f"not {encoding} text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        raise DocumentError(source, problem) from exc


def parse_html(data: bytes, source: str, meta: DocumentMeta, sha256: str) -> Document:
    """Parse an HTML file's bytes into a Document; page chrome is dropped with a record."""
    # XHTML's XML declaration has done its work (the encoding); lxml refuses it in a str.
    text = _XML_DECLARATION.sub("", CONTROL.sub("", _decode_html(data, source)))
    if text.count("<") > MAX_TAGS:
        raise DocumentError(source, f"refused: over {MAX_TAGS:,} tags in one page")
    builder = DocumentBuilder()
    walker = _Walker(builder)
    title: str | None = None
    parser = lxml.html.HTMLParser()
    try:
        root = lxml.html.document_fromstring(text, parser=parser) if text.strip() else None
    except ParserError:
        root = None  # lxml's "Document is empty": a page of comments or bare tags
    except ValueError as exc:
        raise DocumentError(source, f"not readable HTML: {exc}") from exc
    _check_depth(parser, source)
    if root is not None:
        title = _title(root)
        body = root.find("body")
        walker.walk(body if body is not None else root)
    title = meta.title or title or _first_h1(builder) or file_stem(source)
    return finish(builder, source, sha256, replace(meta, title=title), tuple(walker.dropped))


def add_html_fragment(builder: DocumentBuilder, fragment: str, source: str) -> list[Dropped]:
    """Add the blocks of an HTML fragment (raw HTML in Markdown); return what was dropped."""
    parser = lxml.html.HTMLParser()
    try:
        root = lxml.html.fragment_fromstring(
            CONTROL.sub("", fragment), create_parent="div", parser=parser
        )
    except ParserError:
        return []  # nothing but comments or whitespace
    _check_depth(parser, source)
    walker = _Walker(builder)
    walker.walk(root)
    return walker.dropped


def _check_depth(parser: Any, source: str) -> None:
    """Refuse what libxml2 read only in part: it stops at MAX_DEPTH open elements and drops
    the rest without an error, which indexed a part as if it were the whole."""
    if any(e.type_name == "ERR_RESOURCE_LIMIT" for e in parser.error_log):
        raise DocumentError(source, f"refused: elements nested more than {MAX_DEPTH} deep")


def _title(root: Any) -> str | None:
    element = root.find(".//title")
    text = text_of(element) if element is not None else ""
    return text or None


def _first_h1(builder: DocumentBuilder) -> str | None:
    for block in builder.blocks:
        if block.level == 1 and count_words(block.text) <= TITLE_MAX_WORDS:
            return block.text
    return None


def text_of(element: Any) -> str:
    """Return an element's text as one line, a space where a block or a line break stands."""
    parts = [element.text or ""] if isinstance(element.tag, str) else []
    for child in element:
        tag = child.tag.lower() if isinstance(child.tag, str) else ""
        if tag in _CODE_ONLY:
            pass
        elif tag in _BLOCKS or tag in _HEADINGS or tag in ("br", "td", "th", "tr", "pre"):
            parts.append(f" {text_of(child)} ")
        elif tag == "img":
            parts.append(f" {child.get('alt') or ''} ")
        else:
            parts.append(text_of(child))
        parts.append(child.tail or "")
    return collapse("".join(parts))


def collapse(text: str) -> str:
    """Collapse whitespace runs to one space and strip the ends, as a browser renders text."""
    return _SPACES.sub(" ", CONTROL.sub("", text)).strip()


def _drop_reason(element: Any, tag: str) -> str | None:
    if tag in _CODE_ONLY:
        return _CODE_ONLY[tag]
    names = f"{element.get('class') or ''} {element.get('id') or ''}".lower().split()
    if tag == "nav" or any(_NAV_NAMES.fullmatch(name) for name in names):
        return "navigation"
    role = _ROLES.get((element.get("role") or "").strip().lower())
    if role:
        return role
    if element.get("hidden") is not None or element.get("aria-hidden") == "true":
        return "hidden"
    if tag in ("header", "footer"):
        owners = {a.tag for a in element.iterancestors() if isinstance(a.tag, str)}
        if not owners & _SECTIONING:
            return "page header" if tag == "header" else "page footer"
    if tag in _LINK_BAR_TAGS and _is_link_bar(element):
        return "navigation"
    return None


_LINK_BAR_TAGS = frozenset({"div", "p", "ul", "ol", "table", "td", "span", "center"})
_LINK_BAR_CHARS = 400
"""A link bar is short: a longer run of links (a table of contents page) is content."""
_LINK_BAR_NODES = 200
"""Elements looked at to tell a link bar: bounded, so the walk stays linear in the page."""
_NAV_RELS = frozenset({"next", "prev", "previous", "up", "start", "contents", "index", "home"})
_NAV_LABEL = re.compile(r"(?:next|prev(?:ious)?|up|top|home)\s*:", re.IGNORECASE)


def _is_link_bar(element: Any) -> bool:
    """Return whether an element is a generated manual's link bar, by structure alone: short,
    with a link to the next, previous or parent page (rel, accesskey or a "Next:" label), or
    three links or more set apart by bar separators ("|", "·", "»", ...) with at most one
    other word between them (Sphinx's and Doxygen's bars). Code, signatures, lists of linked
    names and prose with links are content."""
    links: list[str] = []
    rels = False
    for count, node in enumerate(element.iter()):
        if count > _LINK_BAR_NODES or node.tag in _HEADINGS:
            return False  # long, or holding a heading: a section that links a lot
        if node.tag == "a" and node.get("href") is not None:
            links.append(collapse(node.text_content()))
            rel = set((node.get("rel") or "").lower().split())
            rels |= bool(rel & _NAV_RELS) or (node.get("accesskey") or "") in ("n", "p", "u")
    text = text_of(element) if links else ""
    if not text or len(text) > _LINK_BAR_CHARS:
        return False
    if rels or _NAV_LABEL.match(text):
        return True
    residue = text
    for link in links:
        residue = residue.replace(link, " ", 1)
    if len(links) < 3 or _CODE_MARKS.search(residue):
        return False
    separated = bool(_BAR_SEPARATORS.search(residue))
    return separated and len(_BAR_SEPARATORS.sub(" ", residue).split()) <= 1


_BAR_SEPARATORS = re.compile(r"[|·•»›]")
"""What stands between a bar's links."""
_CODE_MARKS = re.compile(r"[(){};=*<>\d]")
"""What code, a signature or a type names between linked names, and no bar does."""


class _Walker:
    """Walk the element tree, collecting inline text and emitting a block at each boundary."""

    def __init__(self, builder: DocumentBuilder) -> None:
        self.builder = builder
        self.parts: list[str] = []
        self.ordinals: list[int | None] = []
        self.marker: str | None = None
        self.dropped: list[Dropped] = []

    def walk(self, element: Any) -> None:
        self._contents(element)
        self._flush()

    def _contents(self, element: Any) -> None:
        self.parts.append(element.text or "")
        for child in element:
            self._node(child)
            self.parts.append(child.tail or "")

    def _node(self, element: Any) -> None:
        if not isinstance(element.tag, str):
            return  # a comment or processing instruction: not content
        tag = element.tag.lower()
        reason = _drop_reason(element, tag)
        if tag in ("head", "title"):
            return  # metadata: the title is the document's title, not a paragraph
        if reason:
            self._drop(element, reason)
        elif tag in _HEADINGS:
            self._flush()
            self.builder.heading(text_of(element), _HEADINGS[tag])
        elif tag == "pre":
            self._flush()
            self.builder.add("code", _pre_text(element))
        elif tag == "table" and _lays_out(element):
            self._layout(element)
        elif tag == "table":
            self._flush()
            self._table(element)
        elif tag in ("ul", "ol", "li"):
            self._list(element, tag)
        elif tag == "br":
            self.parts.append(_BREAK)
        elif tag == "img":
            self.parts.append(f" {element.get('alt') or ''} ")
        elif tag in _BLOCKS:
            self._flush()
            self._contents(element)
            self._flush()
        else:
            self._contents(element)

    def _drop(self, element: Any, reason: str) -> None:
        text = text_of(element)
        if reason in _CODE_ONLY.values() and len(text) > DROPPED_PREVIEW:
            text = text[:DROPPED_PREVIEW] + "…"
        if text:
            self.dropped.append(Dropped(text, reason))

    def _list(self, element: Any, tag: str) -> None:
        self._flush()
        if tag == "li":
            ordinal = self.ordinals[-1] if self.ordinals else None
            outer, self.marker = self.marker, f"{ordinal}. " if ordinal is not None else ""
            if ordinal is not None:
                self.ordinals[-1] = ordinal + 1
            self._contents(element)
            self._flush()
            self.marker = outer
            return
        start = element.get("start") if tag == "ol" else None
        first = int(start) if start and start.isdigit() else 1
        self.ordinals.append(first if tag == "ol" else None)
        outer, self.marker = self.marker, None
        self._contents(element)
        self._flush()
        self.ordinals.pop()
        self.marker = outer

    def _flush(self) -> None:
        lines = (collapse(line) for line in "".join(self.parts).split(_BREAK))
        text = "\n".join(line for line in lines if line)
        self.parts = []
        if not text:
            return
        if self.marker is None:
            self.builder.add("paragraph", text)
            return
        self.builder.add("list_item", self.marker + text)
        self.marker = ""  # text after a nested list continues the item, unnumbered

    def _layout(self, table: Any) -> None:
        """Read a table that lays out a page as the page: each cell's contents in turn."""
        for row in _own_rows(table):
            for cell in row:
                if cell.tag in ("td", "th"):
                    self._flush()
                    self._contents(cell)
                    self._flush()

    def _table(self, table: Any) -> None:
        caption = table.find("caption")
        if caption is not None:
            self.builder.add("paragraph", text_of(caption))
        rows = []
        for row in _own_rows(table):  # a nested table's rows are text of its cell
            cells = [text_of(c) for c in row if c.tag in ("td", "th")]
            rows.append(" | ".join(cells).rstrip())
        self.builder.add("table", "\n".join(r for r in rows if r.strip(" |")))


def _own_rows(table: Any) -> list[Any]:
    """Return a table's rows, not those of the tables nested in its cells."""
    return [row for row in table.iter("tr") if next(row.iterancestors("table")) is table]


def _lays_out(table: Any) -> bool:
    """Whether a table lays out a page rather than holding data: a cell holds a heading and
    another block (a heading alone in a cell, as Doxygen's member tables have, is a row).

    Older pages and Word's HTML put the whole page in a table; read as data, it became one
    row of all its text, without a heading or a paragraph.
    """
    for row in _own_rows(table):
        for cell in row:
            names = [d.tag for d in cell.iterdescendants() if isinstance(d.tag, str)]
            blocks = [n for n in names if n in _HEADINGS or n in _BLOCKS or n == "table"]
            if len(blocks) > 1 and any(n in _HEADINGS for n in blocks):
                return True
    return False


def _pre_text(element: Any) -> str:
    text: str = element.text_content()
    # HTML drops one newline right after <pre>.
    return CONTROL.sub("", text[1:] if text.startswith("\n") else text)
