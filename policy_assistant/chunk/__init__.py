"""Chunkers: the registry, and chunking a stream of documents.

Four chunkers, each a class in the registry under its name:
- `fixed`: windows of `size` words, one after the other.
- `overlapping`: windows of `size` words, each `size - overlap` words after the one before.
- `structure`: one chunk per section under `max_words`; tables whole up to `max_table_words`.
- `sentence`: whole sentences up to `max_words` within a section, `overlap_sentences` repeated.

One more needs an embedding model, so it is registered apart (MODEL_CHUNKERS) and made with an
encoder by its caller (eval): `semantic`, a new chunk where the embedding distance between
neighbouring sentences jumps above a percentile, up to `max_words`, tables whole.

A chunk never crosses documents, so it never mixes access labels or versions.
"""

from __future__ import annotations

from collections.abc import Iterable

from policy_assistant.chunk.base import Chunker
from policy_assistant.chunk.quality import Quality, corpus_quality, quality
from policy_assistant.chunk.semantic import (
    DEFAULT_BUFFER,
    DEFAULT_PERCENTILE,
    SemanticChunker,
    SentenceEncoder,
)
from policy_assistant.chunk.sentence import DEFAULT_OVERLAP_SENTENCES, SentenceChunker
from policy_assistant.chunk.structure import (
    DEFAULT_MAX_TABLE_WORDS,
    DEFAULT_MAX_WORDS,
    StructureChunker,
)
from policy_assistant.chunk.windows import (
    DEFAULT_OVERLAP,
    DEFAULT_SIZE,
    FixedChunker,
    OverlappingChunker,
)
from policy_assistant.errors import UsageError
from policy_assistant.records import Chunk, Document

CHUNKERS: dict[str, type[Chunker]] = {
    cls.name: cls for cls in (FixedChunker, OverlappingChunker, StructureChunker, SentenceChunker)
}
"""Every chunker by name that needs nothing but its settings."""

MODEL_CHUNKERS: dict[str, type[Chunker]] = {SemanticChunker.name: SemanticChunker}
"""Chunkers that need an embedding model (an encoder set on them before they chunk)."""

DEFAULT_CHUNKER = "structure"
"""The chunker used when none is named."""


def make_chunker(name: str, **settings: int) -> Chunker:
    """Return the chunker `name` with `settings`; UsageError says what is wrong with either."""
    cls = CHUNKERS.get(name) or MODEL_CHUNKERS.get(name)
    if cls is None:
        known = ", ".join([*CHUNKERS, *MODEL_CHUNKERS])
        raise UsageError(f"unknown chunker {name!r}; choose one of {known}")
    unknown = [key for key in settings if key not in cls.setting_names]
    if unknown:
        takes = ", ".join(cls.setting_names)
        raise UsageError(f"the {name} chunker takes {takes}; it does not take {', '.join(unknown)}")
    return cls(**settings)


def chunk_documents(docs: Iterable[Document], chunker: Chunker) -> list[Chunk]:
    """Return the chunks of every document, document by document, in order."""
    chunks: list[Chunk] = []
    for doc in docs:
        chunks.extend(chunker.chunk(doc))
    return chunks


__all__ = [
    "CHUNKERS",
    "DEFAULT_BUFFER",
    "DEFAULT_CHUNKER",
    "DEFAULT_MAX_TABLE_WORDS",
    "DEFAULT_MAX_WORDS",
    "DEFAULT_OVERLAP",
    "DEFAULT_OVERLAP_SENTENCES",
    "DEFAULT_PERCENTILE",
    "DEFAULT_SIZE",
    "MODEL_CHUNKERS",
    "Chunker",
    "FixedChunker",
    "OverlappingChunker",
    "Quality",
    "SemanticChunker",
    "SentenceChunker",
    "SentenceEncoder",
    "StructureChunker",
    "chunk_documents",
    "corpus_quality",
    "make_chunker",
    "quality",
]
