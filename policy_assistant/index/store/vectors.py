"""Vectors in the index folder, the write side: one file per segment, keyed by content hash.

The files, their reuse across writes and why float16: docs/index-format.md, "Vectors". Rows are
copied as stored, so the bytes do not depend on which write embedded them.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from policy_assistant.embed.cache import TextEncoder, content_key
from policy_assistant.embed.text import embedding_text
from policy_assistant.index.chunks.vector_file import VECTOR_KEYS_FILE, VECTORS_FILE
from policy_assistant.index.context.units import UnitSet, unit_index_text
from policy_assistant.records import Chunk

STORED_DTYPE = "float16"
"""How a vector is stored: half precision."""
TEXT_RECIPE = "title, first heading path, body; a unit with the units either side in its section"
"""What of a chunk and of a unit is embedded (embed/text.py, unit_texts), recorded so that a
change of recipe is seen and the vectors written again."""
UNIT_NEIGHBOURS = 1
"""Units either side of a unit, in its section, embedded with it. One sentence alone often
lacks what it speaks of (a novel's "She said so", a speech's "That is why we must act"): on
the question sets of bench/RESULTS.md (context_fusion) each unit's vector with its neighbours
raised the worst set's contexts and every novel's, at the cost of longer texts to embed. Two
either side (`context_fusion.py --neighbours 2`) moved the worst set's complete@100/200/400 sum
from 60 to 62 (at the dense weight 2), one or two questions, for texts 1.4 to 1.6 times as long."""


class Embedding:
    """An encoder and what the index records of it; embeds a segment's rows, reusing vectors."""

    def __init__(self, encoder: TextEncoder, model: str, runtime: str = "auto") -> None:
        """Embed with `encoder`; `model` and `runtime` are what was asked for (kept sticky)."""
        self.encoder = encoder
        self.settings: dict[str, Any] = {
            "model": model,
            "runtime": runtime,
            "identity": encoder.identity.as_dict(),
            "text": TEXT_RECIPE,
            "dtype": STORED_DTYPE,
        }
        self.encoded = 0
        """Texts sent to the encoder by this object, over every write (for summaries, tests)."""
        self._previous: list[Path] = []
        self._lookup: tuple[npt.NDArray[np.uint64], npt.NDArray[np.int64], list[Any]] | None = None

    def reuse_from(self, segments: Sequence[Path]) -> None:
        """Take vectors from these segment folders (the live generation's chunk and unit
        segments: the same text has the same vector in both) before encoding."""
        self._previous, self._lookup = list(segments), None

    def segment_files(self, chunks: Sequence[Chunk]) -> dict[str, bytes]:
        """Return the vector files of a segment holding `chunks`, in row order."""
        return self.files_of([chunk_text(c) for c in chunks])

    def unit_files(self, units: UnitSet) -> dict[str, bytes]:
        """Return the vector files of a unit segment: one row per unit (its body row)."""
        return self.files_of(unit_texts(units))

    def files_of(self, texts: Sequence[str]) -> dict[str, bytes]:
        """Return the vector files of rows embedding `texts`: known vectors are copied,
        each other distinct text is encoded once."""
        keys = np.array([self.key(t) for t in texts], np.uint64)
        vectors = np.zeros((len(texts), self.encoder.dimension), np.float16)
        found = self._copy_known(keys, vectors)
        todo: dict[int, list[int]] = {}
        for row in np.flatnonzero(~found).tolist():
            todo.setdefault(int(keys[row]), []).append(row)
        if todo:
            fresh = self.encoder.encode([texts[rows[0]] for rows in todo.values()])
            fresh = fresh.astype(np.float16)
            self.encoded += len(todo)
            for rows, vector in zip(todo.values(), fresh, strict=True):
                vectors[rows] = vector
        return {VECTORS_FILE: _npy_bytes(vectors), VECTOR_KEYS_FILE: _npy_bytes(keys)}

    def key(self, text: str) -> int:
        """Return the 64-bit content key of an embedded text under this model."""
        return int(content_key(self.encoder.identity, text)[:16], 16)

    def _copy_known(
        self, keys: npt.NDArray[np.uint64], out: npt.NDArray[np.float16]
    ) -> npt.NDArray[np.bool_]:
        """Copy into `out` the vectors the previous segments hold for `keys`; return which."""
        if not self._previous or not len(keys):
            return np.zeros(len(keys), np.bool_)
        known, where, stores = self._known()
        at = np.minimum(np.searchsorted(known, keys), max(len(known) - 1, 0))
        found = known[at] == keys if len(known) else np.zeros(len(keys), np.bool_)
        rows = np.flatnonzero(found)
        place = where[at[rows]]
        for store in np.unique(place >> 32).tolist():  # one gather per old segment
            mine = (place >> 32) == store
            out[rows[mine]] = stores[store][place[mine] & 0xFFFFFFFF]
        return np.asarray(found, np.bool_)

    def _known(self) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.int64], list[Any]]:
        """Return every previous row's key (sorted), where it is (store << 32 | row), stores."""
        if self._lookup is None:
            keys: list[Any] = []
            places: list[Any] = []
            stores: list[Any] = []
            for folder in self._previous:
                if not (folder / VECTOR_KEYS_FILE).is_file():
                    continue
                found = np.load(folder / VECTOR_KEYS_FILE, mmap_mode="r", allow_pickle=False)
                keys.append(np.asarray(found))
                places.append(np.arange(len(found), dtype=np.int64) + (len(stores) << 32))
                stores.append(np.load(folder / VECTORS_FILE, mmap_mode="r", allow_pickle=False))
            flat = np.concatenate(keys) if keys else np.zeros(0, np.uint64)
            order = np.argsort(flat, kind="stable")
            where = np.concatenate(places)[order] if places else np.zeros(0, np.int64)
            self._lookup = (flat[order], where, stores)
        return self._lookup


def chunk_text(chunk: Chunk) -> str:
    """Return what a chunk is embedded as: its title and the heading path it opens in (as a
    unit's is its section's, and as search shows it), then its body. Eval embeds through it."""
    body = chunk.text[chunk.prefix_length :]
    path = chunk.sections[0] if chunk.sections else ()
    return embedding_text(chunk.title, path, body)


def unit_texts(units: UnitSet) -> list[str]:
    """Return what each retrieval unit is embedded as: its document's title and its section's
    heading path, then its index text (a table row behind its header row) between those of
    the UNIT_NEIGHBOURS units either side of it in its section."""
    return window_texts(units, range(len(units)), UNIT_NEIGHBOURS)


def window_texts(units: UnitSet, rows: Sequence[int], width: int) -> list[str]:
    """Return each row's window of `width` units either side in its section as one text to
    embed, by unit_texts' recipe (width UNIT_NEIGHBOURS gives a unit's own text)."""
    sections, docs = units.col("unit_section"), units.col("unit_doc")
    own: dict[int, str] = {}  # each unit's index text read once, however many windows hold it
    texts = []
    for row in rows:
        first, section = max(row - width, 0), int(sections[row])
        span = sections[first : row + width + 1].tolist()
        near = [first + i for i, s in enumerate(span) if s == section]
        for r in near:
            if r not in own:
                own[r] = unit_index_text(units, r)
        body = " ".join(own[r] for r in near)
        texts.append(embedding_text(units.docs[int(docs[row])].title, units.paths[section], body))
    return texts


def window_scorer(weight: float, encoder: Any, vector: Any) -> WindowScorer | None:
    """Return the scorer of hit windows a context's dense_windows weight asks for, or None
    without a weight or a query vector (BM25)."""
    return WindowScorer(encoder, vector) if weight and vector is not None else None


class WindowScorer:
    """The cosine of a query to hit windows, each embedded whole at query time (once per
    row and width): the "dense_windows" score of a context's hits."""

    def __init__(self, encoder: Any, vector: Any) -> None:
        """Embed windows with encoder (the units' model) against the query's unit vector."""
        self.encoder, self.vector = encoder, np.asarray(vector, dtype=np.float32)
        self._seen: dict[tuple[int, int], float] = {}

    def __call__(self, units: UnitSet, rows: Sequence[int], width: int) -> list[float]:
        """Return the query's cosine to each row's window of width units either side."""
        todo = [r for r in dict.fromkeys(rows) if (r, width) not in self._seen]
        if todo:
            vectors = self.encoder.encode(window_texts(units, todo, width))
            cosines = (np.asarray(vectors, dtype=np.float32) @ self.vector).tolist()
            self._seen.update(((r, width), c) for r, c in zip(todo, cosines, strict=True))
        return [self._seen[(r, width)] for r in rows]


def _npy_bytes(array: npt.NDArray[Any]) -> bytes:
    """Return an array as the bytes of a .npy file (deterministic: no timestamps)."""
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array), allow_pickle=False)
    return buffer.getvalue()


def _vector_identity(settings: dict[str, Any] | None) -> dict[str, Any] | None:
    """Return what decides whether vectors are interchangeable (identity, recipe, dtype)."""
    if not settings:
        return None
    return {k: settings.get(k) for k in ("identity", "text", "dtype")}


def embedding_change(old: dict[str, Any] | None, new: dict[str, Any] | None) -> str:
    """Return why the vectors must be written again, or an empty string when they need not."""
    before, after = _vector_identity(old), _vector_identity(new)
    if before == after:
        return ""
    if after is None:
        return "vectors dropped"
    if before is None:
        return f"vectors added ({describe(new)})"
    if {**before, "text": None} == {**after, "text": None}:
        return f"embedded text changed ({before['text']} -> {after['text']}); vectors rebuilt"
    return f"embedding model changed ({describe(old)} -> {describe(new)}); vectors rebuilt"


def describe(settings: dict[str, Any] | None) -> str:
    """Say an embedding's model and runtime in a few words."""
    identity = (settings or {}).get("identity") or {}
    return f"{identity.get('name', '?')} {identity.get('runtime', '?')}"
