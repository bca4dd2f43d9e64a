"""Frozen records that flow between the stages, with their JSON forms."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Self, TypeGuard, get_args

from policy_assistant.codec import OMIT_EMPTY, OMIT_NONE, from_json_dict, to_json_dict

BlockKind = Literal["heading", "paragraph", "list_item", "table", "code"]
"""What a block is; checked when a block is read from JSON."""
Access = Literal["public", "staff"]
"""Access labels, least restricted first; checked when a record is read from JSON."""
PageBox = tuple[int, float, float, float, float]
"""(page, x0, y0, x1, y1): an area of a 1-based PDF page in points, origin top left, y down,
in the space the page's text was read in (the unrotated page; a page read as shown, turned)."""
ACCESS_LABELS: tuple[Access, ...] = get_args(Access)


def is_access(value: object) -> TypeGuard[Access]:
    """Return whether value is one of ACCESS_LABELS (and tell the type checker so)."""
    return value in ACCESS_LABELS


class _JsonRecord:
    """The JSON form of a dataclass record, through the one codec (codec.py)."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return to_json_dict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """Rebuild a record from its JSON form; CodecError (a ValueError) names a bad field."""
        return from_json_dict(cls, data)


@dataclass(frozen=True, slots=True)
class Block(_JsonRecord):
    """One structural unit of a document's text."""

    kind: BlockKind
    """What the block is."""
    text: str
    """The block's normalized text; a table is rows on lines, cells joined by ' | '."""
    start: int
    """Offset of the first character in Document.text."""
    end: int
    """Offset one past the last character: Document.text[start:end] == text."""
    pages: tuple[int, ...] = ()
    """1-based PDF pages the block spans; empty for Markdown."""
    section: tuple[str, ...] = ()
    """Heading path above the block, outermost first; a heading's path ends with itself."""
    level: int | None = field(default=None, metadata=OMIT_NONE)
    """Heading level (1 is the top); None for other kinds."""
    boxes: tuple[PageBox, ...] = field(default=(), metadata=OMIT_EMPTY)
    """Where the block is: one box a page it spans, in page order; empty for other formats."""


@dataclass(frozen=True, slots=True)
class DocumentMeta:
    """What the catalog (or front matter) says about a document."""

    title: str | None = None
    """Title to use instead of the one found in the document."""
    version: str = "unversioned"
    """Version label, as written by the document's owner."""
    access: Access = "staff"
    """Access label; an unlabelled document is staff (fail closed)."""
    language: str = "en"
    """ISO 639-1 language code."""
    labelled: bool = False
    """Whether an access label was given rather than defaulted."""


@dataclass(frozen=True, slots=True)
class Dropped(_JsonRecord):
    """Text the parser left out of the blocks on purpose, and why: nothing is lost silently."""

    text: str
    """The text as it stood in the file (a line, or a page's text joined by newlines)."""
    reason: str
    """Why it was left out, e.g. "running head", "footer", "page number", "contents page"."""
    page: int | None = None
    """1-based page it stood on; None where the format has no pages."""


@dataclass(frozen=True, slots=True)
class Document(_JsonRecord):
    """A parsed document: its identity, metadata, normalized text and blocks."""

    source: str
    """Corpus-relative POSIX path; the document's ID."""
    title: str
    """Title from the catalog, front matter, first heading or file name."""
    version: str
    """Version label."""
    access: Access
    """Access label."""
    language: str
    """ISO 639-1 language code."""
    sha256: str
    """Hex SHA-256 of the file's bytes."""
    text: str
    """Normalized text: block texts joined by a blank line."""
    pages: tuple[int, ...] = ()
    """Character offset where each PDF page starts; empty for Markdown."""
    blocks: tuple[Block, ...] = field(default=())
    """The blocks, in reading order."""
    dropped: tuple[Dropped, ...] = ()
    """What the parser left out on purpose (furniture, contents pages), with the reason."""
    ocr_pages: tuple[int, ...] = ()
    """1-based pages whose text came from OCR rather than the file's text layer."""
    notes: tuple[str, ...] = ()
    """Parse-summary remarks about this document (e.g. "slide 4: mostly image")."""


@dataclass(frozen=True, slots=True)
class Chunk(_JsonRecord):
    """A piece of one document as the index stores it and the model reads it."""

    id: str
    """16 hex characters from canonical JSON of what defines the chunk."""
    source: str
    """The document's source path."""
    title: str
    """The document's title."""
    version: str
    """The document's version label."""
    access: Access
    """The document's access label."""
    language: str
    """The document's language."""
    chunker: dict[str, Any]
    """The chunker's name and settings: {"name": ..., **settings}."""
    position: int
    """Order of the chunk within its document, from 0."""
    start: int
    """Offset of the body's first character in the document's text."""
    end: int
    """Offset one past the body's last character; text ends with text[start:end]."""
    pages: tuple[int, ...]
    """PDF pages the body touches; empty for Markdown."""
    sections: tuple[tuple[str, ...], ...]
    """Every section path the body touches, in order."""
    text: str
    """The prefix (title, heading path) followed by the body."""
    words: int
    """Words in text, prefix included."""
    sha256: str = ""
    """Hex SHA-256 of the document file's bytes ("" when the producer did not say)."""
    boxes: tuple[PageBox, ...] = field(default=(), metadata=OMIT_EMPTY)
    """Where the body is: per page, the union of its blocks' boxes (whole blocks, also where
    the body starts or ends inside one); empty for other formats."""

    @property
    def prefix_length(self) -> int:
        """Characters of text before the body."""
        return len(self.text) - (self.end - self.start)
