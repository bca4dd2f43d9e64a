"""Words in text written without spaces: a Chinese or Japanese character is one word, so every
size and budget holds on such text; every other text counts as it always did."""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.chunk_checks import check_caps, check_coverage, check_records, check_sections
from support.corpora import write_corpus
from typer.testing import CliRunner

from policy_assistant import text as text_module
from policy_assistant.chunk import base as chunk_base
from policy_assistant.chunk import make_chunker
from policy_assistant.cli.app import app
from policy_assistant.index import load_manifest
from policy_assistant.ingest.pipeline import ingest
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import Document, DocumentMeta
from policy_assistant.text import WORDS_VERSION, count_words, has_unspaced, word_spans

JAPANESE = (
    "当店で購入した芝刈り機の保証期間は購入日から二年間です。"
    "保証期間中に通常の使用で故障した場合は、無料で修理または交換いたします。"
    "ただし、刃やベルトなどの消耗品は保証の対象外です。"
    "修理を依頼する際は、購入時のレシートと製品の保証書を店舗までお持ちください。"
    "保証書がない場合でも、会員カードの購入履歴で確認できることがあります。"
)
"""A paragraph of 162 characters and not one space: one whitespace run."""


def letters(text: str) -> int:
    """Count kana and ideographs, independently of text.py: each is at least one word."""
    return sum("\u3040" <= c <= "\u30ff" or "\u4e00" <= c <= "\u9fff" for c in text)


def japanese_document(paragraphs: int = 3) -> Document:
    builder = DocumentBuilder()
    builder.heading("保証規定", 1, ())
    for i in range(paragraphs):
        builder.heading(f"第{i + 1}条 保証期間", 2, ())
        builder.add("paragraph", JAPANESE, ())
    return builder.build("policies/warranty-ja.md", "0" * 64, DocumentMeta(access="public"), "")


def test_mixed_japanese_and_english_words() -> None:
    text = "保証は2年 (PW-2000 モデル)。Warranty ends ｶﾞ か\u3099 漢\ufe00字"
    words = [text[s:e] for s, e in word_spans(text)]
    assert words == [
        "保", "証", "は", "2", "年", "(PW-2000", "モ", "デ", "ル", ")", "。", "Warranty",
        "ends", "ｶﾞ", "か\u3099", "漢\ufe00", "字",
    ]  # fmt: skip
    assert count_words(text) == len(words) == 17
    assert word_spans(text, 3, 9) == [(3, 4), (4, 5), (6, 9)]  # "2", "年", "(PW" of a slice
    assert count_words(JAPANESE) == len(word_spans(JAPANESE)) >= letters(JAPANESE) == 153


def test_a_word_ends_at_a_full_width_stop_and_its_closing_brackets() -> None:
    # A Chinese or Japanese sentence ends there without a space: no word may straddle it.
    text = "e.g. ！0一 です。」Then 終わり。。。次"
    words = [text[s:e] for s, e in word_spans(text)]
    assert words == [
        "e.g.", "！", "0", "一", "で", "す", "。」", "Then", "終", "わ", "り", "。。。", "次",
    ]  # fmt: skip
    assert count_words(text) == len(words)
    assert has_unspaced("Hello！World") and word_spans("Hello！World") == [(0, 5), (5, 6), (6, 11)]


SPACED = (
    "The sprinkler carries an 18-month warranty.",
    "  leading\tand trailing\n\nwhitespace  ",
    "Garantie : l'été, « deux ans » — réf. 12.",
    "Übergrößenträger bis 2.000 kg\u00a0netto",
    "Ελληνικά και кириллица, עברית",
    "한국어는 띄어쓰기로 단어를 나눕니다",
    "ภาษาไทยเขียนติดกัน",
    "full-width ＰＷ－２０００ stays one word",
    "",
    " \u3000 ",
)
"""Text without a script written without spaces (Hangul and Thai count by whitespace; the
ideographic space is whitespace)."""


@pytest.mark.parametrize("text", SPACED)
def test_text_without_unspaced_scripts_counts_as_whitespace_runs(text: str) -> None:
    assert not has_unspaced(text)  # the fast path: one split, no regex
    assert count_words(text) == len(text.split())
    assert word_spans(text) == [m.span() for m in re.finditer(r"\S+", text)]


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(codec="latin-1") | st.sampled_from(" \t\n\u2003\u2028")))
def test_latin_text_counts_exactly_as_split(text: str) -> None:
    assert not has_unspaced(text)
    assert count_words(text) == len(text.split())
    assert [text[s:e] for s, e in word_spans(text)] == text.split()


MIXED = st.text(
    st.sampled_from("日本語かなカナｶﾞ\u3099\ufe00𠮷、。！？「」』ａ1b- \n\u3000")
    | st.characters(exclude_categories=("C",)),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(MIXED)
def test_count_words_is_the_number_of_word_spans(text: str) -> None:
    spans = word_spans(text)
    assert count_words(text) == len(spans)
    assert all(s < e for s, e in spans)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))
    # Every character but whitespace is in exactly one word.
    assert "".join(text[s:e] for s, e in spans) == "".join(text.split())


@settings(max_examples=100, deadline=None)
@given(MIXED)
def test_a_long_text_counted_in_pieces_gives_the_same_count(text: str) -> None:
    whole = len(word_spans(text))
    original = text_module._PIECE
    text_module._PIECE = 3  # cut every few characters, never inside a word
    try:
        assert count_words(text) == whole
    finally:
        text_module._PIECE = original


def test_a_fixed_chunker_cuts_a_japanese_paragraph_at_its_size() -> None:
    doc = japanese_document(1)
    chunker = make_chunker("fixed", size=50)
    chunks = chunker.chunk(doc)
    total = count_words(doc.text)
    assert len(chunks) == math.ceil(total / 50) > 3
    for chunk in chunks:
        assert chunk.words == count_words(chunk.text) <= 50
        assert letters(chunk.text) <= 50
    bodies = "".join(c.text for c in chunks)  # one after the other, with nothing left out
    assert "".join(bodies.split()) == "".join(doc.text.split())
    check_records(doc, chunker, chunks)
    check_coverage(doc, chunks)
    check_caps(doc, chunker, chunks)


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("overlapping", {"size": 50, "overlap": 10}),
        ("structure", {"max_words": 50}),
        ("sentence", {"max_words": 50}),
    ],
)
def test_every_chunker_holds_its_cap_on_japanese(name: str, options: dict[str, int]) -> None:
    doc = japanese_document()
    chunker = make_chunker(name, **options)
    chunks = chunker.chunk(doc)
    assert len(chunks) > 3
    assert all(letters(c.text) <= 50 for c in chunks)
    check_records(doc, chunker, chunks)
    check_coverage(doc, chunks)
    check_caps(doc, chunker, chunks)
    check_sections(doc, chunker, chunks)


CATALOG = '["warranty-ja.md"]\naccess = "public"\nversion = "1"\n'


def japanese_corpus(root: Path) -> Path:
    paragraphs = "".join(f"## 第{i}条\n\n{JAPANESE}\n\n" for i in range(1, 4))
    files = {"catalog.toml": CATALOG, "warranty-ja.md": f"# 保証規定\n\n{paragraphs}"}
    return write_corpus(root, files)


def budget_context(index: Path, budget: int) -> list[dict[str, Any]]:
    args = ["search", "芝刈り機の保証期間", "--index", str(index), "--budget", str(budget)]
    shown = CliRunner().invoke(app, [*args, "--json"])
    assert shown.exit_code == 0, shown.output
    return [json.loads(line) for line in shown.output.splitlines()]


def test_search_budget_holds_a_japanese_context_to_its_words(tmp_path: Path) -> None:
    ingest(japanese_corpus(tmp_path / "c"), tmp_path / "i", make_chunker("structure"))
    passages = budget_context(tmp_path / "i", 50)
    assert passages and sum(p["words"] for p in passages) <= 50
    assert all(p["words"] == count_words(p["text"]) for p in passages)
    assert 0 < sum(letters(p["text"]) for p in passages) <= 50


def test_an_index_counted_with_the_first_definition_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus, index = japanese_corpus(tmp_path / "c"), tmp_path / "i"
    with monkeypatch.context() as first:
        # Version 1 of the definition, as an index written before it was recorded has it:
        # whitespace runs alone, and no `words` in its manifest.
        for module in (text_module, chunk_base):
            first.setattr(module, "has_unspaced", lambda text, start=0, end=None: False)
        ingest(corpus, index, make_chunker("structure"))
    stale = budget_context(index, 50)
    assert sum(letters(p["text"]) for p in stale) > 50  # what the old counts let through
    generation = index / (index / "CURRENT").read_text().strip()
    data = json.loads((generation / "manifest.json").read_text())
    del data["words"]
    (generation / "manifest.json").write_text(json.dumps(data))
    assert load_manifest(index).words == 1

    summary = ingest(corpus, index, make_chunker("structure"))
    assert summary.rebuilt == f"word definition changed (version 1 -> {WORDS_VERSION})"
    assert summary.written and load_manifest(index).words == WORDS_VERSION
    passages = budget_context(index, 50)
    assert passages and all(p["words"] == count_words(p["text"]) for p in passages)
    assert 0 < sum(letters(p["text"]) for p in passages) <= 50
    again = ingest(corpus, index, make_chunker("structure"))
    assert again.rebuilt is None and not again.written
