"""docs/reference.md documents every command and every option of the shipped app, and no other.

The app is the one `policy-assistant` runs (`policy_assistant.cli:main` calls `app`). Each
command has a `## NAME` section (`## questions check` for a sub-command, `## policy-assistant`
for the app's own options) whose option table lists, in its first column, exactly the long
options `--help` lists. Adding an option without documenting it fails here, and so does
documenting one that no command takes.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from policy_assistant.cli import app

REFERENCE_PATH = Path(__file__).resolve().parent.parent / "docs" / "reference.md"
REFERENCE = REFERENCE_PATH.read_text(encoding="utf-8")
ROOT = typer.main.get_command(app)
ROOT_NAME = "policy-assistant"
LONG_OPTION_RE = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def commands() -> dict[str, Any]:
    """Return every command of the app by its path (`parse`, `questions check`), the app as
    `policy-assistant`, and each group that has options of its own."""
    found: dict[str, Any] = {ROOT_NAME: ROOT}

    def walk(group: Any, prefix: str) -> None:
        for name in group.list_commands(None):
            command = group.get_command(None, name)
            path = f"{prefix} {name}".strip()
            if hasattr(command, "list_commands"):  # a group (typer vendors its click)
                if long_options(command):
                    found[path] = command
                walk(command, path)
            else:
                found[path] = command

    walk(ROOT, "")
    return found


def long_options(command: Any) -> set[str]:
    """Return the long options the command's --help lists (both names of an on/off flag)."""
    names = {
        opt
        for param in command.params
        if param.param_type_name == "option"
        for opt in (*param.opts, *param.secondary_opts)
        if opt.startswith("--")
    }
    return names - {"--help"}


def sections(text: str = REFERENCE) -> dict[str, str]:
    """Return each `## HEADING` section of the reference by its heading, to the next `## `."""
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def documented(section: str) -> set[str]:
    """Return the long options named in the first column of the section's tables."""
    names: set[str] = set()
    for line in section.splitlines():
        cells = line.split("|")
        if line.startswith("|") and len(cells) > 2:
            names.update(LONG_OPTION_RE.findall(cells[1]))
    return names


COMMANDS = commands()


def test_the_app_is_the_one_the_entry_point_runs() -> None:
    from policy_assistant.cli import app as cli_app
    from policy_assistant.cli.app import app as module_app

    assert cli_app is module_app
    assert {"parse", "chunk", "ingest", "index", "search", "eval", "questions check"} <= set(
        COMMANDS
    )


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_every_command_has_a_section(path: str) -> None:
    assert path in sections(), f"docs/reference.md has no '## {path}' section"


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_a_commands_table_lists_exactly_its_options(path: str) -> None:
    actual = long_options(COMMANDS[path])
    listed = documented(sections().get(path, ""))
    assert sorted(actual - listed) == [], f"{path}: options --help lists, not in its table"
    assert sorted(listed - actual) == [], f"{path}: documented, but {path} takes no such option"


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_the_options_are_the_ones_help_prints(path: str) -> None:
    args = path.split()[1:] if path == ROOT_NAME else path.split()
    result = CliRunner().invoke(app, [*args, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    for option in long_options(COMMANDS[path]):
        assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", result.output), option


def test_no_section_names_an_option_no_command_takes() -> None:
    every = set().union(*(long_options(c) for c in COMMANDS.values())) | {"--help"}
    unknown = sorted(set(LONG_OPTION_RE.findall(REFERENCE)) - every)
    assert unknown == [], f"docs/reference.md names options no command takes: {unknown}"


def test_every_section_is_a_command_or_says_what_it_is() -> None:
    extra = set(sections()) - set(COMMANDS)
    assert extra == {"Options of every command that reads a corpus"}


def test_the_check_sees_a_missing_and_an_invented_option() -> None:
    section = sections()["ls"]
    assert documented(section) == {"--index", "--json"}
    without_json = section.replace("| `--json` |", "| json |")
    assert long_options(COMMANDS["ls"]) - documented(without_json) == {"--json"}
    invented = section + "\n| `--colour` | made up |\n"
    assert documented(invented) - long_options(COMMANDS["ls"]) == {"--colour"}
    assert documented("| `--units` / `--no-units` | both |") == {"--units", "--no-units"}
