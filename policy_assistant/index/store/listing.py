"""What an index holds: its documents, and any one chunk by ID (`ls` and `show`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from policy_assistant.codec import to_json_dict
from policy_assistant.errors import PolicyAssistantError
from policy_assistant.index.store.reader import LoadedIndex, load_entries
from policy_assistant.records import Chunk


@dataclass(frozen=True, slots=True)
class DocumentListing:
    """One document of an index, as `ls` shows it."""

    source: str
    """Corpus-relative path: the document's ID."""
    title: str
    """Its title."""
    version: str
    """Its version label."""
    access: str
    """Its access label."""
    language: str
    """Its language code."""
    chunks: int
    """Chunks it has in the index."""
    words: int
    """Words in those chunks, prefixes included."""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return to_json_dict(self)


def list_documents(index: LoadedIndex) -> list[DocumentListing]:
    """Return every document of the index, by source (read from its entries, not its chunks)."""
    return [
        DocumentListing(e.source, e.title, e.version, e.access, e.language, e.chunks, e.words)
        for e in load_entries(index.index_dir, index.manifest)
    ]


def find_chunk(index: LoadedIndex, chunk_id: str) -> Chunk:
    """Return the chunk with this ID; an error naming it when the index has none."""
    found = index.find(chunk_id)
    if found is None:
        raise PolicyAssistantError(f"no chunk {chunk_id!r} in the index at {index.index_dir}")
    return found
