"""OCR text read off a scan's illustrations: told by its words and by Tesseract's layout.

MuPDF's OCR reads every mark of a scanned page as letters, so a drawing or photograph comes
out as short lines of junk ("Vikom", "Q9OO0Ox9O000 pixels at GOO DPI") that would become
headings and titles. A run of a line is suspect when few of its words are known: the commonest
words of the listed languages, or words that stand in another line of the page too (numbers
and leaders say nothing either way). Only when a page has a suspect run is Tesseract run on it
once more, on its own and at half the resolution: its page layout analysis leaves pictures
out of its text, and a suspect run where it reads no word at all is dropped and recorded.
Its confidence is no test: on a 150-dpi scan it reads a real heading at 49 of 100 and
contents leaders at 0 to 39. Prose, and a heading whose words recur in it, cost no extra run.
A second run on the suspect runs' part of the page alone was cheaper, but lost a real word
("produces") that the whole page's layout analysis reads."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable
from typing import Any

DPI = 150
"""Resolution of the second run: enough for Tesseract to tell text from pictures, at a
quarter of the pixels of the OCR run (a page's check costs about a second, not three)."""
KNOWN_SHARE = 0.5
"""A line is suspect when fewer than this share of its words are known words."""
_WORD = re.compile(r"[^\W\d_]{2,}")
_SLACK = 2.0
"""Points a Tesseract word's centre may lie outside a MuPDF line's box and still be on it."""


Box = tuple[float, float, float, float]
"""x0, y0, x1, y1 in PDF points."""


def _pieces(line: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Split a line's spans into runs that share a band of height: MuPDF's OCR puts marks of
    a picture under a line of text into that line ("seals." then "as Le" 40 points lower)."""
    pieces: list[list[dict[str, Any]]] = []
    top = bottom = 0.0
    for span in line["spans"]:
        y0, y1 = span["bbox"][1], span["bbox"][3]
        if pieces and y0 < bottom and y1 > top:
            pieces[-1].append(span)
            top, bottom = min(top, y0), max(bottom, y1)
        else:
            pieces.append([span])
            top, bottom = y0, y1
    return pieces


def _text(spans: list[dict[str, Any]]) -> str:
    """Return the text of a run of spans."""
    return "".join(span["text"] for span in spans)


def _box(spans: list[dict[str, Any]]) -> Box:
    """Return the box around a run of spans."""
    return (
        min(span["bbox"][0] for span in spans),
        min(span["bbox"][1] for span in spans),
        max(span["bbox"][2] for span in spans),
        max(span["bbox"][3] for span in spans),
    )


def _words(text: str) -> list[str]:
    """Return the words of letters in a text, case-folded."""
    return _WORD.findall(text.casefold())


def _vocabulary(lines: list[str], common: frozenset[str]) -> frozenset[str]:
    """Return the words taken for known on a page: common words, and words of two lines or more
    (of three letters or more: OCR repeats short junk such as "oe" across a picture)."""
    seen = Counter(word for text in lines for word in set(_words(text)))
    return common | {word for word, count in seen.items() if count >= 2 and len(word) >= 3}


def _suspect(text: str, known: frozenset[str]) -> bool:
    """Whether few of a run's tokens with letters are known words of three letters or more
    (a word of two letters counts as unknown: junk is full of "is", "Le", "oe"). Numbers and
    leaders say nothing: a run of them (a page number, a table's figure) is never suspect."""
    tokens = [token for token in text.split() if any(char.isalpha() for char in token)]
    hits = sum(
        1 for token in tokens if (w := _words(token)) and all(p in known and len(p) >= 3 for p in w)
    )
    return bool(tokens) and hits < KNOWN_SHARE * len(tokens)


def tesseract_words(
    page: Any, dpi: int, language: str, tessdata: str | None
) -> list[tuple[float, float]] | None:
    """Return the centre (x, y) in PDF points of each word Tesseract reads on the rendered
    page; None when Tesseract cannot run, so that nothing is dropped on its account."""
    binary = shutil.which("tesseract")
    if binary is None:
        return None
    command = [binary, "-", "-", "-l", language, "--psm", "3"]
    if tessdata:
        command += ["--tessdata-dir", tessdata]
    try:
        image = page.get_pixmap(dpi=dpi).tobytes("pnm")
        done = subprocess.run(
            [*command, "tsv"], input=image, capture_output=True, timeout=120, check=False
        )
    except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    scale = 72.0 / dpi
    found: list[tuple[float, float]] = []
    for row in done.stdout.decode("utf-8", "replace").splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) < 12 or cells[0] != "5" or not cells[11].strip():
            continue
        left, top, width, height = map(float, cells[6:10])
        found.append(((left + width / 2) * scale, (top + height / 2) * scale))
    return found


def _read_by_tesseract(bbox: Box, words: list[tuple[float, float]]) -> bool:
    """Whether Tesseract read a word whose centre lies on a box."""
    x0, y0, x1, y1 = bbox
    return any(
        x0 - _SLACK <= x <= x1 + _SLACK and y0 - _SLACK <= y <= y1 + _SLACK for x, y in words
    )


def drop_illustration_text(
    page: Any,
    page_dict: dict[str, Any],
    common: frozenset[str],
    read: Callable[[Any], list[tuple[float, float]] | None],
) -> list[str]:
    """Remove from an OCR'd page dict the text read off illustrations; return that text.

    `read(page)` gives where Tesseract reads words (`tesseract_words`); it runs only when
    a piece of a line is suspect.
    """
    lines = [line for block in page_dict["blocks"] for line in block.get("lines", ())]
    pieces = [_pieces(line) for line in lines]
    known = _vocabulary([_text(piece) for each in pieces for piece in each], common)
    if not any(_suspect(_text(piece), known) for each in pieces for piece in each):
        return []
    words = read(page)
    if words is None:
        return []
    dropped: list[str] = []
    for line, each in zip(lines, pieces, strict=True):
        kept: list[dict[str, Any]] = []
        for piece in each:
            text = _text(piece)
            if _suspect(text, known) and not _read_by_tesseract(_box(piece), words):
                dropped.append(text.strip())
            else:
                kept.extend(piece)
        if len(kept) < len(line["spans"]):
            line["spans"] = kept
            line["bbox"] = _box(kept) if kept else line["bbox"]
    for block in page_dict["blocks"]:
        if "lines" in block:
            block["lines"] = [line for line in block["lines"] if line["spans"]]
    page_dict["blocks"] = [b for b in page_dict["blocks"] if b.get("type") or b["lines"]]
    return [text for text in dropped if text]
