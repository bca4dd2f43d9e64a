"""Reading .npy arrays and term lists memory-mapped, so damage is a ValueError or OSError
(open_segment makes it BadIndex); TermTable finds a term in a sorted list of UTF-8 lines by
bisection; Postings holds a term table's postings (a chunk segment's, a unit field's)."""

from __future__ import annotations

import bisect
import mmap
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import numpy as np

from policy_assistant.errors import BadIndex, StaleIndex
from policy_assistant.index.chunks.bm25_types import Ints
from policy_assistant.jsonio import loads


def load_array(path: Path, mode: Literal["r"] | None) -> Any:
    """Load one .npy file; raise ValueError naming it when its header is damaged."""
    try:
        # A plain view of the map: numpy's memmap subclass costs on every index (term lookup).
        return np.asarray(np.load(path, mmap_mode=mode, allow_pickle=False))
    except OSError:
        raise
    except Exception as exc:  # numpy's header parser also raises tokenize and syntax errors
        raise ValueError(f"{path.name}: {type(exc).__name__}: {exc}") from exc


def read_terms(path: Path) -> bytes | mmap.mmap:
    """Return a file's bytes (a term list's, records', texts'), memory-mapped unless empty."""
    with path.open("rb") as handle:
        if path.stat().st_size:
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        return handle.read()


@contextmanager
def open_segment(folder: Path, version: int, kind: str) -> Iterator[dict[str, Any]]:
    """Yield a segment folder's segment.json (StaleIndex unless it is a kind in format
    version); what a missing or damaged file of it raises inside is BadIndex naming it."""
    try:
        meta = loads((folder / "segment.json").read_bytes())
        if not isinstance(meta, dict) or meta.get("format") != version:
            raise StaleIndex(f"{folder.name} is not a {kind} in format {version}")
        yield meta
    except OSError as exc:
        where = Path(exc.filename).name if exc.filename else folder.name
        raise BadIndex(f"{folder.name}/{where}: {exc.strerror or exc}") from exc
    except (ValueError, KeyError, TypeError) as exc:
        raise BadIndex(f"{folder.name}: {exc}") from exc


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


class Postings:
    """A term table and its raw postings: per term its rows (ascending) and term frequencies
    (ptr: where each term's postings start), per row its length: what BM25 plans and sums."""

    def __init__(self, data: bytes | mmap.mmap, arrays: Mapping[str, Any]) -> None:
        self._terms = TermTable(data, arrays["term_offsets"])
        self.ptr, self.rows, self.tf, self.dl = (arrays[n] for n in ("ptr", "rows", "tf", "dl"))
        self.memo: dict[Any, Any] = {}
        """Values derived from the arrays, kept for the process's later queries while it is
        open (length norms and saturations under the statistics, a chunk segment's vectors)."""

    def term_id(self, term: str) -> int:
        """Return the term's id, or -1 when no row holds it."""
        return self._terms.find(term)

    def span(self, term: str) -> tuple[int, int]:
        """Return where the term's postings start and stop in rows and tf ((0, 0): none)."""
        found = self._terms.find(term)
        return (int(self.ptr[found]), int(self.ptr[found + 1])) if found >= 0 else (0, 0)

    def term_rows(self, found: int) -> tuple[Any, Any]:
        """Return the local rows (ascending) and term frequencies of the term with id found."""
        start, stop = int(self.ptr[found]), int(self.ptr[found + 1])
        return self.rows[start:stop], self.tf[start:stop]

    def term_list(self) -> list[bytes]:
        """Return every term as UTF-8 bytes, in order (for okapi's mean idf)."""
        return bytes(self._terms.data).split(b"\n")[:-1]

    def close(self) -> None:
        """Release the term list's memory map (numpy's close with their arrays)."""
        if isinstance(self._terms.data, mmap.mmap):
            self._terms.data.close()
