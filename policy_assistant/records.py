"""Frozen records that flow between the stages, with their JSON forms."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

BLOCK_KINDS = ("heading", "paragraph", "list_item", "table", "code")
ACCESS_LABELS = ("public", "staff")


@dataclass(frozen=True, slots=True)
class Block:
    """One structural unit of a document's text."""

    kind: str
    """One of BLOCK_KINDS."""
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
    level: int | None = None
    """Heading level (1 is the top); None for other kinds."""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "text": self.text,
            "start": self.start,
            "end": self.end,
            "pages": list(self.pages),
            "section": list(self.section),
        }
        if self.level is not None:
            out["level"] = self.level
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Block:
        """Rebuild a block from its JSON form."""
        return cls(
            kind=data["kind"],
            text=data["text"],
            start=data["start"],
            end=data["end"],
            pages=tuple(data.get("pages", ())),
            section=tuple(data.get("section", ())),
            level=data.get("level"),
        )


@dataclass(frozen=True, slots=True)
class DocumentMeta:
    """What the catalog (or front matter) says about a document."""

    title: str | None = None
    """Title to use instead of the one found in the document."""
    version: str = "unversioned"
    """Version label, as written by the document's owner."""
    access: str = "staff"
    """Access label; an unlabelled document is staff (fail closed)."""
    language: str = "en"
    """ISO 639-1 language code."""
    labelled: bool = False
    """Whether an access label was given rather than defaulted."""


@dataclass(frozen=True, slots=True)
class Dropped:
    """Text the parser left out of the blocks on purpose, and why: nothing is lost silently."""

    text: str
    """The text as it stood in the file (a line, or a page's text joined by newlines)."""
    reason: str
    """Why it was left out, e.g. "running head", "footer", "page number", "contents page"."""
    page: int | None = None
    """1-based page it stood on; None where the format has no pages."""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {"text": self.text, "reason": self.reason, "page": self.page}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Dropped:
        """Rebuild a record from its JSON form."""
        return cls(text=data["text"], reason=data["reason"], page=data.get("page"))


@dataclass(frozen=True, slots=True)
class Document:
    """A parsed document: its identity, metadata, normalized text and blocks."""

    source: str
    """Corpus-relative POSIX path; the document's ID."""
    title: str
    """Title from the catalog, front matter, first heading or file name."""
    version: str
    """Version label."""
    access: str
    """Access label, one of ACCESS_LABELS."""
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

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {
            "source": self.source,
            "title": self.title,
            "version": self.version,
            "access": self.access,
            "language": self.language,
            "sha256": self.sha256,
            "text": self.text,
            "pages": list(self.pages),
            "blocks": [b.to_dict() for b in self.blocks],
            "dropped": [d.to_dict() for d in self.dropped],
            "ocr_pages": list(self.ocr_pages),
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Document:
        """Rebuild a document from its JSON form."""
        return cls(
            source=data["source"],
            title=data["title"],
            version=data["version"],
            access=data["access"],
            language=data["language"],
            sha256=data["sha256"],
            text=data["text"],
            pages=tuple(data.get("pages", ())),
            blocks=tuple(Block.from_dict(b) for b in data.get("blocks", ())),
            dropped=tuple(Dropped.from_dict(d) for d in data.get("dropped", ())),
            ocr_pages=tuple(data.get("ocr_pages", ())),
            notes=tuple(data.get("notes", ())),
        )


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of one document as the index stores it and the model reads it."""

    id: str
    """16 hex characters from canonical JSON of what defines the chunk."""
    source: str
    """The document's source path."""
    title: str
    """The document's title."""
    version: str
    """The document's version label."""
    access: str
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

    @property
    def prefix_length(self) -> int:
        """Characters of text before the body."""
        return len(self.text) - (self.end - self.start)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {
            "id": self.id,
            "source": self.source,
            "title": self.title,
            "version": self.version,
            "access": self.access,
            "language": self.language,
            "chunker": self.chunker,
            "position": self.position,
            "start": self.start,
            "end": self.end,
            "pages": list(self.pages),
            "sections": [list(s) for s in self.sections],
            "text": self.text,
            "words": self.words,
            "sha256": self.sha256,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Chunk:
        """Rebuild a chunk from its JSON form."""
        return cls(
            id=data["id"],
            source=data["source"],
            title=data["title"],
            version=data["version"],
            access=data["access"],
            language=data["language"],
            chunker=dict(data["chunker"]),
            position=data["position"],
            start=data["start"],
            end=data["end"],
            pages=tuple(data.get("pages", ())),
            sections=tuple(tuple(s) for s in data.get("sections", ())),
            text=data["text"],
            words=data["words"],
            sha256=data.get("sha256", ""),
        )
