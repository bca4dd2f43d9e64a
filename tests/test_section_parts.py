"""A long section is scored in parts of whole blocks; its passages cite its path once."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from policy_assistant.index.context.assembler import ContextSettings, assemble
from policy_assistant.index.context.units import build_units
from policy_assistant.index.settings import SECTION_PART_WORDS, UNIT_SETTINGS
from policy_assistant.parse import parse_path
from policy_assistant.text import count_words


def _paragraph(i: int) -> str:
    return f"Paragraph {i} tells of the garden." + " It rained on the roses." * 19


def test_a_long_headingless_text_is_cut_into_parts_of_whole_blocks(tmp_path: Path) -> None:
    text = "\n\n".join(_paragraph(i) for i in range(60))  # 60 blocks of 101 words
    (tmp_path / "story.txt").write_text(text)
    units = build_units(parse_path(tmp_path).documents)
    first = units.col("section_first")
    parts = len(first) - 1
    per_part = SECTION_PART_WORDS // 101  # whole blocks only: five of 101 words in 600
    assert parts == -(-60 // per_part)
    for section in range(parts):
        lo, hi = units.section_range(section)
        words = units.words(lo, hi)
        assert words <= SECTION_PART_WORDS
        # Parts start on a block: the unit before belongs to another block.
        block = units.col("unit_block")
        assert lo == 0 or block[lo] != block[lo - 1]
    assert len(set(units.paths)) == 1  # one path, the document's: parts are not headings


def test_a_block_longer_than_a_part_is_parted_between_its_units(tmp_path: Path) -> None:
    long_block = " ".join(f"Sentence {i} is here now." for i in range(200))  # 1,000 words
    (tmp_path / "one.txt").write_text(f"{_paragraph(0)}\n\n{long_block}\n\n{_paragraph(1)}")
    units = build_units(parse_path(tmp_path).documents)
    sizes = [units.words(*units.section_range(s)) for s in range(len(units.paths))]
    assert sum(sizes) == 101 + count_words(long_block) + 101
    assert max(sizes) <= SECTION_PART_WORDS
    block, section = units.col("unit_block"), units.col("unit_section")
    # The long block (block 1) lies in several parts; the short ones each in one.
    parts_of = [len(np.unique(section[block == b])) for b in range(3)]
    assert parts_of[0] == parts_of[2] == 1 and parts_of[1] >= 2


def test_a_log_without_blank_lines_is_parted_between_its_lines(tmp_path: Path) -> None:
    line = "[10:{:02d}] <ann> the build on host {} failed at the link step"
    lines = [line.format(i % 60, i) for i in range(400)]
    (tmp_path / "chat.txt").write_text("\n".join(lines) + "\n")
    (document,) = parse_path(tmp_path).documents
    assert len(document.blocks) == 1  # read as one paragraph: it has no blank line
    units = build_units([document])
    sections = len(units.paths)
    assert sections >= count_words(document.text) // SECTION_PART_WORDS
    for section in range(sections):
        lo, hi = units.section_range(section)
        assert units.words(lo, hi) <= SECTION_PART_WORDS
        # Every part starts at a line: the unit before it ends a line.
        start = int(units.col("unit_start")[lo])
        assert start == 0 or document.text[start - 1] == "\n"


def test_a_passage_across_parts_cites_the_path_once(tmp_path: Path) -> None:
    text = "\n\n".join(_paragraph(i) for i in range(12))
    (tmp_path / "story.txt").write_text(text)
    units = build_units(parse_path(tmp_path).documents)
    lo = units.section_range(1)[0]
    (passage,) = assemble(units, [(lo - 1, 2.0), (lo, 1.0)], 400, ContextSettings("window"))
    assert len(passage.sections) == 1


def test_the_part_size_is_a_unit_setting_an_index_records() -> None:
    assert UNIT_SETTINGS["part_words"] == SECTION_PART_WORDS
    assert UNIT_SETTINGS["part_blocks"] is True  # blocks longer than a part are parted too
