"""What a manifest records of each document and of each live segment."""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from itertools import repeat
from typing import Any

from policy_assistant.index.chunks.segment_build import SegmentInfo
from policy_assistant.records import Chunk, Document


def ids_digest(chunk_ids: Sequence[str]) -> str:
    """Return the 16-hex digest of a document's chunk IDs, in position order."""
    return hashlib.sha256("\n".join(chunk_ids).encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class DocumentEntry:
    """What the index keeps about one document: all of it read off its chunk records.

    Equality is the document's identity (bytes, metadata, chunk IDs); where its chunks sit
    (segment, first) and their words do not take part.
    """

    source: str
    """Corpus-relative POSIX path."""
    sha256: str
    """Hex SHA-256 of the file's bytes when it was indexed ("" when the chunks did not say)."""
    title: str
    """The document's title, as its chunks carry it."""
    version: str
    """Version label."""
    access: str
    """Access label."""
    language: str
    """ISO 639-1 language code."""
    chunks: int
    """How many chunks it has."""
    digest: str
    """ids_digest of its chunk IDs, by position."""
    words: int = field(default=0, compare=False)
    """Words in its chunks, prefixes included."""
    segment: str = field(default="", compare=False)
    """The segment holding its chunks ("" when it has none)."""
    first: int = field(default=0, compare=False)
    """Its first chunk's row in that segment; the others follow, by position."""

    @classmethod
    def from_document(cls, document: Document, chunk_ids: Sequence[str]) -> DocumentEntry:
        """Return the entry for a parsed document and the IDs of its chunks."""
        doc = document
        meta = (doc.sha256, doc.title, doc.version, doc.access, doc.language)
        return cls(doc.source, *meta, len(chunk_ids), ids_digest(chunk_ids))

    @classmethod
    def from_chunks(cls, chunks: Sequence[Chunk]) -> DocumentEntry:
        """Return the entry of one document's chunks (in position order); ValueError if mixed."""
        first = chunks[0]
        meta = (first.sha256, first.title, first.version, first.access, first.language)
        for chunk in chunks:
            if chunk.source != first.source:
                raise ValueError(f"chunks of {first.source} and {chunk.source} in one entry")
            if (chunk.sha256, chunk.title, chunk.version, chunk.access, chunk.language) != meta:
                raise ValueError(f"{first.source}: its chunks disagree on the document's metadata")
        digest = ids_digest([c.id for c in chunks])
        return cls(first.source, *meta, len(chunks), digest, sum(c.words for c in chunks))

    def same_document(self, document: Document) -> bool:
        """Whether a parsed document is the one this entry was made from (bytes and metadata)."""
        doc = document
        mine = (self.sha256, self.title, self.version, self.access, self.language)
        return (doc.sha256, doc.title, doc.version, doc.access, doc.language) == mine

    def placed(self, segment: str, first: int, words: int) -> DocumentEntry:
        """Return this entry with its chunks placed at first in segment."""
        return replace(self, segment=segment, first=first, words=words)

    @classmethod
    def from_columns(cls, columns: Sequence[Iterable[Any]], count: int) -> list[DocumentEntry]:
        """Return count entries from one iterable per field, in field order (entries.py)."""
        # Each slot filled across all entries by one C-level map: half the cost of count
        # calls of the frozen __init__, which sets each field through object.__setattr__.
        made = list(map(object.__new__, repeat(cls, count)))
        for slot, column in zip(_ENTRY_SLOTS, columns, strict=True):
            deque(map(slot.__set__, made, column), maxlen=0)
        return made


_ENTRY_SLOTS = tuple(DocumentEntry.__dict__[f.name] for f in fields(DocumentEntry))


@dataclass(frozen=True, slots=True)
class LiveSegment:
    """A segment of a generation and what of it is deleted there."""

    info: SegmentInfo
    """The segment itself, as it was written."""
    deleted: int = 0
    """Rows deleted (replaced or removed chunks); their mask is deleted/<name>.npy."""
    deleted_nonempty: int = 0
    """Of those, rows with at least one term."""
    deleted_length: int = 0
    """Terms in the deleted rows."""

    @property
    def live(self) -> int:
        """Rows not deleted."""
        return self.info.rows - self.deleted

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        # Hand-written: the segment's fields flattened beside the deleted counts, not nested.
        counts = {"deleted": self.deleted, "deleted_nonempty": self.deleted_nonempty}
        return {**self.info.to_dict(), **counts, "deleted_length": self.deleted_length}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LiveSegment:
        """Rebuild from the JSON form."""
        # Hand-written: reads the flattened form to_dict writes.
        info = SegmentInfo.from_dict(data)
        counts = (data["deleted"], data["deleted_nonempty"], data["deleted_length"])
        return cls(info, *(int(c) for c in counts))
