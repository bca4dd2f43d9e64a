from __future__ import annotations

import re

from rich.console import Console
from support.inspect_helpers import chunks_between, make_doc

from policy_assistant.inspect.terminal import render_inspection
from policy_assistant.inspect.view import View, build_view

SPEC = {"name": "hand", "size": 0}


def sample_view() -> View:
    doc = make_doc()
    return build_view(
        doc,
        chunks_between(doc, [("Care", "well."), ("it well.", "boards."), ("Product", "Spring")]),
    )


def plain_text(view: View, width: int) -> str:
    console = Console(record=True, width=width, no_color=True, color_system=None)
    console.print(render_inspection(view, SPEC, plain=True))
    return console.export_text()


def test_plain_text_carries_the_marks_inline() -> None:
    text = plain_text(sample_view(), 60)
    assert "# ⟦1 Care guide" in text
    assert "Dry ✂⟦2 it well. 1⟧ Oil" in text  # chunk 2 starts inside chunk 1's sentence
    assert "boards. 2⟧" in text  # the gap after chunk 2 shows its end
    assert "⟦3 Product" in text and "Spring 3⟧" in text
    assert "\x1b[" not in text


def test_plain_text_shows_page_breaks_lists_and_table_cells() -> None:
    text = plain_text(sample_view(), 60)
    lines = text.splitlines()
    rule = next(i for i, line in enumerate(lines) if "page 2" in line)
    assert "╌" in lines[rule]
    assert "Use a soft brush" in lines[rule - 2] or "Use a soft brush" in " ".join(lines[:rule])
    assert lines[rule + 1].startswith("• Never use")
    row = next(line for line in lines if "Deck oil" in line)
    assert re.search(r"Deck oil\s+│\s+Twice a year", row)


def test_nothing_is_wider_than_a_narrow_terminal() -> None:
    text = plain_text(sample_view(), 40)
    assert max(len(line) for line in text.splitlines()) <= 40
    # Narrow: the chunk table becomes two lines per chunk, sections on the second.
    assert "   3  0000000000000002  13 words" in text
    assert "      134–198 · (no section)" in text


def test_wide_terminal_draws_the_chunk_table_and_readout() -> None:
    text = plain_text(sample_view(), 120)
    header = next(line for line in text.splitlines() if "characters" in line)
    assert header.split() == ["#", "ID", "characters", "pages", "words", "sections"]
    assert "table 1" in text and "whole in #3" in text
    assert "words in no chunk" in text


def test_colour_mode_colours_words_and_keeps_the_marks() -> None:
    console = Console(record=True, width=80, force_terminal=True, color_system="standard")
    console.print(render_inspection(sample_view(), SPEC, plain=False))
    styled = console.export_text(styles=True, clear=False)
    assert "\x1b[" in styled
    plain = console.export_text()
    assert "⟦2" in plain and "✂" in plain
    assert "# ⟦1" not in plain  # headings are bold in colour, not prefixed with '#'
