"""The README is a guide that stays true: an example of every command, every dependency with its
reason, links that resolve, and no lab-notebook residue (issue numbers, machine paths).

The option-by-option reference is docs/reference.md, checked by tests/test_reference.py.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from policy_assistant.cli import app

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = sorted((ROOT / "docs").glob("*.md"))
USER_FACING = [ROOT / "README.md", *DOCS, ROOT / "bench" / "RESULTS.md"]
COMMAND = typer.main.get_command(app)
NAMES = sorted(COMMAND.list_commands(None))  # type: ignore[attr-defined, arg-type]
HEADING_RE = re.compile(r"^(#{1,3}) (\S+)(.*)$", re.MULTILINE)
MAX_README_LINES = 550


def readme_section(heading: str) -> str:
    """Return the README's text under `heading` (a full heading line), to the next heading of
    the same or a higher level."""
    start = README.index(f"\n{heading}\n")
    level = len(heading.split(" ", 1)[0])
    rest = README[start + len(heading) + 2 :]
    ends = [m.start() for m in HEADING_RE.finditer(rest) if len(m.group(1)) <= level]
    return rest[: ends[0]] if ends else rest


def test_the_readme_is_a_guide_not_a_notebook() -> None:
    assert len(README.splitlines()) <= MAX_README_LINES


@pytest.mark.parametrize("path", USER_FACING, ids=lambda p: p.name)
def test_no_internal_issue_numbers_or_machine_paths(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert not re.search(r"\bissue\s+#?\d+", text, re.IGNORECASE), path
    assert not re.search(r"(?<![\w.])/(work|tmp|home|Users|root)/", text), path


@pytest.mark.parametrize("name", NAMES)
def test_command_has_help(name: str) -> None:
    result = CliRunner().invoke(app, [name, "--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.stdout


@pytest.mark.parametrize("name", NAMES)
def test_every_command_has_a_readme_example(name: str) -> None:
    section = readme_section(f"### {name}")
    assert re.search(rf"^(\S+=\S+ )*policy-assistant {name}\b", section, re.MULTILINE), name


def test_the_commands_are_the_ones_the_readme_describes() -> None:
    documented = sorted(m.group(2) for m in HEADING_RE.finditer(readme_section("## Commands")))
    assert documented == NAMES


def test_the_two_set_up_commands_exist() -> None:
    setup = readme_section("## Set-up")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("ingest", "test"):
        assert f"make {target}" in setup
        assert re.search(rf"^{target}:", makefile, re.MULTILINE), target


def test_every_dependency_is_in_the_readme_with_its_reason() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = [re.split(r"[<>=!~\[ ]", dep, maxsplit=1)[0] for dep in project["dependencies"]]
    section = readme_section("## Dependencies")
    for name in names:
        line = next((x for x in section.splitlines() if f"**{name}**".lower() in x.lower()), "")
        assert line, f"README's Dependencies do not name {name}"
        assert ":" in line, f"README names {name} without saying why"
    for extra in project["optional-dependencies"]:
        assert f"`{extra}`" in section, f"README's Dependencies do not name the {extra} extra"


@pytest.mark.parametrize("path", [ROOT / "README.md", *DOCS], ids=lambda p: p.name)
def test_relative_links_resolve(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        assert (path.parent / target).exists(), f"{path.name}: broken link {target}"


def test_the_readme_links_every_doc() -> None:
    for doc in DOCS:
        assert f"docs/{doc.name}" in README, f"README does not link docs/{doc.name}"
