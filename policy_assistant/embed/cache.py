"""A content-hash cache of vectors: a text is embedded once per model, whatever else changes.

The key is sha256(model identity key, text), so a vector is reused exactly when the model
(weights, tokenizer, runtime, pooling, length) and the text are both unchanged, and never
across models. The cache is a plain mapping held in memory; `save` and `load` keep it in one
.npz file beside an index.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from policy_assistant.atomic import atomic_write_bytes
from policy_assistant.embed.model import ModelIdentity

Floats = NDArray[np.float32]


class TextEncoder(Protocol):
    """What embed_texts needs of an encoder: its identity, its width and a batch call."""

    identity: ModelIdentity

    @property
    def dimension(self) -> int:
        """Return the length of one vector."""
        ...

    def encode(self, texts: Sequence[str]) -> Floats:
        """Return one vector per text."""
        ...


class VectorCache:
    """Vectors by content key, in memory; one .npz file on disk."""

    def __init__(self) -> None:
        self.vectors: dict[str, Floats] = {}

    def __len__(self) -> int:
        return len(self.vectors)

    def __contains__(self, key: object) -> bool:
        return key in self.vectors

    def save(self, path: Path) -> None:
        """Write every vector to `path` at once (a reader sees the old file or the new)."""
        keys = np.array(sorted(self.vectors), dtype=np.str_)
        matrix = np.stack([self.vectors[k] for k in keys]) if len(keys) else np.zeros((0, 0))
        buffer = io.BytesIO()
        np.savez(buffer, keys=keys, vectors=matrix.astype(np.float32))
        atomic_write_bytes(path, buffer.getvalue())

    @classmethod
    def load(cls, path: Path) -> VectorCache:
        """Return the cache saved at `path`, or an empty one when there is no file."""
        cache = cls()
        if path.is_file():
            with np.load(path, allow_pickle=False) as data:
                cache.vectors = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
        return cache


def content_key(model: ModelIdentity, text: str) -> str:
    """Return the cache key of `text` under `model`: sha256 of both."""
    digest = hashlib.sha256(model.key().encode("ascii"))
    digest.update(b"\0")
    digest.update(text.encode("utf-8"))
    return digest.hexdigest()


def embed_texts(encoder: TextEncoder, texts: Sequence[str], cache: VectorCache) -> Floats:
    """Return one vector per text, encoding only the texts the cache lacks (each once)."""
    keys = [content_key(encoder.identity, t) for t in texts]
    todo = {k: t for k, t in zip(keys, texts, strict=True) if k not in cache}
    if todo:
        fresh = encoder.encode(list(todo.values()))
        cache.vectors.update(zip(todo, fresh, strict=True))
    if not keys:
        return np.zeros((0, encoder.dimension), dtype=np.float32)
    return np.stack([cache.vectors[k] for k in keys]).astype(np.float32)


class CachedEncoder:
    """An encoder whose vectors go through a VectorCache: a text already embedded with this
    model (in this run, or a saved cache) is not encoded again."""

    def __init__(self, encoder: TextEncoder, cache: VectorCache) -> None:
        self.encoder = encoder
        self.cache = cache
        self.identity = encoder.identity

    @property
    def dimension(self) -> int:
        """Return the length of one vector."""
        return self.encoder.dimension

    def encode(self, texts: Sequence[str]) -> Floats:
        """Return one vector per text, encoding only those the cache lacks."""
        return embed_texts(self.encoder, texts, self.cache)
