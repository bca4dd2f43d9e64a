"""An independent reading of a Markdown file's visible text: mistletoe's HTML, as shown.

The Markdown invariant compares the characters of this text with the parser's blocks, so the
truth comes from another parser (mistletoe, CommonMark) and the standard library's HTML parser,
not from the code under test.
"""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser

import mistletoe

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*\n", re.DOTALL)
# MyST roles and targets, which CommonMark reads as text and MyST as markup.
_MYST = re.compile(r"\{[\w:.-]+\}(?=`)|^\([\w.:-]+\)=$", re.MULTILINE)


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.skip += tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        self.skip -= tag in ("script", "style") and self.skip > 0

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def visible_text(markdown: str) -> str:
    """Return the text a reader sees of a Markdown file (front matter and MyST markup out)."""
    body = _MYST.sub("", _FRONT_MATTER.sub("", markdown.replace("\r\n", "\n").lstrip("\ufeff")))
    parser = _Text()
    parser.feed(mistletoe.markdown(body))
    parser.close()
    return "".join(parser.parts)


def letters(text: str) -> Counter[str]:
    """Count the letters and digits of text: what no markup may remove."""
    return Counter(c for c in text if c.isalnum())


def missing(truth: str, ours: str) -> Counter[str]:
    """Return the letters and digits of truth that ours does not hold (empty when none)."""
    return letters(truth) - letters(ours)
