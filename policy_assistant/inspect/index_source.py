"""Chunks from an index on disk: what was indexed, drawn over the document parsed again.

The index keeps chunks, not documents, so the document is parsed from the corpus again; the
manifest's SHA-256 of each file tells whether that is still the file that was indexed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policy_assistant.errors import BadIndex
from policy_assistant.index import ingest_hint, load_chunks, load_manifest
from policy_assistant.inspect.variants import Variant
from policy_assistant.records import Chunk, Document


@dataclass(frozen=True, slots=True)
class IndexSource:
    """An index's chunks by document, with its chunker spec and the files it was built from."""

    folder: Path
    """The index folder."""
    spec: dict[str, Any]
    """The chunker spec the index was built with."""
    sha256: dict[str, str]
    """SHA-256 of each indexed file, by source."""
    chunks: dict[str, tuple[Chunk, ...]]
    """The index's chunks, by source, in position order."""

    def variant(self, doc: Document) -> Variant:
        """Return the index's chunks of `doc`; BadIndex when the index does not match it."""
        if doc.source not in self.sha256:
            raise BadIndex(f"the index at {self.folder} holds no document {doc.source}")
        if self.sha256[doc.source] != doc.sha256:
            raise BadIndex(
                f"{doc.source} changed since the index at {self.folder} was built: "
                f"{ingest_hint(self.folder)}"
            )
        chunks = self.chunks.get(doc.source, ())
        name = str(self.spec.get("name", "index"))
        return Variant(name, dict(self.spec), chunks, origin="index")


def open_index_source(folder: Path) -> IndexSource:
    """Read an index's manifest and chunks; BadIndex says what to run when it is missing."""
    manifest = load_manifest(folder)
    by_source: dict[str, list[Chunk]] = {}
    for chunk in load_chunks(folder):
        by_source.setdefault(chunk.source, []).append(chunk)
    return IndexSource(
        folder,
        dict(manifest.chunker),
        {entry.source: entry.sha256 for entry in manifest.documents},
        {s: tuple(sorted(c, key=lambda k: k.position)) for s, c in by_source.items()},
    )
