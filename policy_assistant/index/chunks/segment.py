"""Reading one segment segment_build.py wrote: arrays memory-mapped, records read by block.

Opening a segment parses only its small segment.json; the arrays are memory-mapped, so a
search touches the pages of the terms it scores and the record blocks it returns. A
MemorySegment holds the same arrays counted in memory (eval's index), so one search code
(segment_search.py) serves both.
"""

from __future__ import annotations

import mmap
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from policy_assistant.errors import BadIndex
from policy_assistant.index.chunks.bm25_build import count_postings
from policy_assistant.index.chunks.bm25_files import Postings, load_array, open_segment, read_terms
from policy_assistant.index.chunks.segment_build import (
    ARRAYS,
    RECORDS_PER_BLOCK,
    SEGMENT_FORMAT,
    SegmentInfo,
    chunk_key,
)
from policy_assistant.index.chunks.vector_file import VECTORS_FILE, load_vectors
from policy_assistant.jsonio import loads
from policy_assistant.records import Chunk

Deleted = npt.NDArray[np.bool_]
Vectors = npt.NDArray[np.float32]
"""One unit-length vector per row: (rows, dimension)."""
COUNT_SLICE = 1 << 18
"""Postings whose deletion flags are gathered at once: bounds a count's temporary memory."""
FEW_DEAD = 4096
"""Deleted rows up to which a term's deleted postings are found by bisection, not a pass."""


class Segment(Postings):
    """An open segment: its term table, postings, lengths, access codes and records."""

    deleted: Deleted | None = None
    _dead: Any = None
    weighed: tuple[Any, Any] | None = None
    """Statistics and every posting's saturation under them, kept by keep_weights for a
    segment whose statistics never change (eval's MemorySegment)."""

    def __init__(self, folder: Path, info: SegmentInfo, deleted: Deleted | None) -> None:
        self.folder = folder
        self.info = info
        with open_segment(folder, SEGMENT_FORMAT, "segment") as meta:
            self.files: dict[str, str] = dict(meta["files"])
            arrays = {name: load_array(folder / f"{name}.npy", "r") for name in ARRAYS}
            super().__init__(read_terms(folder / "terms.txt"), arrays)
            self._records = read_terms(folder / "records.bin")
        self.access = arrays["access"]
        self._blocks = arrays["blocks"]
        self._ids = arrays["ids"]
        self._id_rows = arrays["id_rows"]
        self.deleted = deleted
        self._check(meta)

    def _check(self, meta: dict[str, Any]) -> None:
        """Raise BadIndex unless the arrays agree with each other and with the manifest."""
        rows, postings, terms = meta.get("rows"), meta.get("postings"), meta.get("terms")
        ok = rows == self.info.rows and len(self.dl) == rows == len(self.access)
        ok &= len(self.rows) == postings == len(self.tf) == int(self.ptr[-1])
        ok &= len(self.ptr) == (terms or 0) + 1 and len(self._ids) == rows == len(self._id_rows)
        ok &= len(self._blocks) == -(-self.info.rows // RECORDS_PER_BLOCK) + 1
        ok &= int(self._blocks[-1]) == len(self._records)
        ok &= self.deleted is None or self.deleted.shape == (self.info.rows,)
        if not ok:
            raise BadIndex(f"{self.folder.name}: its files disagree")

    def dead_positions(self, rows: Any) -> Any:
        """Return where in a term's rows (ascending) the deleted ones are, found by bisecting
        for each deleted row; None when the segment has too many deleted rows for that."""
        if self.deleted is None:
            return np.empty(0, np.int64)
        if self._dead is None:  # the few rows an ingest replaced: read once
            self._dead = np.flatnonzero(np.asarray(self.deleted))
        if len(self._dead) > max(len(rows), FEW_DEAD):
            return None
        at = np.searchsorted(rows, self._dead)
        inside = at < len(rows)
        at = at[inside]
        return at[rows[at] == self._dead[inside]]

    def live_count(self, rows: Any) -> int:
        """Return how many of a term's postings (its rows) are live."""
        if self.deleted is None:
            return len(rows)
        found = self.dead_positions(rows)
        if found is not None:
            return len(rows) - len(found)
        dead = sum(
            int(np.count_nonzero(self.deleted[rows[at : at + COUNT_SLICE]]))
            for at in range(0, len(rows), COUNT_SLICE)
        )
        return len(rows) - dead

    def record(self, row: int) -> Chunk:
        """Return the chunk at a local row, decompressing only its block."""
        block = row // RECORDS_PER_BLOCK
        start, end = int(self._blocks[block]), int(self._blocks[block + 1])
        try:
            lines = zlib.decompress(self._records[start:end]).split(b"\n")
            return Chunk.from_dict(loads(lines[row % RECORDS_PER_BLOCK]))
        except (zlib.error, IndexError, ValueError, KeyError, TypeError) as exc:
            raise BadIndex(f"{self.folder.name}/records.bin row {row}: {exc}") from exc

    def records(self) -> list[Chunk]:
        """Return every chunk record of the segment, deleted ones included, in row order."""
        chunks = []
        for block in range(len(self._blocks) - 1):
            start, end = int(self._blocks[block]), int(self._blocks[block + 1])
            try:
                lines = zlib.decompress(self._records[start:end]).split(b"\n")[:-1]
                chunks += [Chunk.from_dict(loads(line)) for line in lines]
            except (zlib.error, ValueError, KeyError, TypeError) as exc:
                raise BadIndex(f"{self.folder.name}/records.bin: {exc}") from exc
        if len(chunks) != self.info.rows:
            raise BadIndex(f"{self.folder.name}/records.bin holds {len(chunks)} records")
        return chunks

    def live_records(self) -> list[Chunk]:
        """Return the segment's live chunk records, in row order."""
        records = self.records()
        if self.deleted is None:
            return records
        return [c for c, dead in zip(records, self.deleted.tolist(), strict=True) if not dead]

    def find(self, chunk_id: str) -> int:
        """Return the local row of the live chunk with this ID, or -1."""
        key = np.uint64(chunk_key(chunk_id))
        at = int(np.searchsorted(self._ids, key))
        while at < len(self._ids) and self._ids[at] == key:
            row = int(self._id_rows[at])
            if not self.is_deleted(row) and self.record(row).id == chunk_id:
                return row
            at += 1
        return -1

    def is_deleted(self, row: int) -> bool:
        """Whether the row's chunk was replaced or removed since the segment was written."""
        return self.deleted is not None and bool(self.deleted[row])

    def live_before(self, row: int) -> int:
        """Return how many live rows come before a local row."""
        if self.deleted is None:
            return row
        return row - int(np.count_nonzero(self.deleted[:row]))

    def live_rows(self) -> int:
        """Return the rows not deleted."""
        return self.info.rows - (0 if self.deleted is None else int(self.deleted.sum()))

    def vectors(self) -> npt.NDArray[np.float32] | None:
        """Return the rows' unit-length vectors as float32 (rows = the segment's rows, deleted
        ones included), or None when the index holds no vectors; read once, then kept."""
        if VECTORS_FILE not in self.files:
            return None
        found = self.memo.get(VECTORS_FILE)
        if found is None:
            found = self.memo[VECTORS_FILE] = load_vectors(self.folder, self.info.rows)
        return found

    def close(self) -> None:
        """Release the memory maps that can be closed (numpy's close with their arrays)."""
        super().close()
        if isinstance(self._records, mmap.mmap):
            self._records.close()


class MemorySegment(Segment):
    """A segment counted in memory from chunks, rows in the order given: nothing on disk."""

    def __init__(
        self,
        chunks: Sequence[Chunk],
        access: npt.NDArray[np.uint8],
        vectors: Vectors | None = None,
    ) -> None:
        Postings.__init__(self, *count_postings(c.text for c in chunks))
        self.access = access
        self._spans: dict[str, tuple[int, int]] = {}
        self._chunks = tuple(chunks)
        nonempty, length = int((self.dl > 0).sum()), int(self.dl.sum(dtype=np.int64))
        self.info = SegmentInfo("memory", len(chunks), nonempty, length, "")
        self._vectors = vectors

    def span(self, term: str) -> tuple[int, int]:
        """Return where the term's postings start and stop ((0, 0): none), each term looked
        up once (eval asks the same terms at every depth and for many questions)."""
        found = self._spans.get(term)
        if found is None:
            found = self._spans[term] = super().span(term)
        return found

    def record(self, row: int) -> Chunk:
        """Return the chunk at a row."""
        return self._chunks[row]

    def vectors(self) -> Vectors | None:
        """Return the vectors given, one per row, or None."""
        return self._vectors

    def close(self) -> None:
        """Nothing is open."""
