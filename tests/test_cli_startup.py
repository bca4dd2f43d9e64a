"""Start-up imports only what the command runs; the command list cannot drift from the commands."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from policy_assistant.cli.app import COMMANDS, load_command

HEAVY = ("numpy", "pymupdf", "markdown_it", "rich.table", "policy_assistant.evaluate")


def modules_after(args: list[str]) -> set[str]:
    code = (
        "import sys, json\n"
        "from policy_assistant.cli.app import app\n"
        "try:\n"
        f"    app({args!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stderr.write(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def test_help_imports_no_command_and_nothing_heavy() -> None:
    loaded = modules_after(["--help"])
    assert not {m for m in loaded if m.startswith("policy_assistant.cli.") and "_cmd" in m}
    assert not [m for m in HEAVY if m in loaded]


def test_one_command_imports_its_own_module_only() -> None:
    loaded = modules_after(["search", "--help"])
    commands = {m for m in loaded if m.startswith("policy_assistant.cli.") and m.endswith("_cmd")}
    assert commands == {"policy_assistant.cli.search_cmd"}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_listed_help_line_is_the_commands_own(name: str) -> None:
    command = load_command(name)
    assert command.help.strip().splitlines()[0] == COMMANDS[name][1]
