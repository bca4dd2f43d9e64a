"""Reading order: columns split from line positions, full-width blocks in place, footnotes last."""

from __future__ import annotations

import pymupdf
from support.pdf_factory import MARGIN, lines_pdf, parse


def words(text: str) -> list[str]:
    return text.split()


LEFT = words(
    "The left column begins here and it tells of mowers and their blades and how to "
    "keep them sharp through the long summer months when grass grows fast"
)
RIGHT = words(
    "The right column speaks of hoses and sprinklers and the way water pressure falls "
    "when too many taps run at once in the evening heat of July."
)


CLOSING = "A closing full width paragraph that runs across both of the columns of the page ends."


def wrapped(words: list[str], per_line: int = 5) -> list[str]:
    return [" ".join(words[i : i + per_line]) for i in range(0, len(words), per_line)]


def two_columns(top: float = 110, gutter_x: float = 310) -> list[tuple[float, float, str]]:
    """Two columns on shared baselines with a narrow gutter: MuPDF makes them one block."""
    items = []
    y = top
    for left, right in zip(wrapped(LEFT), wrapped(RIGHT), strict=True):
        items += [(MARGIN, y, left), (gutter_x, y, right)]
        y += 14
    return items


def test_columns_in_one_mupdf_block_are_read_one_after_the_other() -> None:
    items = [(MARGIN, 80, "Full Width Title Across The Page")]
    items += two_columns()
    items.append((MARGIN, 240, CLOSING))
    document = parse(lines_pdf([items], fontsize=10))
    assert [b.text for b in document.blocks] == [
        "Full Width Title Across The Page",
        " ".join(LEFT),
        " ".join(RIGHT),
        CLOSING,
    ]


def test_a_footnote_at_the_foot_of_a_column_goes_after_the_page_body() -> None:
    left = words("The blade guard must stay on while the mower runs at full speed,1 and the")
    right = words("engine must be stopped before anyone reaches under the deck to clear it.")
    items: list[tuple[float, float, str]] = []
    y = 500.0
    for line in wrapped(left):
        items.append((MARGIN, y, line))
        y += 14
    y = 500.0
    for line in wrapped(right):
        items.append((310, y, line))
        y += 14
    data = lines_pdf([items], fontsize=10)
    doc = pymupdf.open("pdf", data)
    doc[0].insert_text((MARGIN, 760), "1 Guards are sold as part number 21-0700.", fontsize=7)
    data = doc.tobytes()
    document = parse(data)
    assert [b.text for b in document.blocks] == [
        " ".join(left + right),
        "1 Guards are sold as part number 21-0700.",
    ]


def paragraphs(text: str, count: int, per_line: int = 4) -> list[list[str]]:
    """Return count paragraphs of wrapped lines, each numbered so its place shows."""
    return [wrapped(words(f"{text} {n} " + LOREM), per_line) for n in range(1, count + 1)]


LOREM = "ends here with a few more words set to fill the column lines."


def column_items(
    lefts: list[float], top: float, count: int = 2, per_line: int = 7
) -> tuple[list[tuple[float, float, str]], list[str], float]:
    """Set count paragraphs in each column at lefts from top; return items, texts, bottom."""
    items: list[tuple[float, float, str]] = []
    texts: list[str] = []
    bottom = top
    for number, x in enumerate(lefts, start=1):
        y = top
        for paragraph in paragraphs(f"Column {number} paragraph", count, per_line):
            texts.append(" ".join(paragraph))
            for line in paragraph:
                items.append((x, y, line))
                y += 12
            y += 18  # the space between paragraphs parts MuPDF's blocks
        bottom = max(bottom, y)
    return items, texts, bottom


def test_two_columns_under_a_centred_title_are_read_one_after_the_other() -> None:
    items = [(230, 110, "A Short Centred Title")]
    body, texts, _ = column_items([MARGIN, 310], 150)
    document = parse(lines_pdf([items + body], fontsize=10))
    assert [b.text for b in document.blocks] == ["A Short Centred Title", *texts]


def test_three_columns_under_a_title_across_two_of_them_are_read_column_by_column() -> None:
    items = [(MARGIN, 110, "A Title Set Across The First Two Of Three Columns")]
    body, texts, _ = column_items([MARGIN, 230, 404], 150, per_line=5)
    document = parse(lines_pdf([items + body], fontsize=9))
    assert [b.text for b in document.blocks] == [items[0][2], *texts]


def test_a_figure_between_two_column_regions_keeps_its_place() -> None:
    above, above_texts, bottom = column_items([MARGIN, 310], 110)
    caption_y = bottom + 150
    below, below_texts, _ = column_items([MARGIN, 310], caption_y + 40)
    caption = "Figure 1: The mower deck"
    data = lines_pdf([[*above, (250, caption_y, caption), *below]], fontsize=10)
    doc = pymupdf.open("pdf", data)
    doc[0].draw_rect(pymupdf.Rect(MARGIN, bottom + 10, 540, caption_y - 20), fill=(0.5, 0.5, 0.5))
    document = parse(doc.tobytes())
    assert [b.text for b in document.blocks] == [*above_texts, caption, *below_texts]


def test_a_full_width_abstract_between_two_column_regions_keeps_its_place() -> None:
    above, above_texts, bottom = column_items([MARGIN, 310], 110, count=1)
    abstract = "Abstract"
    # Set in a narrow measure across the gutter: narrower than the wide blocks that split
    # bands today, yet neither column's.
    lines = wrapped(words(CLOSING + " " + CLOSING), 10)
    items = [*above, (275, bottom + 10, abstract)]
    y = bottom + 30
    for line in lines:
        items.append((170, y, line))
        y += 12
    below, below_texts, _ = column_items([MARGIN, 310], y + 20, count=1)
    document = parse(lines_pdf([[*items, *below]], fontsize=10))
    assert [b.text for b in document.blocks] == [
        *above_texts,
        abstract,
        " ".join(lines),
        *below_texts,
    ]
