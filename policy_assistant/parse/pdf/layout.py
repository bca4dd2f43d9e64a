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
from policy_assistant.text import count_words

MARGIN_BAND = 0.1
"""Share of the page height, at top and at bottom, where running headers and footers live."""
OUTER_BAND = 0.15
"""Share of the page height where the line nearest an edge may still be a running head."""
MIN_PLACED_PAGES = 3
"""Pages a short line must repeat on at one place to be furniture wherever it stands..."""
PLACED_SHARE = 0.5
"""...and the share of the document's pages that must hold it."""

_DIGITS = re.compile(r"\d+")
_ROMAN = re.compile(r"^[ivxlcdm]+$")
_PAGES = r"(?:\d{1,4}(?:\s*[-–]\s*\d{1,4})?(?:\s*,\s+\d{1,4}(?:\s*[-–]\s*\d{1,4})?)*|[ivxlc]{1,6})"
"""A page number, a range or a list of them ("6, 27", "12-14"; "1,234" is a figure), or a
roman numeral."""
_AFTER_LEADERS = re.compile(rf"\s*{_PAGES}?$")
_AFTER_PAGED_LEADERS = re.compile(rf"\s*{_PAGES}$")
_LAST_LEADERS = re.compile(r"(?:\s?\.){4}")
"""Four dots at most a space apart, read backwards from the last one."""
_LETTER_HEAD = re.compile(r"^(?:[A-Z]|Symbols|Numbers)$")
"""An index's letter heads ("A", "B") and its heads for entries that start otherwise."""
MIN_RUN = 5
"""Entries in a row that make a contents list or an index on a page that holds prose too."""
CARRIED_RUN = 3
"""Entries in a row that carry a contents list over from the page before."""
CONTENTS_TITLE = re.compile(
    r"^(?:(?:table of )?contents|inhalt(?:sverzeichnis)?|sommaire|table des mati[eè]res|"
    r"[íi]ndice|содержание|оглавление)$",
    re.IGNORECASE,
)
"""The title line of a contents list."""
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
_PAGE_LABEL = re.compile(r"^[-–\s]*#[-–\s]*$|\bpage #(?: of #)?$|# of #$|^#\s*/\s*#$")
"""A page number's label: "12", "- 12 -", "Page 3 of 9", "3 / 9" (not a date: "2022/06/12")."""


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
    """Whether a line on a document's only page is its running head, footer or page number.

    Small type alone at the edge of a margin band: no line of body size or larger stands
    between it and the edge of the page. Nothing repeats on a single page, so a line that
    is not a page number must also stand apart: the outermost row, a line's height or more
    from the next (an OCR'd book page's last lines, read a little smaller, are no footer).
    """
    if band is None or line.size >= body - 0.5:
        return False
    if band == "top":
        alone = not any(o.size >= body - 0.5 and o.y1 <= line.y0 + 1 for o in lines)
    else:
        alone = not any(o.size >= body - 0.5 and o.y0 >= line.y1 - 1 for o in lines)
    if not alone:
        return False
    return _furniture_reason(line, band) == "page number" or _set_apart(line, band, lines)


def _set_apart(line: Line, band: str, lines: list[Line]) -> bool:
    """Whether a line is the outermost row of its band (page numbers aside), set apart."""
    height = line.y1 - line.y0
    sign = -1 if band == "top" else 1
    centre = (line.y0 + line.y1) / 2
    gaps = []
    for other in lines:
        # Positive: the other line is further from the edge (towards the body).
        offset = sign * (centre - (other.y0 + other.y1) / 2)
        if offset < -height / 2 and _furniture_reason(other, band) != "page number":
            return False
        if offset > height / 2:
            gaps.append(line.y0 - other.y1 if band == "bottom" else other.y0 - line.y1)
    return min(gaps, default=height) >= height


def _furniture_text(key: str) -> bool:
    """Whether a running key can be furniture: it holds a letter or a number ("}" cannot)."""
    return "#" in key or any(char.isalnum() for char in key)


def _furniture_reason(line: Line, band: str | None) -> str:
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
        # Lines repeated inside the body are named by the half of the page they are in.
        band = _band(line, page.height) or ("top" if line.y1 < page.height / 2 else "bottom")
        by_reason.setdefault(_furniture_reason(line, band), []).append(line)
    for reason, lines in by_reason.items():
        page.drop(lines, reason)


Key = tuple[str, str]
"""(band, running key) of a line in a margin band."""


def _band_keys(page: PageContent) -> tuple[set[Key], set[Key]]:
    """Return the running keys of a page's margin-band lines, and of its outermost ones."""
    keys: set[Key] = set()
    outer: set[Key] = set()
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


def _edge_lines(page: PageContent, body: float) -> list[tuple[str, Line]]:
    """Return the page's topmost and bottommost lines within OUTER_BAND, set apart.

    Journal templates set running heads a little below the margin band (at 12% of the
    page), in type smaller than the body; there only the line nearest the edge is taken,
    and only when a line's height or more of space parts it from the rest.
    """
    if len(page.lines) < 2:
        return []
    first = min(page.lines, key=lambda ln: ln.y0)
    last = max(page.lines, key=lambda ln: ln.y1)
    below = min(ln.y0 for ln in page.lines if ln is not first)
    above = max(ln.y1 for ln in page.lines if ln is not last)
    found: list[tuple[str, Line]] = []
    if first.y1 <= page.height * OUTER_BAND and below - first.y1 >= first.y1 - first.y0:
        found.append(("top", first))
    if last.y0 >= page.height * (1 - OUTER_BAND) and last.y0 - above >= last.y1 - last.y0:
        found.append(("bottom", last))
    return [(band, line) for band, line in found if line.size < body - 0.5]


def _placed_key(line: Line) -> tuple[str, int, int]:
    """Return a line's text, spacing folded, with its place on the page, to the point."""
    return " ".join(line.text.split()), round(line.x0), round(line.y0)


def _placed_running(pages: list[PageContent]) -> set[tuple[str, int, int]]:
    """Return the short lines repeated at one place on most pages: links, stamps, labels."""
    if len(pages) < MIN_PLACED_PAGES:
        return set()
    placed: Counter[tuple[str, int, int]] = Counter()
    for page in pages:
        placed.update({_placed_key(line) for line in page.lines if count_words(line.text) <= 6})
    needed = max(MIN_PLACED_PAGES, math.ceil(len(pages) * PLACED_SHARE))
    # Letters needed: the same number at one place on every page is a count, not a label.
    return {
        key
        for key, count in placed.items()
        if count >= needed and any(char.isalpha() for char in key[0])
    }


def _running_keys(pages: list[PageContent], body: float) -> tuple[set[Key], set[Key]]:
    """Return the running keys in the margin bands, and those of the edge lines below them."""
    seen: Counter[Key] = Counter()
    outermost: Counter[Key] = Counter()
    edges: Counter[Key] = Counter()
    for page in pages:
        keys, outer = _band_keys(page)
        seen.update(keys)
        outermost.update(outer)
        edges.update({(band, running_key(line.text)) for band, line in _edge_lines(page, body)})
    # Half the pages, but three suffice in a long document; and the line nearest the edge
    # on two pages is enough, since a short chapter's running title repeats only so often.
    needed = max(2, min(math.ceil(len(pages) / 2), 3))
    running = {key for key, count in seen.items() if count >= needed}
    running.update(key for key, count in outermost.items() if count >= 2)
    below = {key for key, count in edges.items() if count >= needed}
    return {key for key in running if _furniture_text(key[1])}, {
        key for key in below if _furniture_text(key[1])
    }


def _page_running(
    page: PageContent,
    keys: tuple[set[Key], set[Key]],
    placed: set[tuple[str, int, int]],
    body: float,
) -> list[Line]:
    """Return a page's lines that are running lines by the document's repeated keys."""
    running, below = keys
    edges = {id(line): band for band, line in _edge_lines(page, body)}
    found = []
    for line in page.lines:
        inside = _band(line, page.height)
        band = inside or edges.get(id(line))
        repeated = band is not None and (band, running_key(line.text)) in (
            running if inside else below
        )
        if repeated or _placed_key(line) in placed:
            found.append(line)
    return found


def remove_running_lines(pages: list[PageContent], body: float) -> None:
    """Drop running headers and footers: lines repeated in a margin band across pages.

    Also dropped: the line nearest the top or bottom edge, a little inside the band,
    repeated as often, and short lines repeated at one place on most pages ("Online
    Help"). A single page has nothing to repeat: there, only small type at the edge of a
    margin band that counts pages is taken for a running line.
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
    keys = _running_keys(pages, body)
    placed = _placed_running(pages)
    if not keys[0] and not keys[1] and not placed:
        return
    for page in pages:
        _drop_running(page, _page_running(page, keys, placed, body))


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


def _leaders(text: str, paged: bool = False) -> bool:
    """Whether text ends in leaders, then a page number (or, unless paged, none).

    Leaders are four dots or more at most a space apart. A regular expression searched
    for them starts again at every dot of a long run and fails at the figures set after it
    (a statistical table's rows); but leaders can end only at the text's last dot (a page
    number holds none): the text after that dot is matched first, then the dots before it,
    backwards.
    """
    if text.count(".") < 4:  # a count is far cheaper than the matching below
        return False
    last = text.rfind(".")
    after = _AFTER_PAGED_LEADERS if paged else _AFTER_LEADERS
    if last < 0 or not after.match(text, last + 1):
        return False
    return bool(_LAST_LEADERS.match(text[max(last - 6, 0) : last + 1][::-1]))


def _entry(row: list[Line]) -> bool:
    """Whether a row of lines reads as a contents entry: a title, then its page number.

    Two columns of an index or a contents list set on shared baselines make one row: any
    of its lines with leaders makes it an entry, and so does any of its pieces that ends
    in a page number ("1 User guide" "2" beside "3.7.1 User-configurable").
    """
    if _one_entry(row):
        return True
    pieces = _pieces(row)
    return len(pieces) > 1 and any(_one_entry(piece) for piece in pieces)


def _pieces(row: list[Line]) -> list[list[Line]]:
    """Split a row after each line that ends in a page number with more lines after it."""
    pieces: list[list[Line]] = [[]]
    for line in row:
        if pieces[-1] and _ends_entry(pieces[-1][-1]):
            pieces.append([])
        pieces[-1].append(line)
    return pieces


def _ends_entry(line: Line) -> bool:
    """Whether a line is a page number, or leaders and a page number."""
    text = line.text.strip()
    return bool(_PAGE_NUMBER.match(text)) or _leaders(text, paged=True)


def _one_entry(row: list[Line]) -> bool:
    """Whether a row (or one column's piece of it) reads as a contents entry."""
    text = " ".join(line.text.strip() for line in row)
    # A column's entry ends in its page number; leaders with figures set after them in
    # further pieces are a statistical table's.
    if _leaders(text) or any(_leaders(line.text.strip(), paged=True) for line in row):
        return True
    last = row[-1]
    # A page number set apart at the right, after a numbered title or on its own.
    apart = len(row) > 1 and last.x0 - row[-2].x1 > 2 * last.size
    return bool(_PAGE_NUMBER.match(last.text.strip())) and (
        apart or bool(_NUMBERED_ENTRY.match(text))
    )


def _letter_head(row: list[Line]) -> bool:
    """Whether a row holds only an index's letter heads ("A", or "S" and "U" side by side)."""
    return all(_LETTER_HEAD.match(line.text.strip()) for line in row)


def _entry_rows(
    rows: list[list[Line]], entries: list[bool], whole: bool, carried: bool = False
) -> list[Line]:
    """Return the lines of a contents page's entries, or of its runs of entries.

    On a page that holds prose too (not whole), only runs of MIN_RUN entries or more under
    a title that names a contents list or an index are taken, letter heads counted in: a
    statistical table's labels with leaders are no contents. On a page after a contents
    page (carried), the first run of CARRIED_RUN entries or more is the list going on,
    untitled, even below a float the layout set above it.
    """
    taken: list[Line] = []
    run: list[Line] = []
    count = 0
    titled = whole
    for index, row in enumerate(rows):
        # An entry too long for its line starts on the row above its page number.
        follows = index + 1 < len(rows) and entries[index + 1]
        if entries[index] or _letter_head(row) or (follows and _ENTRY_NUMBER.match(row[0].text)):
            run.extend(row)
            count += entries[index]
            continue
        if (titled and (whole or count >= MIN_RUN)) or (carried and count >= CARRIED_RUN):
            taken.extend(run)
        carried = carried and not count
        run, count = [], 0
        text = " ".join(line.text.strip() for line in row)
        titled = whole or bool(CONTENTS_TITLE.match(text) or INDEX_TITLE.search(text))
    if (titled and (whole or count >= MIN_RUN)) or (carried and count >= CARRIED_RUN):
        taken.extend(run)
    return taken


def _contents_reason(pages: list[PageContent], number: int) -> str:
    """Name a contents list by where it is: an index's under its title in the back half."""
    back = number >= len(pages) // 2
    titled = any(INDEX_TITLE.search(line.text) for line in pages[number].lines)
    return "index page" if back and titled else "contents page"


def drop_contents_entries(pages: list[PageContent]) -> None:
    """Drop the entries of table-of-contents pages (see the module docstring).

    Entries with leaders in the back half of a document, under a title that says so,
    are an index's (Texinfo sets its indexes that way): they are recorded as such. On a
    page that holds prose too, runs of MIN_RUN entries or more are dropped.
    """
    previous = False
    reason = "contents page"
    for number, page in enumerate(pages):
        leaders = sum(1 for line in page.lines if _leaders(line.text))
        # The last page of a contents may hold only a few entries.
        if leaders < (1 if previous else MIN_CONTENTS_ENTRIES):
            previous = False
            continue
        rows = _baseline_rows(page.lines)
        entries = [_entry(row) for row in rows]
        counted = sum(1 for row in rows if not _letter_head(row))
        continued = previous
        previous = sum(entries) >= CONTENTS_SHARE * counted
        if not continued:
            reason = _contents_reason(pages, number)
        page.drop(_entry_rows(rows, entries, previous, carried=continued), reason)
