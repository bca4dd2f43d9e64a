"""The index manifest: what an index holds and the settings it was built with.

writer.py writes it last into each generation as manifest.json; reader.py reads it
back, and a pipeline compares its documents' hashes to decide what to reuse.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from policy_assistant import __version__
from policy_assistant.index.tokenize import TOKENIZER_SETTINGS
from policy_assistant.records import ACCESS_LABELS, Document

FORMAT_VERSION = 1
"""Version of the index folder layout; an index in any other is stale."""


@dataclass(frozen=True, slots=True)
class DocumentEntry:
    """What the manifest keeps about one document, to tell whether it changed."""

    source: str
    """Corpus-relative POSIX path."""
    sha256: str
    """Hex SHA-256 of the file's bytes when it was indexed."""
    version: str
    """Version label."""
    access: str
    """Access label."""
    language: str
    """ISO 639-1 language code."""
    chunk_ids: tuple[str, ...]
    """IDs of the document's chunks, by position."""
    catalog: dict[str, Any] = field(default_factory=dict)
    """The document's catalog entry as it was when indexed ({} when it had none)."""

    @classmethod
    def from_document(
        cls, document: Document, chunk_ids: Sequence[str], catalog: dict[str, Any] | None = None
    ) -> DocumentEntry:
        """Return the entry for a parsed document, the IDs of its chunks and its catalog entry."""
        doc, ids = document, tuple(chunk_ids)
        return cls(
            doc.source, doc.sha256, doc.version, doc.access, doc.language, ids, catalog or {}
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
