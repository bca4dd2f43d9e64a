"""Styled text lines from one page's get_text("dict") output, and line-level text repair."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import Any

from policy_assistant.parse.pdf.words import join_wrapped as join_wrapped
from policy_assistant.parse.pdf.words import remove_controls

BOLD_FLAG = 16
"""Span flag MuPDF sets for a bold font."""
MONO_FLAG = 8
"""Span flag MuPDF sets for a monospaced font."""

_BOLD_NAME = re.compile(r"bold|black|heavy|demi|semibold|cmbx|\bbd\b|-bd", re.IGNORECASE)
_MONO_NAME = re.compile(
    r"mono|courier|cmtt|consol|typewriter|nimbusmon|menlo|inconsolata|sourcecode|lucidaconsole",
    re.IGNORECASE,
)
_LIGATURES = re.compile("[\ufb00-\ufb06]")
_INNER_SOFT_HYPHEN = re.compile("\u00ad(?!\\s*$)")
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200a\u202f\u3000]+")
_NO_GLYPH = re.compile("[\ufffd\ue000-\uf8ff\U000f0000-\U0010ffff]")
"""The replacement character and private-use code points: glyphs without a known meaning."""
_WRAP_MARK = re.compile(r"\s*[←↩↵⤶⏎↲]$")
"""A marker set at the end of a code line that the layout wrapped onto the next line."""

_GLYPH_BULLET = re.compile(r"^[•◦▪▫●○■□►▸‣⁃∙·]\s*")
_MARKER = re.compile(
    r"^(?:[•◦▪▫●○■□►▸‣⁃∙·](?:\s+|(?=[^\s\d]))|[*\-\u2013]\s+"
    r"|\(?(?:\d{1,3}|[a-z]|[ivx]{1,4})[.)]\s+)"
)
_LONE_MARKER = re.compile(r"^(?:[•◦▪▫●○■□►▸‣⁃∙·*\-\u2013]|\(?(?:\d{1,3}|[a-z])[.)])$")


@dataclass(slots=True)
class Line:
    """One visual line of text on a page, with the style of most of its characters."""

    text: str
    """Text with ligatures mended; runs of spaces collapsed unless monospaced."""
    x0: float
    """Left edge."""
    y0: float
    """Top edge (PDF points, y grows downwards)."""
    x1: float
    """Right edge."""
    y1: float
    """Bottom edge."""
    size: float
    """Font size of most characters, rounded to 0.1 pt."""
    bold: bool
    """Whether (nearly) every character is bold."""
    mono: bool
    """Whether (nearly) every character is monospaced."""
    lead_bold: bool
    """Whether the line's first characters are bold (a run-in bold lead may wrap onto it)."""
    page: int
    """1-based page number."""
    block: int
    """Number of MuPDF's text block holding the line, unique within the document."""
    wraps: bool = False
    """Whether a code line goes on in the next line: the layout wrapped it, with a marker."""


def mend_ligatures(text: str) -> str:
    """Replace ligature characters (ﬁ ﬂ ﬀ ﬃ ﬄ ﬅ ﬆ) by their letters, leaving the rest alone."""
    if not _LIGATURES.search(text):
        return text
    return _LIGATURES.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)


def list_marker(text: str) -> str | None:
    """Return the list marker (with its trailing space) that starts text, if any."""
    match = _MARKER.match(text)
    return match.group() if match else None


def is_glyph_bullet(marker: str) -> bool:
    """Whether marker is an unambiguous bullet glyph rather than a dash or a number."""
    return bool(_GLYPH_BULLET.match(marker))


def strip_glyph_bullet(text: str) -> str:
    """Remove a leading bullet glyph; numbers and dashes stay as the author wrote them."""
    return _GLYPH_BULLET.sub("", text, count=1)


@lru_cache(maxsize=512)
def _font_style(font: str, flags: int) -> tuple[bool, bool]:
    bold = bool(flags & BOLD_FLAG) or bool(_BOLD_NAME.search(font))
    mono = bool(flags & MONO_FLAG) or bool(_MONO_NAME.search(font))
    return bold, mono


def _line_from_spans(spans: list[dict[str, Any]]) -> tuple[str, float, bool, bool, bool] | None:
    """Return (raw text, size, bold, mono, lead bold) of a line's spans; None if blank."""
    sizes: dict[float, int] = {}
    bold_chars = mono_chars = total = 0
    lead: bool | None = None
    for span in spans:
        weight = len(span["text"].strip())
        if not weight:
            continue
        total += weight
        size = round(span["size"], 1)
        sizes[size] = sizes.get(size, 0) + weight
        bold, mono = _font_style(span["font"], span["flags"])
        if lead is None:
            lead = bold
        if bold:
            bold_chars += weight
        if mono:
            mono_chars += weight
    if not total:
        return None
    # The commonest size; on a tie the first seen, as Counter.most_common(1) gives it.
    size = max(sizes.items(), key=itemgetter(1))[0]
    # A stray regular comma in a bold heading, or an accented letter drawn from a
    # fallback font in a code line, does not change what the line is.
    bold = bold_chars >= 0.9 * total
    text = "".join([span["text"] for span in spans])
    return text, size, bold, mono_chars >= 0.9 * total, bool(lead)


def clean_text(text: str, mono: bool) -> str:
    """Mend ligatures, drop control characters, normalize spacing (not inside code)."""
    if not mono and text.isascii() and text.isprintable():
        # Printable ASCII holds no control, soft hyphen, ligature or private-use
        # character, and no space but U+0020: only the spacing is left to normalize.
        return " ".join(text.split())
    # A soft hyphen only matters where it breaks a line; elsewhere it is invisible.
    text = _INNER_SOFT_HYPHEN.sub("", mend_ligatures(remove_controls(text)))
    if _NO_GLYPH.search(text):
        text = _NO_GLYPH.sub("", text)
    if mono:
        return text.replace("\t", "    ").replace("\u00a0", " ").rstrip()
    return _SPACES.sub(" ", text).strip()


def extract_lines(
    page_dict: dict[str, Any], page: int, block_base: int, skipped: list[str] | None = None
) -> list[Line]:
    """Return the horizontal text lines of one page, in MuPDF's order.

    The text of lines set in another direction goes to skipped, when given.
    """
    lines: list[Line] = []
    for number, block in enumerate(page_dict["blocks"]):
        if block.get("type") != 0:
            continue
        for raw in block["lines"]:
            styled = _line_from_spans(raw["spans"])
            if styled is None:
                continue
            text, size, bold, mono, lead = styled
            text = clean_text(text, mono)
            if not text.strip():
                continue
            dx, dy = raw["dir"]
            # Rotated text is nearly always a margin stamp or an axis label, not prose.
            if dx < 0.99 or abs(dy) > 0.01:
                if skipped is not None:
                    skipped.append(text)
                continue
            x0, y0, x1, y1 = raw["bbox"]
            block_id = block_base + number
            lines.append(Line(text, x0, y0, x1, y1, size, bold, mono, lead, page, block_id))
    return lines


def upright_share(page_dict: dict[str, Any]) -> float:
    """Return the share of a page's characters set in horizontal lines, left to right."""
    upright = total = 0
    for block in page_dict["blocks"]:
        for raw in block.get("lines", ()):
            weight = sum(len(span["text"].strip()) for span in raw["spans"])
            total += weight
            dx, dy = raw["dir"]
            upright += weight if dx >= 0.99 and abs(dy) <= 0.01 else 0
    return upright / total if total else 1.0


def mark_wrapped_code(lines: list[Line]) -> list[Line]:
    """Drop the markers of wrapped code lines, noting on each code line that it goes on.

    Listings set in LaTeX mark a line too long for the page with an arrow at its end and
    go on, indented, on the next line: the arrow is no part of the code.
    """
    marks = [line for line in lines if _WRAP_MARK.fullmatch(line.text)]
    dropped: set[int] = set()
    for mark in marks:
        beside = [
            ln
            for ln in lines
            if ln.mono and ln.x1 <= mark.x0 + 1 and abs(ln.y1 - mark.y1) < 0.5 * mark.size
        ]
        if beside:
            max(beside, key=lambda ln: ln.x1).wraps = True
            dropped.add(id(mark))
    for line in lines:
        if line.mono and _WRAP_MARK.search(line.text) and id(line) not in dropped:
            line.text = _WRAP_MARK.sub("", line.text)
            line.wraps = True
    return [line for line in lines if id(line) not in dropped] if dropped else lines


class _ByTop:
    """A page's lines sorted by their top, to find those near a height without a scan of all:
    a page of figures has hundreds of bare numbers, each looking for the line beside it."""

    def __init__(self, lines: list[Line]) -> None:
        self.lines = lines
        self.order = sorted(range(len(lines)), key=lambda i: lines[i].y0)
        self.tops = [lines[i].y0 for i in self.order]
        self.tallest = max((line.y1 - line.y0 for line in lines), default=0.0)
        self.moved: set[int] = set()
        """Lines whose top moved since they were sorted: offered to every search."""
        self.position = {id(line): i for i, line in enumerate(lines)}

    def move(self, line: Line) -> None:
        """Note that a line's top moved (a join took it up to the number above it)."""
        self.moved.add(self.position[id(line)])

    def between(self, low: float, high: float) -> list[Line]:
        """Return the lines whose top is in [low, high] (and every moved line), in page order;
        the caller tests each against its current box."""
        first, last = bisect_left(self.tops, low), bisect_right(self.tops, high)
        found = self.moved.union(self.order[first:last])
        return [self.lines[i] for i in sorted(found)]


def _partner(marker: Line, rows: _ByTop) -> Line | None:
    """Return the line just right of a lone list marker on the same baseline."""
    best: Line | None = None
    # Only a line whose top lies within the tallest line's height above can share its height.
    for line in rows.between(marker.y0 - rows.tallest, marker.y1):
        if line is marker or line.x0 < marker.x1 - 1 or line.x0 - marker.x1 > 4 * marker.size:
            continue
        overlap = min(line.y1, marker.y1) - max(line.y0, marker.y0)
        if overlap < 0.5 * min(line.y1 - line.y0, marker.y1 - marker.y0):
            continue
        if best is None or line.x0 < best.x0:
            best = line
    return best


def attach_lone_markers(lines: list[Line]) -> list[Line]:
    """Join a bullet or number that MuPDF put on its own line to the text beside it."""
    lone = [line for line in lines if _LONE_MARKER.match(line.text)]
    if not lone:
        return lines
    dropped: set[int] = set()
    rows = _ByTop(lines)  # joins move a line's left edge only: its top stays
    for marker in lone:
        partner = _partner(marker, rows)
        if partner is None or id(partner) in dropped:
            continue
        partner.text = f"{marker.text} {partner.text}"
        partner.x0 = marker.x0
        dropped.add(id(marker))
    return [line for line in lines if id(line) not in dropped]


_SECTION_NUMBER = re.compile(r"^(?:\d{1,3}(?:\.\d{1,3})*\.?|[A-Z](?:\.\d{1,3})+\.?|[IVX]{1,5}\.)$")
"""A bare section number: 2, 2.1, 2.1.3., A.1, IV."""


def _below(number: Line, rows: _ByTop) -> Line | None:
    """Return the line set straight under a section number in the same style, if any."""
    for line in rows.between(number.y1 - 1, number.y1 + 0.8 * number.size):
        if line is number or abs(line.x0 - number.x0) > 2 or line.y0 < number.y1 - 1:
            continue
        same = line.bold == number.bold and abs(line.size - number.size) < 0.5
        if same and line.y0 - number.y1 < 0.8 * number.size:
            return line
    return None


def attach_section_numbers(lines: list[Line]) -> list[Line]:
    """Join a section number MuPDF split off its heading: set beside it, or just above it."""
    numbers = [line for line in lines if _SECTION_NUMBER.match(line.text)]
    if not numbers:
        return lines
    dropped: set[int] = set()
    rows = _ByTop(lines)
    for number in numbers:
        heading = _partner(number, rows) or _below(number, rows)
        if heading is None or id(heading) in dropped or _SECTION_NUMBER.match(heading.text):
            continue
        if abs(heading.size - number.size) >= 0.5 or heading.bold != number.bold:
            continue
        heading.text = f"{number.text} {heading.text}"
        heading.x0, heading.y0 = min(heading.x0, number.x0), min(heading.y0, number.y0)
        dropped.add(id(number))
        rows.move(heading)
    return [line for line in lines if id(line) not in dropped]
