"""Markdown (.md, .mdx) to blocks with markdown-it-py (CommonMark plus tables); the only
markdown-it import.

Every character of the text a reader sees ends up in a block:

- a hard line break (two trailing spaces, a backslash, or `<br>`) is a newline in the block;
- inline HTML: a tag of an HTML element is markup (its contents stay), except `<br>`, `<img>`
  (its alt text) and `<sup>`, written "^" so "2<sup>7</sup>" reads "2^7"; a tag that names
  no HTML element is text (`<unk>`, `List<String>`) and is kept as written;
- an HTML block is read by the HTML parser (headings, paragraphs, lists, tables), or kept as
  text when none of its tags is HTML;
- backslash escapes and entities are their literal characters; control characters go;
- only a fence whose info string is a bare name in braces (```` ```{note} ````) is a MyST
  directive, read as Markdown (its argument is a paragraph, its `:option:` lines go); any
  other fence, such as ```` ```{ .dockerfile .annotate } ````, is code;
- heading attribute lists (`## Setup { #setup .wide }`) are stripped (and recorded);
- container markers (VitePress `::: tip Title`, MyST `:::{note}`) are dropped and recorded,
  their custom title and contents kept;
- in `.mdx`, import/export (ESM) blocks and lines that are only a JSX tag (`<Tabs>`,
  `</Tabs>`, `<Note type="x" />`) are dropped and recorded; the text between them stays.

The title is the catalog's or front matter's, else the first block if it is a heading of at
most 20 words, else the file name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from markdown_it import MarkdownIt
from markdown_it.token import Token

from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.parse.catalog import Catalog
from policy_assistant.parse.markdown_lines import HTML_ELEMENTS, preprocess
from policy_assistant.parse.text import CONTROL, decode_text, file_stem, finish, leading_title
from policy_assistant.records import Document, Dropped
from policy_assistant.sentences import LONG_SENTENCE_WORDS, sentence_spans
from policy_assistant.text import count_words

_MD = MarkdownIt("commonmark").enable("table")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_SPACES = re.compile(r"\s+")
_BREAK = "\x00"  # a line break inside collected inline text; decoded text holds no NUL
# MyST (Sphinx Markdown), common in real documentation: roles, targets and directives.
_MYST_ROLE = re.compile(r"\{[\w:.-]+\}$")
_MYST_TARGET = re.compile(r"^\([\w.:-]+\)=$")
_DIRECTIVE = re.compile(r"\{([A-Za-z][\w-]*(?::[\w-]+)*)\}[ \t]*(.*)")
_OPTION = re.compile(r":[\w-]+:.*")
_CODE_DIRECTIVES = {"code", "code-block", "code-cell", "sourcecode", "literalinclude"}
_PATH_ARGUMENTS = {"image", "figure", "include", "literalinclude", "toctree"}
_ATTRIBUTE = r"(?:[#.][\w:-]+|[\w-]+=(?:\"[^\"]*\"|'[^']*'|\S+))"
_HEADING_ATTRIBUTES = re.compile(rf"\s*\{{:?\s*{_ATTRIBUTE}(?:\s+{_ATTRIBUTE})*\s*\}}\s*$")
_TAG = re.compile(r"</?([A-Za-z][\w.:-]*)")
_ALT = re.compile(r"""\balt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)
_CONTAINER_MARKERS = re.compile(r"^[ \t]*(?:(?:>|[-*+]|\d{1,9}[.)])(?=[ \t]|$)[ \t]*)*")
"""Blockquote and list markers at the start of a line, however many."""


def decode_markdown(data: bytes, source: str) -> str:
    """Decode UTF-8 (a byte-order mark allowed) and normalize line endings to LF."""
    return decode_text(data, source)


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """Return the front matter's `key: value` fields and the body after it."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    fields: dict[str, str] = {}
    for line in (match.group(1) or "").splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and not line.startswith((" ", "\t", "#")):
            fields[key.strip().lower()] = value.strip().strip("\"'")
    return fields, text[match.end() :]


def parse_markdown(data: bytes, source: str, catalog: Catalog, sha256: str) -> Document:
    """Parse a Markdown (or MDX) file's bytes; front matter is read, not indexed."""
    # control characters go, as every other parser drops them: a log's colour codes would
    # reach the terminal raw and hide the words they wrap from search
    fields, body = split_front_matter(CONTROL.sub("", decode_markdown(data, source)))
    meta = catalog.meta_for(source, fields)
    body, dropped = preprocess(body, mdx=source.lower().endswith(".mdx"))
    builder = DocumentBuilder()
    walker = _Walker(builder, source)
    walker.walk(_MD.parse(body), body.split("\n"))
    title = meta.title or leading_title(builder.blocks) or file_stem(source)
    return finish(builder, source, sha256, replace(meta, title=title), (*dropped, *walker.dropped))


def _inline_text(token: Token) -> str:
    """Return an inline token's text: markup dropped, spaces collapsed, line breaks kept."""
    parts: list[str] = []
    for child in token.children or ():
        if child.type == "code_inline" and parts:
            parts[-1] = _MYST_ROLE.sub("", parts[-1])
        if child.type in ("text", "text_special", "code_inline"):
            parts.append(child.content)
        elif child.type == "softbreak":
            parts.append("\n")  # inline text holds no other newline
        elif child.type == "hardbreak":
            parts.append(_BREAK)
        elif child.type == "image":
            parts.append(_inline_text(child))
        elif child.type == "html_inline":
            parts.append(_inline_html(child.content))
    joined = "".join(parts)
    if _reads_as_lines(joined):
        joined = joined.replace("\n", _BREAK)
    lines = (_SPACES.sub(" ", line).strip() for line in joined.split(_BREAK))
    return "\n".join(line for line in lines if line)


def _reads_as_lines(text: str) -> bool:
    """Whether soft-wrapped text is a list of lines (a chat log, a transcript), not prose.

    Prose wrapped for width reads as one line; but lines with no sentence end among them
    for more than LONG_SENTENCE_WORDS words are the text's only structure, which a retrieval unit
    cut from them must keep (it cuts between lines, else mid-message).
    """
    flat = _SPACES.sub(" ", text.replace(_BREAK, " "))
    if "\n" not in text or count_words(flat) <= LONG_SENTENCE_WORDS:
        return False
    return any(count_words(flat[a:b]) > LONG_SENTENCE_WORDS for a, b in sentence_spans(flat))


def _inline_html(tag: str) -> str:
    """Return what an inline HTML tag contributes to the text a reader sees."""
    match = _TAG.match(tag)
    if not match:
        return ""  # a comment, declaration or processing instruction
    name = match.group(1).lower()
    if name not in HTML_ELEMENTS:
        return tag  # not HTML: text such as <unk> or the <String> of List<String>
    closing = tag.startswith("</")
    if name == "br":
        return _BREAK
    if name == "sup" and not closing:
        return "^"
    if name == "img":
        alt = _ALT.search(tag)
        return f" {next(g for g in alt.groups() if g is not None)} " if alt else ""
    return ""


def _past_nesting_limit(tokens: Sequence[Token], i: int) -> bool:
    """Whether tokens[i] opens a container at markdown-it's nesting limit, left empty.

    Past the limit markdown-it stops reading the container's lines and says nothing, so
    they come back only from the source (`"> " * 5000 + "deep"` would parse to no text).
    """
    token = tokens[i]
    deepest = int(_MD.options.get("maxNesting", 20)) - 1
    closes = i + 1 < len(tokens) and tokens[i + 1].nesting == -1
    return token.nesting == 1 and token.level >= deepest and closes and token.map is not None


def _one_line(text: str) -> str:
    return text.replace("\n", " ")


class _Walker:
    """Turn the flat token stream into blocks, keeping list items and tables whole."""

    def __init__(self, builder: DocumentBuilder, source: str) -> None:
        self.builder = builder
        self.source = source
        self.items: list[list[str]] = []
        self.ordinals: list[int | None] = []
        self.dropped: list[Dropped] = []

    def walk(self, tokens: Sequence[Token], lines: list[str]) -> None:
        """Add the blocks of a token stream parsed from these source lines."""
        i = 0
        while i < len(tokens):
            if _past_nesting_limit(tokens, i):
                self._too_deep(tokens[i], lines)
            i = self._step(tokens, i)
        self._flush_item()

    def _too_deep(self, token: Token, lines: list[str]) -> None:
        """Keep as paragraphs the lines markdown-it left unread past its nesting limit."""
        start, end = token.map or (0, 0)
        self._flush_item()
        for line in lines[start:end]:
            markers = _CONTAINER_MARKERS.match(line)
            cut = markers.end() if markers else 0
            if line[cut:].strip():
                self.builder.add("paragraph", _SPACES.sub(" ", line[cut:]).strip())
            if line[:cut].strip():
                self.dropped.append(Dropped(line[:cut].strip()[:200], "nesting past the limit"))

    def _step(self, tokens: Sequence[Token], i: int) -> int:
        token = tokens[i]
        kind = token.type
        if kind == "heading_open":
            self._flush_item()
            text = _one_line(_inline_text(tokens[i + 1]))
            attributes = _HEADING_ATTRIBUTES.search(text)
            if attributes:
                self.dropped.append(Dropped(attributes.group().strip(), "heading attributes"))
                text = text[: attributes.start()]
            self.builder.heading(text, int(token.tag[1:]))
            return i + 3
        if kind in ("bullet_list_open", "ordered_list_open"):
            self._flush_item()
            start = token.attrGet("start") if kind == "ordered_list_open" else None
            first = int(start) if start is not None else 1
            self.ordinals.append(first if kind == "ordered_list_open" else None)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            self._flush_item()
            self.ordinals.pop()
        elif kind == "list_item_open":
            self._open_item()
        elif kind == "list_item_close":
            self._flush_item()
            self.items.pop()
        elif kind == "inline":
            self._text(_inline_text(token))
        elif kind in ("fence", "code_block"):
            self._flush_item()
            self._code(token)
        elif kind == "html_block":
            self._flush_item()
            self._html(token.content)
        elif kind == "table_open":
            self._flush_item()
            return self._table(tokens, i)
        return i + 1

    def _code(self, token: Token) -> None:
        directive = _DIRECTIVE.fullmatch(token.info.strip()) if token.type == "fence" else None
        if directive and directive.group(1) not in _CODE_DIRECTIVES:
            # A MyST directive such as {note} holds prose, so its body is Markdown.
            name, argument = directive.groups()
            if argument and name not in _PATH_ARGUMENTS:
                self.builder.add("paragraph", argument)
            elif argument:
                self.dropped.append(Dropped(argument, "directive argument"))
            body = self._without_options(token.content)
            self.walk(_MD.parse(body), body.split("\n"))
            return
        content = self._without_options(token.content) if directive else token.content
        self.builder.add("code", content.rstrip())

    def _without_options(self, content: str) -> str:
        """Drop a MyST directive's leading `:option: value` lines (recorded): settings."""
        lines = content.split("\n")
        while lines and _OPTION.fullmatch(lines[0].strip()):
            self.dropped.append(Dropped(lines.pop(0).strip(), "directive option"))
        return "\n".join(lines)

    def _html(self, content: str) -> None:
        names = {m.group(1).lower() for m in _TAG.finditer(content)}
        if names and not names & HTML_ELEMENTS:
            self.builder.add("paragraph", _SPACES.sub(" ", content).strip())  # e.g. <unk>
            return
        if not content.lstrip().startswith("<!--"):
            from policy_assistant.parse.html import add_html_fragment  # lxml only when needed

            self.dropped.extend(add_html_fragment(self.builder, content, self.source))

    def _open_item(self) -> None:
        self._flush_item()
        ordinal = self.ordinals[-1] if self.ordinals else None
        marker = f"{ordinal}. " if ordinal is not None else ""
        if ordinal is not None:
            self.ordinals[-1] = ordinal + 1
        self.items.append([marker])

    def _text(self, text: str) -> None:
        if _MYST_TARGET.match(text):
            self.dropped.append(Dropped(text, "myst target"))
            return
        if not text:
            return
        if self.items:
            self.items[-1].append(text)
        else:
            self.builder.add("paragraph", text)

    def _flush_item(self) -> None:
        if not self.items:
            return
        marker, *parts = self.items[-1]
        if parts:
            self.builder.add("list_item", marker + " ".join(parts))
        self.items[-1] = [""]

    def _table(self, tokens: Sequence[Token], i: int) -> int:
        rows: list[str] = []
        cells: list[str] = []
        while tokens[i].type != "table_close":
            token = tokens[i]
            if token.type == "inline":
                cells.append(_one_line(_inline_text(token)))
            elif token.type == "tr_close":
                rows.append(" | ".join(cells).rstrip())
                cells = []
            i += 1
        self.builder.add("table", "\n".join(rows))
        return i + 1
