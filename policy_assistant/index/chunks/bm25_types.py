"""The array and callback types BM25 search and build share, importable without the builder."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

Ints = npt.NDArray[np.int64]
"""Offsets and pointers."""
Rows = npt.NDArray[np.int32]
"""Chunk rows of postings."""
Floats = npt.NDArray[np.float64]
"""Weights and scores."""
WordTerms = Callable[[str], Sequence[str]]
"""Turns one whitespace-delimited word into its index terms."""
