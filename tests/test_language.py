from __future__ import annotations

from pathlib import Path

import pytest

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
