"""Page furniture: running headers and footers, page numbers and contents pages.

Table-of-contents entries are dropped. A contents page names every section of the
document, so its blocks would match nearly every query and crowd out the sections
themselves; the headings they name are in the text where the sections begin. A page
counts as a contents page when many of its lines are entries (a title, dot leaders and
a page number); there its entries, the page numbers MuPDF splits off them, and its
numbered entries without leaders ("2 Debian package management 37") are dropped.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from policy_assistant.parse.pdf.lines import Line
from policy_assistant.parse.pdf.tables import Table
from policy_assistant.records import Dropped

MARGIN_BAND = 0.1
"""Share of the page height, at top and at bottom, where running headers and footers live."""

_DIGITS = re.compile(r"\d+")
_ROMAN = re.compile(r"^[ivxlcdm]+$")
_LEADERS = re.compile(r"(?:\.\s?){4,}\s*(?:\d{1,4}|[ivxlc]{1,6})?$")
_PAGE_NUMBER = re.compile(r"^(?:\d{1,4}|[ivxlc]{1,6})$")
_NUMBERED_ENTRY = re.compile(
    r"^(?:[A-Z]|\d{1,3}(?:\.\d{1,3})*)\.?\s+\S.*\s(?:\d{1,4}|[ivxlc]{1,6})$"
)
_ENTRY_NUMBER = re.compile(r"^(?:[A-Z]|\d{1,3})(?:\.\d{1,3})+\b")
MIN_CONTENTS_ENTRIES = 5
"""Lines with dot leaders a page needs to be a contents page..."""
CONTENTS_SHARE = 0.5
"""...and the share of its rows of text that read as contents entries."""
INDEX_TITLE = re.compile(r"^(?:[\w ]+ )?(?:index|register|sachregister)$", re.IGNORECASE)
"""The title line of a back-of-book index: "Index", "Concept Index", "Register"."""
_PAGE_LABEL = re.compile(r"^[-–\s]*#[-–\s]*$|\bpage #|# of #|#\s*/\s*#")


@dataclass(slots=True)
class PageContent:
    """What one page holds once read: its size, text lines and tables."""

    number: int
    """1-based page number."""
    width: float
    """Page width in points."""
    height: float
    """Page height in points."""
    lines: list[Line] = field(default_factory=list)
    """Text lines outside tables, in MuPDF's order."""
    tables: list[Table] = field(default_factory=list)
    """Tables found on the page."""
    separators: list[tuple[float, float, float]] = field(default_factory=list)
    """(x0, y, x1) of horizontal rules and box edges: a block never runs across one."""
    dropped: list[Dropped] = field(default_factory=list)
    """Text of the page left out of the blocks on purpose, with the reason."""

    def drop(self, lines: list[Line], reason: str) -> None:
        """Remove lines from the page, recording each with the reason."""
        gone = {id(line) for line in lines}
        self.dropped.extend(Dropped(line.text, reason, self.number) for line in lines)
        self.lines = [line for line in self.lines if id(line) not in gone]


def running_key(text: str) -> str:
    """Return text as a running header compares it: digits masked, case and spacing folded."""
    folded = " ".join(text.split()).casefold()
    if _ROMAN.match(folded):
        return "#"
    return _DIGITS.sub("#", folded)


def _band(line: Line, height: float) -> str | None:
    """Return 'top' or 'bottom' if the line sits in a margin band of its page."""
    if line.y0 > height * MARGIN_BAND and line.y1 < height * (1 - MARGIN_BAND):
        return None  # wholly inside the body: its centre is too, whatever the line says
    # A bare page number counts by its centre: set in body type, it may reach past the band.
    if _PAGE_NUMBER.match(line.text.strip()):
        top = bottom = (line.y0 + line.y1) / 2
    else:
        top, bottom = line.y1, line.y0
    if top <= height * MARGIN_BAND:
        return "top"
    if bottom >= height * (1 - MARGIN_BAND):
        return "bottom"
    return None


def inner_lines(page: PageContent) -> list[Line]:
    """Return the page's lines outside its margin bands: the body, without page furniture."""
    return [line for line in page.lines if _band(line, page.height) is None]


def _lone_page_running(line: Line, band: str | None, lines: list[Line], body: float) -> bool:
    """Whether a line on a document's only page is its running header or footer.

    Small type alone at the edge of a margin band: no line of body size or larger stands
    between it and the edge of the page.
    """
    if band is None or line.size >= body - 0.5:
        return False
    if band == "top":
        return not any(o.size >= body - 0.5 and o.y1 <= line.y0 + 1 for o in lines)
    return not any(o.size >= body - 0.5 and o.y0 >= line.y1 - 1 for o in lines)


def furniture_reason(line: Line, band: str | None) -> str:
    """Name what a running line is: a page number, a running head or a footer."""
    key = running_key(line.text)
    if key == "#" or _PAGE_LABEL.search(key):
        return "page number"
    return "running head" if band == "top" else "footer"


def _drop_running(page: PageContent, running: list[Line]) -> None:
    """Drop a page's running lines, unless they are all the text the page holds.

    A document whose every page holds one line that differs by a number would lose
    everything: a page's only text is kept, bare page numbers aside.
    """
    if len(running) == len(page.lines) and not page.tables:
        running = [ln for ln in running if running_key(ln.text) == "#"]
    by_reason: dict[str, list[Line]] = {}
    for line in running:
        by_reason.setdefault(furniture_reason(line, _band(line, page.height)), []).append(line)
    for reason, lines in by_reason.items():
        page.drop(lines, reason)


def _band_keys(page: PageContent) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """Return the running keys of a page's margin-band lines, and of its outermost ones."""
    keys: set[tuple[str, str]] = set()
    outer: set[tuple[str, str]] = set()
    banded = [(band, line) for line in page.lines if (band := _band(line, page.height))]
    top = min((ln.y0 for band, ln in banded if band == "top"), default=None)
    bottom = max((ln.y1 for band, ln in banded if band == "bottom"), default=None)
    for band, line in banded:
        key = (band, running_key(line.text))
        keys.add(key)
        edge = top if band == "top" else bottom
        if edge is not None and abs((line.y0 if band == "top" else line.y1) - edge) < 2:
            outer.add(key)
    return keys, outer


def remove_running_lines(pages: list[PageContent], body: float) -> None:
    """Drop running headers and footers: lines repeated in a margin band across pages.

    A single page has nothing to repeat: there, small type in the top band, and small
    type in the bottom band that counts pages, is taken for the running lines.
    """
    if len(pages) == 1:
        page = pages[0]
        lone = [
            line
            for line in page.lines
            if _lone_page_running(line, _band(line, page.height), page.lines, body)
        ]
        _drop_running(page, lone)
        return
    seen: Counter[tuple[str, str]] = Counter()
    outermost: Counter[tuple[str, str]] = Counter()
    for page in pages:
        keys, outer = _band_keys(page)
        seen.update(keys)
        outermost.update(outer)
    # Half the pages, but three suffice in a long document; and the line nearest the edge
    # on two pages is enough, since a short chapter's running title repeats only so often.
    needed = max(2, min(math.ceil(len(pages) / 2), 3))
    running = {key for key, count in seen.items() if count >= needed}
    running.update(key for key, count in outermost.items() if count >= 2)
    if not running:
        return
    for page in pages:
        found = [
            line
            for line in page.lines
            if (band := _band(line, page.height)) and (band, running_key(line.text)) in running
        ]
        _drop_running(page, found)


def _baseline_rows(lines: list[Line]) -> list[list[Line]]:
    """Group lines that stand on one baseline, left to right."""
    rows: list[list[Line]] = []
    for line in sorted(lines, key=lambda ln: (ln.y1, ln.x0)):
        if rows and abs(line.y1 - rows[-1][0].y1) < 0.4 * line.size:
            rows[-1].append(line)
        else:
            rows.append([line])
    for row in rows:
        row.sort(key=lambda ln: ln.x0)
    return rows


def _entry(row: list[Line]) -> bool:
    """Whether a row of lines reads as a contents entry: a title, then its page number."""
    text = " ".join(line.text.strip() for line in row)
    if _LEADERS.search(text):
        return True
    last = row[-1]
    # A page number set apart at the right, after a numbered title or on its own.
    apart = len(row) > 1 and last.x0 - row[-2].x1 > 2 * last.size
    return bool(_PAGE_NUMBER.match(last.text.strip())) and (
        apart or bool(_NUMBERED_ENTRY.match(text))
    )


def drop_contents_entries(pages: list[PageContent]) -> None:
    """Drop the entries of table-of-contents pages (see the module docstring).

    Entries with leaders in the back half of a document, under a title that says so,
    are an index's (Texinfo sets its indexes that way): they are recorded as such.
    """
    previous = False
    reason = "contents page"
    for number, page in enumerate(pages):
        # Leaders take four dots: counting them first spares most lines the search.
        leaders = sum(
            1 for line in page.lines if line.text.count(".") >= 4 and _LEADERS.search(line.text)
        )
        # The last page of a contents may hold only a few entries.
        if leaders < (1 if previous else MIN_CONTENTS_ENTRIES):
            previous = False
            continue
        rows = _baseline_rows(page.lines)
        entries = [_entry(row) for row in rows]
        continued = previous
        previous = sum(entries) >= CONTENTS_SHARE * len(rows)
        if not previous:
            continue
        if not continued:
            back = number >= len(pages) // 2
            titled = any(INDEX_TITLE.search(line.text) for line in page.lines)
            reason = "index page" if back and titled else "contents page"
        dropped: list[Line] = []
        for index, row in enumerate(rows):
            # An entry too long for its line starts on the row above its page number.
            follows = index + 1 < len(rows) and entries[index + 1]
            if entries[index] or (follows and _ENTRY_NUMBER.match(row[0].text)):
                dropped.extend(row)
        page.drop(dropped, reason)
