"""What the OCR tests render into scanned pages, and their skip when Tesseract is absent."""

from __future__ import annotations

import pytest

from policy_assistant.parse.pdf import ocr as pdf_ocr

needs_tesseract = pytest.mark.skipif(
    pdf_ocr.tessdata() is None, reason=f"Tesseract is not installed ({pdf_ocr.INSTALL})"
)
HTML = (
    "<h1>Hose Reel Care</h1>"
    "<p>Drain the hose before the first frost and store the reel in a dry shed. "
    "Check the washers every spring and replace any that are cracked or flattened.</p>"
    "<p>The reel carries a five year warranty on its frame and one year on its seals.</p>"
)
"""A short manual page: a heading and two paragraphs."""
CSS = "body { font-family: sans-serif; font-size: 14pt; }"
"""Large enough print for Tesseract at the tests' resolutions."""
