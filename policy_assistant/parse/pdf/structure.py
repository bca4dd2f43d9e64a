"""Headings and code from font style and the PDF outline: lines grouped into runs."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from policy_assistant.parse.pdf.lines import Line, join_wrapped, list_marker
from policy_assistant.text import count_words

LARGER = 1.12
"""A line this many times the body size, or more, is set larger than the body text."""
MAX_LEVEL = 6
"""Deepest heading level."""
MAX_HEADING_WORDS = 30
"""A larger-type run with more words is a lead paragraph, not a heading."""
PROSE_SHARE = 0.15
"""A style carrying this share of a document's prose characters is body text, not a heading."""
PROSE_LINE = 40
"""...and whose lines hold this many characters on average."""
MAX_BOLD_HEADING_WORDS = 12
"""A bold body-size run with more words is emphasis, not a heading."""

_NON_WORD = re.compile(r"[\W_]+")
_NUMBERING = re.compile(r"^(?:chapter|appendix|part|section)?[0-9ivxlc]*[a-z]?[0-9]*$")
_LETTERS = re.compile(r"[^\W\d_]")
_SENTENCE_END = re.compile(r"[.,;]$")
_LEADERS = re.compile(r"(?:\.\s?){4,}|…\s*\S*$")
_CLAUSE_END = re.compile(r"[.:;!?)]$")
_LABEL = re.compile(
    r"^(?:chapter|appendix|part|chapitre|annexe|partie|kapitel|anhang|teil)\s+"
    r"(?:\d{1,3}|[ivxlc]{1,6}|[a-z])\.?$",
    re.IGNORECASE,
)


@dataclass(slots=True)
class Run:
    """Consecutive lines of one region that share a role: heading, code or text."""

    kind: str
    """'heading', 'code' or 'text'."""
    lines: list[Line]
    """The lines, in reading order."""
    style: tuple[float, bool] = (0.0, False)
    """(size rounded to 0.5 pt, bold) of a heading."""
    level: int | None = None
    """Heading level, once assigned."""
    outline: bool = False
    """Whether the heading matched an outline entry."""

    @property
    def text(self) -> str:
        """The run's lines joined as wrapped text."""
        text = self.lines[0].text
        for line in self.lines[1:]:
            text = join_wrapped(text, line.text)
        return text


def _key(text: str) -> str:
    return _NON_WORD.sub("", text.casefold())


def _same_title(found: str, title: str) -> bool:
    """Whether a line's text names an outline title, allowing a section number in front."""
    if found == title:
        return True
    if len(found) > len(title) and found.endswith(title):
        return bool(_NUMBERING.match(found[: -len(title)]))
    if len(title) > len(found) >= 3 and title.endswith(found):
        return bool(_NUMBERING.match(title[: -len(found)]))
    return False


class Outline:
    """The PDF's outline (bookmarks) by page, consumed as headings are matched."""

    def __init__(self, toc: list[list[Any]]) -> None:
        self._entries: dict[int, list[tuple[str, int]]] = {}
        for entry in toc:
            level, title, page = int(entry[0]), str(entry[1]), int(entry[2])
            key = _key(title)
            if key and page >= 1:
                self._entries.setdefault(page, []).append((key, min(level, MAX_LEVEL)))

    def __bool__(self) -> bool:
        return bool(self._entries)

    def match(self, text: str, page: int) -> int | None:
        """Return the level of the outline entry on page that text names, and consume it."""
        entries = self._entries.get(page)
        if not entries:
            return None
        found = _key(text)
        if not found:
            return None
        for index, (title, level) in enumerate(entries):
            if _same_title(found, title):
                del entries[index]
                return level
        return None


def _style(line: Line) -> tuple[float, bool]:
    return round(line.size * 2) / 2, line.bold


@dataclass(frozen=True, slots=True)
class Typography:
    """What the type of a whole document says: its body size and its prose styles."""

    body: float
    """Size of most prose characters; monospaced text does not count."""
    prose: frozenset[tuple[float, bool]]
    """(size, bold) styles that carry a large share of the prose: never heading styles."""

    @classmethod
    def of(cls, lines_by_page: list[list[Line]]) -> Typography:
        """Measure the type of a document's lines."""
        sizes: Counter[float] = Counter()
        chars: Counter[tuple[float, bool]] = Counter()
        lines_of: Counter[tuple[float, bool]] = Counter()
        for lines in lines_by_page:
            for line in lines:
                if not line.mono:
                    style, length = _style(line), len(line.text)
                    sizes[line.size] += length
                    chars[style] += length
                    lines_of[style] += 1
        total = sum(chars.values())
        # Headings are short lines; a style of long lines carrying much of the text is prose.
        prose = frozenset(
            style
            for style, count in chars.items()
            if count >= PROSE_SHARE * total and count >= PROSE_LINE * lines_of[style]
        )
        return cls(sizes.most_common(1)[0][0] if sizes else 0.0, prose)

    def role(self, line: Line) -> str:
        """Return 'code', 'size' (larger type), 'bold' (bold body type) or 'text'."""
        if line.mono:
            return "code"
        if _style(line) in self.prose:
            return "text"
        if line.size >= self.body * LARGER:
            return "size"
        if line.bold and line.size >= self.body - 0.5:
            return "bold"
        return "text"


def _group(lines: list[Line], type_: Typography) -> list[tuple[str, list[Line]]]:
    """Split a region's lines into runs of one role and one style."""
    groups: list[tuple[str, list[Line]]] = []
    for line in lines:
        role = type_.role(line)
        if groups:
            last_role, last_lines = groups[-1]
            prev = last_lines[-1]
            if role == last_role and (role in ("text", "code") or _same_style(prev, line)):
                last_lines.append(line)
                continue
        groups.append((role, [line]))
    return groups


def _same_style(a: Line, b: Line) -> bool:
    return abs(a.size - b.size) < 0.5 and a.bold == b.bold


def _words(lines: list[Line]) -> int:
    return sum(count_words(line.text) for line in lines)


def _is_heading(role: str, lines: list[Line], first: bool, after: Line | None) -> bool:
    """Whether a run that looks like a heading reads like one."""
    text = " ".join(line.text for line in lines)
    if len(_LETTERS.findall(text)) < 2 or _LEADERS.search(text):
        return False
    if role == "bold" and text[:1].islower():
        # Larger type may head a section with a function name; bold body text may not.
        return False
    marker = list_marker(text)
    if marker and (role == "bold" or not marker[:1].isdigit()):
        # Larger type may number its sections ("2. Scope"); bullets are never headings.
        return False
    if role == "size":
        return len(lines) <= 4 and _words(lines) <= MAX_HEADING_WORDS
    # Bold body-size type heads a section only when it stands at the top of its block
    # with space below it: a bold lead-in sentence runs on at the normal line spacing.
    spaced = after is None or after.y0 - lines[-1].y1 > 0.2 * after.size
    return (
        first
        and spaced
        and (after is None or not after.lead_bold)
        and len(lines) <= 2
        and _words(lines) <= MAX_BOLD_HEADING_WORDS
        and not _SENTENCE_END.search(text)
    )


def _outline_runs(lines: list[Line], outline: Outline) -> list[Run] | None:
    """Return the region split at lines that the outline names, or None if none is."""
    if not outline:
        return None
    runs: list[Run] = []
    matched = False
    for line in lines:
        level = outline.match(line.text, line.page)
        if level is not None:
            runs.append(Run("heading", [line], level=level, outline=True))
            matched = True
        elif runs and not runs[-1].outline:
            runs[-1].lines.append(line)
        else:
            runs.append(Run("text", [line]))
    return runs if matched else None


def region_runs(lines: list[Line], type_: Typography, outline: Outline) -> list[Run]:
    """Split one region's lines into heading, code and text runs."""
    runs: list[Run] = []
    groups = _group(lines, type_)
    for index, (role, group) in enumerate(groups):
        if role in ("size", "bold"):
            level = outline.match(" ".join(ln.text for ln in group), group[0].page)
            if level is not None:
                runs.append(Run("heading", group, level=level, outline=True))
                continue
            after = groups[index + 1][1][0] if index + 1 < len(groups) else None
            if _is_heading(role, group, index == 0, after):
                runs.append(Run("heading", group, style=_style(group[0])))
                continue
        if role == "code" and not _inline_code(groups, index):
            runs.append(Run("code", group))
            continue
        runs.extend(_outline_runs(group, outline) or [Run("text", group)])
    return _merge_text(runs)


def _inline_code(groups: list[tuple[str, list[Line]]], index: int) -> bool:
    """Whether a monospaced run only continues the sentence of the text line above it."""
    if index == 0 or groups[index - 1][0] == "code":
        return False
    return not _CLAUSE_END.search(groups[index - 1][1][-1].text)


def _merge_text(runs: list[Run]) -> list[Run]:
    """Join neighbouring text runs: style changes inside a paragraph are not boundaries."""
    merged: list[Run] = []
    for run in runs:
        if merged and run.kind == "text" and merged[-1].kind == "text":
            merged[-1].lines.extend(run.lines)
        else:
            merged.append(run)
    return merged


def assign_levels(runs: list[Run]) -> None:
    """Give every heading run a level: outline level, else rank of its type size."""
    headings = [r for r in runs if r.kind == "heading"]
    matched: dict[tuple[float, bool], Counter[int]] = {}
    for run in headings:
        if run.outline and run.level is not None:
            matched.setdefault(_style(run.lines[0]), Counter())[run.level] += 1
    styles = sorted({r.style for r in headings if not r.outline}, key=lambda s: (-s[0], not s[1]))
    rank = {style: min(i + 1, MAX_LEVEL) for i, style in enumerate(styles)}
    for run in headings:
        if run.outline:
            continue
        if run.style in matched:
            run.level = matched[run.style].most_common(1)[0][0]
        elif matched:
            larger = [lv.most_common(1)[0][0] for st, lv in matched.items() if st >= run.style]
            run.level = min(max(larger, default=0) + 1, MAX_LEVEL)
        else:
            run.level = rank[run.style]


def merge_labels(runs: list[Run]) -> list[Run]:
    """Join a standalone "Chapter N" line to the chapter title under it; return the labels.

    Book classes set the label on a line of its own above the title. Alone it would be a
    heading of its own, one level above a title the outline ranks as a chapter. The
    title's run takes the label's lines in front and keeps its own level and style; the
    label runs returned are to be dropped.
    """
    labels: list[Run] = []
    for label, title in itertools.pairwise(runs):
        if (
            title.kind == "heading"
            and label.kind in ("heading", "text")
            and len(label.lines) == 1
            and _LABEL.match(label.lines[0].text.strip())
            and label.lines[0].page == title.lines[0].page
            and title.lines[0].y0 > label.lines[0].y0
        ):
            title.lines[:0] = label.lines
            labels.append(label)
    return labels
