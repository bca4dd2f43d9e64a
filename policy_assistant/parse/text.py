"""Plain text (.txt) to blocks, and the decoding, title and error rules the formats share.

Paragraphs are separated by blank lines (a form feed counts as one). Headings are taken only
where the text marks them unambiguously:

- a line underlined by a line of one of `= - ~ ^ * + #` repeated to the same length, the two
  lines opening a paragraph, or a title between an overline and an underline of the same
  character (at least as long as the title), as reStructuredText writes them; as in reST, each
  style's level is its order of first appearance (the first style seen is level 1);
- a numbered line alone between blank lines ("2.1 Scope of cover"): a number of one to four
  parts, then a word starting in upper case, at most 12 words, no end punctuation; its level is
  the number of parts. Two such lines of the same depth in a row are a list, not headings.

A paragraph whose lines all start with a bullet ("-", "*", "•") or a number ("1.", "2)"), with
indented continuation lines, is a list: one list item per marker. Lines keep their line
breaks; trailing spaces, common indentation and control characters go; a paragraph that is
only a rule line ("-----") is recorded in Document.dropped. Text is UTF-8 (a byte-order mark
allowed), or UTF-16 or UTF-32 that starts with its byte-order mark (what Windows tools save
as "Unicode"); anything else is refused with the byte and offset, never guessed, so a quote
copied from the file always matches what was indexed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from policy_assistant.errors import DocumentError
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import Block, Document, DocumentMeta, Dropped
from policy_assistant.text import count_words

TITLE_MAX_WORDS = 20
"""A heading longer than this is not taken as the document's title."""

CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
"""Control characters every text parser drops (tab, newline, form feed and CR stay)."""
_BLANK_RUN = re.compile(r"\n(?:[ \t]*\n)+")
_UNDERLINES = "=-~^*+#"
_NUMBERED = re.compile(r"(\d{1,3}(?:\.\d{1,3}){0,3})\.?[ \t]+(\S.*)")
_BULLET = re.compile(r"(?:([-*•‣◦])|\d{1,3}[.)])[ \t]+(?=\S)")
_RULE = re.compile(r"([-=*_~])\1{2,}")
_END_PUNCTUATION = tuple(".,;:!?")


_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),  # before UTF-16's: it starts with UTF-16-LE's mark
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


def decode_text(data: bytes, source: str) -> str:
    """Decode UTF-8 (a byte-order mark allowed), or UTF-16/32 by its byte-order mark, and
    normalize line endings to LF."""
    encoding, start = "utf-8-sig", 0
    for bom, name in _BOMS:
        if data.startswith(bom):
            encoding, start = name, len(bom)
            break
    try:
        text = data[start:].decode(encoding)
    except UnicodeDecodeError as exc:
        shown = "UTF-8" if start == 0 else encoding.upper()
        at = start + exc.start
        problem = f"not {shown} text (byte 0x{data[at]:02x} at offset {at})"
        raise DocumentError(source, problem) from exc
    return text.replace("\r\n", "\n").replace("\r", "\n")


def office_problem(data: bytes, suffix: str, exc: Exception) -> str:
    """Say why an Office file (.docx, .pptx) could not be opened, in one line."""
    if data.startswith(b"\xd0\xcf\x11\xe0"):
        # An OLE compound file: what Office writes for a password-protected file, or the
        # pre-2007 formats (.doc, .ppt) under the new name.
        return f"not a readable {suffix} file: encrypted, or an old .doc/.ppt file renamed"
    reasons = {"BadZipFile": "not a zip archive", "KeyError": "a required part is missing"}
    name = type(exc).__name__
    return f"not a readable {suffix} file ({reasons.get(name, name)})"


def file_stem(source: str) -> str:
    """Return the file name of `source` without its folder and extension."""
    return source.rsplit("/", 1)[-1].rsplit(".", 1)[0]


def leading_title(blocks: Sequence[Block]) -> str | None:
    """Return the first block's text if it is a heading of at most TITLE_MAX_WORDS words."""
    if blocks and blocks[0].kind == "heading" and count_words(blocks[0].text) <= TITLE_MAX_WORDS:
        return blocks[0].text
    return None


def finish(
    builder: DocumentBuilder,
    source: str,
    sha256: str,
    meta: DocumentMeta,
    dropped: tuple[Dropped, ...] = (),
    notes: tuple[str, ...] = (),
) -> Document:
    """Build the document: the catalog's title, else a leading heading, else the file name."""
    title = meta.title or leading_title(builder.blocks) or file_stem(source)
    document = builder.build(source, sha256, replace(meta, title=title), title)
    return replace(document, dropped=dropped, notes=notes)


def parse_text(data: bytes, source: str, meta: DocumentMeta, sha256: str) -> Document:
    """Parse a plain-text file's bytes into a Document."""
    text = CONTROL.sub("", decode_text(data, source).replace("\f", "\n\n"))
    builder = DocumentBuilder()
    raw = [p for p in _BLANK_RUN.split(text.strip("\n")) if p.strip()]
    # An indented paragraph is quoted or preformatted text (a reST literal block, an
    # example): never a heading, whatever it looks like.
    indented = [p[:1].isspace() for p in raw]
    paragraphs = [_dedent(p) for p in raw]
    # A paragraph that is only a rule line ("-----") is decoration, recorded as dropped.
    dropped = tuple(Dropped(p[0], "rule line") for p in paragraphs if _is_rule(p))
    indented = [i for i, p in zip(indented, paragraphs, strict=True) if not _is_rule(p)]
    paragraphs = [p for p in paragraphs if not _is_rule(p)]
    numbered = [0 if i else _numbered_depth(p) for i, p in zip(indented, paragraphs, strict=True)]
    adornments = _Adornments()
    for i, lines in enumerate(paragraphs):
        depth = numbered[i]
        neighbours = numbered[max(i - 1, 0) : i] + numbered[i + 1 : i + 2]
        if depth and depth not in neighbours:
            builder.heading(lines[0], depth)
        else:
            _paragraph(builder, lines, None if indented[i] else adornments)
    return finish(builder, source, sha256, meta, dropped=dropped)


def _is_rule(lines: list[str]) -> bool:
    return len(lines) == 1 and _RULE.fullmatch(lines[0]) is not None


def _dedent(paragraph: str) -> list[str]:
    lines = [line.rstrip() for line in paragraph.split("\n")]
    lines = [line.expandtabs(4) for line in lines if line]
    indent = min((len(line) - len(line.lstrip()) for line in lines), default=0)
    return [line[indent:] for line in lines]


def _numbered_depth(lines: list[str]) -> int:
    """Return the numbered heading's depth if the paragraph is one, else 0."""
    match = _NUMBERED.fullmatch(lines[0]) if len(lines) == 1 else None
    if not match:
        return 0
    words = match.group(2)
    if not words[0].isupper() or words.endswith(_END_PUNCTUATION) or count_words(words) > 12:
        return 0
    return match.group(1).count(".") + 1


class _Adornments:
    """Heading levels by order of first appearance of each underline style, as reST does."""

    def __init__(self) -> None:
        self.styles: list[tuple[str, bool]] = []

    def heading(self, lines: list[str]) -> tuple[str, int, int] | None:
        """Return (title, level, lines used) if the paragraph opens with an adorned title."""
        overlined = len(lines) >= 3 and lines[0] == lines[2] and _rule_char(lines[0]) != ""
        if overlined and len(lines[0]) >= len(lines[1].strip()) > 0:
            return self._level(lines[1].strip(), lines[0][0], True, 3)
        char = _rule_char(lines[1]) if len(lines) >= 2 else ""
        title = lines[0].strip()
        if char and len(title) == len(lines[1]) and title.strip(char) and title == lines[0]:
            return self._level(title, char, False, 2)
        return None

    def _level(self, title: str, char: str, overlined: bool, used: int) -> tuple[str, int, int]:
        if (char, overlined) not in self.styles:
            self.styles.append((char, overlined))
        return title, self.styles.index((char, overlined)) + 1, used


def _rule_char(line: str) -> str:
    char = line[:1]
    return char if char in _UNDERLINES and line == char * len(line) else ""


def _paragraph(builder: DocumentBuilder, lines: list[str], adornments: _Adornments | None) -> None:
    found = adornments.heading(lines) if adornments else None
    if found:
        title, level, used = found
        builder.heading(title, level)
        lines = _dedent("\n".join(lines[used:]))
        if not lines:
            return
    items = _list_items(lines)
    if items is None:
        builder.add("paragraph", "\n".join(lines))
        return
    for item in items:
        builder.add("list_item", item)


def _list_items(lines: list[str]) -> list[str] | None:
    """Split a paragraph into list items, or return None when it is not a list."""
    items: list[list[str]] = []
    for line in lines:
        marker = _BULLET.match(line)
        if marker:
            # A bullet is markup, as in Markdown; a number is content ("2. Sign the form").
            items.append([line[marker.end() :] if marker.group(1) else line])
        elif items and line[:1].isspace():
            items[-1].append(line.strip())
        else:
            return None
    return [" ".join(item) for item in items]
