"""Draw a View with rich: the document with its chunks, the chunk table and the readout.

Colour is a help, never the only signal: the marks ⟦n, n⟧ and ✂ are drawn in plain text too, so
the view reads the same with NO_COLOR, when piped, and for a colour-blind reader.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from policy_assistant.inspect.layout import Line, PageBreak
from policy_assistant.inspect.summary import page_label, readout_rows, section_label, spec_label
from policy_assistant.inspect.view import OVERLAP, UNCOVERED, ChunkMark, View

WORD_STYLES = {"a": "cyan", "b": "green", OVERLAP: "bold magenta", UNCOVERED: "yellow"}
"""Style of a word by its state: the two alternating chunk colours, overlap, and no chunk."""
MARK_STYLES = {"a": "bold black on cyan", "b": "bold black on green"}
"""Style of a chunk's start mark, in its chunk's colour."""
END_STYLES = {"a": "bold cyan", "b": "bold green"}
"""Style of a chunk's end mark."""
CUT_STYLE = "bold red"
CUT = "✂"
"""Drawn before the start mark of a chunk that starts inside a sentence, list item or row."""
PAGE_RULE = "╌"
BULLET = "• "
"""Drawn before an unordered list item (the parser keeps ordinals, not bullets)."""


def _end_mark(mark: ChunkMark) -> str:
    """Return the text of a chunk's end mark: '3⟧'."""
    return f"{mark.number}⟧"


class _Painter:
    """Turn the view's lines into rich Text, with the marks around the words."""

    def __init__(self, view: View, plain: bool) -> None:
        self.view = view
        self.plain = plain
        self.text = view.document.text
        self.starts = view.starts_before()
        self.ends = view.ends_after()

    def cell(self, words: tuple[int, ...]) -> Text:
        """Return one cell (or a whole line) of words with their marks."""
        out = Text()
        for i, word in enumerate(words):
            if i:
                out.append(self._gap(words[i - 1], word))
            for mark in self.starts.get(word, ()):
                if mark.cut:
                    out.append(CUT, style=None if self.plain else CUT_STYLE)
                out.append(f"⟦{mark.number}", style=None if self.plain else MARK_STYLES[mark.slot])
                out.append(" ")
            out.append(self.view.layout.word_text(self.text, word), style=self._style(word))
            for mark in self.ends.get(word, ()):
                out.append(" ")
                out.append(_end_mark(mark), style=None if self.plain else END_STYLES[mark.slot])
        return out

    def line(self, line: Line) -> Text:
        """Return a heading, paragraph, list item or code line, laid out as in the document."""
        lead = " " * line.indent
        if line.kind == "heading":
            lead = "#" * (line.level or 1) + " " if self.plain else ""
        elif line.bullet:
            lead = BULLET
        body = self.cell(line.cells[0])
        if line.kind == "heading" and not self.plain:
            body.stylize("bold underline")
        return Text(lead) + body

    def _gap(self, before: int, after: int) -> str:
        _, end = self.view.layout.words[before]
        start, _ = self.view.layout.words[after]
        gap = self.text[end:start]
        return gap if gap and "\n" not in gap else " "

    def _style(self, word: int) -> str | None:
        if self.plain:
            return None
        return WORD_STYLES[self.view.state(word)]


def _document_renderables(view: View, plain: bool) -> list[RenderableType]:
    """Return the document with its chunks drawn over it, block by block."""
    painter = _Painter(view, plain)
    out: list[RenderableType] = []
    previous: Line | PageBreak | None = None
    for group in _groups(view):
        first = group[0]
        if isinstance(first, PageBreak):
            out.append(Rule(Text(f"page {first.page}"), characters=PAGE_RULE, style="dim"))
        else:
            if isinstance(previous, Line) and previous.block != first.block:
                out.append(Text())
            out.append(_table(painter, group) if first.kind == "table" else painter.line(first))
        previous = group[-1]
    return out or [Text("(the document has no text, so no chunks)", style="italic")]


def _groups(view: View) -> Iterator[list[Any]]:
    """Yield page breaks alone, the rows of one table together, and every other line alone."""
    rows: list[Line] = []
    for item in view.layout.items:
        if isinstance(item, Line) and item.kind == "table":
            if rows and rows[-1].block != item.block:
                yield rows
                rows = []
            rows.append(item)
            continue
        if rows:
            yield rows
            rows = []
        yield [item]
    if rows:
        yield rows


def _table(painter: _Painter, rows: list[Line]) -> Table:
    width = max(len(row.cells) for row in rows)
    table = Table(box=box.SQUARE, show_header=False, padding=(0, 1), expand=False)
    for _ in range(width):
        table.add_column(overflow="fold")
    for row in rows:
        cells = [painter.cell(cell) for cell in row.cells]
        table.add_row(*cells, *[Text()] * (width - len(cells)))
    return table


def legend(plain: bool) -> Text:
    """Return the key to the colours and marks."""
    if plain:
        return Text(
            "⟦n chunk n starts · n⟧ chunk n ends (drawn where chunk n+1 does not start on the "
            "next word) · words between ⟦n+1 and n⟧ are in both chunks (overlap) · words "
            "outside every ⟦ ⟧ are in no chunk · ✂ the chunk starts inside a sentence, list "
            "item or table row · ╌ page break"
        )
    out = Text()
    for label, style in (
        ("chunk", WORD_STYLES["a"]),
        ("next chunk", WORD_STYLES["b"]),
        ("overlap", WORD_STYLES[OVERLAP]),
        ("in no chunk", WORD_STYLES[UNCOVERED]),
    ):
        out.append(label, style=style)
        out.append("  ")
    out.append("⟦n", style=MARK_STYLES["a"])
    out.append(" chunk n starts  n⟧ ends  ")
    out.append(CUT, style=CUT_STYLE)
    out.append(" starts inside a sentence, list item or table row  ╌ page break")
    return out


NARROW = 90
"""Below this width the chunk table is drawn two lines per chunk instead of one row."""


class _ChunkTable:
    """One row per chunk (#, ID, characters, pages, words, sections); stacked when narrow."""

    def __init__(self, view: View) -> None:
        self.view = view

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        """Yield the wide table, or two lines per chunk in a narrow terminal."""
        if options.max_width >= NARROW:
            yield self.wide()
            return
        yield Text("chunks", style="italic")
        for mark in self.view.marks:
            number, chunk_id, characters, pages, words, sections = _chunk_fields(mark)
            where = characters if pages == "-" else f"{characters} · p. {pages}"
            yield Text(f"{number}  {chunk_id}  {words} words")
            yield Text(f"      {where} · {sections}", overflow="fold")

    def wide(self) -> Table:
        """Return the chunk table, one row per chunk."""
        table = Table(box=box.SIMPLE_HEAD, title="chunks", title_justify="left")
        for name in ("#", "ID", "characters", "pages", "words", "sections"):
            left = name in ("ID", "sections")
            table.add_column(name, justify="left" if left else "right", no_wrap=not left)
        for mark in self.view.marks:
            table.add_row(*(Text(field) for field in _chunk_fields(mark)))
        return table


def _chunk_fields(mark: ChunkMark) -> list[str]:
    chunk = mark.chunk
    return [
        f"{CUT if mark.cut else ' '}{mark.number:>3}",
        chunk.id,
        f"{chunk.start}–{chunk.end}",
        page_label(chunk.pages),
        str(chunk.words),
        section_label(chunk.sections),
    ]


def readout_table(view: View) -> Table:
    """Return the readout: chunks, sizes, tables, cuts and chunks without a heading."""
    table = Table(box=None, show_header=False, title="readout", title_justify="left")
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for label, value in readout_rows(view):
        table.add_row(label, Text(value))
    return table


def render_inspection(view: View, spec: dict[str, Any], plain: bool) -> Group:
    """Return everything `inspect` prints for one document."""
    doc = view.document
    header = Text()
    header.append(doc.source, style=None if plain else "bold")
    header.append(f" — {doc.title} · {spec_label(spec)} · {len(view.marks)} chunks")
    return Group(
        header,
        legend(plain),
        Rule(style="dim"),
        *_document_renderables(view, plain),
        Rule(style="dim"),
        _ChunkTable(view),
        readout_table(view),
    )
