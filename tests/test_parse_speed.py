"""The PDF parser's shortcuts on prose pages leave its output as it was.

Each shortcut skips work on pages that cannot need it (vector drawings on a page that
paints none, the vocabulary until a line-end hyphen asks, the slow text clean-up on
printable ASCII); these tests count the work skipped and check that the output is what
the full work gives.
"""

from __future__ import annotations

import re
from typing import Any

import pymupdf
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.pdf_factory import MARGIN, TABLE_HTML, draw_table, lines_pdf, parse, save, story_pdf

from policy_assistant.parse.pdf import bounds as pdf_bounds
from policy_assistant.parse.pdf import reader as pdf
from policy_assistant.parse.pdf.assemble import ends_sentence
from policy_assistant.parse.pdf.lines import clean_text
from policy_assistant.parse.pdf.words import Vocabulary

PROSE = [
    (MARGIN, 100 + 14 * i, f"Line {i} of a page of prose about the warranty of garden tools.")
    for i in range(20)
]


def _count_page_calls(monkeypatch: pytest.MonkeyPatch, method: str) -> list[int]:
    """Record the number of the page each call of a pymupdf.Page method is made on."""
    calls: list[int] = []
    real = getattr(pymupdf.Page, method)

    def counting(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(self.number)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pymupdf.Page, method, counting)
    return calls


def _count_drawing_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    return _count_page_calls(monkeypatch, "get_cdrawings")


def _with_and_without_shortcut(data: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """Assert that the parse is the same when every page's drawings are fetched."""
    shortcut = parse(data)
    with monkeypatch.context() as patch:
        patch.setattr(pdf_bounds, "_may_draw", lambda page, contents: True)
        full = parse(data)
    assert shortcut == full


def test_a_page_that_paints_nothing_skips_the_drawings(monkeypatch: pytest.MonkeyPatch) -> None:
    data = lines_pdf([PROSE, PROSE])
    calls = _count_drawing_calls(monkeypatch)
    parse(data)
    assert calls == []
    _with_and_without_shortcut(data, monkeypatch)


def test_a_page_with_a_table_fetches_its_drawings(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = pymupdf.open("pdf", lines_pdf([PROSE]))
    doc.insert_pdf(pymupdf.open("pdf", story_pdf(TABLE_HTML)))
    data = save(doc)
    calls = _count_drawing_calls(monkeypatch)
    document = parse(data)
    assert calls == [1]
    assert [b.kind for b in document.blocks].count("table") == 1
    _with_and_without_shortcut(data, monkeypatch)


def test_a_rule_at_the_very_start_of_the_contents_is_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = pymupdf.open("pdf", lines_pdf([PROSE]))
    page = doc[0]
    page.clean_contents()
    xref = page.get_contents()[0]
    # A rule drawn before anything else: "S" is the stream's first operator's token.
    rule = b"0 0 0 RG 1 w 56 60 m 540 60 l S\n"
    doc.update_stream(xref, rule + doc.xref_stream(xref))
    data = save(doc)
    calls = _count_drawing_calls(monkeypatch)
    parse(data)
    assert calls == [0]


def test_an_annotation_keeps_the_drawings_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = pymupdf.open("pdf", lines_pdf([PROSE]))
    doc[0].add_rect_annot(pymupdf.Rect(300, 500, 400, 600))
    data = save(doc)
    calls = _count_drawing_calls(monkeypatch)
    parse(data)
    assert calls == [0]


def test_ruled_tables_read_the_same_with_the_shortcut(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = pymupdf.open()
    for _ in range(2):
        page = doc.new_page()
        for i, (x, y, text) in enumerate(PROSE[:8]):
            page.insert_text((x, y), text, fontsize=10)
            if i == 3:
                rows = [["Zone", "Fee"], ["A", "$40"], ["B", "$80"]]
                draw_table(page, 300, rows, [120.0, 120.0])
    _with_and_without_shortcut(save(doc), monkeypatch)


_TERMINAL = re.compile(r"[.!?:;]['\"”’)\]]*$")
"""The expression ends_sentence stands for, searched over the whole text."""


@given(st.text(alphabet="ab .!?:;'\"”’)]\n", max_size=12))
def test_ends_sentence_is_the_terminal_expression(text: str) -> None:
    assert ends_sentence(text) == bool(_TERMINAL.search(text))


_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200a\u202f\u3000]+")


@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=40))
def test_printable_ascii_is_cleaned_as_the_general_path_cleans_it(text: str) -> None:
    assert clean_text(text, mono=False) == _SPACES.sub(" ", text).strip()


def test_clean_text_still_mends_what_is_not_printable_ascii() -> None:
    assert clean_text("of\ufb01ce  hours\x07 and\ttabs", mono=False) == "office hours and tabs"


def test_the_vocabulary_reads_lines_added_before_and_after_a_look_up() -> None:
    vocabulary = Vocabulary(["Export to Excel,", "(dual-encoder)"])
    assert "excel" in vocabulary and "dual-encoder" in vocabulary
    assert "redundancy" not in vocabulary
    vocabulary.add("Redundancy plans.")
    assert "Redundancy" in vocabulary
    assert 3 not in vocabulary


class _PlainPage:
    """A page without annotations whose one font is a Type 1 font."""

    def annot_xrefs(self) -> list[int]:
        return []

    def get_fonts(self) -> list[tuple[object, ...]]:
        return [(5, "n/a", "Type1", "Helvetica", "F1", "WinAnsiEncoding")]


@pytest.mark.parametrize(
    ("contents", "may_draw"),
    [
        (b"BT /F1 9 Tf 56 700 Td (Stop.) Tj ET", False),
        (b"0 0 0 scn BT /F1 9 Tf (f) Tj [(S)-250(b\\)f)] TJ ET", False),
        # Nested brackets are left in part: at worst a page is taken to draw, never missed.
        (b"BT (S(x)S) Tj ET", True),
        (b"BT /F1 9 Tf (x) Tj ET 56 60 m 540 60 l S", True),
        (b"56 60 484 1 re f*", True),
        (b"/Im0 Do", True),
        (b"/Sh0 sh", True),
        (b"/Pattern cs /P0 scn BT /F1 9 Tf (x) Tj ET", True),
    ],
)
def test_what_a_content_stream_may_draw(contents: bytes, may_draw: bool) -> None:
    assert pdf_bounds._may_draw(_PlainPage(), contents) is may_draw


def test_a_type3_font_may_draw() -> None:
    class Type3Page(_PlainPage):
        def get_fonts(self) -> list[tuple[object, ...]]:
            return [(7, "n/a", "Type3", "T3", "F2", "")]

    assert pdf_bounds._may_draw(Type3Page(), b"BT /F2 9 Tf (x) Tj ET") is True


def test_a_table_page_reads_its_words_from_the_text_page_of_its_dict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    doc = pymupdf.open("pdf", lines_pdf([PROSE]))
    draw_table(doc[0], 400, [["Zone", "Fee"], ["A", "$40"], ["B", "$80"]], [120.0, 120.0])
    data = save(doc)
    made = _count_page_calls(monkeypatch, "get_textpage")
    shortcut = parse(data)
    assert made == [0]
    assert [b.kind for b in shortcut.blocks].count("table") == 1

    class FreshWords(pdf.PageWords):
        def __init__(self, page: Any, textpage: Any) -> None:
            super().__init__(page, None)

    with monkeypatch.context() as patch:
        patch.setattr(pdf, "PageWords", FreshWords)
        assert parse(data) == shortcut
    assert made == [0, 0, 0]
