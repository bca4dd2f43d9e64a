"""BM25Settings: the typed BM25 settings record, its checks and its JSON form."""

from __future__ import annotations

import pytest

from policy_assistant.codec import CodecError
from policy_assistant.index.settings import BM25_DEFAULTS, BM25Settings


def test_the_json_form_is_the_files_own() -> None:
    # The manifest, units.json and reports always held these: lucene without epsilon.
    assert BM25_DEFAULTS.to_dict() == {"variant": "lucene", "k1": 1.2, "b": 0.75}
    okapi = BM25Settings("okapi", k1=2, b=0)
    assert okapi.to_dict() == {"variant": "okapi", "k1": 2.0, "b": 0.0, "epsilon": 0.25}
    assert isinstance(okapi.to_dict()["k1"], float)  # written 2.0, not 2


@pytest.mark.parametrize("settings", [BM25_DEFAULTS, BM25Settings("okapi", 1.5, 0.3, 0.5)])
def test_settings_survive_their_json_form(settings: BM25Settings) -> None:
    assert BM25Settings.from_dict(settings.to_dict()) == settings


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"variant": "bm25+"}, "variant"),
        ({"k1": -1}, "k1"),
        ({"b": 1.5}, "b"),
        ({"k1": "1.2"}, "k1 must be a number"),
        ({"epsilon": True}, "epsilon must be a number"),
    ],
)
def test_bad_settings_are_refused_by_name(given: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        BM25_DEFAULTS.with_changes(given)
    with pytest.raises(ValueError, match=message):
        BM25Settings.from_dict({**BM25_DEFAULTS.to_dict(), **given})


def test_a_bad_json_form_names_the_record() -> None:
    with pytest.raises(CodecError, match=r"BM25Settings\.variant: 'bm25'"):
        BM25Settings.from_dict({"variant": "bm25"})
    with pytest.raises(CodecError, match="BM25Settings: expected a JSON object"):
        BM25Settings.from_dict(["lucene"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown BM25 settings"):
        BM25_DEFAULTS.with_changes({"k2": 1.0})


def test_settings_read_as_a_person_says_them() -> None:
    assert BM25_DEFAULTS.describe() == "lucene k1=1.2 b=0.75"
    assert BM25Settings("okapi", epsilon=0.5).describe() == "okapi k1=1.2 b=0.75 epsilon=0.5"
