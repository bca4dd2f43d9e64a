from __future__ import annotations

import hashlib
import json
import re
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.format_checks import check_document, kinds

from policy_assistant.errors import DocumentError
from policy_assistant.parse.text import parse_text
from policy_assistant.records import Document, DocumentMeta

SAMPLE = """Returns Policy
==============

Customers may return most items within 30 days
of purchase, with the receipt.

1. Scope of cover

Garden tools and furniture.

1.1 Exceptions

- Cut plants and seeds
- Sale items marked final,
  unless faulty
- Gift cards

Refunds
-------

1. Bring the item.
2. Show the receipt.

    indented line one
    indented line two
"""


def parse(text: str | bytes, source: str = "notes/returns.txt", **meta: str) -> Document:
    data = text.encode() if isinstance(text, str) else text
    return parse_text(data, source, DocumentMeta(**meta), hashlib.sha256(data).hexdigest())


def test_blocks_headings_and_lists_are_what_the_file_says() -> None:
    doc = parse(SAMPLE)
    assert kinds(doc) == [
        ("heading", "Returns Policy"),
        (
            "paragraph",
            "Customers may return most items within 30 days\nof purchase, with the receipt.",
        ),
        ("heading", "1. Scope of cover"),
        ("paragraph", "Garden tools and furniture."),
        ("heading", "1.1 Exceptions"),
        ("list_item", "Cut plants and seeds"),
        ("list_item", "Sale items marked final, unless faulty"),
        ("list_item", "Gift cards"),
        ("heading", "Refunds"),
        ("list_item", "1. Bring the item."),
        ("list_item", "2. Show the receipt."),
        ("paragraph", "indented line one\nindented line two"),
    ]
    headings = [(b.text, b.level, b.section) for b in doc.blocks if b.kind == "heading"]
    assert headings == [
        ("Returns Policy", 1, ("Returns Policy",)),
        ("1. Scope of cover", 1, ("1. Scope of cover",)),
        ("1.1 Exceptions", 2, ("1. Scope of cover", "1.1 Exceptions")),
        ("Refunds", 2, ("1. Scope of cover", "Refunds")),
    ]
    assert doc.title == "Returns Policy"
    assert doc.pages == () and all(b.pages == () for b in doc.blocks)
    check_document(doc)


def test_numbered_heading_keeps_its_number_and_takes_its_depth_as_level() -> None:
    doc = parse("2.3 Delivery times\n\nTwo days.\n")
    assert kinds(doc) == [("heading", "2.3 Delivery times"), ("paragraph", "Two days.")]
    assert doc.blocks[0].level == 2


def test_same_length_underline_is_a_heading() -> None:
    assert kinds(parse("Title\n=====\n")) == [("heading", "Title")]
    assert [b.level for b in parse("A\n=\n\nB\n-\n\nC\n~\n").blocks] == [1, 2, 3]


@pytest.mark.parametrize(
    "text",
    [
        "Title\n===\n",  # underline shorter than the title
        "Title\n=========\n",  # longer
        "Title\n==-==\n",  # mixed characters
        "Some text.\nTitle\n=====\n",  # not at the start of a paragraph
    ],
)
def test_other_underlines_are_not_headings(text: str) -> None:
    doc = parse(text)
    assert not [b for b in doc.blocks if b.kind == "heading"]
    assert "Title" in doc.text


@pytest.mark.parametrize(
    "text",
    [
        "1. The item is returned.\n",  # end punctuation
        "1. the item is returned\n",  # lower case
        "1. One two three four five six seven eight nine ten eleven twelve thirteen\n",
        "1. Apples\n\n2. Pears\n",  # a loose list
        "1. Intro\nmore text on the next line\n",  # not alone
        "2024 Annual report\n",  # a year, not a section number
    ],
)
def test_numbered_lines_that_may_not_be_headings_are_not(text: str) -> None:
    doc = parse(text)
    assert not [b for b in doc.blocks if b.kind == "heading"]


def test_title_is_catalog_else_leading_heading_else_file_name() -> None:
    assert parse(SAMPLE, title="From catalog").title == "From catalog"
    assert parse("Body first.\n\nLater\n=====\n").title == "returns"
    long = " ".join(["word"] * 25)
    assert parse(f"{long}\n{'=' * len(long)}\n\nBody.\n").title == "returns"


def test_rule_lines_are_dropped_with_a_record() -> None:
    doc = parse("One.\n\n----------\n\nTwo.\n")
    assert kinds(doc) == [("paragraph", "One."), ("paragraph", "Two.")]
    assert [(d.text, d.reason) for d in doc.dropped] == [("----------", "rule line")]


def test_bom_crlf_form_feed_and_control_characters() -> None:
    plain = parse(b"Title\n=====\n\nOne two.\n\nThree.\n")
    odd = parse(b"\xef\xbb\xbfTitle\r\n=====\r\n\r\nOne\x07 two.\x0c\x0cThree.\r\n")
    assert odd.text == plain.text
    assert odd.blocks == plain.blocks


def test_not_utf8_is_a_one_line_error_naming_the_file() -> None:
    with pytest.raises(DocumentError) as info:
        parse(b"caf\xe9\n", "notes/latin1.txt")
    assert str(info.value) == "notes/latin1.txt: not UTF-8 text (byte 0xe9 at offset 3)"


def test_empty_and_blank_files_give_no_blocks() -> None:
    for text in ("", "\n\n  \n\t\n"):
        doc = parse(text)
        assert doc.blocks == () and doc.text == ""
        assert doc.title == "returns"


def test_metadata_and_sha256_come_through() -> None:
    data = SAMPLE.encode()
    doc = parse(SAMPLE, version="3", access="public", language="fr")
    assert (doc.version, doc.access, doc.language) == ("3", "public", "fr")
    assert doc.sha256 == hashlib.sha256(data).hexdigest()
    assert doc.source == "notes/returns.txt"


def test_same_bytes_same_document() -> None:
    assert parse(SAMPLE).to_dict() == parse(SAMPLE).to_dict()


prose_word = st.text(st.characters(categories=("L", "N")), min_size=1, max_size=8)
prose_line = st.lists(prose_word, min_size=1, max_size=8).map(" ".join)
prose_paragraph = st.lists(prose_line, min_size=1, max_size=4).map("\n".join)


@settings(max_examples=80, deadline=None)
@given(st.lists(prose_paragraph, min_size=1, max_size=6), st.sampled_from(["\n\n", "\n \n\n"]))
def test_every_word_of_plain_prose_ends_up_in_a_block(paragraphs: list[str], gap: str) -> None:
    doc = parse(gap.join(paragraphs))
    assert doc.text.split() == gap.join(paragraphs).split()
    assert " ".join(b.text for b in doc.blocks).split() == doc.text.split()
    check_document(doc)


def test_indented_paragraphs_are_never_headings() -> None:
    doc = parse("Intro::\n\n    Example Title\n    =============\n\n    1. Example section\n")
    assert [b.kind for b in doc.blocks] == ["paragraph", "paragraph", "list_item"]
    assert doc.blocks[1].text == "Example Title\n============="


def test_overlined_title_and_style_order_levels() -> None:
    doc = parse("=======\n Guide\n=======\n\nPart\n----\n\nBit\n===\n\nPart two\n--------\n")
    assert [(b.text, b.level) for b in doc.blocks] == [
        ("Guide", 1),
        ("Part", 2),
        ("Bit", 3),
        ("Part two", 2),
    ]


FORMATS = Path(__file__).parent / "fixtures" / "formats"


def unmarked(title: str) -> str:
    """Drop reST inline markup (``code``, *em*, link_), which docutils renders away."""
    return re.sub(r"[`*]|_(?=\W|$)|\\", "", title)


def test_real_restructured_text_headings_match_docutils() -> None:
    # Docutils' FAQ (public domain); its headings as docutils itself reads them are the truth.
    data = (FORMATS / "docutils-faq.txt").read_bytes()
    doc = parse(data, "docutils-faq.txt")
    truth = [tuple(h) for h in json.loads((FORMATS / "docutils-faq.headings.json").read_text())]
    ours = [(unmarked(b.text), b.level) for b in doc.blocks if b.kind == "heading"]
    assert len(truth) == 46
    assert ours == truth

    # Nothing is lost but adornment lines and bullets: every other word is in the text.
    def words(text: str) -> list[str]:
        return [w for w in text.split() if not re.fullmatch(r"([=\-~^*+#•])\1*", w)]

    assert words(doc.text) == words(data.decode())
    check_document(doc)


@pytest.mark.parametrize("width", [40, 72, 132])
def test_wrapped_prose_stays_one_paragraph_however_long(width: int) -> None:
    words = " ".join(f"the orchard {i} was planted in rows along the river bank" for i in range(40))
    lines = textwrap.wrap(words, width)
    doc = parse("\n".join(lines))
    assert kinds(doc) == [("paragraph", "\n".join(lines))]


def test_a_chat_log_without_blank_lines_is_one_paragraph_of_its_lines() -> None:
    # Its units are pieces of whole lines and its parts runs of them (units.py): a line per
    # block would make each message a unit of its own, apart from the reply it answers.
    chat = [f"[09:{i:02d}] <ann> the mirror sync {i} failed again, disk full" for i in range(40)]
    doc = parse("\n".join(chat))
    assert kinds(doc) == [("paragraph", "\n".join(chat))]
