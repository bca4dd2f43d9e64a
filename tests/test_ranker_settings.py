"""RankerSettings: names checked when the record is made, the JSON form round-trips."""

from __future__ import annotations

import pytest

from policy_assistant.index.settings import (
    HYBRID_RANKER,
    HYBRID_UNITS,
    RankerSettings,
    parse_ranker,
    ranker_settings,
)


def test_unknown_names_and_bad_numbers_are_refused():
    for bad in (
        {"ranker": "splade"},
        {"fusion": "max"},
        {"norm": "z"},
        {"weight": -1},
        {"weight": True},
        {"depth": 0},
        {"rrf_k": 1.5},
    ):
        with pytest.raises(ValueError):
            RankerSettings(**bad)  # type: ignore[arg-type]


def test_the_json_form_round_trips_and_an_int_weight_is_a_float():
    settings = RankerSettings("hybrid", "rrf", weight=2, depth=50, rrf_k=10)
    assert settings.weight == 2.0 and isinstance(settings.weight, float)
    assert RankerSettings.from_dict(settings.to_dict()) == settings
    assert RankerSettings.from_dict({"ranker": "dense"}) == RankerSettings("dense")


def test_a_name_takes_its_rankers_defaults():
    assert ranker_settings("hybrid") is HYBRID_RANKER
    assert ranker_settings("hybrid", units=True) is HYBRID_UNITS  # units: the context's fusion
    assert HYBRID_UNITS.ranker == HYBRID_RANKER.ranker == "hybrid"
    assert ranker_settings("dense", units=True) == RankerSettings("dense")
    assert ranker_settings(HYBRID_RANKER, units=True) is HYBRID_RANKER  # settings given: kept
    assert ranker_settings("dense") == RankerSettings("dense")
    assert not ranker_settings("bm25").uses_vectors and ranker_settings("dense").uses_vectors
    assert RankerSettings("hybrid", "rrf").describe() == "hybrid rrf k=60 depth=100"
    with pytest.raises(ValueError):
        ranker_settings("nope")  # type: ignore[arg-type]


def test_a_spec_names_a_ranker_or_hybrid_with_its_dense_weight():
    assert parse_ranker("bm25") == RankerSettings()
    assert parse_ranker("hybrid") == HYBRID_RANKER
    assert parse_ranker("hybrid", units=True) == HYBRID_UNITS
    assert parse_ranker("hybrid:1.5") == RankerSettings("hybrid", weight=1.5, norm="minmax")
    weighted = parse_ranker("hybrid:2", units=True)
    assert weighted.weight == 2.0 and weighted.fusion == HYBRID_UNITS.fusion
    assert parse_ranker("hybrid:0").weight == 0.0


BAD_SPECS = ["", "splade", "dense:1", "bm25:2", "hybrid:", "hybrid:x", "hybrid:-1", "hybrid:inf"]


@pytest.mark.parametrize("bad", [*BAD_SPECS, "hybrid:nan", "Hybrid"])
def test_a_spec_that_names_no_ranker_says_what_may_be_named(bad):
    with pytest.raises(ValueError, match=r"bm25, dense, hybrid or hybrid:WEIGHT|dense weight"):
        parse_ranker(bad)
