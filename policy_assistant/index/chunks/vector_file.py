"""Reading a segment's vectors file (chunk and unit segments alike): rows checked, float32 out.

Written by index/store/vectors.py as float16; widened once to float32 for the dense ranker,
which multiplies it by a float32 query vector.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

from policy_assistant.errors import BadIndex
from policy_assistant.index.chunks.bm25_files import load_array

VECTORS_FILE = "vectors.npy"
"""A segment's vectors (float16, one unit-length row per row), when the index embeds."""
VECTOR_KEYS_FILE = "vector_keys.npy"
"""Each row's content key (uint64) of its vector: how a later write finds it again."""


def load_vectors(folder: Path, rows: int) -> npt.NDArray[np.float32]:
    """Return the vectors of a segment of `rows` rows as float32; BadIndex when they are
    unreadable or do not have one row per row."""
    try:
        stored = load_array(folder / VECTORS_FILE, "r")
    except (OSError, ValueError) as exc:
        raise BadIndex(f"{folder.name}/{VECTORS_FILE}: {exc}") from exc
    if stored.ndim != 2 or len(stored) != rows:
        raise BadIndex(f"{folder.name}/{VECTORS_FILE}: not one row per row of the segment")
    # A float32 file is served as its memory map; float16 is widened once.
    return np.asarray(stored, np.float32)
