"""One self-contained HTML page per document (inline CSS, JS and data), and an index page.

The page embeds the document's text and word spans once, and for each chunking only the
chunks' records and where their marks go; its script draws the view from those. Nothing is
fetched: a Content-Security-Policy forbids it, so the page works from a file or an e-mail.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policy_assistant.inspect.layout import Layout, Line, build_layout
from policy_assistant.inspect.summary import describe, readout_rows, spec_label
from policy_assistant.inspect.variants import Variant
from policy_assistant.inspect.view import View, build_view
from policy_assistant.jsonio import json_text
from policy_assistant.records import Document

ASSETS = Path(__file__).parent / "assets"
"""The page template, its stylesheet and its script."""
_SLOT = re.compile(r"\{\{(\w+)\}\}")


def asset(name: str) -> str:
    """Return the text of one file of the assets folder."""
    return (ASSETS / name).read_text(encoding="utf-8")


def fill(template: str, values: dict[str, str]) -> str:
    """Put each value in its {{name}} slot, in one pass (inserted text is not scanned again)."""
    return _SLOT.sub(lambda m: values[m.group(1)], template)


STAFF_NOTE = (
    "This page holds the text of staff-only documents: share it with staff only, never "
    "with the public."
)
"""Said on every page that embeds staff text, since a page travels further than a terminal."""


def notes_html(lines: Sequence[str], staff: bool = False, heading: str = "Warnings") -> str:
    """Return a page's notes: the staff-text note when it holds staff text, then the lines."""
    parts = []
    if staff:
        parts.append(
            f'<p class="note staff" role="note"><strong>Staff only.</strong> {STAFF_NOTE}</p>'
        )
    if lines:
        items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
        section = f'<section class="notes" aria-label="{heading}"><h2>{heading}</h2>'
        parts.append(f"{section}<ul>{items}</ul></section>")
    return "\n".join(parts)


def script_json(value: Any) -> str:
    """Return JSON safe inside a <script> element: no '<' can close it."""
    return json_text(value).replace("<", "\\u003c")


def _layout_data(layout: Layout) -> list[dict[str, Any]]:
    """Return the lines and page breaks as the page's script reads them."""
    widths: dict[int, int] = {}
    for line in layout.lines():
        if line.kind == "table":
            widths[line.block] = max(widths.get(line.block, 0), len(line.cells))
    out: list[dict[str, Any]] = []
    for item in layout.items:
        if not isinstance(item, Line):
            out.append({"page": item.page})
            continue
        entry: dict[str, Any] = {"k": item.kind, "b": item.block, "c": item.cells}
        if item.level is not None:
            entry["l"] = item.level
        if item.indent:
            entry["i"] = item.indent
        if item.kind == "table":
            entry["w"] = widths[item.block]
        if item.bullet:
            entry["bullet"] = True
        out.append(entry)
    return out


def _chunk_data(view: View) -> list[dict[str, Any]]:
    """Return each chunk's record and marks as the page's script reads them."""
    return [
        {
            "n": mark.number,
            "id": mark.chunk.id,
            "position": mark.chunk.position,
            "start": mark.chunk.start,
            "end": mark.chunk.end,
            "pages": list(mark.chunk.pages),
            "sections": [list(path) for path in mark.chunk.sections],
            "words": mark.chunk.words,
            "prefix": mark.chunk.text[: mark.chunk.prefix_length],
            "first": mark.first,
            "last": mark.last,
            "at": mark.start_at,
            "endAt": mark.end_at,
            "cut": mark.cut,
            "boxes": [list(box) for box in mark.chunk.boxes],
        }
        for mark in view.marks
    ]


def _variant_data(view: View, variant: Variant) -> dict[str, Any]:
    """Return one chunking: its controls' label, its chunks, readout and description."""
    return {
        "method": variant.method,
        "label": variant.label,
        "origin": variant.origin,
        "spec": variant.spec,
        "specLabel": spec_label(variant.spec),
        "chunks": _chunk_data(view),
        "readout": [list(row) for row in readout_rows(view)],
        "description": describe(view, variant.spec),
    }


def page_data(
    doc: Document,
    variants: Sequence[Variant],
    initial: int = 0,
    pictures: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Return everything the page's script needs, the document's text once (and the
    pictures of a PDF's pages, by page number, that chunks' boxes are drawn on)."""
    layout = build_layout(doc)
    views = [build_view(doc, list(v.chunks), layout) for v in variants]
    return {
        "text": doc.text,
        "words": [offset for span in layout.words for offset in span],
        "lines": _layout_data(layout),
        "variants": [_variant_data(view, v) for view, v in zip(views, variants, strict=True)],
        "initial": initial,
        "pictures": pictures or {},
    }


def _document_meta(doc: Document) -> str:
    """Return the line under the title: source, version, access, language and pages."""
    pages = f" · {len(doc.pages)} pages" if doc.pages else ""
    return (
        f"{doc.source} · version {doc.version} · {doc.access} · {doc.language}{pages} · "
        f"{len(doc.blocks)} blocks"
    )


def render_document_page(
    doc: Document,
    variants: Sequence[Variant],
    initial: int = 0,
    back: str | None = None,
    warnings: Sequence[str] = (),
    pictures: dict[str, dict[str, Any]] | None = None,
) -> str:
    """Return the self-contained page of one document under every chunking in `variants`
    (warnings: what the terminal said of it; pictures: `pictures.pictures_for`'s)."""
    if not variants:
        raise ValueError("a page needs at least one chunking")
    data = page_data(doc, variants, initial, pictures)
    chosen = data["variants"][initial]
    link = ""
    if back:
        link = f'<p class="crumbs"><a href="{html.escape(back)}">← all documents</a></p>'

    return fill(
        asset("page.html"),
        {
            "lang": html.escape(doc.language),
            "title": html.escape(doc.title),
            "meta": html.escape(_document_meta(doc)),
            "notes": notes_html(warnings, doc.access == "staff"),
            "back": link,
            "spec": html.escape(chosen["specLabel"]),
            "description": html.escape(chosen["description"]),
            "css": asset("inspect.css"),
            "data": script_json(data),
            "js": asset("inspect.js"),
        },
    )


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One document on the index page."""

    document: Document
    """The document."""
    href: str
    """Relative link to its page."""
    chunks: int
    """Chunks the page opens with."""


def render_index_page(
    title: str, entries: Sequence[IndexEntry], spec: dict[str, Any], warnings: Sequence[str] = ()
) -> str:
    """Return a page that links one page per document, with a line of figures for each, and
    the warnings the terminal gave."""
    staff = any(e.document.access == "staff" for e in entries)
    rows = "\n".join(
        '<tr><td><a href="{href}">{title}</a></td><td>{source}</td><td>{access}</td>'
        '<td class="n">{pages}</td><td class="n">{chunks}</td></tr>'.format(
            href=html.escape(e.href),
            title=html.escape(e.document.title),
            source=html.escape(e.document.source),
            access=html.escape(e.document.access),
            pages=len(e.document.pages) or "-",
            chunks=e.chunks,
        )
        for e in entries
    )
    return fill(
        asset("index.html"),
        {
            "title": html.escape(title),
            "count": str(len(entries)),
            "spec": html.escape(spec_label(spec)),
            "rows": rows,
            "notes": notes_html(warnings, staff),
            "css": asset("inspect.css"),
        },
    )


def page_path(source: str) -> str:
    """Return the relative path of a document's page: its source with '.html' added."""
    return f"{source}.html"
