"""Chunker variants in one run: `name:setting=value,...`, repeatable, each a row, all paired."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.cli import APP, runner
from support.eval_corpus import QUESTIONS, write_eval_corpus, write_questions

from policy_assistant.errors import UsageError
from policy_assistant.evaluate.variants import Variant, parse_variants


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("variants")
    return write_eval_corpus(root / "corpus"), write_questions(root / "q.jsonl", QUESTIONS)


def run(paths: tuple[Path, Path], *args: str) -> Any:
    corpus, questions = paths
    common = ["eval", "--corpus", str(corpus), "--questions", str(questions), "-q"]
    return runner.invoke(APP, [*common, *args])


def names(*specs: str) -> list[str]:
    return [v.name for v in parse_variants(specs)]


def test_the_old_comma_form_gives_one_variant_per_name_named_as_before() -> None:
    assert names("structure,fixed") == ["structure", "fixed"]
    assert parse_variants(["fixed"]) == (Variant("fixed"),)


def test_a_comma_before_a_chunker_name_starts_a_new_variant_else_adds_a_setting() -> None:
    assert names("structure:max_words=100,max_table_words=300,fixed:size=50") == [
        "structure:max_words=100,max_table_words=300",
        "fixed:size=50",
    ]
    assert names("overlapping:size=80,overlap=20", "structure") == [
        "overlapping:size=80,overlap=20",
        "structure",
    ]


def test_settings_are_named_in_the_chunkers_order_whatever_order_they_are_given() -> None:
    assert names("overlapping:overlap=20,size=80") == ["overlapping:size=80,overlap=20"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("paragraph:size=3", "unknown chunker 'paragraph'"),
        ("structure:size=100", "structure takes max_words, max_table_words, not 'size'"),
        ("fixed:size=lots", "size takes a whole number, got 'lots'"),
        ("fixed:size", "expected setting=value, got 'size'"),
        ("fixed:size=5,size=6", "size is given twice"),
    ],
)
def test_a_bad_spec_is_a_usage_error_naming_it(spec: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_variants([spec])


def test_the_same_variant_twice_is_refused() -> None:
    with pytest.raises(UsageError, match="'fixed:size=50' is named twice"):
        parse_variants(["fixed:size=50", "fixed:size=50"])


def test_a_variants_settings_override_the_run_wide_option() -> None:
    chunker = Variant("structure", (("max_words", 60),)).make({"max_words": 40, "size": 9})
    assert chunker.settings()["max_words"] == 60


def test_three_variants_are_three_rows_with_their_settings_and_paired_differences(
    paths: tuple[Path, Path],
) -> None:
    result = run(
        paths,
        "--chunker",
        "structure:max_words=15",
        "--chunker",
        "structure:max_words=60",
        "--chunker",
        "fixed:size=20",
        "--json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    rows = ["structure:max_words=15", "structure:max_words=60", "fixed:size=20"]
    assert set(data["chunkers"]) == set(rows)
    assert [s.get("max_words", s.get("size")) for s in data["settings"]["chunkers"]] == [15, 60, 20]
    assert data["chunkers"]["structure:max_words=15"]["spec"]["max_words"] == 15
    assert data["chunkers"]["fixed:size=20"]["spec"] == {"name": "fixed", "size": 20}
    pairs = {(c["a"], c["b"]) for c in data["comparisons"]}
    assert pairs == {(rows[0], rows[1]), (rows[0], rows[2]), (rows[1], rows[2])}
    # The two structure settings really chunk differently.
    counts = [data["chunkers"][r]["chunks"] for r in rows[:2]]
    assert counts[0] > counts[1]


def test_a_variant_with_an_unknown_setting_exits_2_naming_it(paths: tuple[Path, Path]) -> None:
    result = run(paths, "--chunker", "sentence:max_words=50,size=3")
    assert result.exit_code == 2, result.output
    assert "sentence takes max_words, overlap_sentences, not 'size'" in result.stderr


def test_a_bad_setting_value_of_a_variant_exits_2(paths: tuple[Path, Path]) -> None:
    result = run(paths, "--chunker", "overlapping:size=10,overlap=10")
    assert result.exit_code == 2, result.output
    assert "overlap" in result.stderr


def test_an_empty_chunker_list_is_a_usage_error(paths: tuple[Path, Path]) -> None:
    result = run(paths, "--chunker", " , ")
    assert result.exit_code == 2, result.output
    assert "name at least one chunker, chunk file, index or strategy" in result.stderr
