"""OCR for scanned pages: when a page is read through Tesseract, and what is said when not.

A page with under MIN_WORDS words in its text layer and an image on it is taken for a
scan; so is a page with an image whose text layer is mostly not words of a language (the
noise a bad OCR run leaves: see `is_garbage`). Either way, the text layer it has must lie
mostly on the images (`on_images`): text set beside a picture is the page's own, in
whatever language, and OCR would only lose its accents. Where Tesseract and its language data are
installed (Debian: `apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-fra`),
such a page is read through PyMuPDF's OCR text page instead (pdf.py holds that call: it is
the one pymupdf module); its number goes into Document.ocr_pages. Without Tesseract, or
with ENABLED switched off, a scan is read as it is and a note in Document.notes names it;
a text layer of noise is left out (recorded in Document.dropped) and a note names its
pages. A document whose pages are mostly scans gets a note saying so. A scan whose text layer
is mostly in another script than Latin (Chinese, Cyrillic, ...: `layer_script`, or for a scan
with no layer Tesseract's script detection, `page_script`) is OCR'd only with that script's
data; without it the page is kept as it is and a note names the package, since OCR with
another script's data invents text. What OCR reads off a scan's pictures is left out
(`illustration`).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Any

from policy_assistant.parse.pdf import illustration
from policy_assistant.text import count_words

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


def reads_with_ocr(source: str) -> bool:
    """Whether the parse of `source` can depend on the OCR state: only a PDF's can, so
    installing Tesseract keeps every other file's recorded parse."""
    return source.lower().endswith(".pdf")


def ocr_key(source: str, state: str) -> str:
    """Return the OCR state as the parse of `source` depends on it."""
    return state if reads_with_ocr(source) else "unused"


COMMON_WORDS = {
    "en": "the of and to a in is that for it as with be on by this are or not from at an "
    "which have has was you your can if will all its their they we more one may any no",
    "fr": "le la les de des du un une et est en que qui dans pour pas sur au aux par il "
    "elle ne se ce sont avec plus ou son sa ses vous nous être été cette leur",
    "de": "der die das und ist in zu den von mit sich des auf für nicht ein eine als auch "
    "es an werden aus er hat dass sie nach bei einer um am sind noch wie dem",
    "es": "el la los las de del y en que un una es por con para no se su al lo como más "
    "pero sus le ya o este sí porque esta entre cuando muy sin sobre también",
    "it": "il la di che e è un una per non in del della le si con da al dei gli alla sono "
    "come più anche nel ma ha se lo questo essere",
    "pt": "o a os as de do da dos das e que em um uma para com não por se na no mais ao "
    "como mas foi ele ela seu sua ou ser quando muito",
}
"""The commonest words of each language: prose holds many, the noise of a bad OCR run none."""
MIN_JUDGED_WORDS = 20
"""A text layer is judged only when it holds at least this many words of letters."""
MIN_COMMON_SHARE = 0.04
"""...and taken for noise when fewer than this share of them are common words."""
ON_IMAGE_SHARE = 0.9
"""A page is a scan only if at least this share of its text layer lies on its images: a
scan's text layer (OCR's, or a stamp) lies over the scanned image, which fills the page,
while the labels of a figure drawn over a picture run off it into the margin too."""

_ANY_COMMON = frozenset(word for words in COMMON_WORDS.values() for word in words.split())
_LETTER_WORD = re.compile(r"[^\W\d_]{2,}")


def is_garbage(text: str) -> bool:
    """Whether a text layer is mostly not words of a language: letters that say nothing.

    The common words of every listed language count, so a French page in a corpus that
    says nothing of its language is no noise; only Latin-script words are judged that way.
    In any script, a layer where many tokens are no plausible words (symbols inside,
    letters mixed with digits or scripts, capitals inside lowercase) is noise too.
    """
    tokens = text.split()
    if len(tokens) >= MIN_JUDGED_WORDS:
        odd = sum(1 for token in tokens if not _plausible(token))
        if odd >= MAX_ODD_SHARE * len(tokens):
            return True
    words = [w for w in _LETTER_WORD.findall(text.casefold()) if max(w) <= "\u024f"]
    if len(words) < MIN_JUDGED_WORDS:
        return False
    return sum(word in _ANY_COMMON for word in words) < MIN_COMMON_SHARE * len(words)


MAX_ODD_SHARE = 0.3
"""Share of a layer's tokens that are no plausible words from which it is taken for noise."""
_EDGE = re.compile(r"^[\"'(\[{‘“„«‹]+|[\"')\]}.,;:!?’”…»›+]+$")
_ODD_CHARS = frozenset("«»*&#@%\\|^~_`<>{}[]¦§¤•")
"""Characters a word of prose never holds inside (a number or a name may hold "_" or "/":
"x86_64" is judged by its letters and digits, not refused for its underscore)."""
_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th|er|e|ème|º|ª)$", re.IGNORECASE)


def _script(char: str) -> str:
    """Return the first word of a letter's Unicode name: its script (LATIN, CYRILLIC...)."""
    return unicodedata.name(char, "?").split(" ", 1)[0]


def _plausible(token: str) -> bool:
    """Whether a token could be a word, number or name of prose, in any script."""
    core = _EDGE.sub("", token)
    if not core or all(not char.isalnum() for char in core):
        return not any(char in _ODD_CHARS for char in token)  # a dash, a lone bracket
    if any(char in _ODD_CHARS or unicodedata.category(char)[0] == "S" for char in core):
        return "_" in core and core.replace("_", "").isalnum()
    return all(_plausible_part(part) for part in re.split(r"[-–/.,:'’]", core) if part)


def _plausible_part(part: str) -> bool:
    """Whether a piece of a token between hyphens, slashes or dots reads as a word or number."""
    if part.isdigit() or _ORDINAL.match(part):
        return True
    letters = [char for char in part if char.isalpha()]
    if len({_script(char) for char in letters}) > 1 or _DIGIT_LETTER_DIGIT.search(part):
        return False  # "РОAН" of two scripts; "0f3", "1l1" ("40V", "x86", "H2O" pass)
    # Capitals inside lowercase ("TtHe", "vVm", "iiI") unless each starts a run of
    # lowercase ("McDonald", "iPhone", "JavaScript"); all capitals pass.
    return part.isupper() or not any(
        char.isupper() and part[i - 1].isalpha() and not _lower_run(part[i + 1 : i + 3])
        for i, char in enumerate(part)
        if i
    )


_DIGIT_LETTER_DIGIT = re.compile(r"\d[^\W\d_]{1,2}\d")


def _lower_run(text: str) -> bool:
    """Whether text is two lowercase letters: what follows a camel-case capital."""
    return len(text) == 2 and text.isalpha() and text.islower()


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


SCRIPT_DATA = {
    "CJK": ("chi_sim", "chi_tra", "jpn"), "HIRAGANA": ("jpn",), "KATAKANA": ("jpn",),
    "HANGUL": ("kor",), "CYRILLIC": ("rus", "ukr", "bul", "srp"), "GREEK": ("ell",),
    "ARABIC": ("ara", "fas"), "HEBREW": ("heb",), "DEVANAGARI": ("hin",), "THAI": ("tha",),
}  # fmt: skip
"""Tesseract's language data that reads each script (Unicode's name for it), first choice first."""
SCRIPT_PACKAGES = {
    script: tuple(f"tesseract-ocr-{code.replace('_', '-')}" for code in codes)
    for script, codes in SCRIPT_DATA.items()
}
"""The Debian packages of that data, as the notes name them."""


def layer_script(text: str) -> str | None:
    """Return the script most of a text layer's letters are in when it is not Latin (None:
    Latin, or no letters to tell by): the script a scan with that layer is written in."""
    letters = [_script(char) for char in text if char.isalpha()]
    if not letters:
        return None
    script = max(sorted(set(letters)), key=letters.count)
    if script == "LATIN" or script not in SCRIPT_DATA or 2 * letters.count(script) < len(letters):
        return None
    return script


OSD_SCRIPTS = {
    "Han": "CJK", "Japanese": "CJK", "Hiragana": "HIRAGANA", "Katakana": "KATAKANA",
    "Hangul": "HANGUL", "Korean": "HANGUL", "Cyrillic": "CYRILLIC", "Greek": "GREEK",
    "Arabic": "ARABIC", "Hebrew": "HEBREW", "Devanagari": "DEVANAGARI", "Thai": "THAI",
}  # fmt: skip
"""Tesseract's script names (orientation and script detection) as SCRIPT_DATA's keys."""
OSD_DPI = 150
"""Resolution a page is rendered at for script detection: enough for its glyph shapes."""
_OSD_SCRIPT = re.compile(r"^Script: (\w+)", re.MULTILINE)


def page_script(page: Any) -> str | None:
    """Return the script Tesseract's detection (osd.traineddata, --psm 0) sees on a page
    with no text layer, as a SCRIPT_DATA key; None for Latin, or when it cannot tell."""
    folder, binary = tessdata(), shutil.which("tesseract")
    if folder is None or binary is None or not (Path(folder) / "osd.traineddata").is_file():
        return None
    try:
        image = page.get_pixmap(dpi=OSD_DPI).tobytes("png")
        done = subprocess.run(
            [binary, "-", "-", "--psm", "0"], input=image, capture_output=True, timeout=60,
            check=False,
        )  # fmt: skip
    except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired):
        return None  # an unreadable page or a stuck Tesseract: OCR as before
    found = _OSD_SCRIPT.search(done.stdout.decode("utf-8", "replace"))
    return OSD_SCRIPTS.get(found.group(1)) if found else None


def script_language(script: str) -> str | None:
    """Return the installed Tesseract data that reads a script, or None (never another's)."""
    folder = tessdata()
    for code in SCRIPT_DATA.get(script, ()):
        if folder is not None and (Path(folder) / f"{code}.traineddata").is_file():
            return code
    return None


def _is_scan(words: int, images: int) -> bool:
    """Whether a page with this many text-layer words and images is taken for a scan."""
    return images > 0 and words < MIN_WORDS


def _unread_note(pages: list[int]) -> str:
    """The note for scanned pages that were not OCR'd, and why."""
    listed = ", ".join(str(page) for page in pages)
    label = "page" if len(pages) == 1 else "pages"
    why = f"Tesseract is not installed ({INSTALL})" if ENABLED else "OCR is switched off"
    return f"{label} {listed}: scanned (an image, under {MIN_WORDS} words), not OCR'd: {why}"


def _ocr_language(language: str) -> str | None:
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
        self.garbage: dict[int, str] = {}
        """Pages whose text layer was noise and could not be OCR'd: that text, left out."""
        self.pages = 0
        """Pages looked at."""
        self.other_script: dict[str, list[int]] = {}
        """Scanned pages whose text layer is in a script Tesseract has no data for, by script:
        their layer kept as it is, since OCR with another script's data only invents."""
        self.illustrations: dict[int, list[str]] = {}
        """OCR'd pages' lines read off illustrations (`illustration`): left out, by page."""

    def notes(self) -> list[str]:
        """Return the notes on scanned pages that were not OCR'd."""
        notes: list[str] = []
        scans = len(self.read_pages) + len(self.unread) + len(self.failed) + len(self.garbage)
        if self.pages and 2 * scans > self.pages:
            notes.append(f"mostly images: {scans} of {self.pages} pages are scans")
        if self.unread:
            notes.append(_unread_note(self.unread))
        if self.failed:
            listed = ", ".join(str(page) for page in self.failed)
            notes.append(f"scanned pages {listed}: OCR failed; read as their text layer")
        for script, pages in sorted(self.other_script.items()):
            listed = ", ".join(str(page) for page in pages)
            install = f"apt-get install {' or '.join(SCRIPT_PACKAGES[script])}"
            notes.append(
                f"pages {listed}: scanned, text in {script.title()} script, for which Tesseract "
                f"has no data ({install}): the text layer is kept, not OCR'd"
            )
        if self.garbage:
            listed = ", ".join(str(page) for page in self.garbage)
            why = f"Tesseract is not installed ({INSTALL})" if ENABLED else "OCR is switched off"
            notes.append(
                f"pages {listed}: text layer is not words (OCR noise over an image), "
                f"left out and not OCR'd: {why}"
            )
        return notes

    def read(self, page: Any, number: int, page_dict: dict[str, Any]) -> dict[str, Any]:
        """Return the page's text dict, from OCR when the page is a scan and OCR can run.

        A text layer of noise over an image is a scan too; when it cannot be OCR'd, its
        text is left out (kept in `garbage`, for Document.dropped) rather than indexed.
        """
        self.pages += 1
        try:
            images = len(page.get_images())
        except Exception:
            images = 0  # a damaged resource list: the page is read as its text layer says
        if not images:
            return page_dict  # neither a scan nor noise over one: both need an image
        text = " ".join(
            span["text"]
            for block in page_dict["blocks"]
            for line in block.get("lines", ())
            for span in line["spans"]
        )
        words = count_words(text)
        noise = images > 0 and not _is_scan(words, images) and is_garbage(text)
        if not (noise or _is_scan(words, images)):
            return page_dict
        if words and on_images(page_dict, _image_boxes(page)) < ON_IMAGE_SHARE:
            # Text set beside the pictures, not over them, is the page's own: a screenshot
            # with its caption, a logo on a title page, prose in a language not listed.
            return page_dict
        script = layer_script(text)
        if script is None and ENABLED and not any(char.isalpha() for char in text):
            script = page_script(page)  # no layer to tell by: Tesseract's own detection
        if script is None:
            language = _ocr_language(self.language)
        else:  # a layer in another script: OCR only with that script's data, never English
            language = script_language(script) if ENABLED else None
            if language is None:
                self.other_script.setdefault(script, []).append(number)
                return page_dict
        textpage = None
        if language is not None:
            try:
                textpage = page.get_textpage_ocr(
                    flags=self.flags, language=language, dpi=DPI, full=True, tessdata=tessdata()
                )
            except Exception:
                # Tesseract failing on one page leaves that page as it was, and says so.
                self.failed.append(number)
                return page_dict
        if textpage is None or language is None:
            if noise:
                self.garbage[number] = text
                return {**page_dict, "blocks": [b for b in page_dict["blocks"] if b.get("type")]}
            self.unread.append(number)
            return page_dict
        self.read_pages.append(number)
        return self._ocr_dict(page, number, textpage, language)

    def _ocr_dict(self, page: Any, number: int, textpage: Any, language: str) -> dict[str, Any]:
        """Return an OCR'd page's text dict, less the text read off its illustrations."""
        result: dict[str, Any] = page.get_text("dict", textpage=textpage)
        _unmark_monospace(result)
        junk = illustration.drop_illustration_text(
            page,
            result,
            _ANY_COMMON,
            lambda p: illustration.tesseract_words(p, illustration.DPI, language, tessdata()),
        )
        if junk:
            self.illustrations[number] = junk
        return result


def _image_boxes(page: Any) -> list[tuple[float, float, float, float]]:
    """Return where a page's images are drawn; none if MuPDF cannot say."""
    try:
        return [tuple(info["bbox"]) for info in page.get_image_info()]
    except Exception:
        return []


def on_images(page_dict: dict[str, Any], boxes: list[tuple[float, float, float, float]]) -> float:
    """Return the share of a text layer's characters whose line lies on one of the images.

    A scan's text layer (from OCR, good or bad) lies over the scanned image; a page's own
    text stands beside its pictures. A line counts by its centre.
    """
    on = total = 0
    for block in page_dict["blocks"]:
        for line in block.get("lines", ()):
            weight = sum(len(span["text"].strip()) for span in line["spans"])
            total += weight
            x0, y0, x1, y1 = line["bbox"]
            x, y = (x0 + x1) / 2, (y0 + y1) / 2
            if any(b[0] <= x <= b[2] and b[1] <= y <= b[3] for b in boxes):
                on += weight
    return on / total if total else 1.0


def _unmark_monospace(page_dict: dict[str, Any]) -> None:
    """Clear the monospace flag of OCR'd text, whose glyph-less font MuPDF calls fixed-width."""
    for block in page_dict["blocks"]:
        for line in block.get("lines", ()):
            for span in line["spans"]:
                span["flags"] &= ~MONO_FLAG
