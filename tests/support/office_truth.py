"""An independent reading of an Office file's text: its XML's text elements, by the stdlib.

The truth for the Word and PowerPoint parsers: every letter and digit of the body's runs
(Word) or the slides' and notes' runs (PowerPoint) must end up in a block or a dropped record.
Field results (slide numbers, dates: `a:fld`) and deleted or Fallback copies are not text a
reader of the document sees as its content, so they are left out here too.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_TEXT = {f"{_W}t", f"{_A}t"}
_SKIP = {f"{_A}fld", f"{_MC}Fallback", f"{_W}del", f"{_W}moveFrom"}
_PARTS = re.compile(
    r"word/document\.xml|ppt/slides/slide\d+\.xml|ppt/notesSlides/notesSlide\d+\.xml"
)


def _texts(element: ET.Element, out: list[str]) -> None:
    for child in element:
        if child.tag in _SKIP:
            continue
        if child.tag in _TEXT and child.text:
            out.append(child.text)
        _texts(child, out)


def office_text(path: Path) -> str:
    """Return the text of a .docx body or a .pptx's slides and notes, parts in name order."""
    out: list[str] = []
    with zipfile.ZipFile(path) as archive:
        for name in sorted(n for n in archive.namelist() if _PARTS.fullmatch(n)):
            _texts(ET.fromstring(archive.read(name)), out)
    return " ".join(out)
