"""OCR for scanned pages: when a page is read through Tesseract, and what is said when not.

A page with under MIN_WORDS words in its text layer and an image on it is taken for a
scan. Where Tesseract and its language data are installed (Debian: `apt-get install
tesseract-ocr tesseract-ocr-eng tesseract-ocr-fra`), such a page is read through
PyMuPDF's OCR text page instead (pdf.py holds that call: it is the one pymupdf module);
its number goes into Document.ocr_pages. Without Tesseract, or with ENABLED switched off,
the page is read as it is and a note in Document.notes names it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any

ENABLED = True
"""Whether scanned pages are OCR'd where Tesseract is present; the CLI's --no-ocr sets it off."""
MIN_WORDS = 50
"""A page with an image and fewer words of text than this is taken for a scan."""
DPI = 300
"""Resolution the page is rendered at for Tesseract."""
LANGUAGES = {"en": "eng", "fr": "fra", "de": "deu", "es": "spa", "it": "ita", "pt": "por"}
"""Tesseract's language data for each ISO 639-1 code of the catalog."""
INSTALL = "apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-fra"
"""What to run to make OCR available, as the notes say it."""


def set_enabled(on: bool) -> None:
    """Switch OCR of scanned pages on or off for this process (the CLI's --no-ocr)."""
    global ENABLED
    ENABLED = on


def ocr_state() -> str:
    """Return what OCR will do, for the parse cache's key: off, on, or absent (no Tesseract)."""
    if not ENABLED:
        return "off"
    return "on" if shutil.which("tesseract") else "absent"


MONO_FLAG = 8
"""Span flag MuPDF sets for a monospaced font."""

_LANGS_DIR = re.compile(r'List of available languages in "(.+?)"')


@lru_cache(maxsize=1)
def tessdata() -> str | None:
    """Return Tesseract's language data folder, or None when Tesseract is not installed."""
    binary = shutil.which("tesseract")
    if binary is None:
        return None
    try:
        found = subprocess.run(
            [binary, "--list-langs"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    match = _LANGS_DIR.search(found.stdout + found.stderr)
    return match.group(1) if match and Path(match.group(1)).is_dir() else None


def tesseract_language(language: str) -> str | None:
    """Return the installed Tesseract language for a catalog language, English as fallback."""
    folder = tessdata()
    if folder is None:
        return None
    for code in (LANGUAGES.get(language), "eng"):
        if code and (Path(folder) / f"{code}.traineddata").is_file():
            return code
    return None


def is_scan(words: int, images: int) -> bool:
    """Whether a page with this many text-layer words and images is taken for a scan."""
    return images > 0 and words < MIN_WORDS


def unread_note(pages: list[int]) -> str:
    """The note for scanned pages that were not OCR'd, and why."""
    listed = ", ".join(str(page) for page in pages)
    label = "page" if len(pages) == 1 else "pages"
    why = f"Tesseract is not installed ({INSTALL})" if ENABLED else "OCR is switched off"
    return f"{label} {listed}: scanned (an image, under {MIN_WORDS} words), not OCR'd: {why}"


def ocr_language(language: str) -> str | None:
    """Return the Tesseract language to OCR with, or None when OCR is off or unavailable."""
    return tesseract_language(language) if ENABLED else None


class ScanReader:
    """Reads scanned pages through Tesseract where it can, and keeps count of them."""

    def __init__(self, language: str, flags: int) -> None:
        self.language = language
        self.flags = flags
        self.read_pages: list[int] = []
        """Pages read through OCR."""
        self.unread: list[int] = []
        """Scanned pages left as they were: OCR off or unavailable."""
        self.failed: list[int] = []
        """Scanned pages on which Tesseract failed."""

    def notes(self) -> list[str]:
        """Return the notes on scanned pages that were not OCR'd."""
        notes = [unread_note(self.unread)] if self.unread else []
        if self.failed:
            listed = ", ".join(str(page) for page in self.failed)
            notes.append(f"scanned pages {listed}: OCR failed; read as their text layer")
        return notes

    def read(self, page: Any, number: int, page_dict: dict[str, Any]) -> dict[str, Any]:
        """Return the page's text dict, from OCR when the page is a scan and OCR can run."""
        words = sum(
            len(span["text"].split())
            for block in page_dict["blocks"]
            for line in block.get("lines", ())
            for span in line["spans"]
        )
        try:
            images = len(page.get_images())
        except Exception:
            images = 0  # a damaged resource list: the page is read as its text layer says
        if not is_scan(words, images):
            return page_dict
        language = ocr_language(self.language)
        if language is None:
            self.unread.append(number)
            return page_dict
        try:
            textpage = page.get_textpage_ocr(
                flags=self.flags, language=language, dpi=DPI, full=True, tessdata=tessdata()
            )
        except Exception:
            # Tesseract failing on one page leaves that page as it was, and says so.
            self.failed.append(number)
            return page_dict
        self.read_pages.append(number)
        result: dict[str, Any] = page.get_text("dict", textpage=textpage)
        _unmark_monospace(result)
        return result


def _unmark_monospace(page_dict: dict[str, Any]) -> None:
    """Clear the monospace flag of OCR'd text, whose glyph-less font MuPDF calls fixed-width."""
    for block in page_dict["blocks"]:
        for line in block.get("lines", ()):
            for span in line["spans"]:
                span["flags"] &= ~MONO_FLAG
