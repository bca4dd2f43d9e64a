from __future__ import annotations

from pathlib import Path

import pytest

from policy_assistant.parse import language as language_module
from policy_assistant.parse import parse_path
from policy_assistant.parse.language import detect_language

TEXTS = {
    "en": "The warranty covers oscillating sprinklers for eighteen months from the date of "
    "purchase, provided the customer keeps the receipt and the product was used as described.",
    "fr": "La garantie couvre les arroseurs oscillants pendant dix-huit mois à compter de la date "
    "d'achat, à condition que le client conserve le ticket de caisse.",
    "de": "Die Garantie deckt oszillierende Rasensprenger für achtzehn Monate ab dem Kaufdatum ab, "
    "sofern der Kunde den Kassenbon aufbewahrt und das Produkt bestimmungsgemäß benutzt hat.",
    "es": "La garantía cubre los aspersores oscilantes durante dieciocho meses desde la fecha de "
    "compra, siempre que el cliente conserve el recibo y el producto se haya usado como se indica.",
    "zh": "摆动式喷水器的保修期为自购买之日起十八个月，前提是顾客保留收据，并且产品按照说明使用。",
    "ja": "首振りスプリンクラーの保証期間は購入日から十八か月です。"
    "レシートを保管し、説明どおりに使用してください。",
    "ko": "진동식 스프링클러의 보증 기간은 구입일로부터 18개월이며, "
    "고객이 영수증을 보관하고 설명서대로 사용한 경우에 한합니다.",
}


@pytest.mark.parametrize("language", sorted(TEXTS))
def test_each_language_is_detected(language: str) -> None:
    assert detect_language(TEXTS[language], default="xx") == language


@pytest.mark.parametrize("text", ["", "PW-2200", "ok", "Table 3 | 18 | 24", "12.5 kW " * 20])
def test_text_that_cannot_tell_keeps_the_default(text: str) -> None:
    assert detect_language(text, default="en") == "en"


def test_chinese_quoting_a_japanese_word_stays_chinese() -> None:
    assert detect_language(TEXTS["zh"] + "（ガイド）", default="xx") == "zh"


def test_long_text_is_sampled_across_its_length() -> None:
    # English first, French for the rest: the even slices see mostly French.
    text = TEXTS["en"] + " " + " ".join([TEXTS["fr"]] * 400)
    assert detect_language(text, default="xx") == "fr"


def test_same_text_same_answer() -> None:
    assert {detect_language(TEXTS["de"], "xx") for _ in range(3)} == {"de"}


def test_bundled_corpus_languages_match_the_catalog() -> None:
    # The catalog's labels (written by the corpus's authors) are the truth: 37 en, 2 fr.
    result = parse_path(Path(__file__).parents[1] / "corpus")
    found = {d.source: detect_language(d.text, default="xx") for d in result.documents}
    assert found == {d.source: d.language for d in result.documents}
    assert sorted(set(found.values())) == ["en", "fr"]


SAMPLES = [TEXTS[k] for k in ("en", "fr", "de", "es")] + ["Ein kurzer Satz über Gärten, bitte."]


def scores(identifier: object) -> list[tuple[str, float]]:
    """Return the identifier's answer for each sample text."""
    return [identifier.classify(text) for text in SAMPLES]  # type: ignore[attr-defined]


@pytest.fixture
def model_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(language_module, "MODEL_FOLDER", tmp_path / "cache")
    language_module._identifier.cache_clear()
    yield tmp_path / "cache"
    language_module._identifier.cache_clear()


@pytest.mark.slow
def test_the_unpacked_model_answers_as_the_packed_one(
    model_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    packed = scores(LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True))
    assert scores(language_module._identifier()) == packed  # unpacks it on the way
    (kept,) = (model_folder / "models").iterdir()
    assert sorted(p.name for p in kept.iterdir()) == sorted(
        f"{name}.npy" for name in language_module._ARRAYS
    )
    language_module._identifier.cache_clear()

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the packed model was read again")

    monkeypatch.setattr(LanguageIdentifier, "from_model_file", refuse)
    assert scores(language_module._identifier()) == packed


@pytest.mark.slow
def test_a_damaged_unpacked_model_is_unpacked_again(model_folder: Path) -> None:
    language_module._identifier()
    (kept,) = (model_folder / "models").iterdir()
    (kept / "nb_ptc.npy").write_bytes(b"not an array")
    language_module._identifier.cache_clear()
    assert language_module._identifier().classify(TEXTS["fr"])[0] == "fr"
    assert (kept / "nb_ptc.npy").read_bytes()[:6] == b"\x93NUMPY"
