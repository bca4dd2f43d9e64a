"""What a document holds according to a reader other than our parser: the truth parse_report uses.

PDF: PyMuPDF's own word list (`page.get_text("words")`) and the file's outline
(`doc.get_toc()`). Markdown: markdown-it's token stream rendered to plain text here, with
rules of its own (not the parser's walker): inline HTML tags dropped but their text kept, a
`<word>` that is no HTML element kept as text, escapes as their literal character, code kept,
`{ #id }` / `{: .class }` attribute lists removed from headings, front matter skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pymupdf
from markdown_it import MarkdownIt
from markdown_it.token import Token

_MD = MarkdownIt("commonmark").enable("table")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?^(?:---|\.\.\.)[ \t]*$", re.DOTALL | re.MULTILINE)
_ATTR_LIST = re.compile(r"\s*\{:?\s*[#.][^{}]*\}\s*$")
_TAG = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)\b[^<>]*/?>")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
# HTML elements whose tags are markup, not content (a `<unk>` or `<String>` is content).
HTML_ELEMENTS = frozenset(
    {
        "a",
        "abbr",
        "address",
        "article",
        "aside",
        "audio",
        "b",
        "bdi",
        "bdo",
        "blockquote",
        "body",
        "br",
        "button",
        "canvas",
        "caption",
        "center",
        "cite",
        "code",
        "col",
        "colgroup",
        "data",
        "dd",
        "del",
        "details",
        "dfn",
        "dialog",
        "div",
        "dl",
        "dt",
        "em",
        "embed",
        "fieldset",
        "figcaption",
        "figure",
        "font",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "head",
        "header",
        "hr",
        "html",
        "i",
        "iframe",
        "img",
        "input",
        "ins",
        "kbd",
        "label",
        "legend",
        "li",
        "link",
        "main",
        "map",
        "mark",
        "meta",
        "meter",
        "nav",
        "noscript",
        "object",
        "ol",
        "optgroup",
        "option",
        "output",
        "p",
        "param",
        "picture",
        "pre",
        "progress",
        "q",
        "rp",
        "rt",
        "ruby",
        "s",
        "samp",
        "script",
        "section",
        "select",
        "small",
        "source",
        "span",
        "strike",
        "strong",
        "style",
        "sub",
        "summary",
        "sup",
        "svg",
        "table",
        "tbody",
        "td",
        "template",
        "textarea",
        "tfoot",
        "th",
        "thead",
        "time",
        "title",
        "tr",
        "track",
        "tt",
        "u",
        "ul",
        "var",
        "video",
        "wbr",
        "path",
        "g",
    }
)

# Tags that do not separate words: `2<sup>7</sup>` reads "27".
_INLINE_ELEMENTS = frozenset(
    {
        "a",
        "abbr",
        "b",
        "code",
        "del",
        "em",
        "i",
        "ins",
        "kbd",
        "mark",
        "s",
        "samp",
        "small",
        "span",
        "strong",
        "sub",
        "sup",
        "tt",
        "u",
        "var",
    }
)


@dataclass(frozen=True)
class SourceTruth:
    """A document's words, headings and tables as read without our parser."""

    words: list[str]
    """Whitespace-separated words of the text, in reading order of the reader."""
    headings: list[str]
    """Heading texts: the PDF outline's titles, or Markdown's heading tokens."""
    tables: int | None
    """Tables the reader sees (Markdown); None where it cannot tell (PDF)."""
    pages: int
    """PDF pages; 0 for Markdown."""
    word_pages: list[int]
    """1-based page of each word (PDF); empty for Markdown."""


def pdf_truth(data: bytes) -> SourceTruth:
    """Return a PDF's text-layer words and outline titles as PyMuPDF reads them."""
    doc = pymupdf.open(stream=data, filetype="pdf")
    listed = [(w[4], page.number + 1) for page in doc for w in page.get_text("words")]
    headings = [str(entry[1]) for entry in doc.get_toc()]
    words, pages = [w for w, _ in listed], [n for _, n in listed]
    return SourceTruth(words, headings, None, doc.page_count, pages)


def markdown_truth(text: str) -> SourceTruth:
    """Return a Markdown file's content words, headings and table count via markdown-it."""
    body = _FRONT_MATTER.sub("", text, count=1)
    tokens = _MD.parse(body)
    parts: list[str] = []
    headings: list[str] = []
    for i, token in enumerate(tokens):
        if token.type == "inline":
            line = inline_plain(token)
            if i and tokens[i - 1].type == "heading_open":
                line = _ATTR_LIST.sub("", line)
                headings.append(line)
            parts.append(line)
        elif token.type in ("fence", "code_block"):
            parts.append(token.content)
        elif token.type == "html_block":
            parts.append(html_text(token.content))
    tables = sum(1 for t in tokens if t.type == "table_open")
    return SourceTruth(" ".join(parts).split(), headings, tables, 0, [])


def inline_plain(token: Token) -> str:
    """Return an inline token's text: text, code and image alt kept, markup tags dropped."""
    out: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif child.type == "image":
            out.append(" ".join(c.content for c in child.children or []))
        elif child.type == "html_inline":
            out.append(html_text(child.content))
    return "".join(out)


def html_text(html: str) -> str:
    """Return HTML's text: comments and tags of real elements removed, other `<x>` kept."""

    def tag(match: re.Match[str]) -> str:
        name = match.group(1).lower()
        if name not in HTML_ELEMENTS:
            return match.group(0)
        return "" if name in _INLINE_ELEMENTS else " "

    return _TAG.sub(tag, _COMMENT.sub(" ", html))
