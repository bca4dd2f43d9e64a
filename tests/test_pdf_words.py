"""Words across line ends: hyphens by the document's vocabulary, URLs, dashes, CJK, controls."""

from __future__ import annotations

import pytest
from support.pdf_factory import MARGIN, lines_pdf, parse

from policy_assistant.parse.pdf.lines import clean_text
from policy_assistant.parse.pdf.words import Vocabulary, join_wrapped, remove_controls


@pytest.mark.parametrize(
    ("left", "right", "words", "joined"),
    [
        # The document spells the word whole elsewhere: the hyphen was the layout's.
        ("in Ex-", "cel sheets", ["Excel"], "in Excel sheets"),
        ("the Re-", "dundancy plan", ["redundancy"], "the Redundancy plan"),
        ("der Ab-", "stand", ["Abstand"], "der Abstand"),
        # It spells the compound elsewhere: the hyphen is the author's.
        ("a dual-", "encoder model", ["dual-encoder"], "a dual-encoder model"),
        # It spells both or neither: the rules decide, as without a vocabulary.
        ("garden equip-", "ment", [], "garden equipment"),
        ("model PW-", "2200", [], "model PW-2200"),
        ("Wi-", "Fi", ["wifi", "wi-fi"], "Wi-Fi"),
        # A capitalised piece the document never spells whole is a piece of a word: names
        # and sentence-initial words broken by the layout (the Estonian lshort's "Car-ter").
        ("Kim Car-", "ter, who", ["Kim", "car"], "Kim Carter, who"),
        ("Compre-", "hensive notes", [], "Comprehensive notes"),
        # Spelled whole, or as the head of a compound, it is a word: the hyphen stays.
        ("the Unicode-", "aware reader", ["Unicode"], "the Unicode-aware reader"),
        ("the Bézier-", "käyrään", ["Bézier-käyrä"], "the Bézier-käyrään"),
        # One capital letter is no piece a layout leaves.
        ("an X-", "ray", [], "an X-ray"),
    ],
)
def test_line_end_hyphen_by_vocabulary(
    left: str, right: str, words: list[str], joined: str
) -> None:
    assert join_wrapped(left, right, Vocabulary(words)) == joined


@pytest.mark.parametrize(
    ("left", "right", "joined"),
    [
        (
            "see https://greenhaven.example/help/",
            "warranty.html today",
            "see https://greenhaven.example/help/warranty.html today",
        ),
        ("visit www.greenhaven.example/", "stores", "visit www.greenhaven.example/stores"),
        ("the years 2024\u2013", "2025 saw", "the years 2024\u20132025 saw"),
        ("the price\u2014", "which rose", "the price\u2014which rose"),
        ("the price", "\u2014which rose", "the price\u2014which rose"),
        ("well \u2013", "known", "well \u2013 known"),
        ("保証期間は", "二年です。", "保証期間は二年です。"),
        ("보증 기간은", "2년입니다", "보증 기간은 2년입니다"),
    ],
)
def test_urls_dashes_and_cjk_across_line_ends(left: str, right: str, joined: str) -> None:
    assert join_wrapped(left, right) == joined


def test_url_split_by_a_space_is_not_joined_to_the_next_word() -> None:
    assert join_wrapped("see https://greenhaven.example/help", "for details") == (
        "see https://greenhaven.example/help for details"
    )
    assert join_wrapped("at https://greenhaven.example/he", "lp/faq.html") == (
        "at https://greenhaven.example/help/faq.html"
    )


def test_control_characters_are_removed() -> None:
    assert remove_controls("bell\x07 sub\x1a ind\x84 tab\tnl\n") == "bell sub ind tab\tnl\n"
    assert clean_text("Re\x07fund\x1a policy\x84", mono=False) == "Refund policy"


MENDED = {
    "a capitalised break the document spells whole elsewhere; a real hyphen kept": (
        [
            "Export the report to Excel before the meeting.",
            "The sheet opens in Ex-",
            "cel and in any other spreadsheet, and our dual-",
            "encoder search uses the dual-encoder index.",
        ],
        "Export the report to Excel before the meeting. The sheet opens in Excel and in "
        "any other spreadsheet, and our dual-encoder search uses the dual-encoder index.",
    ),
    # The regression: real TeX manuals kept the layout's hyphen in "Car-ter",
    # "Win-dows" and "Compre-hensive", as if each were a compound.
    "names broken at a line end; compounds and one-letter heads kept": (
        [
            "This guide was read by Kim Car-",
            "ter and runs on Win-",
            "dows, where the Unicode-",
            "aware fonts show Unicode text and X-",
            "ray images.",
        ],
        "This guide was read by Kim Carter and runs on Windows, where the Unicode-aware "
        "fonts show Unicode text and X-ray images.",
    ),
}


@pytest.mark.parametrize("case", sorted(MENDED))
def test_line_end_hyphens_are_mended_by_the_document_s_vocabulary(case: str) -> None:
    texts, expected = MENDED[case]
    lines = [(MARGIN, 100 + 14 * i, text) for i, text in enumerate(texts)]
    assert parse(lines_pdf([lines])).text == expected


def test_a_piece_cut_at_a_line_end_is_not_a_word_of_the_document() -> None:
    vocabulary = Vocabulary(["thanks to Kim Car-", "ter and to the Unicode-aware fonts"])
    assert not vocabulary.spells_whole("Car")
    assert vocabulary.spells_whole("Kim") and vocabulary.spells_whole("Unicode")
    # Case counts: "car" spelled in lowercase says nothing of a capitalised "Car".
    assert not Vocabulary(["a car"]).spells_whole("Car")


def test_a_compound_of_two_words_the_document_uses_keeps_its_hyphen() -> None:
    # A long book glued 28 of its 29 compounds broken at their hyphen ("forestdwelling").
    texts = [
        "The forest is old, and dwelling in it takes care; self and interest rarely agree.",
        "Some owls are forest-",
        "dwelling birds, led by self-",
        "interest, whose call is spine-",
        "chilling at night. Our garden equip-",
        "ment is sold with the sheds.",
    ]
    lines = [(MARGIN, 100 + 14 * i, text) for i, text in enumerate(texts)]
    text = parse(lines_pdf([lines])).text
    assert "forest-dwelling birds" in text and "self-interest" in text
    # "spine" and "chilling" are not words of this document: the rules join them.
    assert "spinechilling" in text and "equipment" in text


@pytest.mark.parametrize(
    ("left", "right", "words", "joined"),
    [
        ("the forest-", "dwelling birds", ["forest dwelling"], "the forest-dwelling birds"),
        # Pieces cut at a line end are no words of the document.
        ("equip-", "ment", ["garden equip-", "ment"], "equipment"),
        # Closed compounds and short heads are joined, as before.
        ("some-", "thing", ["some thing"], "something"),
        ("read-", "able", ["read able"], "readable"),
        ("in-", "formation", ["in formation"], "information"),
    ],
)
def test_two_words_the_document_uses_alone_make_a_compound(
    left: str, right: str, words: list[str], joined: str
) -> None:
    assert join_wrapped(left, right, Vocabulary(words)) == joined


@pytest.mark.parametrize(
    ("left", "right", "joined"),
    [
        (
            "(https://CRAN.R-project.org/",
            "package=MASS)",
            "(https://CRAN.R-project.org/package=MASS)",
        ),
        (
            "<https://CRAN.R-",
            "project.org/package=MASS>",
            "<https://CRAN.R-project.org/package=MASS>",
        ),
        ("see /usr/share/doc/", "r-base/NEWS", "see /usr/share/doc/r-base/NEWS"),
        ("and/", "or more", "and/ or more"),
        # Cut straight after the scheme or the "www." that begins it.
        ("at https://", "github.com/acmart.", "at https://github.com/acmart."),
        ("see www.", "debian.org.", "see www.debian.org."),
        # A footnote whose number the text layer glues to the URL it holds.
        (
            "say 2https://example.org/README.md#",
            "styles",
            "say 2https://example.org/README.md#styles",
        ),
    ],
)
def test_urls_and_paths_cut_at_a_line_end_are_rejoined(left: str, right: str, joined: str) -> None:
    assert join_wrapped(left, right, Vocabulary(["project", "org"])) == joined


def test_a_hyphen_after_punctuation_is_judged_by_the_word_it_ends() -> None:
    vocabulary = Vocabulary(["a low-level tool", "the level"])
    assert join_wrapped("config::low-", "level DHCP client", vocabulary) == (
        "config::low-level DHCP client"
    )
    assert join_wrapped("(equip-", "ment)", Vocabulary(["equipment"])) == "(equipment)"
