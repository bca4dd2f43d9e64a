"""The view in words: the readout's rows and a text description for screen readers.

The terminal and the HTML page print the same rows, so the two never disagree.
"""

from __future__ import annotations

from typing import Any

from policy_assistant.inspect.view import View

QUOTE_WORDS = 6
"""Words of a chunk's opening quoted in the text description."""


def spec_label(spec: dict[str, Any]) -> str:
    """Return a chunker spec as 'structure (max_words 200, max_table_words 800)'."""
    settings = ", ".join(f"{k} {v}" for k, v in spec.items() if k != "name")
    name = str(spec.get("name", "?"))
    return f"{name} ({settings})" if settings else name


def page_label(pages: tuple[int, ...]) -> str:
    """Return '1', '1–2' or '-' (no pages: Markdown)."""
    if not pages:
        return "-"
    return str(pages[0]) if len(pages) == 1 else f"{pages[0]}–{pages[-1]}"


def section_label(sections: tuple[tuple[str, ...], ...]) -> str:
    """Return the innermost heading of each section path: 'Coverage; Exclusions'."""
    return "; ".join(path[-1] for path in sections if path) or "(no section)"


def readout_rows(view: View) -> list[tuple[str, str]]:
    """Return the readout as (label, value) rows."""
    readout = view.readout
    rows = [
        ("chunks", str(readout.chunks)),
        ("words per chunk", readout.size_summary()),
    ]
    for fate in readout.tables:
        pages = fate.block.pages
        where = f"{fate.rows} rows" + (f", page {page_label(pages)}" if pages else "")
        name = fate.block.section[-1] if fate.block.section else "untitled"
        rows.append((f"table {fate.number}", f"{name} ({where}): {fate.describe()}"))
    rows += [
        ("start inside a unit ✂", readout.cut_summary()),
        ("start without a heading", str(readout.without_heading)),
        ("mix sections", str(readout.quality.mixed_sections)),
        ("words in two chunks", str(readout.overlap_words)),
        ("words in no chunk", str(readout.uncovered_words)),
    ]
    return rows


def describe(view: View, spec: dict[str, Any]) -> str:
    """Return what the view shows, in sentences, for a reader who cannot see the colours."""
    doc = view.document
    readout = view.readout
    parts = [
        f"{doc.title} ({doc.source}) cut by the {spec_label(spec)} chunker "
        f"into {readout.chunks} chunks; words per chunk: {readout.size_summary()}."
    ]
    for fate in readout.tables:
        parts.append(f"Table {fate.number} is {fate.describe().replace('#', 'chunk ')}.")
    parts.append(
        f"{readout.overlap_words} words are in two chunks and {readout.uncovered_words} in none."
    )
    for mark in view.marks:
        parts.append(_chunk_sentence(view, mark.number))
    return " ".join(parts)


def _chunk_sentence(view: View, number: int) -> str:
    mark = view.marks[number - 1]
    chunk = mark.chunk
    words = view.layout.words[max(mark.first, 0) : max(mark.last + 1, 0)][:QUOTE_WORDS]
    opening = " ".join(view.document.text[s:e] for s, e in words)
    more = "…" if mark.last - mark.first + 1 > QUOTE_WORDS else ""
    where = f", page {page_label(chunk.pages)}" if chunk.pages else ""
    cut = f", starting inside a {mark.cut}" if mark.cut else ""
    return (
        f"Chunk {number}: {chunk.words} words{where}, in {section_label(chunk.sections)}"
        f"{cut}, opens “{opening}{more}”."
    )
