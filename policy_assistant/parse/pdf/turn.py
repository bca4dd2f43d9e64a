"""Text set turned on the sheet, read as a viewer shows it: a text dict turned by /Rotate.

Landscape slides are often drawn turned on a portrait sheet that /Rotate turns back, so in
the sheet's own space every line runs up or down the page. Turning each box, origin and
direction by the page's rotation matrix gives the lines as they are seen: horizontal.
"""

from __future__ import annotations

from typing import Any

Matrix = tuple[float, float, float, float, float, float]
"""An affine matrix (a, b, c, d, e, f): (x, y) goes to (a x + c y + e, b x + d y + f)."""


def _point(matrix: Matrix, x: float, y: float, move: bool = True) -> tuple[float, float]:
    a, b, c, d, e, f = matrix
    return (a * x + c * y + (e if move else 0.0), b * x + d * y + (f if move else 0.0))


def _box(matrix: Matrix, bbox: Any) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = bbox
    corners = [_point(matrix, x, y) for x in (x0, x1) for y in (y0, y1)]
    xs, ys = [p[0] for p in corners], [p[1] for p in corners]
    return (min(xs), min(ys), max(xs), max(ys))


def turned_pages_note(pages: list[int]) -> str:
    """The note for pages whose text was read as shown, and what that left out."""
    spans: list[list[int]] = []
    for page in pages:
        if spans and page == spans[-1][1] + 1:
            spans[-1][1] = page
        else:
            spans.append([page, page])
    listed = ", ".join(f"{a}-{b}" if b > a else str(a) for a, b in spans)
    label = "page" if len(pages) == 1 else "pages"
    return f"{label} {listed}: text turned on the sheet, read as shown, without table detection"


def as_shown(page_dict: dict[str, Any], matrix: Matrix) -> dict[str, Any]:
    """Return a copy of a text dict with every box, origin and direction turned by matrix."""
    blocks = []
    for block in page_dict["blocks"]:
        lines = []
        for line in block.get("lines", ()):
            spans = [
                {
                    **span,
                    "bbox": _box(matrix, span["bbox"]),
                    "origin": _point(matrix, *span["origin"]),
                }
                for span in line["spans"]
            ]
            dx, dy = line["dir"]
            direction = _point(matrix, dx, dy, move=False)
            lines.append(
                {**line, "bbox": _box(matrix, line["bbox"]), "dir": direction, "spans": spans}
            )
        blocks.append({**block, "bbox": _box(matrix, block["bbox"]), "lines": lines})
    return {**page_dict, "blocks": blocks}
