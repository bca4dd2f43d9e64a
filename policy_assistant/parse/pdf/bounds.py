"""Work bounds for one PDF: past them a page degrades (no table detection), a document fails.

A small file can expand to hundreds of megabytes of drawing commands, and a dense ruled
grid makes MuPDF's table finder run for many seconds a page. Past a page's bound the
page is still read as text, without table detection, and a note in Document.notes says
which page and why; past the document's CPU-time limit it is a one-line DocumentError (CPU
time, not wall-clock time: a loaded machine does not make a document fail). The limits are
module constants, so the command line (or a caller) can change them.

`page_drawings` applies the page bounds, and skips get_cdrawings on a page whose content
paints nothing (most prose pages): a search of the decoded contents is far cheaper.
"""

from __future__ import annotations

import re
import time
from typing import Any

from policy_assistant.errors import DocumentError
from policy_assistant.parse.limits import DOCUMENT_CPU_LIMIT, over_limit_problem

MAX_CONTENT_BYTES = 16_000_000
"""Bytes of a page's content streams beyond which its drawings are not looked at."""
MAX_DRAWING_ITEMS = 20_000
"""Lines, rectangles and curves on a page beyond which its tables are not looked for."""
MAX_GRID_CELLS = 2_500
"""Cells a ruled grid may mark out for the table finder to run on it."""
DOCUMENT_TIME_LIMIT: float | None = DOCUMENT_CPU_LIMIT
"""Seconds of CPU time one document may take to parse, checked between pages; None for no
limit (the limit of every format, parse/limits.py, also stops a page that runs past it)."""


def page_drawings(page: Any, number: int, notes: list[str]) -> list[dict[str, Any]] | None:
    """Return a page's vector drawings, or None (with a note) when there are too many."""
    # The content streams, decoded and joined by a space, as MuPDF reads them; None when
    # one cannot be read: then nothing is ruled out and get_cdrawings is asked.
    contents: bytes | None = _quietly(page.read_contents, None)
    size = len(contents) if contents is not None else _streams_size(page)
    if size > MAX_CONTENT_BYTES:
        notes.append(_content_note(number, size))
        return None
    if contents is not None and not _may_draw(page, contents):
        return []
    drawings: list[dict[str, Any]] = page.get_cdrawings()
    items = sum(len(path.get("items", ())) for path in drawings)
    if items > MAX_DRAWING_ITEMS:
        notes.append(_drawings_note(number, items))
        return None
    return drawings


def _streams_size(page: Any) -> int:
    """Return the decoded size of the content streams that can be read, one by one."""
    return sum(
        len(_quietly(lambda x=x: page.parent.xref_stream(x), b"") or b"")
        for x in page.get_contents()
    )


_DELIMITER = rb"\x00\t\n\x0c\r ()<>\[\]{}/%"
_PAINTING = re.compile(rb"[" + _DELIMITER + rb"](?:[SsfFBb]\*?|sh|Do)(?:[" + _DELIMITER + rb"]|\Z)")
"""A content-stream operator that strokes or fills a path, paints a shading or draws an
XObject (a form may hold paths), as a token between PDF whitespace or delimiters (the
contents are searched with a space in front, for an operator at their very start)."""


_PATTERN_FILL = re.compile(
    rb"/[^" + _DELIMITER + rb"]+[\x00\t\n\x0c\r ]*(?:scn|SCN)[" + _DELIMITER + rb"]"
)
"""A fill or stroke colour set to a named pattern: a tiling pattern's cell may hold paths,
and text filled with it would draw them. Ordinary colours take numbers only."""


_STRING = re.compile(rb"\((?:[^()\\]|\\.)*\)")
"""A literal string without nested brackets; a nested one is left in part, which can
only make an operator seem to be there, never hide one."""


def _may_draw(page: Any, contents: bytes) -> bool:
    """Whether a page can hold vector drawings: if not, get_cdrawings is sure to find none.

    Its content streams must paint no path, shading or XObject and fill nothing with a
    pattern, and no annotation or Type 3 font (whose glyph procedures MuPDF may run as
    drawings) may add any.
    """
    padded = b" " + contents + b" "
    if _PAINTING.search(padded) or _PATTERN_FILL.search(padded):
        # Text such as "(S)" or "[(f)-250(ect)]" reads as an operator: look again
        # without the strings, each left as a space so no tokens run together.
        bare = _STRING.sub(b" ", padded)
        if _PAINTING.search(bare) or _PATTERN_FILL.search(bare):
            return True
    if _quietly(page.annot_xrefs, [True]):
        return True
    fonts = _quietly(page.get_fonts, None)
    return fonts is None or any(font[2] == "Type3" for font in fonts)


def _quietly(call: Any, default: Any) -> Any:
    """Return call(), or default if pymupdf fails on a damaged part the page can do without."""
    try:
        return call()
    except Exception:
        return default


def _content_note(page: int, size: int) -> str:
    """The note for a page whose content streams are too large to look at its drawings."""
    return (
        f"page {page}: table detection skipped: {size / 1e6:.1f} MB of drawing commands "
        f"(limit {MAX_CONTENT_BYTES / 1e6:.0f} MB)"
    )


def _drawings_note(page: int, items: int) -> str:
    """The note for a page with too many drawing items."""
    return (
        f"page {page}: table detection skipped: {items:,} drawing items "
        f"(limit {MAX_DRAWING_ITEMS:,})"
    )


def dense_grid_note(page: int, cells: int) -> str:
    """The note for a page whose ruled grid is too dense for the table finder."""
    return (
        f"page {page}: table detection skipped on a ruled grid of about {cells:,} cells "
        f"(limit {MAX_GRID_CELLS:,}); its text is read as lines"
    )


class Deadline:
    """The per-document CPU-time limit, checked before each page."""

    def __init__(self, source: str, pages: int) -> None:
        self._source = source
        self._pages = pages
        self._limit = DOCUMENT_TIME_LIMIT
        # CPU time, for the limit only: nothing measured here goes into the document.
        self._start = time.process_time()

    def check(self, index: int) -> None:
        """Raise DocumentError if the document has used more CPU time than its limit."""
        if self._limit is None or index == 0:
            return
        used = time.process_time() - self._start
        if used > self._limit:
            where = f"after {used:.0f} s of CPU time at page {index + 1} of {self._pages}"
            raise DocumentError(self._source, over_limit_problem(self._limit, where))
