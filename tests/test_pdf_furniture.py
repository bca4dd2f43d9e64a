"""Page furniture: odd/even running heads, page numbers and margin line numbers."""

from __future__ import annotations

import pymupdf
from pdf_factory import A4, MARGIN, lines_pdf, parse, save, story_pdf

from policy_assistant.parse.pdf import text_layer_words
from policy_assistant.parse.pdf_coverage import coverage

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
