"""Page furniture: odd/even running heads, page numbers and margin line numbers."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from support.pdf_factory import A4, MARGIN, lines_pdf, parse, save, story_pdf

from policy_assistant.parse.pdf.coverage import coverage
from policy_assistant.parse.pdf.reader import text_layer_words

ROOT = Path(__file__).resolve().parent.parent
PROSE = 3 * "".join(
    f"<p>Paragraph {n} says the hedge trimmer needs its blade oiled after each use, "
    f"and the cable checked for cuts before it goes back on the hook.</p>"
    for n in range(40)
)


def test_odd_and_even_running_heads_and_page_numbers_are_dropped() -> None:
    doc = pymupdf.open("pdf", story_pdf(PROSE))
    for index, page in enumerate(doc):
        odd = index % 2 == 0
        head = "The Garden Handbook" if odd else "Chapter 2. Hedges"
        page.insert_text((MARGIN if odd else A4.width - 140, 36), head, fontsize=8)
        page.insert_text((A4.width / 2, A4.height - 30), str(index + 11), fontsize=9)
    data = save(doc)
    document = parse(data)
    assert coverage(document, text_layer_words(data)).lost == ()
    pages = len(document.pages)
    assert pages >= 6
    expected = []
    for number in range(1, pages + 1):
        head = "The Garden Handbook" if number % 2 else "Chapter 2. Hedges"
        expected += [("running head", number, head), ("page number", number, str(number + 10))]
    assert [(d.reason, d.page, d.text) for d in document.dropped] == expected
    assert "Handbook" not in document.text and "Hedges" not in document.text


def transcript(step: int, numbered_every: int = 1) -> bytes:
    """Three pages of 25 lines, numbered in the left margin every numbered_every lines."""
    pages = []
    for page in range(3):
        items = []
        for n in range(1, 26):
            y = 100 + n * 24
            if n % numbered_every == 0:
                items.append((40, y, str(n * step // numbered_every)))
            items.append((80, y, f"Q. What did you see on the morning of day {n + page}, sir?"))
        pages.append(items)
    return lines_pdf(pages)


def test_margin_line_numbers_are_dropped_from_the_lines() -> None:
    data = transcript(1)
    document = parse(data)
    assert coverage(document, text_layer_words(data)).lost == ()
    assert document.blocks[0].text == "Q. What did you see on the morning of day 1, sir?"
    numbers = [d for d in document.dropped if d.reason == "line number"]
    assert [d.text for d in numbers if d.page == 1] == [str(n) for n in range(1, 26)]
    assert len(numbers) == 75


def test_every_fifth_line_numbered_is_found_too() -> None:
    document = parse(transcript(5, numbered_every=5))
    numbers = [d.text for d in document.dropped if d.reason == "line number" and d.page == 1]
    assert numbers == ["5", "10", "15", "20", "25"]
    assert all(not b.text[0].isdigit() for b in document.blocks)


def test_numbers_level_with_body_text_are_not_line_numbers() -> None:
    # Steps and years at the body's left edge: other lines start there as well.
    items = [(MARGIN, 100, "The spring range arrives in stages over the season.")]
    items += [(MARGIN, 120 + 16 * n, f"{2020 + n} brought a new mower model.") for n in range(6)]
    document = parse(lines_pdf([items]))
    assert not [d for d in document.dropped if d.reason == "line number"]
    assert "2020 brought a new mower model." in document.text


def test_back_of_book_index_page_is_dropped_with_a_record() -> None:
    body = [
        [(MARGIN, 100 + 16 * n, f"Chapter text line {n} about pruning roses.")] for n in range(3)
    ]
    terms = ["aphids", "black spot", "climbers", "deadheading", "feeding", "frost", "mulch"]
    entries = [(MARGIN, 80, "Index")]
    for n in range(16):
        term = f"{terms[n % len(terms)]} {n}"
        pages = f"{3 + n}, {12 + n}" if n % 2 else f"{5 + n}"
        entries.append((MARGIN, 110 + 16 * n, f"{term}, {pages}"))
    data = lines_pdf([*body, entries])
    document = parse(data)
    assert coverage(document, text_layer_words(data)).lost == ()
    index = [d for d in document.dropped if d.reason == "index page"]
    assert len(index) == 17 and {d.page for d in index} == {4}
    assert "aphids" not in document.text
    assert "Chapter text line 2 about pruning roses." in document.text


def test_a_list_of_sizes_is_no_index_page() -> None:
    rows = [(MARGIN, 100 + 16 * n, f"Terracotta pot size {n}, 12") for n in range(16)]
    document = parse(lines_pdf([[(MARGIN, 80, "Pots")], [(MARGIN, 80, "Sizes"), *rows]]))
    assert not [d for d in document.dropped if d.reason == "index page"]
    assert "Terracotta pot size 15, 12" in document.text


@pytest.mark.slow
def test_texinfo_index_with_leaders_is_recorded_as_an_index() -> None:
    data = (ROOT / "tests" / "fixtures" / "pdf" / "libtasn1.pdf").read_bytes()
    document = parse(data)
    index_pages = {d.page for d in document.dropped if d.reason == "index page"}
    assert index_pages == {35, 36}
    assert coverage(document, text_layer_words(data)).lost == ()


def test_page_numbers_set_outside_the_margin_band_are_dropped() -> None:
    # Printed numbers at 80% of the page height: above the bottom band, below the body.
    pages = [
        [
            (MARGIN, 100, f"Report page {n} discusses the sales of hoses and reels."),
            (MARGIN, 114, "Every branch reported its figures in time for the audit."),
            (A4.width / 2, 0.8 * A4.height, str(n + 16)),
        ]
        for n in range(1, 6)
    ]
    data = lines_pdf(pages)
    document = parse(data)
    assert coverage(document, text_layer_words(data)).lost == ()
    numbers = [(d.page, d.text) for d in document.dropped if d.reason == "page number"]
    assert numbers == [(n, str(n + 16)) for n in range(1, 6)]


def test_numbers_that_do_not_count_pages_are_kept() -> None:
    pages = [
        [
            (MARGIN, 100, "Hoses sold in the branch this week, counted at close:"),
            (MARGIN, 0.8 * A4.height, str(count)),
        ]
        for count in (14, 9, 30, 7)
    ]
    document = parse(lines_pdf(pages))
    assert not [d for d in document.dropped if d.reason == "page number"]
    assert [b.text for b in document.blocks].count("30") == 1


def _body(page: int, count: int, top: float = 120) -> list[tuple[float, float, str]]:
    """Lines of prose, 14 points apart, that differ from page to page."""
    return [
        (MARGIN, top + 14 * n, f"Line {n} of page {page} says the shed {page * 7 + n} is locked.")
        for n in range(count)
    ]


def test_a_single_page_s_last_lines_in_small_type_are_kept() -> None:
    # An OCR'd book page: its last body lines, read a little smaller, reach the bottom band.
    last = ["so the gardener left the gate", "open for the night, and the", "fox came in."]
    lines = _body(1, 40, top=100) + [
        (MARGIN, A4.height - 60 + 12 * i, t) for i, t in enumerate(last)
    ]
    doc = pymupdf.open()
    page = doc.new_page(width=A4.width, height=A4.height)
    for x, y, text in lines:
        small = y > A4.height - 70
        page.insert_text((x, y), text, fontname="helv", fontsize=9 if small else 11)
    page.insert_text((A4.width / 2, A4.height - 20), "1", fontname="helv", fontsize=9)
    document = parse(save(doc))
    assert "the fox came in." in document.text
    assert [(d.reason, d.text) for d in document.dropped] == [("page number", "1")]


def test_closing_braces_at_the_top_of_code_pages_are_no_running_heads() -> None:
    pages = []
    for number in range(1, 4):
        code = [(MARGIN, 30 + 12 * i, "}") for i in range(3)]
        pages.append(code + _body(number, 20))
    document = parse(lines_pdf(pages))
    assert document.dropped == ()
    assert document.text.count("}") == 9


def test_running_heads_below_the_margin_band_and_a_repeated_link_are_dropped() -> None:
    # A journal paper's heads, in small type, sit at 12% of the page: author on even
    # pages, title on odd ones; a navigation link repeats at one place on every page.
    doc = pymupdf.open("pdf", lines_pdf([_body(number, 30, top=140) for number in range(1, 7)]))
    for index, page in enumerate(doc):
        head = "J. Aligon et al." if index % 2 else "Ranking query answers by votes"
        page.insert_text((MARGIN, 0.12 * A4.height), head, fontsize=8)
        page.insert_text((A4.width - 120, 400), "Online Help", fontsize=8)
    document = parse(save(doc))
    assert "Aligon" not in document.text and "Ranking" not in document.text
    assert "Online Help" not in document.text
    reasons = {(d.reason, d.text) for d in document.dropped}
    assert ("running head", "J. Aligon et al.") in reasons
    assert ("running head", "Online Help") in reasons


def _prose(count: int, top: float) -> list[tuple[float, float, str]]:
    """Lines of prose about importing files, 14 points apart."""
    return [
        (MARGIN, top + 14 * n, f"Step {n}: read the file with the import tool and check it.")
        for n in range(count)
    ]


def test_an_index_in_two_columns_with_page_lists_is_dropped() -> None:
    # A Texinfo index (R's manuals): a letter head over every few entries, leaders, page
    # lists, two columns.
    body = [_prose(40, 100) for _ in range(3)]
    terms = ["awk", "binary files", "csv files", "dBase", "Excel", "file names", "gzip"]
    index = [(MARGIN, 80, "Concept index")]
    y = 110.0
    for n, term in enumerate(terms):
        letter = term[0].upper()
        index += [(MARGIN, y, letter), (300, y, chr(ord(letter) + 7))]
        index.append((MARGIN, y + 16, f"{term} " + ". " * 12 + f"{5 + n}, {20 + n}"))
        index.append((300, y + 16, f"{term} two " + ". " * 12 + f"{7 + n}"))
        y += 40
    data = lines_pdf([*body, index])
    document = parse(data)
    assert coverage(document, text_layer_words(data)).lost == ()
    assert "binary files" not in document.text and "gzip two" not in document.text
    assert {d.page for d in document.dropped if d.reason == "index page"} == {4}


def test_contents_and_index_sharing_a_page_with_prose_are_dropped() -> None:
    entries = [
        (f"{n} {title}", 3 + 4 * n)
        for n, title in enumerate(["Imports", "Exports", "Spreadsheets", "Databases", "Sockets"])
    ]
    first = [(MARGIN, 80, "Data import and export"), *_prose(24, 110), (MARGIN, 460, "Contents")]
    first += [
        (MARGIN, 490 + 16 * n, f"{t} " + ". " * 30 + f"{p}") for n, (t, p) in enumerate(entries)
    ]
    terms = ["binary files", "connections", "csv files", "databases", "dBase", "Excel", "Minitab"]
    last = [*_prose(20, 100), (MARGIN, 400, "Index")]
    last += [(MARGIN, 430 + 16 * n, f"{t}, {4 + n}, {9 + 2 * n}") for n, t in enumerate(terms)]
    data = lines_pdf([first, _prose(40, 100), _prose(40, 100), last])
    document = parse(data)
    assert coverage(document, text_layer_words(data)).lost == ()
    reasons = {(d.reason, d.page) for d in document.dropped}
    assert reasons == {("contents page", 1), ("index page", 4)}
    assert "Spreadsheets" not in document.text and "Minitab" not in document.text
    assert "Step 23: read the file with the import tool and check it." in document.text
    assert document.text.count("Step 19:") == 4


def test_a_contents_list_going_on_below_a_float_on_the_next_page_is_dropped() -> None:
    # LaTeX may set a float at the top of the page where the contents list goes on; the
    # list's tail has no title of its own there, and prose follows it.
    titles = ["Variants", "Modifiers", "Hyphenation", "Shorthands", "Captions", "Dates"]
    head = [(MARGIN, 80, "Babel support for Latin"), *_prose(6, 110), (MARGIN, 220, "Contents")]
    head += [
        (MARGIN, 250 + 16 * n, f"{n + 1} {t} " + ". " * 30 + f"{2 + n}")
        for n, t in enumerate(titles + titles)
    ]
    tail = [(MARGIN, 80 + 14 * n, f"latin classiclatin medievallatin row {n}") for n in range(5)]
    tail.append((MARGIN, 160, "Table 1: Spelling differences between the variants"))
    tail += [
        (MARGIN, 190 + 16 * n, f"7.{n + 1} Implementation part {n} " + ". " * 26 + f"{10 + n}")
        for n in range(4)
    ]
    tail += _prose(25, 270)
    data = lines_pdf([head, tail, _prose(40, 100)])
    document = parse(data)
    assert coverage(document, text_layer_words(data)).lost == ()
    assert "Implementation part" not in document.text
    assert {d.page for d in document.dropped if d.reason == "contents page"} == {1, 2}
    assert "Table 1: Spelling differences" in document.text
    assert document.text.count("Step 24:") == 2


def test_a_contents_list_in_two_columns_on_shared_baselines_is_dropped() -> None:
    # The contents of a documented LaTeX package: two columns whose lines share baselines,
    # so a left entry and its page number sit in one row with a right title's first line.
    page = [(MARGIN, 80, "The syntax package"), (MARGIN, 120, "Contents")]
    for n in range(12):
        y = 150 + 24 * n
        page += [(MARGIN, y, f"{n + 1} Guide part {n}"), (220, y, str(2 + n))]
        page += [(300, y, f"3.7.{n + 1} Wrapped title of")]
        page += [(300, y + 12, "part " + ". " * 12), (480, y + 12, str(20 + n))]
    data = lines_pdf([page, *[_prose(40, 100) for _ in range(3)]])
    document = parse(data)
    assert coverage(document, text_layer_words(data)).lost == ()
    assert "Guide part" not in document.text
    assert {d.page for d in document.dropped if d.reason == "contents page"} == {1}
    assert document.text.count("Step 19:") == 3


def _doc_index_column(x: float, top: float, first: int) -> list[tuple[float, float, str]]:
    """One narrow column of a LaTeX doc-style index: the command alone on its line, its
    leaders and code-line numbers wrapped onto indented lines under it."""
    names = ["@mkauthors", "@vspace", "acmBooktitle", "ACM@linecount", "captionsetup", "city"]
    items: list[tuple[float, float, str]] = []
    y = top
    for n in range(first, first + 12):
        name = f"\\{names[n % len(names)]}{n}"
        items.append((x, y, name))
        if n % 3 == 0:  # a long list of numbers wraps over two lines
            items.append((x + 30, y + 11, ". " * 4 + f"{440 + n}, {2178 + n},"))
            items.append((x + 30, y + 22, f"{2300 + n}, {2457 + n}, {2474 + n}"))
            y += 34
        else:
            items.append((x + 30, y + 11, ". " * 14 + f"{860 + 7 * n}"))
            y += 23
    return items


def test_a_two_column_doc_index_is_dropped() -> None:
    # The index at the end of a documented LaTeX class (acmart, revtex): two narrow
    # columns per page, each entry's leaders and numbers on the lines under its term.
    body = [_prose(40, 100) for _ in range(4)]
    first = [(MARGIN, 80, "Index"), (MARGIN, 100, "Numbers in italic refer to the page.")]
    first += _doc_index_column(MARGIN, 130, 0) + _doc_index_column(300, 130, 12)
    second = _doc_index_column(MARGIN, 80, 24) + _doc_index_column(300, 80, 36)
    data = lines_pdf([*body, first, second], fontsize=9)
    document = parse(data)
    assert coverage(document, text_layer_words(data)).lost == ()
    assert "@vspace" not in document.text and "2474" not in document.text
    pages = {d.page for d in document.dropped if d.reason == "index page"}
    assert pages == {5, 6}
    assert not [d for d in document.dropped if d.reason == "contents page"]
    assert document.text.count("Step 19:") == 4
