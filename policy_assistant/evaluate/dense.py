"""Eval's embedding model: chunk vectors for the dense and hybrid rows, and the encoder the
semantic chunker and the rankers' query vectors share, all through one content-hash cache.

The model is loaded only when a row needs it; when it cannot be (no folder, the dense extra
not installed) the rows that need it are left out with one line saying why. Vectors are cached
by (model, text) in one .npz file (embed/cache.py), so a second eval run encodes nothing new.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from policy_assistant.errors import PolicyAssistantError, UsageError
from policy_assistant.evaluate.retrieval import IndexRetriever, chunk_retriever
from policy_assistant.index.settings import (
    RANKER_SPECS,
    BM25Settings,
    RankerSettings,
    parse_ranker,
)
from policy_assistant.index.store.vectors import chunk_text
from policy_assistant.records import Chunk

DEFAULT_MODEL = Path("build/models/all-MiniLM-L6-v2")
"""The model eval embeds with when none is named (`make model` puts it there)."""
DEFAULT_VECTOR_CACHE = Path("build/eval-vectors.npz")
"""Where eval keeps the vectors it has computed, by model and text."""


def check_rankers(rankers: Sequence[str]) -> None:
    """Raise UsageError unless rankers names rankers (parse_ranker's specs), at least one,
    none twice."""
    if not rankers:
        raise UsageError(f"--retriever: choose from {RANKER_SPECS}, got none")
    for spec in rankers:
        try:
            parse_ranker(spec)
        except ValueError as exc:
            raise UsageError(f"--retriever: {exc}") from None
    if len(set(rankers)) != len(rankers):
        raise UsageError("--retriever: a ranker is named twice")


def ranker_row(name: str, ranker: str) -> str:
    """Return the row name of a variant searched with a ranker: bm25 keeps the bare name."""
    return name if ranker == "bm25" else f"{name}{RANKER_MARK}{ranker}"


def as_ranker(name: str, units: bool = False) -> RankerSettings:
    """Return the settings of a ranker named in EvalSettings.rankers (checked by check), as
    chunks are ranked by it, or units when units."""
    return parse_ranker(name, units)


RANKER_MARK = "+"
"""Joins a variant's name and its ranker's in a row name: `structure+dense`."""


class ModelUnavailable(PolicyAssistantError):
    """The embedding model cannot be loaded: the rows that need it are left out, saying why."""


class EvalModel:
    """The model of one eval run, loaded at first use, with its vector cache."""

    def __init__(self, model: Path | None, cache: Path | None) -> None:
        self.path = DEFAULT_MODEL if model is None else model
        self.cache_path = cache
        self._encoder: Any = None
        self._problem: str | None = None

    def encoder(self) -> Any:
        """Return the cached encoder; ModelUnavailable (one line) when it cannot load."""
        if self._encoder is None and self._problem is None:
            self._load()
        if self._problem is not None:
            raise ModelUnavailable(self._problem)
        return self._encoder

    def _load(self) -> None:
        from policy_assistant.embed.cache import CachedEncoder, VectorCache
        from policy_assistant.embed.encoder import Encoder
        from policy_assistant.embed.model import resolve_model

        if not self.path.exists():
            self._problem = f"no embedding model at {self.path} (`make model` fetches it)"
            return
        try:
            encoder = Encoder(resolve_model(self.path))
        except PolicyAssistantError as exc:
            self._problem = str(exc)
            return
        cache = VectorCache() if self.cache_path is None else VectorCache.load(self.cache_path)
        self._encoder = CachedEncoder(encoder, cache)

    def vectors(self, chunks: Sequence[Chunk]) -> Any:
        """Return one unit vector per chunk, (len(chunks), dimension), float32."""
        encoder = self.encoder()
        matrix = encoder.encode([chunk_text(c) for c in chunks])
        return np.asarray(matrix, dtype=np.float32)

    def retriever(
        self, chunks: Sequence[Chunk], vectors: Any, bm25: BM25Settings, ranker: str
    ) -> IndexRetriever:
        """Return a retriever over chunks and their vectors ranking by ranker (the index's
        own search_rows), queries encoded by the model through the cache."""
        return chunk_retriever(chunks, bm25, vectors, self.encoder(), as_ranker(ranker))

    def identity(self) -> dict[str, Any] | None:
        """Return the model's identity as the report records it (None: never loaded)."""
        if self._encoder is None:
            return None
        found: dict[str, Any] = self._encoder.identity.as_dict()
        return found

    def save(self) -> None:
        """Write the vector cache, when there is one and the model was loaded."""
        if self._encoder is not None and self.cache_path is not None:
            self.cache_path.parent.mkdir(parents=True, exist_ok=True)
            self._encoder.cache.save(self.cache_path)
