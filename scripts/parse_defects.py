"""Count the parser defects scripts/parse_report.py lists per file, from a PDF and its parse.

- glued: a word of the blocks that is two words the document uses on its own glued
  together, where the text layer broke it at a line end with a hyphen ("greek-" +
  "inputenc" -> "greekinputenc"), and the glued form occurs nowhere else in the text layer;
- split_urls: a URL the text layer breaks at a line end, where the next line goes on with
  it (a piece with a slash, '#', '?', '=', '&' or '%' in it, or a dot inside it as in a
  file or host name, or any piece after a URL
  ending in ':', '#', '=', '?', '&', '_' or '~', which no sentence ends with), that the
  blocks hold split by a space. A URL followed by prose on its own line is no defect (an
  earlier count took every "https://example.org/ for details" in the text for one);
- lone_furniture: running heads and footers dropped whose text (digits masked) stands on
  no other page: a heading or a line of body taken for furniture;
- contents_kept: contents or index entries left in the blocks (dot leaders, then a page number);
- interleaved: blocks on a page with two column regions whose words go back and forth
  between the columns three times or more (columns read line by line across).
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import pymupdf

from policy_assistant.parse.pdf.layout import running_key
from policy_assistant.records import Document

KINDS = ("glued", "split_urls", "lone_furniture", "contents_kept", "interleaved")
"""The defects counted, in the report's column order."""
MIN_PART = 3
"""Letters each part of a glued compound has at least."""
MIN_COLUMN_LINES = 5
"""Lines each of two column regions holds for a page to count as set in two columns."""
MIN_SWITCHES = 3
"""Moves between the columns that make a block's words interleaved."""

_WORD = re.compile(r"\w+", re.UNICODE)
_URL_END = re.compile(r"(?:https?://|www\.)\S*$", re.IGNORECASE)
_URL_PIECE = re.compile(r"^(?:[\w.~-]*[/#?=&%]|[\w~-]+\.\w)")
_URL_GOES_ON = ":#=?&_~"
_LEADERS = re.compile(r"(?:\.\s?){4,}\s*(?:\d{1,4}|[ivxlc]{1,6})\b")
_FURNITURE = ("running head", "footer")


@dataclass(slots=True)
class Layer:
    """A PDF's text layer as the counts need it."""

    lines: list[list[str]]
    """Per page, the text of each line."""
    words: list[list[tuple[float, float, str]]]
    """Per page, (x0, x1, word) of each word."""
    width: list[float]
    """Per page, its width."""


def read_layer(data: bytes) -> Layer:
    """Read a PDF's words and lines with PyMuPDF, page by page."""
    layer = Layer([], [], [])
    with pymupdf.open("pdf", data) as pdf:
        for page in pdf:
            words = page.get_text("words")
            lines: dict[tuple[int, int], list[str]] = defaultdict(list)
            for word in words:
                lines[(word[5], word[6])].append(word[4])
            layer.lines.append([" ".join(line) for line in lines.values()])
            layer.words.append([(w[0], w[2], w[4]) for w in words])
            layer.width.append(page.rect.width)
    return layer


def count_defects(document: Document, data: bytes) -> dict[str, int]:
    """Return the count of each defect kind for one parsed PDF."""
    layer = read_layer(data)
    return {
        "glued": glued(document, layer),
        "split_urls": split_urls(document, layer),
        "lone_furniture": lone_furniture(document, layer),
        "contents_kept": len(_LEADERS.findall(_prose(document))),
        "interleaved": interleaved(document, layer),
    }


def _prose(document: Document) -> str:
    """Return the text of the document's blocks that are not code."""
    return "\n".join(block.text for block in document.blocks if block.kind != "code")


def _folded(text: str) -> list[str]:
    """Return a text's words, case-folded."""
    return [word.casefold() for word in _WORD.findall(text)]


def glued(document: Document, layer: Layer) -> int:
    """Count line-end hyphen breaks whose two parts the blocks hold glued as one word."""
    blocks = set(_folded(document.text))
    source: dict[str, int] = defaultdict(int)
    for page in layer.lines:
        for line in page:
            for word in _folded(line):
                source[word] += 1
    breaks = _breaks(layer)
    # The pieces at a break are no words the document uses on their own.
    for head, tail in breaks:
        source[head] -= 1
        source[tail] -= 1
    found = 0
    for head, tail in breaks:
        joined = head + tail
        parts_used = source.get(head, 0) > 0 and source.get(tail, 0) > 0
        if joined in blocks and parts_used and source.get(joined, 0) == 0:
            found += 1
    return found


def _breaks(layer: Layer) -> list[tuple[str, str]]:
    """Return (head, tail) of each word the text layer breaks at a line end with a hyphen."""
    breaks = []
    for page in layer.lines:
        for line, following in itertools.pairwise(page):
            head = re.search(r"(\w+)-$", line)
            tail = re.match(r"(\w+)", following)
            if head and tail and min(len(head[1]), len(tail[1])) >= MIN_PART:
                breaks.append((head[1].casefold(), tail[1].casefold()))
    return breaks


def split_urls(document: Document, layer: Layer) -> int:
    """Count URLs the text layer breaks at a line end that the blocks hold split by a space."""
    prose = _prose(document)
    found = 0
    for page in layer.lines:
        for line, following in itertools.pairwise(page):
            head = _URL_END.search(line.strip())
            piece = following.split(None, 1)[0] if following.strip() else ""
            if not head or not piece:
                continue
            url = head[0]
            if url[-1] in _URL_GOES_ON or _URL_PIECE.match(piece):
                found += f"{url} {piece}" in prose
    return found


def lone_furniture(document: Document, layer: Layer) -> int:
    """Count running heads and footers dropped whose text stands on no other page."""
    pages: dict[str, set[int]] = defaultdict(set)
    for number, lines in enumerate(layer.lines, start=1):
        for line in lines:
            pages[running_key(line)].add(number)
    for record in document.dropped:
        pages[running_key(record.text)].add(record.page or 0)
    return sum(
        1
        for record in document.dropped
        if record.reason in _FURNITURE and pages[running_key(record.text)] <= {record.page}
    )


def _columns(words: list[tuple[float, float, str]], width: float) -> dict[str, str] | None:
    """Return each word's column ('L' or 'R') on a two-column page; None for other pages.

    The gutter is the widest x interval in the middle half of the page that no word covers;
    a word found in both columns is left out.
    """
    covered = [False] * int(width)
    for x0, x1, _ in words:
        for x in range(max(0, int(x0)), min(int(width), int(x1) + 1)):
            covered[x] = True
    gaps = [x for x in range(int(width * 0.25), int(width * 0.75)) if not covered[x]]
    if not gaps:
        return None
    middle = gaps[len(gaps) // 2]
    side: dict[str, str] = {}
    for x0, _, word in words:
        key = word.casefold()
        mark = "L" if x0 < middle else "R"
        side[key] = mark if side.get(key, mark) == mark else "?"
    left = sum(1 for x0, _, _ in words if x0 < middle)
    if min(left, len(words) - left) < MIN_COLUMN_LINES * 5:
        return None
    return side


def interleaved(document: Document, layer: Layer) -> int:
    """Count blocks on two-column pages whose words switch columns MIN_SWITCHES times."""
    found = 0
    sides: dict[int, dict[str, str] | None] = {}
    for block in document.blocks:
        if len(block.pages) != 1 or block.kind in ("code", "table"):
            continue
        number = block.pages[0]
        if number not in sides:
            sides[number] = _columns(layer.words[number - 1], layer.width[number - 1])
        side = sides[number]
        if side is not None and _switches(block.text, side) >= MIN_SWITCHES:
            found += 1
    return found


def _switches(text: str, side: dict[str, str]) -> int:
    """Return how often a text's words move from one column to the other."""
    marks = [side.get(word.casefold()) for word in text.split()]
    known = [mark for mark in marks if mark in ("L", "R")]
    return sum(1 for a, b in itertools.pairwise(known) if a != b)


def totals(counts: list[dict[str, Any]]) -> dict[str, int]:
    """Return the sum of each defect kind over files."""
    return {kind: sum(count.get(kind, 0) for count in counts) for kind in KINDS}
