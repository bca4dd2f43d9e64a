"""Markdown to blocks with markdown-it-py (CommonMark plus tables); the only markdown-it import."""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.token import Token

from policy_assistant.errors import DocumentError
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.parse.catalog import Catalog
from policy_assistant.records import Document

_MD = MarkdownIt("commonmark").enable("table")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_SPACES = re.compile(r"\s+")
# MyST (Sphinx Markdown), common in real documentation: roles, targets and directives.
_MYST_ROLE = re.compile(r"\{[\w:.-]+\}$")
_MYST_TARGET = re.compile(r"^\([\w.:-]+\)=$")
_CODE_DIRECTIVES = {"code", "code-block", "code-cell", "sourcecode", "literalinclude"}


def decode_markdown(data: bytes, source: str) -> str:
    """Decode UTF-8 (a byte-order mark allowed) and normalize line endings to LF."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentError(
            source, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from exc
    return text.replace("\r\n", "\n").replace("\r", "\n")


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
    """Parse a Markdown file's bytes into a Document; front matter is read, not indexed."""
    fields, body = split_front_matter(decode_markdown(data, source))
    meta = catalog.meta_for(source, fields)
    builder = DocumentBuilder()
    _Walker(builder).walk(_MD.parse(body))
    stem = source.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return builder.build(source, sha256, meta, stem)


def inline_text(token: Token) -> str:
    """Return the plain text of an inline token: markup dropped, whitespace collapsed."""
    parts: list[str] = []
    for child in token.children or ():
        if child.type == "code_inline" and parts:
            parts[-1] = _MYST_ROLE.sub("", parts[-1])
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(inline_text(child))
    return _SPACES.sub(" ", "".join(parts)).strip()


class _Walker:
    """Turn the flat token stream into blocks, keeping list items and tables whole."""

    def __init__(self, builder: DocumentBuilder) -> None:
        self.builder = builder
        self.items: list[list[str]] = []
        self.ordinals: list[int | None] = []

    def walk(self, tokens: Sequence[Token]) -> None:
        i = 0
        while i < len(tokens):
            i = self._step(tokens, i)
        self._flush_item()

    def _step(self, tokens: Sequence[Token], i: int) -> int:
        token = tokens[i]
        kind = token.type
        if kind == "heading_open":
            self._flush_item()
            self.builder.heading(inline_text(tokens[i + 1]), int(token.tag[1:]))
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
            self._text(inline_text(token))
        elif kind in ("fence", "code_block"):
            self._flush_item()
            self._code(token)
        elif kind == "table_open":
            self._flush_item()
            return self._table(tokens, i)
        return i + 1

    def _code(self, token: Token) -> None:
        info = token.info.strip()
        directive = info[1:].partition("}")[0] if info.startswith("{") else ""
        if directive and directive not in _CODE_DIRECTIVES:
            # A MyST directive such as {note} holds prose, so its body is Markdown.
            self.walk(_MD.parse(token.content))
            return
        self.builder.add("code", token.content.rstrip())

    def _open_item(self) -> None:
        self._flush_item()
        ordinal = self.ordinals[-1] if self.ordinals else None
        marker = f"{ordinal}. " if ordinal is not None else ""
        if ordinal is not None:
            self.ordinals[-1] = ordinal + 1
        self.items.append([marker])

    def _text(self, text: str) -> None:
        if not text or _MYST_TARGET.match(text):
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
                cells.append(inline_text(token))
            elif token.type == "tr_close":
                rows.append(" | ".join(cells).rstrip())
                cells = []
            i += 1
        self.builder.add("table", "\n".join(rows))
        return i + 1
