"""Render the bundled corpus PDFs from their HTML sources.

Each ``corpus-src/**/*.html`` file becomes the PDF at the mirrored path under
``corpus/`` (``corpus-src/policies/x.html`` -> ``corpus/policies/x.pdf``).
Layout uses PyMuPDF's Story API; a running header and a "Page N of M" footer
are stamped on every page afterwards. Output is byte-deterministic: fixed
metadata without dates, no random file ID, fixed save options.

Per-document settings live in the HTML ``<head>``:

* ``<title>``: the PDF title metadata and the running header text.
* ``<meta name="header-note" content="...">``: extra text at the right of the
  running header (e.g. "Staff only").
* ``<meta name="layout" content="two-column">``: flow the body in two columns;
  everything before the ``<!-- columns -->`` marker spans the full width at the
  top of page 1.
* ``<meta name="font-size" content="11">``: base font size in points.

Run from the repository root::

    .venv/bin/python scripts/build_corpus.py
"""

from __future__ import annotations

import html as html_lib
import io
import re
import sys
from pathlib import Path

import pymupdf

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "corpus-src"
OUT = ROOT / "corpus"

COMPANY = "Greenhaven Home & Garden"
PAGE = pymupdf.paper_rect("a4")
MARGIN_X = 56
MARGIN_TOP = 66
MARGIN_BOTTOM = 62
COLUMN_GAP = 22
COLUMN_MARKER = "<!-- columns -->"

CSS = """
body { font-family: sans-serif; line-height: 1.3; color: #1a1a1a; }
h1 { font-size: 1.9em; font-weight: bold; margin: 0 0 0.4em 0; color: #1f4d2b; }
h2 { font-size: 1.35em; font-weight: bold; margin: 0.9em 0 0.3em 0; color: #1f4d2b; }
h3 { font-size: 1.1em; font-weight: bold; margin: 0.7em 0 0.2em 0; }
p { margin: 0 0 0.5em 0; }
ul, ol { margin: 0 0 0.5em 0; }
li { margin: 0 0 0.15em 0; }
table { border-collapse: collapse; width: 100%; margin: 0.3em 0 0.7em 0; }
th, td { border: 1px solid #444444; padding: 3px 4px; text-align: left;
         vertical-align: top; font-size: 0.9em; }
th { font-weight: bold; }
.lead { font-size: 1.05em; }
.note { font-style: italic; }
.kicker { font-size: 0.85em; font-weight: bold; color: #555555; }
"""

# Fixed metadata: no dates, so two runs give the same bytes.
FIXED_META = {
    "author": COMPANY,
    "creator": "policy-assistant build_corpus.py",
    "producer": "PyMuPDF",
    "subject": "",
    "keywords": "",
    "creationDate": "",
    "modDate": "",
    "trapped": "",
}


def head_value(source: str, name: str) -> str | None:
    """Return the content of ``<meta name=NAME content=...>``, if present."""
    pattern = rf'<meta\s+name="{re.escape(name)}"\s+content="([^"]*)"\s*/?>'
    match = re.search(pattern, source)
    return html_lib.unescape(match.group(1)) if match else None


def doc_title(source: str) -> str:
    """Return the text of the ``<title>`` element."""
    match = re.search(r"<title>(.*?)</title>", source, re.S)
    if not match:
        raise SystemExit("every corpus-src HTML file needs a <title>")
    return html_lib.unescape(" ".join(match.group(1).split()))


def content_rect(top: float | None = None) -> pymupdf.Rect:
    """Return the printable area of a page, optionally starting lower."""
    y0 = MARGIN_TOP if top is None else top
    return pymupdf.Rect(MARGIN_X, y0, PAGE.width - MARGIN_X, PAGE.height - MARGIN_BOTTOM)


def column_rects(top: float) -> list[pymupdf.Rect]:
    """Return the left and right column rectangles below ``top``."""
    area = content_rect(top)
    width = (area.width - COLUMN_GAP) / 2
    left = pymupdf.Rect(area.x0, area.y0, area.x0 + width, area.y1)
    right = pymupdf.Rect(area.x1 - width, area.y0, area.x1, area.y1)
    return [left, right]


def layout_single(source: str, em: float) -> bytes:
    """Flow the whole document through one full-width rectangle per page."""
    buf = io.BytesIO()
    writer = pymupdf.DocumentWriter(buf)
    story = pymupdf.Story(html=source, user_css=CSS, em=em)
    more = 1
    while more:
        device = writer.begin_page(PAGE)
        more, _ = story.place(content_rect())
        story.draw(device)
        writer.end_page()
    writer.close()
    return buf.getvalue()


def layout_columns(source: str, em: float) -> bytes:
    """Full-width masthead on page 1, then two columns on every page."""
    head_src, _, body_src = source.partition(COLUMN_MARKER)
    if not body_src:
        raise SystemExit(f"two-column layout needs a {COLUMN_MARKER} marker")
    head_src += "</body></html>"
    body_src = "<html><body>" + body_src
    buf = io.BytesIO()
    writer = pymupdf.DocumentWriter(buf)
    head = pymupdf.Story(html=head_src, user_css=CSS, em=em)
    body = pymupdf.Story(html=body_src, user_css=CSS, em=em)
    more = 1
    first = True
    while more:
        device = writer.begin_page(PAGE)
        top = float(MARGIN_TOP)
        if first:
            _, filled = head.place(content_rect())
            head.draw(device)
            top = pymupdf.Rect(filled).y1 + 10
            first = False
        for rect in column_rects(top):
            more, _ = body.place(rect)
            body.draw(device)
            if not more:
                break
        writer.end_page()
    writer.close()
    return buf.getvalue()


def stamp(pdf: bytes, title: str, note: str | None) -> bytes:
    """Add running header and footer, fixed metadata; return final bytes."""
    doc = pymupdf.open("pdf", pdf)
    total = doc.page_count
    grey = (0.35, 0.35, 0.35)
    for number, page in enumerate(doc, start=1):
        width = page.rect.width
        bottom = page.rect.height
        page.insert_text((MARGIN_X, 40), title, fontname="helv", fontsize=8.5, color=grey)
        if note:
            note_width = pymupdf.get_text_length(note, fontname="hebo", fontsize=8.5)
            page.insert_text(
                (width - MARGIN_X - note_width, 40),
                note,
                fontname="hebo",
                fontsize=8.5,
                color=grey,
            )
        page.draw_line((MARGIN_X, 46), (width - MARGIN_X, 46), color=grey, width=0.5)
        page.draw_line(
            (MARGIN_X, bottom - 44), (width - MARGIN_X, bottom - 44), color=grey, width=0.5
        )
        page.insert_text(
            (MARGIN_X, bottom - 32), COMPANY, fontname="helv", fontsize=8.5, color=grey
        )
        label = f"Page {number} of {total}"
        label_width = pymupdf.get_text_length(label, fontname="helv", fontsize=8.5)
        page.insert_text(
            (width - MARGIN_X - label_width, bottom - 32),
            label,
            fontname="helv",
            fontsize=8.5,
            color=grey,
        )
    doc.set_metadata({**FIXED_META, "title": title})
    # Drop any file ID so nothing random or time-based ends up in the bytes.
    doc.xref_set_key(-1, "ID", "null")
    out = doc.tobytes(garbage=3, deflate=True, no_new_id=True)
    doc.close()
    return out


def build_one(src: Path) -> tuple[Path, int]:
    """Render one HTML source to its mirrored PDF; return (path, pages)."""
    source = src.read_text(encoding="utf-8")
    title = doc_title(source)
    em = float(head_value(source, "font-size") or 11)
    if head_value(source, "layout") == "two-column":
        pdf = layout_columns(source, em)
    else:
        pdf = layout_single(source, em)
    final = stamp(pdf, title, head_value(source, "header-note"))
    target = OUT / src.relative_to(SRC).with_suffix(".pdf")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(final)
    pages = pymupdf.open("pdf", final).page_count
    return target, pages


def main() -> int:
    """Build every PDF; print one line per PDF (path, pages) to stderr."""
    sources = sorted(SRC.rglob("*.html"))
    if not sources:
        print("no HTML sources found under corpus-src/", file=sys.stderr)
        return 1
    for src in sources:
        target, pages = build_one(src)
        print(f"{target.relative_to(ROOT).as_posix()}\t{pages} pages", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
