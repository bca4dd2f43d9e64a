"""Search over one index, on disk or in memory: the one ranking and the one access check.

An `Index` holds chunk segments (an index folder's live ones, or one counted in memory).
Whoever searches (the `search` command, `eval`, a Python caller) goes through
`Index.search_terms` and segment_search.search_segments: what eval measures, users get.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import accumulate
from typing import Any, Self

import numpy as np

from policy_assistant.codec import SKIP, to_json_dict
from policy_assistant.errors import BadIndex, UsageError
from policy_assistant.index.chunks.bm25 import BM25_DEFAULTS, BM25Index
from policy_assistant.index.chunks.segment import MemorySegment, Segment
from policy_assistant.index.chunks.segment_search import (
    Statistics,
    keep_weights,
    okapi_mean_idf,
    search_segments,
    statistics,
)
from policy_assistant.index.settings import DEFAULT_ACCESS, DEFAULT_K, BM25Settings
from policy_assistant.index.tokenize import tokenize, word_terms
from policy_assistant.records import ACCESS_LABELS, Chunk


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result."""

    rank: int
    """Position in the results, from 1."""
    score: float
    """BM25 score."""
    chunk: Chunk
    """The chunk found."""
    row: int = field(default=-1, metadata=SKIP)
    """The chunk's row in the index (what eval keys its figures by): where the chunk sits in
    this index, so not part of a hit's JSON form."""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return to_json_dict(self)


class Index:
    """Chunk segments with their access codes and records; search_terms is the one ranking."""

    def __init__(
        self, segments: Sequence[Segment], stats: Statistics, labels: Sequence[str]
    ) -> None:
        self.segments = list(segments)
        self.stats = stats
        self.access_labels = tuple(labels)
        self._live = [0, *accumulate(s.live_rows() for s in self.segments)]

    def __len__(self) -> int:
        return self._live[-1]

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release what the index holds open (nothing, in memory)."""

    def chunk(self, row: int) -> Chunk:
        """Return the chunk at row (in chunks() order)."""
        raise NotImplementedError

    def chunks(self) -> list[Chunk]:
        """Return every chunk, in row order."""
        raise NotImplementedError

    def level(self, access: str | None) -> int:
        """Return the rank of an access label (None: the least restricted one)."""
        label = DEFAULT_ACCESS if access is None else access
        if label not in self.access_labels:
            known = ", ".join(self.access_labels)
            raise UsageError(f"unknown access level {label!r}; expected one of {known}")
        return self.access_labels.index(label)

    def search(self, query: str, k: int = DEFAULT_K, access: str | None = None) -> list[SearchHit]:
        """Return the top k chunks for query that access may see, best first.

        Labels are ordered least restricted first: "public" (also what None means) sees public
        chunks only, "staff" sees public and staff ones. Each returned record's own label is
        checked again, so a damaged label array cannot leak a chunk.
        """
        return self.search_terms(tokenize(query), k, access)

    def search_terms(
        self, terms: Sequence[str], k: int = DEFAULT_K, access: str | None = None
    ) -> list[SearchHit]:
        """Return the top k chunks for already tokenized query terms (see search)."""
        found, chunks, rows = self._checked(terms, k, access)
        return [
            SearchHit(rank, score, chunk, row)
            for rank, ((_, _, score), chunk, row) in enumerate(
                zip(found, chunks, rows, strict=True), 1
            )
        ]

    def search_rows(
        self, terms: Sequence[str], k: int = DEFAULT_K, access: str | None = None
    ) -> list[tuple[int, float]]:
        """Return search_terms' hits as (row, score) pairs, same ranking and checks (eval's)."""
        found, _, rows = self._checked(terms, k, access)
        return list(zip(rows, [score for _, _, score in found], strict=True))

    def _checked(
        self, terms: Sequence[str], k: int, access: str | None
    ) -> tuple[list[tuple[int, int, float]], list[Chunk], list[int]]:
        """Return the ranker's hits, their chunks and index rows, each chunk's own label
        checked against the access level."""
        level = self.level(access)
        read: dict[tuple[int, int], Chunk] = {}

        def tie(seg: int, row: int) -> Any:
            if (seg, row) not in read:
                read[seg, row] = self.record(seg, row)
            return self.tie_key(seg, row, read[seg, row])

        try:
            found = search_segments(self.segments, self.stats, terms, k, level, tie)
        except (IndexError, ValueError) as exc:  # numpy on rows out of range: damage
            raise self.damage(f"damaged postings: {exc}") from exc
        try:
            chunks, rows = self._placed(found, read)
        except BadIndex as exc:
            raise self.damage(str(exc)) from exc
        allowed = set(self.access_labels[: level + 1])
        if not {chunk.access for chunk in chunks} <= allowed:
            raise self.damage("the segments' access.npy disagrees with the chunk records")
        return found, chunks, rows

    def _placed(
        self, found: list[tuple[int, int, float]], read: dict[tuple[int, int], Chunk]
    ) -> tuple[list[Chunk], list[int]]:
        """Return the found hits' chunks (those tie read, or read now) and index rows."""
        segments, live = self.segments, self._live
        if len(segments) == 1 and segments[0].deleted is None:  # local rows are index rows
            record = segments[0].record
            rows = [row for _, row, _ in found]
            if not read:  # tie is never asked within one segment
                return [record(row) for row in rows], rows
            return [read.get((0, row)) or record(row) for row in rows], rows
        chunks = [read.get((seg, row)) or segments[seg].record(row) for seg, row, _ in found]
        return chunks, [live[seg] + segments[seg].live_before(row) for seg, row, _ in found]

    def tie_key(self, seg: int, row: int, chunk: Chunk) -> Any:
        """Return what orders hits of equal score across segments: (source, position), a cold
        build's rows (within one segment rows are in that order: the ranker orders by row)."""
        return (chunk.source, chunk.position)

    def record(self, seg: int, row: int) -> Chunk:
        """Return a segment's chunk; BadIndex naming the index when it is damaged."""
        try:
            return self.segments[seg].record(row)
        except BadIndex as exc:
            raise self.damage(str(exc)) from exc

    def damage(self, problem: str) -> BadIndex:
        """Return the error for an index whose files disagree."""
        return BadIndex(f"index is damaged: {problem}")

    def _rank(self, label: str) -> int:
        labels = self.access_labels
        return labels.index(label) if label in labels else len(labels)


class MemoryIndex(Index):
    """One segment counted in memory over chunks (eval's index), searched as a folder is;
    equal scores rank by row, as the chunks were given."""

    def __init__(self, chunks: Sequence[Chunk], bm25: BM25Settings) -> None:
        unknown = sorted({c.access for c in chunks} - set(ACCESS_LABELS))
        if unknown:
            raise UsageError(f"unknown access labels {unknown}; expected one of {ACCESS_LABELS}")
        codes = np.array([ACCESS_LABELS.index(c.access) for c in chunks], np.uint8)
        segment = MemorySegment(chunks, codes)
        info = segment.info
        stats = statistics(bm25, info.rows, info.nonempty, info.length, 0.0)
        if stats.variant == "okapi":
            stats = replace(stats, mean_idf=okapi_mean_idf([segment], stats.counted))
        keep_weights(segment, stats)  # one segment, never changed: its weights hold for good
        super().__init__([segment], stats, ACCESS_LABELS)
        self._chunks = tuple(chunks)

    def chunk(self, row: int) -> Chunk:
        """Return the chunk at row."""
        return self._chunks[row]

    def chunks(self) -> list[Chunk]:
        """Return every chunk, in row order."""
        return list(self._chunks)


def build_bm25(
    chunks: Sequence[Chunk], settings: BM25Settings = BM25_DEFAULTS, progress: Any = None
) -> BM25Index:
    """Return the BM25 index of the chunks' texts under tokenize(), one row per chunk."""
    texts = (chunk.text for chunk in chunks)
    variant, k1, b, epsilon = settings.variant, settings.k1, settings.b, settings.epsilon
    return BM25Index.build(texts, variant, k1, b, epsilon, word_terms, progress)


def memory_index(chunks: Sequence[Chunk], bm25: BM25Settings = BM25_DEFAULTS) -> MemoryIndex:
    """Return an in-memory index of chunks (in the order given) with these BM25 settings."""
    return MemoryIndex(chunks, bm25)
