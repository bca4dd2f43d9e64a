"""Where text is on a PDF page: boxes per page, unioned and rounded out to 0.1 pt."""

from __future__ import annotations

import math
from collections.abc import Iterable

from policy_assistant.records import PageBox


def page_boxes(areas: Iterable[PageBox]) -> tuple[PageBox, ...]:
    """Return one box a page covering the areas, in page order, rounded out to 0.1 pt."""
    union: dict[int, list[float]] = {}
    for page, x0, y0, x1, y1 in areas:
        box = union.get(page)
        if box is None:
            union[page] = [x0, y0, x1, y1]
        else:
            box[:] = [min(box[0], x0), min(box[1], y0), max(box[2], x1), max(box[3], y1)]
    # Rounded outwards, so the box still holds every word it was made of.
    return tuple(
        (page, _down(b[0]), _down(b[1]), _up(b[2]), _up(b[3])) for page, b in sorted(union.items())
    )


def on_pages(boxes: Iterable[PageBox], pages: tuple[int, ...]) -> tuple[PageBox, ...]:
    """Return the union per page of the boxes that lie on the given pages."""
    wanted = set(pages)
    return page_boxes(box for box in boxes if box[0] in wanted)


def _down(value: float) -> float:
    """Round down to 0.1, a hair's tolerance kept so 12.3 stays 12.3 and not 12.2."""
    return math.floor(round(value * 10, 6)) / 10


def _up(value: float) -> float:
    """Round up to 0.1, a hair's tolerance kept so 12.3 stays 12.3 and not 12.4."""
    return math.ceil(round(value * 10, 6)) / 10
