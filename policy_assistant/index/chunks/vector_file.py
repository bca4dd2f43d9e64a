"""Reading a segment's vectors file (chunk and unit segments alike): rows checked.

Written by index/store/vectors.py as float16. With simsimd installed (the `dense` extra) the
dense ranker multiplies the memory map itself, in SIMD float16; numpy has no float16 kernel
(widening 1M x 384 rows costs about 0.7 s a query), so without simsimd the rows are widened
to float32 once and kept.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

from policy_assistant.errors import BadIndex
from policy_assistant.index.chunks.bm25_files import load_array
from policy_assistant.index.chunks.kernel import simd_kernel

VECTORS_FILE = "vectors.npy"
"""A segment's vectors (float16, one unit-length row per row), when the index embeds."""
VECTOR_KEYS_FILE = "vector_keys.npy"
"""Each row's content key (uint64) of its vector: how a later write finds it again."""


def load_vectors(folder: Path, rows: int, widen: bool | None = None) -> npt.NDArray[np.floating]:
    """Return the vectors of a segment of `rows` rows, as stored when the SIMD kernel can
    multiply them, else (or if widen) as float32; BadIndex when unreadable or not one row
    per row."""
    try:
        stored = load_array(folder / VECTORS_FILE, "r")
    except (OSError, ValueError) as exc:
        raise BadIndex(f"{folder.name}/{VECTORS_FILE}: {exc}") from exc
    if stored.ndim != 2 or len(stored) != rows:
        raise BadIndex(f"{folder.name}/{VECTORS_FILE}: not one row per row of the segment")
    if widen is None:
        widen = simd_kernel() is None
    kept = stored.dtype == np.float32 or (stored.dtype == np.float16 and not widen)
    return np.asarray(stored) if kept else np.asarray(stored, np.float32)
