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


HEADING_RE = re.compile(r"^(#{1,3}) (\S+)(.*)$", re.MULTILINE)


def sections() -> dict[str, str]:
    """Each command's README text: every `### NAME...` section, to the next heading of its level.

    `### eval --html` belongs to eval; `#### ...` subsections belong to the section above them.
    """
    headings = list(HEADING_RE.finditer(README))
    out: dict[str, str] = {}
    for i, heading in enumerate(headings):
        if heading.group(1) != "###":
            continue
        end = next((h.start() for h in headings[i + 1 :] if len(h.group(1)) <= 3), len(README))
        name = heading.group(2)
        out[name] = out.get(name, "") + README[heading.start() : end]
    return out


def mentioned(option: str, text: str) -> bool:
    """Return whether the option is named in text as itself, not as part of a longer option."""
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None


def test_the_commands_are_the_ones_the_readme_describes() -> None:
    documented = sorted(name for name in sections() if not name[0].isupper())
    assert documented == NAMES
    assert "chunk" in NAMES and "search" in NAMES


@pytest.mark.parametrize("name", NAMES)
def test_command_has_help(name: str) -> None:
    result = CliRunner().invoke(app, [name, "--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.stdout


@pytest.mark.parametrize("name", NAMES)
def test_command_has_a_readme_section(name: str) -> None:
    assert re.search(rf"^### {name}\b", README, re.MULTILINE), f"README has no '### {name}'"


@pytest.mark.parametrize("name", NAMES)
def test_every_option_is_in_its_commands_readme_section(name: str) -> None:
    command = COMMAND.get_command(None, name)  # type: ignore[attr-defined, arg-type]
    # A group (`questions`) has its options on its sub-commands (`questions check`).
    subcommands = getattr(command, "commands", {}).values()
    params = [*command.params, *(p for sub in subcommands for p in sub.params)]
    options = [opt for param in params for opt in param.opts if opt.startswith("--")]
    assert options, f"{name} has no options to check"
    section = sections()[name]
    missing = [opt for opt in options if opt != "--help" and not mentioned(opt, section)]
    assert missing == [], f"{name}: not in '### {name}': {missing}"


def test_an_option_named_only_in_another_section_is_missing() -> None:
    parse, search = sections()["parse"], sections()["search"]
    assert mentioned("--out", parse) and mentioned("--k", search)
    assert not mentioned("--k", parse)  # search's option, not parse's
    assert not mentioned("--max", "--max-words 200")  # a longer option is not the option
