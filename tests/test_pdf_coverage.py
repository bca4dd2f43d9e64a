"""No silent loss: every word of a page's text layer is in a block or in Document.dropped."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from support.pdf_factory import (
    MARGIN,
    TABLE_HTML,
    draw_table,
    lines_pdf,
    only,
    parse,
    save,
    stamp,
    story_pdf,
)

from policy_assistant.parse.pdf.coverage import coverage, normalize
from policy_assistant.parse.pdf.reader import text_layer_words
from policy_assistant.parse.pdf.rules import Box
from policy_assistant.parse.pdf.tables import Word, table_from_grid
from policy_assistant.records import Document

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted((ROOT / "corpus").glob("**/*.pdf")) + sorted(
    (ROOT / "tests" / "fixtures" / "pdf").glob("*.pdf")
)
PROSE = "".join(
    f"<p>Paragraph {n} says the hedge trimmer needs its blade oiled after each use, "
    f"and the cable checked for cuts before it goes back on the hook.</p>"
    for n in range(6)
)


def assert_nothing_lost(data: bytes) -> Document:
    """Parse data and check that every word of its text layer is accounted for."""
    document = parse(data)
    found = coverage(document, text_layer_words(data))
    assert found.words > 0
    assert found.lost == ()
    assert found.missing_characters == 0
    return document


def test_normalize_keeps_letters_and_digits_only() -> None:
    assert normalize("Ex-\u00adcel, ﬁle: PW-2200!") == "excelfilepw2200"


def test_coverage_reports_a_word_that_is_gone() -> None:
    data = lines_pdf([[(MARGIN, 200, "The rake is kept in aisle nine")]])
    document = parse(data)
    found = coverage(document, [*text_layer_words(data), ["spade"]])
    assert found.lost == ((2, "spade"),)
    assert found.missing_characters == len("spade")


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_rotated_page_is_read_not_dropped(rotation: int) -> None:
    doc = pymupdf.open("pdf", story_pdf("<h1>Hedge trimmers</h1>" + PROSE))
    doc[0].set_rotation(rotation)
    document = assert_nothing_lost(save(doc))
    assert len(only(document, "paragraph")) == 6
    assert document.dropped == ()


def test_vertical_margin_stamp_is_recorded_as_dropped() -> None:
    doc = pymupdf.open("pdf", story_pdf(PROSE))
    doc[0].insert_text((20, 500), "DRAFT COPY NOT FOR SALE", fontsize=8, rotate=90)
    document = assert_nothing_lost(save(doc))
    assert [(d.reason, d.text) for d in document.dropped] == [
        ("vertical text", "DRAFT COPY NOT FOR SALE")
    ]
    assert "DRAFT" not in document.text


def test_paragraph_between_two_booktabs_tables_stays_a_paragraph() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    rows = [["Item", "Price", "Stock"], ["Hose", "12", "4"], ["Rake", "9", "7"]]
    end = draw_table(page, 80, rows, [120, 80, 80], style="booktabs")
    page.insert_text((MARGIN, end + 20), "This paragraph between the tables must survive.")
    page.insert_text((MARGIN, end + 34), "It has a second line that carries the thought on.")
    more = [["Tool", "Weight", "Colour"], ["Spade", "2 kg", "red"], ["Fork", "3 kg", "blue"]]
    draw_table(page, end + 50, more, [120, 80, 80], style="booktabs")
    document = assert_nothing_lost(save(doc))
    assert [b.kind for b in document.blocks] == ["table", "paragraph", "table"]
    assert document.blocks[1].text == (
        "This paragraph between the tables must survive. "
        "It has a second line that carries the thought on."
    )
    assert document.blocks[2].text.split("\n")[0] == "Tool | Weight | Colour"


def test_full_width_paragraph_between_two_narrow_booktabs_tables_is_kept_whole() -> None:
    # booktabs.pdf: the paragraph runs past both ends of the tables' rules, so it was not
    # seen as prose between them; the one area then cut its lines at the rules' ends.
    doc = pymupdf.open()
    page = doc.new_page()
    rows = [["Item", "Price", "Stock"], ["Hose", "12", "4"], ["Rake", "9", "7"]]
    end = draw_table(page, 80, rows, [90, 60, 60], left=200, style="booktabs")
    lines = [
        "Both tables are narrower than this paragraph, which is set at the full measure",
        "of the page and so runs past the rules on the left and on the right alike,",
        "as a paragraph between two small tables does in a typeset manual.",
    ]
    for number, line in enumerate(lines):
        page.insert_text((MARGIN, end + 20 + 14 * number), line, fontsize=10)
    more = [["Tool", "Weight", "Colour"], ["Spade", "2 kg", "red"], ["Fork", "3 kg", "blue"]]
    draw_table(page, end + 70, more, [90, 60, 60], left=200, style="booktabs")
    document = assert_nothing_lost(save(doc))
    assert [b.kind for b in document.blocks] == ["table", "paragraph", "table"]
    assert document.blocks[1].text == " ".join(lines)


def test_a_grid_that_lines_of_text_run_into_is_no_table() -> None:
    # lshort-ee-a5.pdf: a TikZ grid under a code listing; lines starting left of the grid
    # ended inside it, and the words before its edge were in neither table nor prose.
    doc = pymupdf.open()
    page = doc.new_page()
    left = 250.0
    for r in range(7):
        page.draw_line((left, 100 + 20 * r), (left + 240, 100 + 20 * r), width=0.4)
    for c in range(7):
        page.draw_line((left + 40 * c, 100), (left + 40 * c, 220), width=0.4)
    code = [
        "\\draw[step=.25cm,gray,very thin] grid",
        "\\filldraw[fill=green!20!white] arc",
        "\\draw (0,0) circle (1cm) node",
    ]
    for number, line in enumerate(code):
        page.insert_text((left - 70, 114 + 40 * number), line, fontname="cour", fontsize=10)
    document = assert_nothing_lost(save(doc))
    assert only(document, "table") == []


def test_words_cut_off_by_the_page_edge_are_not_on_the_page() -> None:
    # debian-reference.ja.pdf page 250: a table row runs off the bottom of the page; of
    # "findimagedupes" MuPDF's word list kept "fi di d" (their ink reaches onto the page),
    # its lines did not: 3 letters short, though no reader can see them.
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((MARGIN, 100), "A line well inside the page", fontsize=10)
    page.insert_text((MARGIN, page.rect.height + 6), "findimagedupes spills off", fontsize=10)
    page.set_rotation(90)  # words come unturned: the page's own space, not the shown one
    assert text_layer_words(save(doc)) == [["A", "line", "well", "inside", "the", "page"]]


def test_one_line_per_page_differing_by_a_number_is_kept() -> None:
    data = lines_pdf([[(MARGIN, 60, f"Item {n} of the spring range")] for n in range(1, 6)])
    document = assert_nothing_lost(data)
    assert [b.text for b in document.blocks] == [
        f"Item {n} of the spring range" for n in range(1, 6)
    ]


def test_running_lines_are_recorded_with_their_reasons() -> None:
    data = stamp(story_pdf(PROSE * 6), header="Hedge Trimmer Guide", footer="Page {n} of {m}")
    document = assert_nothing_lost(data)
    reasons = {(d.reason, d.text.split()[0]) for d in document.dropped}
    assert reasons == {("running head", "Hedge"), ("page number", "Page")}
    pages = len(document.pages)
    assert pages > 1
    assert len(document.dropped) == 2 * pages
    assert "Hedge Trimmer Guide" not in document.text


@pytest.mark.slow
def test_repeated_table_header_on_the_next_page_is_recorded() -> None:
    doc = pymupdf.open()
    header = ["Model", "Blade", "Weight"]
    for number in range(2):
        page = doc.new_page()
        body = [[f"HT-{number}{r}", f"{40 + r} cm", f"{3 + r} kg"] for r in range(30)]
        draw_table(page, 60, [header, *body], [120, 80, 80], open_top=number == 1)
    document = assert_nothing_lost(save(doc))
    [table] = only(document, "table")
    assert table.pages == (1, 2)
    assert [(d.reason, d.page, d.text) for d in document.dropped] == [
        ("repeated table header", 2, "Model | Blade | Weight")
    ]


def test_two_columns_and_a_ruled_table_lose_nothing() -> None:
    assert_nothing_lost(story_pdf("<h1>Care</h1>" + PROSE * 3, columns=2))
    assert_nothing_lost(story_pdf(TABLE_HTML))


@pytest.mark.slow
@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.name)
def test_every_bundled_pdf_loses_no_word(path: Path) -> None:
    assert_nothing_lost(path.read_bytes())


def test_the_bundled_pdfs_are_there() -> None:
    # The corpus PDFs are committed: an empty glob would make the test above vacuous.
    assert len([p for p in BUNDLED if "corpus" in p.parts]) == 15


def test_a_grid_that_leaves_words_of_its_area_out_is_no_table() -> None:
    grid: list[list[Box | None]] = [
        [(0, 0, 50, 20), (50, 0, 100, 20)],
        [(0, 20, 50, 40), (50, 20, 100, 40)],
    ]
    words: list[Word] = [
        (2, 2, 20, 18, "Item", 0, 0, 0),
        (52, 2, 70, 18, "Price", 0, 0, 1),
        (2, 22, 20, 38, "Hose", 0, 1, 0),
        (52, 22, 70, 38, "12", 0, 1, 1),
    ]
    table = table_from_grid(grid, words, (0, 0, 100, 40), 1, ruled=True)
    assert table is not None and table.rows == [["Item", "Price"], ["Hose", "12"]]
    # A label of a figure beside the grid, inside the area the finder was given.
    stray: Word = (120, 22, 150, 38, "pressure", 1, 0, 0)
    assert table_from_grid(grid, [*words, stray], (0, 0, 160, 40), 1, ruled=True) is None


def test_a_word_running_past_the_table_border_stays_whole() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    name = "package-name_upstream-version-debian.revision_architecture.deb"
    rows = [["Package type", "File name"], ["binary", name], ["source", "name.dsc"]]
    draw_table(page, 80, rows, [90, 150])
    data = save(doc)
    document = assert_nothing_lost(data)
    [table] = only(document, "table")
    assert table.text.split("\n")[1] == f"binary | {name}"
