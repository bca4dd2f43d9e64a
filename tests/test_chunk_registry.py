"""The registry: names, defaults, specs, and usage errors that say what is wrong."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from policy_assistant.chunk import (
    CHUNKERS,
    DEFAULT_CHUNKER,
    DEFAULT_MAX_TABLE_WORDS,
    DEFAULT_MAX_WORDS,
    DEFAULT_OVERLAP,
    DEFAULT_OVERLAP_SENTENCES,
    DEFAULT_SIZE,
    make_chunker,
)
from policy_assistant.cli import app
from policy_assistant.errors import ExitCode, UsageError

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
ROW_RE = re.compile(r"^\| `(\w+)`(?: \(default\))? \|.*\| `(--[^`]+)` \|$", re.MULTILINE)


def documented_defaults() -> dict[str, dict[str, int]]:
    """The chunker table of the README's chunk section: each chunker's options and defaults."""
    section = README[README.index("\n### chunk\n") : README.index("\n### ingest\n")]
    table: dict[str, dict[str, int]] = {}
    for name, options in ROW_RE.findall(section):
        pairs = re.findall(r"--([\w-]+) (\d+)", options)
        table[name] = {option.replace("-", "_"): int(value) for option, value in pairs}
    return table


def test_the_readme_documents_every_chunker_with_its_defaults() -> None:
    assert documented_defaults() == {
        "fixed": {"size": 100},
        "overlapping": {"size": 100, "overlap": 25},
        "structure": {"max_words": 200, "max_table_words": 800},
        "sentence": {"max_words": 200, "overlap_sentences": 0},
    }
    assert re.search(r"^\| `structure` \(default\) \|", README, re.MULTILINE)


def test_the_registry_builds_what_the_readme_documents() -> None:
    documented = documented_defaults()
    assert list(CHUNKERS) == ["fixed", "overlapping", "structure", "sentence"]
    assert sorted(documented) == sorted(CHUNKERS)
    assert DEFAULT_CHUNKER == "structure"
    for name, cls in CHUNKERS.items():
        assert cls.name == name
        assert cls.setting_names == tuple(documented[name])
        assert make_chunker(name).settings() == documented[name]
        assert make_chunker(name).spec() == {"name": name, **documented[name]}
    constants = {
        "size": DEFAULT_SIZE,
        "overlap": DEFAULT_OVERLAP,
        "max_words": DEFAULT_MAX_WORDS,
        "max_table_words": DEFAULT_MAX_TABLE_WORDS,
        "overlap_sentences": DEFAULT_OVERLAP_SENTENCES,
    }
    assert constants == {k: v for settings in documented.values() for k, v in settings.items()}


def test_a_setting_given_replaces_only_its_default() -> None:
    assert make_chunker("sentence", max_words=50).settings() == {
        "max_words": 50,
        "overlap_sentences": 0,
    }
    assert make_chunker("overlapping", overlap=10).spec() == {
        "name": "overlapping",
        "size": 100,
        "overlap": 10,
    }


def test_the_command_line_chunks_with_the_readme_defaults(corpus_dir: Path) -> None:
    source = str(corpus_dir / "policies" / "returns-policy.md")
    for name, settings in documented_defaults().items():
        result = CliRunner().invoke(app, ["chunk", source, "--chunker", name, "--json"])
        assert result.exit_code == 0, result.output
        specs = [orjson.loads(line)["chunker"] for line in result.stdout.splitlines()]
        assert specs, name
        assert all(spec == {"name": name, **settings} for spec in specs), specs[0]
    help_text = " ".join(CliRunner().invoke(app, ["chunk", "--help"]).stdout.split())
    defaults = {k: v for settings in documented_defaults().values() for k, v in settings.items()}
    for setting, value in defaults.items():
        option = "--" + setting.replace("_", "-")
        assert re.search(rf"{option} [^\[]*\[{value}\]", help_text), option


@pytest.mark.parametrize(
    ("name", "settings", "message"),
    [
        (
            "nope",
            {},
            "unknown chunker 'nope'; choose one of fixed, overlapping, structure, sentence",
        ),
        ("fixed", {"overlap": 5}, "the fixed chunker takes size; it does not take overlap"),
        ("fixed", {"size": 0}, "size must be positive, got 0"),
        ("overlapping", {"size": 20, "overlap": 20}, "overlap must be smaller than size"),
        ("overlapping", {"overlap": -1}, "overlap must be zero or more, got -1"),
        ("structure", {"max_words": -5}, "max_words must be positive, got -5"),
        ("structure", {"max_table_words": 0}, "max_table_words must be positive, got 0"),
        ("sentence", {"overlap_sentences": -1}, "overlap_sentences must be zero or more"),
        ("sentence", {"max_words": True}, "max_words must be a whole number, got True"),
        ("sentence", {"max_words": 2.5}, "max_words must be a whole number, got 2.5"),
    ],
)
def test_bad_settings_are_usage_errors_that_say_what_is_wrong(
    name: str, settings: dict[str, Any], message: str
) -> None:
    with pytest.raises(UsageError) as caught:
        make_chunker(name, **settings)
    assert message in str(caught.value)
    assert caught.value.exit_code == ExitCode.USAGE
