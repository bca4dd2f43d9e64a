"""The index manifest: what an index holds and the settings it was built with.

writer.py writes it last into each generation as manifest.json; reader.py reads it
back, and a pipeline compares its documents' hashes to decide what to reuse.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from policy_assistant import __version__
from policy_assistant.index.tokenize import TOKENIZER_SETTINGS
from policy_assistant.records import ACCESS_LABELS, Chunk, Document

FORMAT_VERSION = 2
"""Version of the index folder layout; an index in any other is stale."""


@dataclass(frozen=True, slots=True)
class DocumentEntry:
    """What the manifest keeps about one document: all of it read off its chunk records.

    Chunk records carry everything here, so an index built from `chunk --json` output and one
    built by `ingest` from the same corpus hold the same entries, byte for byte.
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
    chunk_ids: tuple[str, ...]
    """IDs of the document's chunks, by position."""

    @classmethod
    def from_document(cls, document: Document, chunk_ids: Sequence[str]) -> DocumentEntry:
        """Return the entry for a parsed document and the IDs of its chunks."""
        doc = document
        return cls(
            doc.source,
            doc.sha256,
            doc.title,
            doc.version,
            doc.access,
            doc.language,
            tuple(chunk_ids),
        )

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
        return cls(first.source, *meta, tuple(c.id for c in chunks))

    def same_document(self, document: Document) -> bool:
        """Whether a parsed document is the one this entry was made from (bytes and metadata)."""
        doc = document
        return (doc.sha256, doc.title, doc.version, doc.access, doc.language) == (
            self.sha256,
            self.title,
            self.version,
            self.access,
            self.language,
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {**asdict(self), "chunk_ids": list(self.chunk_ids)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DocumentEntry:
        """Rebuild an entry from its JSON form."""
        return cls(**{**data, "chunk_ids": tuple(data["chunk_ids"])})


@dataclass(frozen=True, slots=True)
class Manifest:
    """Everything needed to tell whether an index is current, and what it holds."""

    format_version: int
    """FORMAT_VERSION of the writer."""
    tool_version: str
    """policy_assistant.__version__ of the writer."""
    chunker: dict[str, Any]
    """The chunker's name and settings."""
    tokenizer: dict[str, Any]
    """TOKENIZER_SETTINGS the chunks were indexed with."""
    bm25: dict[str, Any]
    """BM25 variant and parameters (BM25Index.params())."""
    documents: tuple[DocumentEntry, ...]
    """One entry per document, by source; their chunks are the index rows, in this order."""
    access_labels: tuple[str, ...] = ACCESS_LABELS
    """Access labels, least restricted first; chunk_access.npy holds indexes into it."""

    @classmethod
    def create(
        cls, chunker: dict[str, Any], bm25: dict[str, Any], documents: Sequence[DocumentEntry]
    ) -> Manifest:
        """Return a manifest for this tool version and tokenizer, documents sorted by source."""
        ordered = tuple(sorted(documents, key=lambda d: d.source))
        tokenizer = dict(TOKENIZER_SETTINGS)
        return cls(FORMAT_VERSION, __version__, dict(chunker), tokenizer, dict(bm25), ordered)

    @property
    def chunk_ids(self) -> list[str]:
        """Every chunk ID, in row order."""
        return [chunk_id for doc in self.documents for chunk_id in doc.chunk_ids]

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        documents = [d.to_dict() for d in self.documents]
        return {**asdict(self), "documents": documents, "access_labels": list(self.access_labels)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Manifest:
        """Rebuild a manifest from its JSON form."""
        documents = tuple(DocumentEntry.from_dict(d) for d in data["documents"])
        labels = tuple(data["access_labels"])
        return cls(**{**data, "documents": documents, "access_labels": labels})
