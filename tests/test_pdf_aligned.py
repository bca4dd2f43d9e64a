"""Tables set with whitespace (no rules): found from aligned text, and prose left alone."""

from __future__ import annotations

import pymupdf
from support.pdf_factory import MARGIN, kinds, lines_pdf, only, parse, save, story_pdf

from policy_assistant.chunk import make_chunker
from policy_assistant.parse.pdf.aligned import looks_like_table
from policy_assistant.parse.pdf.coverage import coverage
from policy_assistant.parse.pdf.reader import text_layer_words

STATEMENT = [
    ("", "2024", "2023"),
    ("", "$000", "$000"),
    ("Revenue", "12,345", "11,002"),
    ("Cost of sales", "(7,210)", "(6,900)"),
    ("Gross profit", "5,135", "4,102"),
    ("Staff costs", "(2,001)", "(1,950)"),
    ("Depreciation", "(310)", "(295)"),
    ("Net profit for the year", "2,824", "1,857"),
]
"""An income statement as annual reports set it: years, then units, then the lines."""


def statement_page(
    rows: list[tuple[str, str, str]] = STATEMENT, *, top: float = 130, rule: bool = False
) -> list[tuple[float, float, str]]:
    """Place rows with the label at the margin and right-aligned figures in two columns."""
    items = [(MARGIN, 90.0, "The statement below gives the results of the year.")]
    for index, (label, *figures) in enumerate(rows):
        y = top + 14 * index
        if label:
            items.append((MARGIN, y, label))
        for column, figure in enumerate(figures):
            width = pymupdf.get_text_length(figure, fontname="helv", fontsize=10)
            items.append((400 + 80 * column - width, y, figure))
    items.append((MARGIN, top + 14 * len(rows) + 30, "The figures are audited."))
    return items


def test_a_statement_set_with_spaces_is_one_table_with_its_header() -> None:
    document = parse(lines_pdf([statement_page()], fontsize=10))
    (table,) = only(document, "table")
    assert table.text.split("\n") == [
        "| 2024 $000 | 2023 $000",
        "Revenue | 12,345 | 11,002",
        "Cost of sales | (7,210) | (6,900)",
        "Gross profit | 5,135 | 4,102",
        "Staff costs | (2,001) | (1,950)",
        "Depreciation | (310) | (295)",
        "Net profit for the year | 2,824 | 1,857",
    ]
    assert kinds(document)[0] == ("paragraph", "The statement below gives the results of the year.")
    assert kinds(document)[-1] == ("paragraph", "The figures are audited.")


def test_the_aligned_table_loses_no_word() -> None:
    data = lines_pdf([statement_page()], fontsize=10)
    found = coverage(parse(data), text_layer_words(data))
    assert found.lost == ()
    assert found.missing_characters == 0


def test_a_split_statement_repeats_years_and_units_in_every_piece() -> None:
    rows = STATEMENT[:2] + [
        (f"Cost line {n}", f"{n},1{n % 10}0", f"{n},0{n % 10}5") for n in range(40)
    ]
    document = parse(lines_pdf([statement_page(rows, top=120)], fontsize=10))
    (table,) = only(document, "table")
    assert table.text.startswith("| 2024 $000 | 2023 $000\n")
    chunks = make_chunker("structure", max_words=60, max_table_words=80).chunk(document)
    pieces = [c for c in chunks if "Cost line" in c.text]
    assert len(pieces) >= 3
    assert all("2024 $000 | 2023 $000" in piece.text for piece in pieces)


def test_two_columns_of_prose_are_no_table() -> None:
    prose = "".join(
        f"<p>In {2000 + n} the shop sold {n * 120} mowers and {n * 35} trimmers, and the "
        f"garden centre opened its {n}th branch in the spring of that year.</p>"
        for n in range(1, 30)
    )
    document = parse(story_pdf(prose, columns=2))
    assert only(document, "table") == []


def test_a_definition_list_and_a_contents_page_are_no_table() -> None:
    terms = [(MARGIN, 100 + 16 * n, f"option-{n}") for n in range(8)]
    terms += [(200, 100 + 16 * n, f"Sets the {n}th thing the tool does.") for n in range(8)]
    contents = [(MARGIN, 100 + 16 * n, f"{n + 1} Chapter . . . . . . . . . . .") for n in range(8)]
    contents += [(500, 100 + 16 * n, str(3 + 9 * n)) for n in range(8)]
    document = parse(lines_pdf([terms, contents]))
    assert only(document, "table") == []


def test_prose_with_line_numbers_in_the_margin_is_no_table() -> None:
    sentence = "the blade guard must be fitted before the mower is started"
    items = [(MARGIN, 100 + 14 * n, f"Line {n} says {sentence}.") for n in range(12)]
    items += [(540, 100 + 14 * n, str(n + 1)) for n in range(12)]
    assert only(parse(lines_pdf([items], fontsize=9)), "table") == []


def test_figures_in_a_code_listing_are_no_table() -> None:
    items = [(MARGIN, 100 + 12 * n, f"size {n}") for n in range(6)]
    items += [(300, 100 + 12 * n, f"{n * 1024}") for n in range(6)]
    items += [(400, 100 + 12 * n, f"{n * 7}") for n in range(6)]
    document = parse(lines_pdf([items], fontname="cour"))
    assert only(document, "table") == []


def test_a_ruled_table_is_still_found_by_its_rules() -> None:
    doc = pymupdf.open("pdf", lines_pdf([statement_page()], fontsize=10))
    page = doc[0]
    for y in (118, 134, 248):
        page.draw_line((MARGIN, y), (500, y), width=0.5)
    document = parse(save(doc))
    (table,) = only(document, "table")
    assert "Revenue | 12,345 | 11,002" in table.text


def test_looks_like_table_wants_figures_and_short_cells() -> None:
    figures = [["Fees", "12", "14"], ["Rent", "30", "31"], ["Rates", "9", "8"]]
    assert looks_like_table(figures)
    words = [["Fees", "paid", "late"], ["Rent", "paid", "early"], ["Rates", "due", "soon"]]
    assert not looks_like_table(words)
    dashes = [["a ::=", "-", "-"], ["b ::=", "-", "-"], ["c ::=", "-", "-"]]
    assert not looks_like_table(dashes)
    counted = [["one long line of prose text that goes on", "7"]] * 2
    assert not looks_like_table([*counted, ["more prose on this line of text here", "9"]])


def test_a_contents_list_without_leaders_is_no_table() -> None:
    titles = ["Introduction", "Usage", "Package options", "User commands", "Known problems"]
    items = [(MARGIN, 100 + 16 * n, str(n + 1)) for n in range(5)]
    items += [(MARGIN + 20, 100 + 16 * n, title) for n, title in enumerate(titles)]
    items += [(500, 100 + 16 * n, str(2 + 3 * n)) for n in range(5)]
    assert only(parse(lines_pdf([items])), "table") == []
    pages = [["1", "Introduction", "2"], ["2", "Usage", "5"], ["3", "Options", "9"]]
    assert not looks_like_table(pages)


def test_a_running_head_with_its_page_number_does_not_start_a_table() -> None:
    head = [(MARGIN, 100, "Colour guide v2.14"), (500, 100, "49")]
    formulas = [(150, 125 + 14 * n, f"x{n} := max(r, g)") for n in range(4)]
    numbers = [(480, 125 + 14 * n, f"({30 + n})") for n in range(4)]
    assert only(parse(lines_pdf([head + formulas + numbers])), "table") == []
