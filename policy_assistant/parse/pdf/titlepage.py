"""The title page: authors, affiliations, addresses and dates are not section headings.

Set large or bold under a paper's or report's title, they read to the style rules as
headings, and each would become a section holding nothing. Between the title (the first
heading) and the first body text of its page, a heading run that reads as a date, an
e-mail or web address, a postal address or affiliation, or a list of names is turned
into text. The title itself: the PDF's metadata title, else the first heading if it
stands at the start of the document, never one from the middle, never a long one.
"""

from __future__ import annotations

import re

from policy_assistant.parse.pdf.structure import Run
from policy_assistant.records import Block

MAX_TITLE_WORDS = 20
"""A heading longer than this is no title."""
START_BLOCKS = 3
"""The title heading is among this many first blocks of the document..."""
MAX_LEAD_WORDS = 12
"""...and only blocks this short stand before it."""

_MONTH = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
    r"|janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre"
)
_DATE = re.compile(
    rf"\b(?:{_MONTH})\b\.?,?\s+(?:\d{{1,2}},?\s+)?(?:19|20)\d\d\b"
    rf"|\b\d{{1,2}}\s+(?:{_MONTH})\b\.?\s+(?:19|20)\d\d\b"
    r"|\b\d{1,4}[./-]\d{1,2}[./-]\d{1,4}\b",
    re.IGNORECASE,
)
_CONTACT = re.compile(r"\S+@\S+\.\w+|https?://|\bwww\.", re.IGNORECASE)
_ADDRESS = re.compile(
    r"\b(?:road|street|avenue|lane|boulevard|rd|st|ave|blvd|university|universit[éày]|"
    r"institute|institut|department|dept|laboratory|school|college|faculty|inc|ltd|gmbh|llc|"
    r"p\.?o\.? box)\b\.?"
    r"|\b[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}\b|\b\d{5}(?:-\d{4})?\b",
    re.IGNORECASE,
)
_NAME_WORD = re.compile(r"^(?:[A-Z][\w'’.-]*[*†‡\d¹²³]*|[A-Z]\.|de|van|von|da|di|le|la)$")
_NAME_PARTS = re.compile(r"\s*(?:,|\band\b|&|\bet\b|\bund\b)\s*")


def _names(text: str) -> bool:
    """Whether text lists people: names of two to four capitalised words, or "by" a name.

    The names are parted by commas, "and" or "&": "Installing and Testing" parts into
    one-word pieces, which are no names.
    """
    text = text.strip()
    by = re.match(r"^by\s+", text, flags=re.IGNORECASE)
    text = text[by.end() :] if by else text
    names = [part.split() for part in _NAME_PARTS.split(text) if part.strip()]
    if not names or any(not 2 <= len(name) <= 4 for name in names):
        return False
    if not all(_NAME_WORD.match(word) for name in names for word in name):
        return False
    return bool(by) or len(names) >= 2


def is_title_page_line(text: str) -> bool:
    """Whether a line under a title reads as an author list, affiliation, address or date."""
    return bool(
        _DATE.search(text) or _CONTACT.search(text) or _ADDRESS.search(text) or _names(text)
    )


def demote_title_page(runs: list[Run]) -> None:
    """Turn the title page's author, affiliation, address and date headings into text."""
    title = next((run for run in runs if run.kind == "heading"), None)
    if title is None:
        return
    page = title.lines[0].page
    for run in runs[runs.index(title) + 1 :]:
        if run.kind != "heading" or run.lines[0].page != page:
            return
        if not run.outline and is_title_page_line(run.text):
            run.kind = "text"


def start_title(blocks: list[Block]) -> str | None:
    """Return the first heading if it stands at the start of the document and is short.

    Only short lines (a kicker, a version line) may stand before it: after a paragraph,
    a heading is a section of the document, not its title.
    """
    for block in blocks[:START_BLOCKS]:
        words = block.text.split()
        if block.kind == "heading":
            return block.text if len(words) <= MAX_TITLE_WORDS else None
        if len(words) > MAX_LEAD_WORDS:
            return None
    return None
