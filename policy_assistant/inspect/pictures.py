"""Pictures of a PDF's pages for its HTML page, on which a chunk's boxes are drawn."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

from policy_assistant.errors import DocumentError
from policy_assistant.parse.pdf.reader import page_pictures
from policy_assistant.records import Document

MAX_PAGES = 300
"""Pages pictured at most (about 15 KB each); the page says which are left out."""


def pictures_for(path: Path | None, doc: Document) -> dict[str, dict[str, Any]]:
    """Return, by page number, each pictured page's size in points and its PNG as a data URI.

    Only a PDF whose blocks have boxes is pictured, and only while its file still holds the
    bytes that were parsed (a picture of other bytes would put the boxes in the wrong place).
    """
    if path is None or not doc.source.lower().endswith(".pdf"):
        return {}
    pages = sorted({box[0] for block in doc.blocks for box in block.boxes})[:MAX_PAGES]
    if not pages:
        return {}
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    if doc.sha256 and hashlib.sha256(data).hexdigest() != doc.sha256:
        return {}
    try:
        pictures = page_pictures(data, pages)
    except DocumentError:
        return {}
    return {
        str(number): {
            "w": picture.width,
            "h": picture.height,
            "src": "data:image/png;base64," + base64.b64encode(picture.png).decode("ascii"),
        }
        for number, picture in pictures.items()
    }
