"""Chunks made by any tool, read from JSON lines and placed in the parsed documents' text.

Each line is an object with `source` (a document of the corpus) and `text`. A record that also
has `start` and `end` gives its body's offsets into the parsed text (`Document.text`, as
`parse --json` writes it); its `text` must end with `text[start:end]`, as our own chunks' do.
A record with only `text` is located in its document: exactly, else after collapsing whitespace,
searching past where the document's previous chunk starts, then from the beginning. A record that
cannot be found is kept (the index still ranks it, so budgets fill as that tool's would) with an
empty span, so it is relevant to nothing; the count goes into a warning and the report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policy_assistant.errors import PolicyAssistantError
from policy_assistant.evaluate.locate import CollapsedText, collapse_whitespace
from policy_assistant.ids import content_id
from policy_assistant.jsonio import JSONDecodeError, loads
from policy_assistant.records import Chunk, Document
from policy_assistant.text import count_words

ROW_PREFIX = "chunks:"
"""Row names of chunk files: chunks:<file name>."""


class ChunkRecordsError(PolicyAssistantError):
    """A chunk file that cannot be used: which file, which line, what is wrong."""


@dataclass(frozen=True)
class ChunkFile:
    """One file's chunks, placed in the parsed documents."""

    name: str
    """Row name: chunks:<file name>."""
    spec: dict[str, Any]
    """What the report records as this variant's chunker."""
    chunks: tuple[Chunk, ...]
    """The chunks, document by document in the corpus's order, each in file order."""
    unplaced: int
    """Text-only records that could not be found in their document's text."""

    def warning(self) -> str | None:
        """Return the line saying how many records could not be placed, if any."""
        if not self.unplaced:
            return None
        return (
            f"{self.spec['file']}: {self.unplaced} of {len(self.chunks)} chunks could not be "
            "placed in their document's text; they are searched but relevant to nothing"
        )


class Placer:
    """Locate text-only records in one document, each after the one before."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.cursor = 0
        self._collapsed: CollapsedText | None = None

    def place(self, text: str, hint: int | None = None) -> tuple[int, int] | None:
        """Return the span of text: at `hint` if it lies there, else searched for after the last."""
        body = self.document.text
        if hint is not None and text and body.startswith(text, hint):
            exact = hint
        else:
            exact = body.find(text, self.cursor)
        if exact < 0:
            exact = body.find(text)
        found: tuple[int, int] | None
        if exact >= 0 and text:
            found = (exact, exact + len(text))
        else:
            found = self._loose(collapse_whitespace(text))
        if found is not None:
            # The next chunk starts after this one's start: a repeated text is the next copy.
            self.cursor = found[0] + 1
        return found

    def _loose(self, quote: str) -> tuple[int, int] | None:
        if not quote:
            return None
        if self._collapsed is None:
            self._collapsed = CollapsedText.of(self.document.text)
        spans = self._collapsed.find_all(quote)
        after = [s for s in spans if s[0] >= self.cursor]
        return (after or spans)[0] if spans else None


def load_chunk_file(path: Path, documents: Sequence[Document]) -> ChunkFile:
    """Read one chunk file and place its records; ChunkRecordsError names a bad line."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ChunkRecordsError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    by_source = {d.source: d for d in documents}
    placers: dict[str, Placer] = {}
    made: dict[str, list[Chunk]] = {}
    unplaced = 0
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path.name}:{number}"
        raw = record(line, where)
        document = by_source.get(raw["source"])
        if document is None:
            raise ChunkRecordsError(f"{where}: source {raw['source']!r} is not in the corpus")
        own = made.setdefault(document.source, [])
        span, text = _body_span(raw, document, placers, where)
        unplaced += span is None
        own.append(_make_chunk(raw, document, text, span or (0, 0), len(own), path.name))
    chunks = tuple(c for d in documents for c in made.get(d.source, []))
    if not chunks:
        raise ChunkRecordsError(f"{path}: no chunk records")
    _check_ids(chunks, path)
    spec = {"name": "chunks", "file": path.name, "unplaced": unplaced}
    return ChunkFile(f"{ROW_PREFIX}{path.name}", spec, chunks, unplaced)


def record(line: bytes, where: str) -> dict[str, Any]:
    """Return one record's fields, checked for type."""
    try:
        raw = loads(line)
    except JSONDecodeError as exc:
        raise ChunkRecordsError(f"{where}: not valid JSON ({exc})") from None
    if not isinstance(raw, dict):
        raise ChunkRecordsError(f"{where}: expected a JSON object")
    for name in ("source", "text"):
        if not isinstance(raw.get(name), str) or not raw[name]:
            raise ChunkRecordsError(f"{where}: a chunk record needs {name} (non-empty text)")
    offsets = [raw.get("start"), raw.get("end")]
    if offsets.count(None) == 1:
        raise ChunkRecordsError(f"{where}: give both start and end, or neither")
    if offsets[0] is not None and not all(
        isinstance(n, int) and not isinstance(n, bool) for n in offsets
    ):
        raise ChunkRecordsError(f"{where}: start and end must be whole numbers")
    return raw


def _body_span(
    raw: dict[str, Any], document: Document, placers: dict[str, Placer], where: str
) -> tuple[tuple[int, int] | None, str]:
    """Return the body's span (None when it cannot be placed) and the chunk's text."""
    text: str = raw["text"]
    if raw.get("start") is None:
        placer = placers.setdefault(document.source, Placer(document))
        span = placer.place(text)
        # A loose match differs from the parsed text only in whitespace: store the parsed
        # body, so the text ends with text[start:end] as every chunk's does (same words).
        return span, text if span is None else document.text[span[0] : span[1]]
    start, end = raw["start"], raw["end"]
    if not 0 <= start <= end <= len(document.text):
        raise ChunkRecordsError(
            f"{where}: start {start} and end {end} are not a span of {document.source}'s "
            f"parsed text ({len(document.text)} characters)"
        )
    if not text.endswith(document.text[start:end]):
        raise ChunkRecordsError(
            f"{where}: text does not end with {document.source}'s parsed text[{start}:{end}]"
        )
    return (start, end), text


def _make_chunk(
    raw: dict[str, Any],
    document: Document,
    text: str,
    span: tuple[int, int],
    position: int,
    file_name: str,
) -> Chunk:
    """Return the record as a Chunk: the document's metadata, access above all, not the record's."""
    given = raw.get("id")
    ident = (
        given
        if isinstance(given, str) and given
        else content_id([file_name, document.source, position, text])
    )
    pages, sections = _where_in(document, span)
    return Chunk(
        id=ident,
        source=document.source,
        title=document.title,
        version=document.version,
        access=document.access,
        language=document.language,
        chunker={"name": "chunks", "file": file_name},
        position=position,
        start=span[0],
        end=span[1],
        pages=pages,
        sections=sections,
        text=text,
        words=count_words(text),
        sha256=document.sha256,
    )


def _where_in(
    document: Document, span: tuple[int, int]
) -> tuple[tuple[int, ...], tuple[tuple[str, ...], ...]]:
    """Return the pages and section paths of the blocks a span overlaps."""
    pages: list[int] = []
    sections: list[tuple[str, ...]] = []
    for block in document.blocks:
        if block.start < span[1] and span[0] < block.end:
            pages += [p for p in block.pages if p not in pages]
            if block.section and tuple(block.section) not in sections:
                sections.append(tuple(block.section))
    return tuple(sorted(pages)), tuple(sections)


def _check_ids(chunks: Sequence[Chunk], path: Path) -> None:
    """Raise unless every chunk's ID is used once."""
    seen: set[str] = set()
    for chunk in chunks:
        if chunk.id in seen:
            raise ChunkRecordsError(f"{path}: chunk id {chunk.id!r} is used twice")
        seen.add(chunk.id)
