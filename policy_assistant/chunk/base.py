"""The chunker base class and what every chunker shares: checks, prefixes and chunk records.

A chunker turns one Document into Chunks. Every chunk's body is `doc.text[start:end]` exactly,
starting and ending on a word; its text is an optional prefix (title, heading path) followed by
the body, and its `words` counts the whole text, prefix included, because a budget counts what
the model reads.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

from policy_assistant.boxes import on_pages
from policy_assistant.errors import UsageError
from policy_assistant.ids import content_id
from policy_assistant.records import Block, Chunk, Document
from policy_assistant.sentences import bounded_spans
from policy_assistant.text import UNSPACED_WORD, count_words, has_unspaced

PATH_SEPARATOR = " > "
"""Joins the heading path in a prefix: "Coverage > Exclusions"."""


class Chunker(ABC):
    """Split documents into chunks; settings are checked when the chunker is made."""

    name: ClassVar[str]
    """The name the registry and the command line know the chunker by."""
    setting_names: ClassVar[tuple[str, ...]]
    """The settings the constructor takes, in the order they are shown."""

    def settings(self) -> dict[str, int]:
        """Return the effective settings, defaults included, in setting_names order."""
        return {name: int(getattr(self, name)) for name in self.setting_names}

    def spec(self) -> dict[str, Any]:
        """Return the name and settings, as stored in every chunk's `chunker` field."""
        return {"name": self.name, **self.settings()}

    @abstractmethod
    def chunk(self, doc: Document) -> list[Chunk]:
        """Return the chunks of one document, in order; an empty document gives none."""


def check_positive(name: str, value: object) -> int:
    """Return value if it is a whole number of at least 1, else raise UsageError."""
    return _check_int(name, value, 1)


def check_not_negative(name: str, value: object) -> int:
    """Return value if it is a whole number of at least 0, else raise UsageError."""
    return _check_int(name, value, 0)


def _check_int(name: str, value: object, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{name} must be a whole number, got {value!r}")
    if value < least:
        word = "positive" if least == 1 else "zero or more"
        raise UsageError(f"{name} must be {word}, got {value}")
    return value


@lru_cache(maxsize=64)
def window_pattern(step: int, overlap: int, unspaced: bool = False) -> re.Pattern[str]:
    """Return a pattern matching `step` words, capturing the next `overlap` words ahead.

    Words are those of text.word_spans: in text holding a script written without spaces
    (unspaced, text.has_unspaced), each of its characters is one and words need no space
    between them. Possessive quantifiers: a word run never needs to give characters back, and
    not keeping backtracking state is what makes the scan fast.
    """
    word, gap = (f"(?:{UNSPACED_WORD})", r"\s*+") if unspaced else (r"\S++", r"\s++")
    ahead = rf"(?=((?:{gap}{word}){{0,{overlap}}}+))"
    return re.compile(rf"{word}(?:{gap}{word}){{0,{step - 1}}}+{ahead}")


def word_runs(text: str, start: int, end: int, size: int) -> list[tuple[int, int, int]]:
    """Split text[start:end] into runs of `size` words: (start, end, words) each; text with
    line breaks into runs of whole lines of at most `size` words, where its lines allow."""
    if "\n" in text[start:end]:
        # a chat log or a list without punctuation: its lines are its only structure, which
        # a cut every `size` words would break mid-message
        spans = bounded_spans(text, [(start, end)], size, size)
        return [(s, e, count_words(text[s:e])) for s, e in spans]
    pattern = window_pattern(size, 0, has_unspaced(text, start, end))
    runs = [(m.start(), m.end(), size) for m in pattern.finditer(text, start, end)]
    if runs:
        first, last, _ = runs[-1]
        runs[-1] = (first, last, count_words(text[first:last]))
    return runs


def body_blocks(doc: Document) -> tuple[Block, ...]:
    """Return the document's blocks, or one paragraph over its text if it has words but none."""
    if doc.blocks or not doc.text.strip():
        return doc.blocks
    start = len(doc.text) - len(doc.text.lstrip())
    end = len(doc.text.rstrip())
    return (Block("paragraph", doc.text[start:end], start, end),)


def block_word_start(block: Block) -> int:
    """Return the offset of the block's first word (builders keep leading indentation)."""
    text = block.text
    if text[:1].isspace():
        return block.start + len(text) - len(text.lstrip())
    return block.start


def pack_by_section(
    blocks: tuple[Block, ...], add_block: Callable[[int], None], flush: Callable[[], None]
) -> None:
    """Feed every section's blocks, by index, to a packer, and flush it at each section's end."""
    for run in section_runs(blocks):
        for index in run:
            add_block(index)
        flush()


def section_runs(blocks: tuple[Block, ...]) -> list[range]:
    """Return index ranges of sections: a heading and the blocks up to the next heading.

    Blocks before the first heading form a section of their own. A section holding nothing but
    headings joins the next one when that is one of its subsections, so a parent heading travels
    with its first subsection instead of standing alone as a chunk.
    """
    runs: list[range] = []
    first = 0
    only_headings = True
    last_level = 0
    for i, block in enumerate(blocks):
        if block.kind == "heading":
            level = block.level or 1
            if i > first and not (only_headings and level > last_level):
                runs.append(range(first, i))
                first = i
                only_headings = True
            last_level = level
        else:
            only_headings = False
    if blocks:
        runs.append(range(first, len(blocks)))
    return runs


@dataclass(frozen=True, slots=True)
class Prefix:
    """What goes in front of a body: its text and how many words it holds."""

    text: str
    words: int


NO_PREFIX = Prefix("", 0)


class Prefixer:
    """Build the title and heading-path prefix of section-aware chunks, cached per path.

    The title always leads, unless the body itself opens with the title heading. The heading
    path follows when the body does not itself open with its section's heading; a leading path
    element equal to the title is not repeated. The prefix never takes more than half of the
    word cap: past that the path is dropped, then the title.
    """

    def __init__(self, doc: Document, max_words: int) -> None:
        self._title = doc.title.strip()
        self._limit = max_words // 2
        self._cache: dict[tuple[tuple[str, ...], bool], Prefix] = {}

    def at(self, block: Block, at_block_start: bool) -> Prefix:
        """Return the prefix of a chunk whose body starts in `block` (at its start or not)."""
        path = block.section
        opens_with_title = False
        if at_block_start and block.kind == "heading":
            path = path[:-1]
            opens_with_title = not path and block.text.strip() == self._title
        if path and path[0] == self._title:
            path = path[1:]
        key = (path, opens_with_title)
        prefix = self._cache.get(key)
        if prefix is None:
            prefix = self._build(path, opens_with_title)
            self._cache[key] = prefix
        return prefix

    def widest(self, block: Block) -> int:
        """Return the most words the prefix of a chunk starting in block takes (at its start
        or inside it): a piece of the block cut to fit behind one must fit behind both."""
        return max(self.at(block, True).words, self.at(block, False).words)

    def _build(self, path: tuple[str, ...], opens_with_title: bool) -> Prefix:
        lines = [] if opens_with_title or not self._title else [self._title]
        if path:
            lines.append(PATH_SEPARATOR.join(path))
        while lines:
            text = "\n".join(lines) + "\n\n"
            words = count_words(text)
            if words <= self._limit:
                return Prefix(text, words)
            lines.pop()
        return NO_PREFIX


class ChunkEmitter:
    """Turn body spans of one document into Chunk records with pages, sections and IDs."""

    def __init__(self, doc: Document, spec: dict[str, Any], blocks: tuple[Block, ...]) -> None:
        self._doc = doc
        self._spec = spec
        self._blocks = blocks
        self._block_starts = [b.start for b in blocks]
        self._cursor = 0
        self._seen: dict[str, int] = {}
        self.chunks: list[Chunk] = []

    def emit(self, start: int, end: int, prefix: Prefix, body_words: int | None = None) -> None:
        """Add the chunk whose body is doc.text[start:end], behind `prefix`."""
        doc = self._doc
        body = doc.text[start:end]
        text = prefix.text + body if prefix.text else body
        words = prefix.words + (count_words(body) if body_words is None else body_words)
        # Identical text twice in one document (a repeated notice) still gets two IDs.
        occurrence = self._seen.get(text, 0)
        self._seen[text] = occurrence + 1
        identity = {"source": doc.source, "chunker": self._spec, "text": text, "n": occurrence}
        touched = self._touched(start, end)
        pages = self._pages(start, end, touched)
        self.chunks.append(
            Chunk(
                id=content_id(identity),
                source=doc.source,
                title=doc.title,
                version=doc.version,
                access=doc.access,
                language=doc.language,
                chunker=self._spec,
                position=len(self.chunks),
                start=start,
                end=end,
                pages=pages,
                sections=tuple(dict.fromkeys(b.section for b in touched)),
                text=text,
                words=words,
                sha256=doc.sha256,
                # Whole blocks' boxes, on the pages the body touches: a body that starts
                # or ends inside a block is not cut to its first or last line.
                boxes=on_pages((box for b in touched for box in b.boxes), pages),
            )
        )

    def _touched(self, start: int, end: int) -> tuple[Block, ...]:
        """Return the blocks that [start, end) overlaps.

        Chunks come in document order, so a cursor walks forward from the last chunk's first
        block: the work per chunk does not grow with the document, as a search would.
        """
        starts = self._block_starts
        count = len(starts)
        first = self._cursor
        if first >= count or starts[first] > start:
            first = max(bisect_right(starts, start) - 1, 0)
        while first + 1 < count and starts[first + 1] <= start:
            first += 1
        self._cursor = first
        last = first
        while last < count and starts[last] < end:
            last += 1
        return self._blocks[first:last]

    def _pages(self, start: int, end: int, touched: tuple[Block, ...]) -> tuple[int, ...]:
        starts = self._doc.pages
        if starts:
            # Page k (1-based) starts at starts[k - 1]: exact even inside a block that spans pages.
            first = max(bisect_right(starts, start), 1)
            last = max(bisect_right(starts, end - 1), first)
            return tuple(range(first, last + 1))
        return tuple(sorted({p for b in touched for p in b.pages}))
