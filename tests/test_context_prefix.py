"""A passage's prefix is the title and the nearest heading; its citation keeps the whole path."""

from __future__ import annotations

from pathlib import Path

from policy_assistant.index.context.assembler import ContextSettings, assemble
from policy_assistant.index.context.units import UNIT_KINDS, UnitSet, build_units
from policy_assistant.parse import parse_path

MANUAL = (
    "---\naccess: public\n---\n# Pump manual\n\n## Maintenance schedule for the season\n\n"
    "### Priming\n\nOpen the vent screw until water flows. Close it by hand.\n\n"
    "Run the pump dry for no longer than ten seconds.\n"
)
WINDOW = ContextSettings(strategy="window", window=0, narrow_below=0)


def _units(tmp_path: Path) -> tuple[UnitSet, list[str]]:
    (tmp_path / "pump.md").write_text(MANUAL)
    units = build_units(parse_path(tmp_path).documents)
    return units, [units.unit_text(r) for r in range(len(units))]


def test_a_passage_inside_a_section_names_the_title_and_the_nearest_heading(tmp_path: Path) -> None:
    units, texts = _units(tmp_path)
    hit = texts.index("Run the pump dry for no longer than ten seconds.")
    (passage,) = assemble(units, [(hit, 1.0)], 100, WINDOW)
    body = "Run the pump dry for no longer than ten seconds."
    assert passage.text == f"Pump manual\nPriming\n\n{body}"
    assert "Maintenance" not in passage.text  # the parent is in the citation, not the words
    assert passage.sections == (("Pump manual", "Maintenance schedule for the season", "Priming"),)
    assert passage.words == len(passage.text.split())


def test_a_passage_opening_on_its_heading_names_the_parent_instead(tmp_path: Path) -> None:
    units, texts = _units(tmp_path)
    heading = texts.index("Priming")
    assert UNIT_KINDS[units.col("unit_kind")[heading]] == "heading"
    settings = ContextSettings(strategy="window", window=1, narrow_below=0)
    (passage,) = assemble(units, [(heading + 1, 1.0)], 100, settings)
    assert passage.text.startswith("Pump manual\nMaintenance schedule for the season\n\nPriming\n")
    assert passage.words == len(passage.text.split())


def test_a_heading_hit_fits_where_its_own_prefix_fits(tmp_path: Path) -> None:
    units, texts = _units(tmp_path)
    heading = texts.index("Maintenance schedule for the season")
    # Its prefix is the title alone (2 words): 5 heading words + 2 fit in 7, although the
    # prefix of a passage further into its section (title and this 5-word heading) would not.
    settings = ContextSettings(strategy="window", window=0, narrow_below=0, headings=True)
    (passage,) = assemble(units, [(heading, 1.0)], 7, settings)
    assert passage.text == "Pump manual\n\nMaintenance schedule for the season"
    assert passage.words == 7
