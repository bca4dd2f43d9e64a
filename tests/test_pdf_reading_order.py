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
