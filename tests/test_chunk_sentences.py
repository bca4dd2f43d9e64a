"""Sentence splitting: abbreviations, decimals, model numbers, French, lines."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.chunk_strategies import paragraph
from support.corpora import write_corpus

from policy_assistant import sentences as sentences_module
from policy_assistant.chunk import make_chunker
from policy_assistant.index import load_manifest
from policy_assistant.index.context.unit_open import segment_units
from policy_assistant.index.store.units import load_units
from policy_assistant.ingest.pipeline import ingest
from policy_assistant.records import Block
from policy_assistant.sentences import (
    SENTENCES_VERSION,
    bounded_spans,
    line_spans,
    sentence_spans,
    unit_spans,
)
from policy_assistant.text import has_unspaced, word_spans


def split(text: str) -> list[str]:
    return [text[s:e] for s, e in sentence_spans(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "One here. Two there! Three? Four…  Five",
            ["One here.", "Two there!", "Three?", "Four…", "Five"],
        ),
        ("Use e.g. a brush. Or i.e. none.", ["Use e.g. a brush.", "Or i.e. none."]),
        ("It draws approx. 2.5 kW. Done.", ["It draws approx. 2.5 kW.", "Done."]),
        ("Ask Mr. Smith at No. 5 Main St. Then go.", ["Ask Mr. Smith at No. 5 Main St. Then go."]),
        ("Model PW-3100. The pump is rated 2.5.", ["Model PW-3100.", "The pump is rated 2.5."]),
        ("See p. 12 for details. Next.", ["See p. 12 for details.", "Next."]),
        ("Call J. Smith today. Then wait.", ["Call J. Smith today.", "Then wait."]),
        ("1. Register the product. Keep it.", ["1. Register the product.", "Keep it."]),
        ('He said "Stop." Then left.', ['He said "Stop."', "Then left."]),
        ("Version 4.2. Next part", ["Version 4.2.", "Next part"]),
        ("Yes. No. Maybe.", ["Yes.", "No.", "Maybe."]),
        ("iv. Check the hose. Done.", ["iv. Check the hose.", "Done."]),
        ("lower case. continues here.", ["lower case. continues here."]),
        ("  padded.   Text  ", ["padded.", "Text"]),
        ("", []),
        ("   ", []),
    ],
)
def test_english_sentences(text: str, expected: list[str]) -> None:
    assert split(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("M. Dupont est là. Mme. Roy aussi.", ["M. Dupont est là.", "Mme. Roy aussi."]),
        ("Attention ! Le produit est garanti.", ["Attention !", "Le produit est garanti."]),
        ("Voir p. ex. la notice. C.-à-d. rien.", ["Voir p. ex. la notice.", "C.-à-d. rien."]),
        ("« Taillez. » Ensuite arrosez.", ["« Taillez. »", "Ensuite arrosez."]),
        ("Environ 2,5 kg. Env. 3 kg.", ["Environ 2,5 kg.", "Env. 3 kg."]),
    ],
)
def test_french_sentences(text: str, expected: list[str]) -> None:
    assert split(text) == expected


def test_sentences_within_a_range_keep_document_offsets() -> None:
    text = "Before. One. Two. After."
    spans = sentence_spans(text, 8, 17)
    assert [text[s:e] for s, e in spans] == ["One.", "Two."]


def test_table_rows_and_code_lines_are_units_of_their_own() -> None:
    rows = "A | B\nNo. 1 | e.g. two\n\n  x = 1.  \nlast"
    block = Block("table", rows, 10, 10 + len(rows))
    text = " " * 10 + rows
    assert [text[s:e] for s, e in unit_spans(text, block)] == [
        "A | B",
        "No. 1 | e.g. two",
        "x = 1.",
        "last",
    ]
    assert [text[s:e] for s, e in line_spans(text)] == [
        "A | B",
        "No. 1 | e.g. two",
        "x = 1.",
        "last",
    ]


def test_list_items_are_split_into_sentences() -> None:
    item = "Keep the receipt. It is proof of purchase."
    block = Block("list_item", item, 0, len(item))
    assert len(unit_spans(item, block)) == 2


def apart_or_cut_without_space(text: str, first: tuple[int, int], second: tuple[int, int]) -> bool:
    """Whether two spans in order are apart, or touch where a word may end without a space:
    the words either side of the cut hold a character of a script written without spaces (with
    its marks) or a full-width stop."""
    (s1, e1), (s2, e2) = first, second
    if e1 < s2:
        return True
    before, after = word_spans(text, s1, e1)[-1], word_spans(text, s2, e2)[0]
    return e1 == s2 and has_unspaced(text, before[0], after[1])


def test_a_cut_after_a_character_and_its_mark_may_touch() -> None:
    # Found by the property test below: the cut's left character was a variation selector.
    text = "e.g. \u2e80\U000e01000"
    spans = bounded_spans(text, sentence_spans(text), 1, 1)
    assert [text[s:e] for s, e in spans] == ["e.g.", "\u2e80\U000e0100", "0"]
    assert all(apart_or_cut_without_space(text, a, b) for a, b in itertools.pairwise(spans))
    assert not apart_or_cut_without_space("ab cd", (0, 2), (2, 5))


@settings(max_examples=150, deadline=None)
@given(text=paragraph())
def test_sentences_cover_every_word_once_in_order(text: str) -> None:
    spans = sentence_spans(text)
    words = word_spans(text)
    assert [w for s, e in spans for w in word_spans(text, s, e)] == words
    for s, e in spans:
        assert text[s:e] == text[s:e].strip() and s < e
    for first, second in itertools.pairwise(spans):
        assert apart_or_cut_without_space(text, first, second)


def test_a_span_within_the_limit_is_kept_whole() -> None:
    text = "One short sentence.\nIts second line."
    assert bounded_spans(text, [(0, len(text))], 6, 3) == [(0, len(text))]


def test_lines_of_a_long_span_are_packed_whole_up_to_the_limit() -> None:
    # A chat log: no sentence punctuation, one message a line.
    lines = ["<ann> the runner failed", "<bob> which one", "<ann> the arm one again today"]
    text = "\n".join(lines)
    spans = bounded_spans(text, [(0, len(text))], 8, 8)
    assert [text[s:e] for s, e in spans] == ["\n".join(lines[:2]), lines[2]]


def test_a_line_over_the_limit_is_cut_between_words_into_near_equal_pieces() -> None:
    text = " ".join(f"w{i}" for i in range(130))
    pieces = [text[s:e].split() for s, e in bounded_spans(text, [(0, len(text))], 60, 40)]
    assert [len(p) for p in pieces] == [32, 33, 32, 33]
    assert [w for p in pieces for w in p] == text.split()


@settings(max_examples=150, deadline=None)
@given(
    text=st.lists(paragraph(), min_size=1, max_size=4).map("\n".join),
    limit=st.integers(1, 12),
    piece=st.integers(1, 12),
)
def test_bounded_spans_cover_every_word_once_within_the_limit(
    text: str, limit: int, piece: int
) -> None:
    spans = bounded_spans(text, sentence_spans(text), limit, piece)
    assert [w for s, e in spans for w in word_spans(text, s, e)] == word_spans(text)
    assert all(0 < len(word_spans(text, s, e)) <= max(limit, piece) for s, e in spans)
    for first, second in itertools.pairwise(spans):
        assert apart_or_cut_without_space(text, first, second)


def test_a_sentence_cut_at_a_full_width_stop_cuts_no_word() -> None:
    # Found by the property test above: "！0" was one word, parted by the sentence cut.
    text = "e.g. ！0一"
    spans = sentence_spans(text)
    assert [text[s:e] for s, e in spans] == ["e.g. ！", "0一"]
    assert [w for s, e in spans for w in word_spans(text, s, e)] == word_spans(text)


def test_chinese_and_japanese_sentences_end_at_a_full_width_stop_without_a_space() -> None:
    text = "今日は晴れです。明日は雨でしょう！本当？「はい。」 Then English. 終わり。。。次。"
    found = [text[a:b] for a, b in sentence_spans(text)]
    assert found == [
        "今日は晴れです。", "明日は雨でしょう！", "本当？", "「はい。」", "Then English.",
        "終わり。。。", "次。",
    ]  # fmt: skip


def test_a_japanese_quotation_followed_by_a_quoting_particle_goes_on() -> None:
    text = "彼は「明日行きます。」と言った。母は『本当？』って聞いた。「はい。」次の日。"
    found = [text[a:b] for a, b in sentence_spans(text)]
    assert found == [
        "彼は「明日行きます。」と言った。", "母は『本当？』って聞いた。", "「はい。」", "次の日。",
    ]  # fmt: skip


QUOTED_CATALOG = '["note-ja.md"]\naccess = "public"\nversion = "1"\n'


def test_an_index_cut_by_older_sentence_rules_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quoted = "彼は「明日行きます。」と言った。"
    files = {"catalog.toml": QUOTED_CATALOG, "note-ja.md": f"# メモ\n\n{quoted}\n"}
    corpus, index = write_corpus(tmp_path / "c", files), tmp_path / "i"
    with monkeypatch.context() as first:
        # Version 1 of the rules split after the quotation's full stop.
        first.setattr(sentences_module, "_QUOTING", "")
        ingest(corpus, index, make_chunker("sentence"))
    assert quoted not in unit_texts(index)
    generation = index / (index / "CURRENT").read_text().strip()
    data = json.loads((generation / "manifest.json").read_text())
    del data["sentences"]  # what an index written before the field holds
    (generation / "manifest.json").write_text(json.dumps(data))
    assert load_manifest(index).sentences == 1

    summary = ingest(corpus, index, make_chunker("sentence"))
    assert summary.rebuilt == f"sentence rules changed (version 1 -> {SENTENCES_VERSION})"
    assert load_manifest(index).sentences == SENTENCES_VERSION
    assert quoted in unit_texts(index)
    again = ingest(corpus, index, make_chunker("sentence"))
    assert again.rebuilt is None and not again.written


def unit_texts(index: Path) -> list[str]:
    """The text of every retrieval unit the index holds."""
    units = load_units(index / (index / "CURRENT").read_text().strip() / "units")
    try:
        return [
            unit_set.unit_text(row)
            for unit_set in map(segment_units, units.segments)
            for row in range(len(unit_set))
        ]
    finally:
        units.close()
