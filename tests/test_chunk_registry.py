"""The registry: names, defaults, specs, and usage errors that say what is wrong."""

from __future__ import annotations

from typing import Any

import pytest

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
from policy_assistant.errors import ExitCode, UsageError


def test_the_four_chunkers_and_their_defaults() -> None:
    assert list(CHUNKERS) == ["fixed", "overlapping", "structure", "sentence"]
    assert DEFAULT_CHUNKER == "structure"
    assert (DEFAULT_SIZE, DEFAULT_OVERLAP, DEFAULT_MAX_WORDS, DEFAULT_MAX_TABLE_WORDS) == (
        100,
        25,
        200,
        800,
    )
    assert make_chunker("fixed").spec() == {"name": "fixed", "size": 100}
    assert make_chunker("overlapping").spec() == {"name": "overlapping", "size": 100, "overlap": 25}
    assert make_chunker("structure").settings() == {"max_words": 200, "max_table_words": 800}
    assert make_chunker("sentence", max_words=50).settings() == {
        "max_words": 50,
        "overlap_sentences": DEFAULT_OVERLAP_SENTENCES,
    }
    for name, cls in CHUNKERS.items():
        assert cls.name == name
        assert tuple(make_chunker(name).settings()) == cls.setting_names


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
