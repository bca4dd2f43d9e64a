"""Every command has help and is documented in the README, option by option."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from policy_assistant.cli import app

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
COMMAND = typer.main.get_command(app)
NAMES = sorted(COMMAND.list_commands(None))  # type: ignore[attr-defined, arg-type]


def test_the_commands_are_the_ones_the_readme_describes() -> None:
    assert sorted(["chunk", "eval", "index", "ingest", "inspect", "parse", "search"]) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_command_has_help(name: str) -> None:
    result = CliRunner().invoke(app, [name, "--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.stdout


@pytest.mark.parametrize("name", NAMES)
def test_command_has_a_readme_section(name: str) -> None:
    assert re.search(rf"^### {name}\b", README, re.MULTILINE), f"README has no '### {name}'"


@pytest.mark.parametrize("name", NAMES)
def test_every_option_is_in_the_readme(name: str) -> None:
    command = COMMAND.get_command(None, name)  # type: ignore[attr-defined, arg-type]
    options = [opt for param in command.params for opt in param.opts if opt.startswith("--")]
    missing = [opt for opt in options if f"`{opt}" not in README and f" {opt} " not in README]
    assert not missing, f"{name}: options not in the README: {missing}"
