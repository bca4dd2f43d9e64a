from __future__ import annotations

from itertools import chain

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.chunk_factory import bare_chunk

from policy_assistant.index import memory_index
from policy_assistant.index import tokenize as tokenize_module
from policy_assistant.index.tokenize import (
    STOPWORDS,
    TOKENIZER_SETTINGS,
    fold,
    tokenize,
    word_terms,
)


def test_accents_and_case_fold_away():
    assert tokenize("Employé CAFÉ naïve Crème") == tokenize("employe cafe naive creme")
    assert fold("Straße") == "strasse"
    assert tokenize("ﬁnance") == tokenize("finance")  # ligature decomposes


@pytest.mark.parametrize(
    "query", ["PW-2200", "pw2200", "PW2200", "PW 2200", "pw‑2200", "ＰＷ－２２００"]
)
def test_model_number_queries_share_terms_with_the_chunk(query):
    chunk = set(tokenize("Reset the PW-2200 router before calling support."))
    terms = tokenize(query)
    assert terms and set(terms) <= chunk


def test_model_number_gives_parts_and_joined_form():
    assert tokenize("PW-2200") == ["pw", "2200", "pw2200"]
    assert tokenize("pw2200") == ["pw", "2200", "pw2200"]
    assert tokenize("PW 2200") == ["pw", "2200"]


def test_numbers_alone_are_not_joined():
    # A joined "35" would collide with the number 35; only compounds with a letter join.
    assert tokenize("3.5 2024-01-15") == ["3", "5", "2024", "01", "15"]


def test_hyphenated_words_match_their_closed_form():
    assert "email" in tokenize("e-mail")
    assert "followup" in tokenize("follow-up")


CHUNKS = [
    "The PW-3300 router has 22 ports.",
    "Reset the PW-2200 router before calling support.",
    "Our 2200 employees use PW tools and other routers.",
    "Routers ship with a power cord.",
]


def ranked(texts: list[str], query: str, k: int) -> list[int]:
    """Return the rows of the top k texts for query, through the chunk ranker."""
    chunks = [bare_chunk(f"d{i}.md", 0, t, "public", {"name": "t"}) for i, t in enumerate(texts)]
    return [hit.row for hit in memory_index(chunks).search(query, k)]


@pytest.mark.parametrize("query", ["PW-2200", "pw2200", "PW2200"])
def test_joined_model_number_query_ranks_the_chunk_first(query):
    assert ranked(CHUNKS, query, 1) == [1]


def test_spaced_model_number_query_finds_the_chunk():
    # "PW 2200" cannot tell the model from a text holding both words; it still finds it.
    assert set(ranked(CHUNKS, "PW 2200", 2)) == {1, 2}


def test_stopwords_are_dropped():
    assert tokenize("the of and to it is") == []
    assert tokenize("The warranty of the product") == ["warranti", "product"]


def test_stopword_list_is_a_standard_short_list():
    assert 120 <= len(STOPWORDS) <= 180
    assert {"the", "and", "not", "of"} <= STOPWORDS
    assert all(w == w.lower() and w.isalpha() for w in STOPWORDS)


def test_contractions_and_possessives_leave_no_fragments():
    assert tokenize("The employee's manager doesn't") == ["employe", "manag"]


def test_stems_merge_inflections():
    assert tokenize("warranties") == tokenize("warranty")
    assert tokenize("running") == tokenize("runs") == ["run"]


def test_french_goes_through_the_one_english_pipeline():
    assert TOKENIZER_SETTINGS["languages"] == "one english pipeline for every language"
    terms = tokenize("Les congés payés de l'employé")
    assert terms == tokenize("les conges payes de l employe")
    # French function words are not English stopwords: BM25's idf weighs them down instead.
    assert "les" in terms and "de" in terms


def test_chinese_gives_character_bigrams_as_lucene_cjk_does():
    assert tokenize("保修期为十八个月") == ["保修", "修期", "期为", "为十", "十八", "八个", "个月"]
    # Punctuation ends a run; a lone character is a term of its own.
    assert tokenize("请保留收据。日") == ["请保", "保留", "留收", "收据", "日"]


def test_japanese_runs_cross_scripts_and_keep_voicing_marks():
    assert tokenize("保証はレシート") == ["保証", "証は", "はレ", "レシ", "シー", "ート"]
    assert tokenize("ガイド") == ["ガイ", "イド"]
    assert tokenize("ガイド") != tokenize("カイト")  # voicing marks change the word
    assert tokenize("ｶﾞｲﾄﾞ") == tokenize("ガイド")  # half-width kana fold to full width
    assert fold("が") == "が" and fold("ぱ") == "ぱ"


def test_korean_hangul_syllables_are_bigrams_within_each_spaced_phrase():
    assert tokenize("보증 기간은 18개월") == ["보증", "기간", "간은", "18", "개월"]


def test_cjk_runs_are_cut_out_of_compounds():
    assert tokenize("PW-2200型号") == ["pw", "2200", "pw2200", "型号"]
    assert tokenize("Warranty保修") == ["warranti", "保修"]


def test_a_chinese_query_finds_its_chunk():
    chunks = [
        "保修期为十八个月，请保留收据。",
        "退货需在三十天内办理。",
        "The warranty lasts 18 months.",
    ]
    assert ranked(chunks, "保修期多长", 1) == [0]
    assert ranked(chunks, "退货", 1) == [1]


def test_settings_record_the_pipeline():
    assert (
        TOKENIZER_SETTINGS["version"] == 2
    )  # bumped for CJK bigrams and NFC: old indexes are stale
    assert TOKENIZER_SETTINGS["cjk"] == "character bigrams of han, kana and hangul runs"
    assert TOKENIZER_SETTINGS["stopwords"] == "english"
    assert TOKENIZER_SETTINGS["stemmer"] == "english"
    assert TOKENIZER_SETTINGS["lowercase"] and TOKENIZER_SETTINGS["fold_accents"]
    assert len(TOKENIZER_SETTINGS["stopwords_id"]) == 16


def test_memo_limit_starts_over_without_changing_results(monkeypatch):
    text = "Alpha beta-2 gamma délta PW-2200 epsilon " * 3
    expected = tokenize(text)
    monkeypatch.setattr(tokenize_module, "MEMO_LIMIT", 2)
    tokenize_module._MEMO.clear()
    assert tokenize(text) == expected
    assert len(tokenize_module._MEMO) <= 2


words = st.text(alphabet=st.characters(exclude_categories=("Cs",)), min_size=0, max_size=12).filter(
    lambda w: w.split() == [w]
)


@given(st.lists(words, max_size=8), st.sampled_from([" ", "\n", "\t", "\u00a0", "  "]))
def test_tokenize_is_word_terms_over_whitespace_words(parts, space):
    text = space.join(parts)
    assert tokenize(text) == list(chain.from_iterable(word_terms(w) for w in text.split()))


@given(st.text(max_size=60))
def test_terms_are_nonempty_case_folded_and_single_line(text):
    # Case folding, not lower(): Unicode folds Cherokee small letters to capitals ("Ꭰ").
    for term in tokenize(text):
        assert term and term == term.casefold()
        assert not any(ch.isspace() for ch in term)
