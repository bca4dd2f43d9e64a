"""A passage never ends on a bare lead-in line whose list it leaves out."""

from __future__ import annotations

from pathlib import Path

from policy_assistant.index.context.assembler import ContextSettings, assemble
from policy_assistant.index.context.units import UNIT_KINDS, build_units
from policy_assistant.parse import parse_path

GUIDE = (
    "---\naccess: public\n---\n# Care guide\n\n## Cover\n\n"
    "Keep the receipt for every repair. The warranty does not cover:\n\n"
    "- frost damage to timers\n- flooding and storms\n"
)


def test_a_window_drops_a_lead_in_line_whose_list_it_leaves_out(tmp_path: Path) -> None:
    (tmp_path / "guide.md").write_text(GUIDE)
    units = build_units(parse_path(tmp_path).documents)
    texts = [units.unit_text(r) for r in range(len(units))]
    hit = texts.index("Keep the receipt for every repair.")
    assert texts[hit + 1].endswith(":") and UNIT_KINDS[units.col("unit_kind")[hit + 2]] == "item"
    settings = ContextSettings(strategy="window", window=1, narrow_below=0)
    (passage,) = assemble(units, [(hit, 1.0)], 100, settings)
    assert passage.text.rstrip().endswith("Keep the receipt for every repair.")
    # With its list in reach, the lead-in stays: it introduces what follows.
    (whole,) = assemble(units, [(hit + 2, 1.0)], 100, ContextSettings("window", window=2))
    assert "does not cover:" in whole.text and "frost damage" in whole.text


MANUAL = (
    "---\naccess: public\n---\n# Pump manual\n\n## Priming\n\n"
    "Open the vent screw until water flows. Close it by hand.\n"
)


def test_a_passage_opening_on_its_heading_shows_the_heading_once(tmp_path: Path) -> None:
    (tmp_path / "pump.md").write_text(MANUAL)
    units = build_units(parse_path(tmp_path).documents)
    texts = [units.unit_text(r) for r in range(len(units))]
    heading = texts.index("Priming")
    assert UNIT_KINDS[units.col("unit_kind")[heading]] == "heading"
    settings = ContextSettings(strategy="window", window=1, narrow_below=0)
    (passage,) = assemble(units, [(heading + 1, 1.0)], 100, settings)
    assert passage.text.count("Priming") == 1
    assert passage.text.startswith("Pump manual\n")
    assert passage.words == len(passage.text.split()) - passage.text.count(" > ")


def test_a_lead_in_hit_comes_with_its_list_or_not_at_all(tmp_path: Path) -> None:
    (tmp_path / "guide.md").write_text(GUIDE)
    units = build_units(parse_path(tmp_path).documents)
    texts = [units.unit_text(r) for r in range(len(units))]
    lead = texts.index("The warranty does not cover:")
    for strategy in ("window", "passages", "automerge"):
        for budget in (8, 10, 12, 16, 100):
            settings = ContextSettings(strategy=strategy, window=1, narrow_below=0)
            passages = assemble(units, [(lead, 1.0)], budget, settings)
            for passage in passages:
                body = passage.text.rstrip()
                assert not body.endswith("does not cover:"), (strategy, budget, body)
                assert passage.words <= budget
    # Where the lead-in and its first line fit, both are given: the hit is not lost.
    (passage,) = assemble(units, [(lead, 1.0)], 12, ContextSettings("window", window=1))
    assert passage.text.rstrip().endswith("does not cover:\n\nfrost damage to timers")
