"""RankerSettings: names checked when the record is made, the JSON form round-trips."""

from __future__ import annotations

import pytest

from policy_assistant.index.settings import (
    HYBRID_RANKER,
    HYBRID_UNITS,
    RankerSettings,
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
    assert HYBRID_UNITS != HYBRID_RANKER and HYBRID_UNITS.ranker == "hybrid"
    assert ranker_settings("dense", units=True) == RankerSettings("dense")
    assert ranker_settings(HYBRID_RANKER, units=True) is HYBRID_RANKER  # settings given: kept
    assert ranker_settings("dense") == RankerSettings("dense")
    assert not ranker_settings("bm25").uses_vectors and ranker_settings("dense").uses_vectors
    assert RankerSettings("hybrid", "rrf").describe() == "hybrid rrf k=60 depth=100"
    with pytest.raises(ValueError):
        ranker_settings("nope")  # type: ignore[arg-type]
