"""Margin line numbers, and back-of-book index pages: furniture found inside the body.

Line numbers are the numbers transcripts, legal texts and drafts set beside each line.

A page has line numbers when at least MIN_NUMBERED of its lines start (or consist of) a
bare number set at one left edge that no other line reaches, counting up by one step (1,
or 5 for every fifth line) from top to bottom. The numbers are taken off those lines and
recorded as dropped.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter

from policy_assistant.parse.pdf.layout import INDEX_TITLE, MIN_RUN, PageContent
from policy_assistant.parse.pdf.lines import Line
from policy_assistant.records import Dropped

MIN_NUMBERED = 5
"""Lines that must carry a number in sequence for a page to have line numbers."""
SAME_EDGE = 2.0
"""Numbers whose left edges are this close (points) stand in one margin column."""
STEPS = (1, 5)
"""How line numbers count up: every line, or every fifth line."""

MIN_INDEX_LINES = 12
"""Lines a page needs to be taken for an index page..."""
INDEX_SHARE = 0.6
"""...the share of them that read as index entries (a term, then page numbers)..."""
INDEX_LIST_SHARE = 0.25
"""...and the share that list two or more page numbers ("mowers, 12, 45-47")."""

_INDEX_ENTRY = re.compile(
    r"^\D.*?[,\s]\s*(?:\d{1,4}(?:\s*[-–]\s*\d{1,4})?)(?:\s*,\s*\d{1,4}(?:\s*[-–]\s*\d{1,4})?)*$"
    r"|^(?:see|see also|voir|siehe)\b",
    re.IGNORECASE,
)
_LETTER_HEAD = re.compile(r"^(?:[A-Z]|Symbols|Numbers)$")
_PAGE_LIST = re.compile(r"\d{1,4}(?:\s*[-–]\s*\d{1,4})?\s*,\s*\d{1,4}")
_CARRIES_ON = re.compile(r"^(?:\.\s|\.$|[,\d])(?:[\s.,\d–-])*$")
"""A line of leaders, page numbers and commas only: the rest of the entry above it."""
_LEADING_NUMBER = re.compile(r"^(\d{1,4})(?:\s+|$)")


def _sequence(numbered: list[tuple[Line, int]]) -> bool:
    """Whether the numbers, top to bottom, count up by one of STEPS."""
    values = [value for _, value in sorted(numbered, key=lambda item: item[0].y0)]
    steps = {b - a for a, b in itertools.pairwise(values)}
    return len(steps) == 1 and steps.pop() in STEPS


def _margin_column(page: PageContent) -> list[tuple[Line, int]]:
    """Return the page's lines that start with a number in the line-number column."""
    numbered = [
        (line, int(match.group(1)))
        for line in page.lines
        if (match := _LEADING_NUMBER.match(line.text))
    ]
    if len(numbered) < MIN_NUMBERED:
        return []
    edge = min(line.x0 for line, _ in numbered)
    column = [(line, value) for line, value in numbered if line.x0 - edge <= SAME_EDGE]
    if len(column) < MIN_NUMBERED or not _sequence(column):
        return []
    # In the margin: no other line starts as far left (a numbered column of a table, or
    # steps set at the body's left edge, have body text level with them).
    inside = {id(line) for line, _ in column}
    if any(line.x0 - edge <= SAME_EDGE for line in page.lines if id(line) not in inside):
        return []
    return column


def drop_line_numbers(pages: list[PageContent]) -> None:
    """Take margin line numbers off the lines of every page that has them."""
    for page in pages:
        column = _margin_column(page)
        gone: list[Line] = []
        for line, value in column:
            number = str(value)
            rest = line.text[len(number) :].lstrip()
            page.dropped.append(Dropped(number, "line number", page.number))
            if not rest:
                gone.append(line)
                continue
            shift = (line.x1 - line.x0) * (len(line.text) - len(rest)) / len(line.text)
            line.text, line.x0 = rest, line.x0 + shift
        if gone:
            ids = {id(line) for line in gone}
            page.lines = [line for line in page.lines if id(line) not in ids]


def _index_lines(lines: list[Line], needed: int = MIN_INDEX_LINES) -> bool:
    """Whether lines read as a back-of-book index: most a term and its page numbers."""
    texts = _entries([line.text for line in lines if not _LETTER_HEAD.match(line.text.strip())])
    if len(texts) < needed:
        return False
    entries = sum(1 for text in texts if _INDEX_ENTRY.search(text))
    lists = sum(1 for text in texts if _PAGE_LIST.search(text))
    return entries >= INDEX_SHARE * len(texts) and lists >= INDEX_LIST_SHARE * len(texts)


def _entries(texts: list[str]) -> list[str]:
    """Join the lines that carry on an index entry (leaders, more page numbers) to it.

    In the narrow columns of a two-column index (LaTeX's doc and makeindex styles, as
    acmart's and revtex's documented sources end) a term stands on a line of its own and
    its leaders and page numbers wrap onto the next lines: ". . . . 433," then "435, 2433".
    """
    entries: list[str] = []
    for text in texts:
        if entries and _CARRIES_ON.match(text):
            entries[-1] = f"{entries[-1]} {text}"
        else:
            entries.append(text)
    return entries


def _index_start(page: PageContent) -> list[Line]:
    """Return the lines from an index title on down, when an index starts mid-page."""
    titles = [line for line in page.lines if INDEX_TITLE.search(line.text)]
    if not titles:
        return []
    title = min(titles, key=lambda line: line.y0)
    under = [line for line in page.lines if line.y0 >= title.y1 - 1 and line is not title]
    return [title, *under] if _index_lines(under, MIN_RUN) else []


def drop_index_pages(pages: list[PageContent]) -> None:
    """Drop the lines of index pages in the back half of a document, with a record.

    The first page of an index says so in a line of its own ("Index", "Subject index"),
    and its other pages follow it; an index that starts under the end of the last
    chapter is dropped from its title on.

    An index names every term with its pages, so it would match nearly any query and
    outrank the sections themselves; the terms are in the text where they are used.
    """
    previous = False
    for page in pages[len(pages) // 2 :]:
        titled = previous or any(INDEX_TITLE.search(line.text) for line in page.lines)
        whole = len(pages) > 1 and titled and _index_lines(page.lines)
        start = [] if whole or previous or len(pages) == 1 else _index_start(page)
        if whole:
            page.drop(list(page.lines), "index page")
        elif start:
            page.drop(start, "index page")
        previous = whole or bool(start)


MIN_NUMBERED_PAGES = 3
"""Pages whose outermost line must count pages for such lines to be page numbers."""
_BARE_NUMBER = re.compile(r"^[-–\s]*(\d{1,4})[-–\s]*$")


def _outermost_numbers(page: PageContent) -> list[tuple[Line, int]]:
    """Return the page's topmost and bottommost lines that are bare numbers, with values."""
    if len(page.lines) < 2:
        return []
    found: list[tuple[Line, int]] = []
    for line in (min(page.lines, key=lambda ln: ln.y0), max(page.lines, key=lambda ln: ln.y1)):
        match = _BARE_NUMBER.match(line.text)
        if match and all(line is not other for other, _ in found):
            found.append((line, int(match.group(1))))
    return found


def drop_outer_page_numbers(pages: list[PageContent]) -> None:
    """Drop printed page numbers set outside the margin bands: the outermost bare number.

    A number counts as the page's number when it stands above or below all the page's
    other text and, over at least MIN_NUMBERED_PAGES pages, it runs in step with the
    page count (page 5 says 17, page 6 says 18).
    """
    candidates = [
        (index, line, value)
        for index, page in enumerate(pages)
        for line, value in _outermost_numbers(page)
    ]
    offsets = Counter(value - index for index, _, value in candidates)
    if not offsets:
        return
    offset, count = offsets.most_common(1)[0]
    if count < MIN_NUMBERED_PAGES:
        return
    for index, line, value in candidates:
        if value - index == offset:
            pages[index].drop([line], "page number")
