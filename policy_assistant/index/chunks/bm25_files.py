"""Reading .npy arrays and term lists memory-mapped, so damage is a ValueError or OSError;
TermTable finds a term in a sorted list of UTF-8 lines by bisection."""

from __future__ import annotations

import bisect
import mmap
from pathlib import Path
from typing import Any, Literal

import numpy as np

from policy_assistant.index.chunks.bm25_types import Ints


def load_array(path: Path, mode: Literal["r"] | None) -> Any:
    """Load one .npy file; raise ValueError naming it when its header is damaged."""
    try:
        # A plain view of the map: numpy's memmap subclass costs on every index (term lookup).
        return np.asarray(np.load(path, mmap_mode=mode, allow_pickle=False))
    except OSError:
        raise
    except Exception as exc:  # numpy's header parser also raises tokenize and syntax errors
        raise ValueError(f"{path.name}: {type(exc).__name__}: {exc}") from exc


def read_terms(path: Path, use_mmap: bool) -> bytes | mmap.mmap:
    """Return the term list's bytes, memory-mapped when asked and not empty."""
    with path.open("rb") as handle:
        if use_mmap and path.stat().st_size:
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        return handle.read()


TERMS_SAMPLE = 32
"""TermTable keeps every this many terms in memory to narrow its bisections."""


class TermTable:
    """The sorted term list as UTF-8 lines, searched by bisection without building a dict."""

    def __init__(self, data: bytes | mmap.mmap, offsets: Ints) -> None:
        self.data = data
        # A memoryview gives Python ints without a numpy scalar per probe: 3x faster lookups.
        flat = np.ascontiguousarray(offsets, dtype=np.int64)
        self._offsets = flat.data.cast("B").cast("q")
        self._count = len(offsets) - 1
        self._sample: list[bytes] | None = None

    def _term(self, i: int) -> bytes:
        return self.data[self._offsets[i] : self._offsets[i + 1] - 1]

    def find(self, term: str) -> int:
        """Return the term's id, or -1 when the index does not hold it."""
        key, data, offsets = term.encode("utf-8"), self.data, self._offsets
        if self._sample is None:
            # Every TERMS_SAMPLE-th term, read on the first look-up: a C bisection over it
            # narrows each look-up to one block, so few probes run in Python.
            self._sample = [self._term(i) for i in range(0, self._count, TERMS_SAMPLE)]
        block = bisect.bisect_right(self._sample, key) - 1
        if block < 0:
            return -1
        lo, hi = block * TERMS_SAMPLE, min(self._count, (block + 1) * TERMS_SAMPLE)
        while lo < hi:
            mid = (lo + hi) // 2
            if data[offsets[mid] : offsets[mid + 1] - 1] < key:
                lo = mid + 1
            else:
                hi = mid
        return lo if lo < self._count and self._term(lo) == key else -1
