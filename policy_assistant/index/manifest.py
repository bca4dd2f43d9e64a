"""The index manifest: settings, the live segments and the statistics search scores with.

writer.py writes it last into each generation as manifest.json; it is small whatever the
corpus (one entry per live segment), so opening an index for search parses little. The
per-document entries live with the segments (entries.py), read only by whoever needs them
(ingest deciding what changed, `ls`, eval's stale check): `Manifest.documents` reads them
on first use.
"""

from __future__ import annotations

import hashlib
import operator
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from policy_assistant import __version__
from policy_assistant.index.segment_build import SegmentInfo
from policy_assistant.index.tokenize import TOKENIZER_SETTINGS
from policy_assistant.records import ACCESS_LABELS, Chunk, Document

if TYPE_CHECKING:
    from policy_assistant.index.entries import SegmentEntries

FORMAT_VERSION = 4
"""Version of the index folder layout; an index in any other is stale.

2: entries read off the chunk records (title, no catalog entry), and file checksums.
3: immutable segments with deletion masks; entries in documents.jsonl, without chunk IDs.
4: entries stored per segment (entries.json) and empty.json, no documents.jsonl."""


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

    def identity(self) -> tuple[str, str, str, str, str]:
        """Return what identifies the document indexed: sha256, title, version, access, language."""
        return (self.sha256, self.title, self.version, self.access, self.language)

    def same_document(self, document: Document) -> bool:
        """Whether a parsed document is the one this entry was made from (bytes and metadata)."""
        doc = document
        return (doc.sha256, doc.title, doc.version, doc.access, doc.language) == self.identity()

    def placed(self, segment: str, first: int, words: int) -> DocumentEntry:
        """Return this entry with its chunks placed at first in segment."""
        return replace(self, segment=segment, first=first, words=words)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return dict(zip(_ENTRY_FIELDS, _ENTRY_ATTRS(self), strict=True))

    @classmethod
    def from_columns(cls, columns: Sequence[Iterable[Any]], count: int) -> list[DocumentEntry]:
        """Return count entries from one iterable per field, in field order (entries.py)."""
        # Each slot filled across all entries by one C-level map: half the cost of count
        # calls of the frozen __init__, which sets each field through object.__setattr__.
        made = list(map(object.__new__, repeat(cls, count)))
        for slot, column in zip(_ENTRY_SLOTS, columns, strict=True):
            deque(map(slot.__set__, made, column), maxlen=0)
        return made

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DocumentEntry:
        """Rebuild an entry from its JSON form."""
        d = data
        if len(d) != len(_ENTRY_FIELDS):
            return cls(**d)  # a foreign key or a missing one: the constructor says which
        return cls(*_ENTRY_VALUES(d))  # positional: 100,000 entries a read


_ENTRY_FIELDS = tuple(f.name for f in fields(DocumentEntry))
_ENTRY_VALUES = operator.itemgetter(*_ENTRY_FIELDS)
_ENTRY_ATTRS = operator.attrgetter(*_ENTRY_FIELDS)
_ENTRY_SLOTS = tuple(DocumentEntry.__dict__[name] for name in _ENTRY_FIELDS)


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
        counts = {"deleted": self.deleted, "deleted_nonempty": self.deleted_nonempty}
        return {**self.info.to_dict(), **counts, "deleted_length": self.deleted_length}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LiveSegment:
        """Rebuild from the JSON form."""
        info = SegmentInfo.from_dict(data)
        counts = (data["deleted"], data["deleted_nonempty"], data["deleted_length"])
        return cls(info, *(int(c) for c in counts))


@dataclass(frozen=True)
class Manifest:
    """Everything needed to tell whether an index is current, and to score its segments."""

    format_version: int
    """FORMAT_VERSION of the writer."""
    tool_version: str
    """policy_assistant.__version__ of the writer."""
    chunker: dict[str, Any]
    """The chunker's name and settings."""
    tokenizer: dict[str, Any]
    """TOKENIZER_SETTINGS the chunks were indexed with."""
    bm25: dict[str, Any]
    """BM25 variant and parameters."""
    segments: tuple[LiveSegment, ...] = ()
    """The live segments, in row order."""
    mean_idf: float = 0.0
    """okapi only: the mean idf over every live term (0 for lucene)."""
    document_count: int = 0
    """Documents indexed (their entries), those without chunks included."""
    access_labels: tuple[str, ...] = ACCESS_LABELS
    """Access labels, least restricted first; a segment's access.npy holds indexes into it."""
    files: dict[str, str] = field(default_factory=dict)
    """Hex SHA-256 of each generation-level file (empty.json, deletion masks, units), by
    POSIX path; each segment's own files are checked through its segment.json's SHA-256."""
    folder: Path | None = field(default=None, compare=False, repr=False)
    """The generation it was read from (where its entries are), None for a new one."""
    given: tuple[DocumentEntry, ...] | None = field(default=None, compare=False, repr=False)
    """Entries of a manifest made in memory (create), not yet written."""

    @classmethod
    def create(
        cls, chunker: dict[str, Any], bm25: dict[str, Any], documents: Sequence[DocumentEntry]
    ) -> Manifest:
        """Return a manifest for this tool version and tokenizer, documents sorted by source."""
        ordered = tuple(sorted(documents, key=lambda d: d.source))
        tokenizer = dict(TOKENIZER_SETTINGS)
        return cls(FORMAT_VERSION, __version__, dict(chunker), tokenizer, dict(bm25), given=ordered)

    @cached_property
    def documents(self) -> tuple[DocumentEntry, ...]:
        """One entry per document, by source (read from the segments' entries on first use)."""
        from policy_assistant.index.entries import read_entries

        if self.given is not None or self.folder is None:
            return self.given or ()
        return read_entries(self.folder, self.segments)

    def documents_through(self, known: SegmentEntries) -> tuple[DocumentEntry, ...]:
        """Return documents, reading the entries of only the segments `known` (a long-lived
        caller's cache: entries.SegmentEntries) does not hold."""
        from policy_assistant.index.entries import read_entries

        if "documents" not in self.__dict__ and self.given is None and self.folder is not None:
            self.__dict__["documents"] = read_entries(self.folder, self.segments, known)
        return self.documents

    @property
    def rows(self) -> int:
        """Live rows (chunks) in the index."""
        return sum(s.live for s in self.segments)

    def with_files(self, files: dict[str, str]) -> Manifest:
        """Return this manifest recording the checksums of the generation's files."""
        return replace(self, files=dict(sorted(files.items())))

    def with_segments(
        self, segments: Sequence[LiveSegment], mean_idf: float, count: int
    ) -> Manifest:
        """Return this manifest holding these live segments and statistics."""
        return replace(self, segments=tuple(segments), mean_idf=mean_idf, document_count=count)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        del data["folder"], data["given"]
        data["segments"] = [s.to_dict() for s in self.segments]
        data["access_labels"] = list(self.access_labels)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], folder: Path | None = None) -> Manifest:
        """Rebuild a manifest from its JSON form."""
        segments = tuple(LiveSegment.from_dict(s) for s in data["segments"])
        labels = tuple(data["access_labels"])
        return cls(**{**data, "segments": segments, "access_labels": labels}, folder=folder)
