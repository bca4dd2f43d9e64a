"""Search over one index, on disk or in memory: the one ranking and the one access check.

An `Index` holds chunk segments (an index folder's live ones, or one counted in memory).
Whoever searches (the `search` command, `eval`, a Python caller) goes through
`Index.search_terms` and segment_search.search_segments: what eval measures, users get.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from importlib.util import find_spec
from itertools import accumulate
from typing import Any, Protocol, Self

import numpy as np

from policy_assistant.codec import SKIP, to_json_dict
from policy_assistant.errors import BadIndex, PolicyAssistantError, UsageError
from policy_assistant.index.chunks.dense import dense_search, fused, has_vectors
from policy_assistant.index.chunks.segment import MemorySegment, Segment, Vectors
from policy_assistant.index.chunks.segment_search import (
    Found,
    Statistics,
    keep_weights,
    okapi_mean_idf,
    search_segments,
    statistics,
)
from policy_assistant.index.settings import (
    BM25_DEFAULTS,
    BM25_RANKER,
    DEFAULT_ACCESS,
    DEFAULT_K,
    BM25Settings,
    Ranker,
    RankerSettings,
    ranker_settings,
)
from policy_assistant.index.tokenize import tokenize
from policy_assistant.records import ACCESS_LABELS, Chunk

QUERY_VECTORS_KEPT = 4096
"""Query vectors an index keeps (eval asks each question again at a greater depth)."""
Checked = tuple[list[Found], list[Chunk], list[int]]
"""A ranker's hits, their chunks and their index rows."""


class QueryEncoder(Protocol):
    """What turns query texts into unit vectors (embed.encoder.Encoder, or a test's fake)."""

    def encode(self, texts: Sequence[str]) -> Any:
        """Return one unit-length float32 vector per text, (len(texts), dimension)."""


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result."""

    rank: int
    """Position in the results, from 1."""
    score: float
    """The ranker's score: BM25, the inner product (dense) or the fused score (hybrid)."""
    chunk: Chunk
    """The chunk found."""
    row: int = field(default=-1, metadata=SKIP)
    """The chunk's row in the index (what eval keys its figures by): where the chunk sits in
    this index, so not part of a hit's JSON form."""
    ranker: str = "bm25"
    """What ranked it: bm25, dense or hybrid (RankerSettings.describe)."""

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
        self.encoder: QueryEncoder | None = None
        """What encodes queries for dense and hybrid; built from embedding_model when unset."""
        self.notice: str | None = None
        """Why a search did not rank as an index with vectors would (said once on stderr)."""
        self._query_vectors: dict[str, Any] = {}

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

    def search(
        self,
        query: str,
        k: int = DEFAULT_K,
        access: str | None = None,
        ranker: Ranker | RankerSettings | None = None,
    ) -> list[SearchHit]:
        """Return the top k chunks for query that access may see, best first.

        Labels are ordered least restricted first: "public" (also what None means) sees public
        chunks only, "staff" sees public and staff ones. Each returned record's own label is
        checked again, so a damaged label array cannot leak a chunk. ranker: bm25, dense or
        hybrid (a name, or RankerSettings); None is the index's default (default_ranker).
        """
        settings = self._settings(query, ranker)
        return self._hits(self._checked(query, k, access, settings), settings)

    def search_terms(
        self, terms: Sequence[str], k: int = DEFAULT_K, access: str | None = None
    ) -> list[SearchHit]:
        """Return the top k chunks by BM25 for already tokenized query terms (see search)."""
        return self._hits(self._checked(terms, k, access, BM25_RANKER), BM25_RANKER)

    def search_rows(
        self,
        query: str | Sequence[str],
        k: int = DEFAULT_K,
        access: str | None = None,
        ranker: Ranker | RankerSettings | None = None,
    ) -> list[tuple[int, float]]:
        """Return search's (a query) or search_terms' (its terms) hits as (row, score) pairs,
        same ranking and checks (eval's); terms are ranked by BM25 unless ranker says else."""
        found, _, rows = self._checked(query, k, access, ranker)
        return list(zip(rows, [score for _, _, score in found], strict=True))

    def default_ranker(self, units: bool = False) -> RankerSettings:
        """Return what search ranks by when no ranker is named: hybrid (with the units' fusion
        when units) when the index holds vectors and their model can encode queries here
        (bench/RESULTS.md, bench_rankers), else BM25, with `notice` saying why when vectors
        go unused."""
        if not self.has_vectors():
            return BM25_RANKER
        if self.encoder is None:
            try:
                self.encoder = self.load_encoder()
            except PolicyAssistantError as exc:  # the extra or the model is missing here
                self.notice = f"ranked by bm25: the index's vectors need a query encoder, and {exc}"
                return BM25_RANKER
        return ranker_settings("hybrid", units)

    def has_vectors(self) -> bool:
        """Return whether every segment holds a vector per row (dense and hybrid need them)."""
        return has_vectors(self.segments)

    def _hits(self, checked: Checked, settings: RankerSettings) -> list[SearchHit]:
        """Return checked hits as SearchHits, ranked from 1."""
        found, chunks, rows = checked
        ranker = settings.describe()
        return [
            SearchHit(rank, score, chunk, row, ranker)
            for rank, ((_, _, score), chunk, row) in enumerate(
                zip(found, chunks, rows, strict=True), 1
            )
        ]

    def _checked(
        self,
        query: str | Sequence[str],
        k: int,
        access: str | None,
        ranker: Ranker | RankerSettings | None,
    ) -> Checked:
        """Return the ranker's hits, their chunks and index rows, each chunk's own label
        checked against the access level: every ranker's hits pass the same checks."""
        level = self.level(access)
        settings = self._settings(query, ranker)
        read: dict[tuple[int, int], Chunk] = {}
        try:
            found = self._ranked(query, k, level, settings, read)
            chunks, rows = self._placed(found, read)
        except (IndexError, ValueError) as exc:  # numpy on rows out of range: damage
            raise self.damage(f"damaged postings: {exc}") from exc
        except BadIndex as exc:  # vectors that do not fit the segment, a damaged record
            raise self.damage(str(exc)) from exc
        allowed = set(self.access_labels[: level + 1])
        if not {chunk.access for chunk in chunks} <= allowed:
            raise self.damage("the segments' access.npy disagrees with the chunk records")
        return found, chunks, rows

    def _settings(
        self, query: str | Sequence[str], ranker: Ranker | RankerSettings | None
    ) -> RankerSettings:
        """Return the ranker to run: terms alone rank by BM25 unless one is named."""
        if ranker is None:
            return self.default_ranker() if isinstance(query, str) else BM25_RANKER
        try:
            settings = ranker_settings(ranker)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if settings.uses_vectors and not isinstance(query, str):
            raise UsageError(f"the {settings.ranker} ranker needs the query's text, not terms")
        return settings

    def _ranked(
        self,
        query: str | Sequence[str],
        k: int,
        level: int,
        settings: RankerSettings,
        read: dict[tuple[int, int], Chunk],
    ) -> list[Found]:
        """Return the chosen ranker's (segment, row, score) hits, best first; hybrid fuses
        BM25's and the dense ranker's top max(k, depth). Records BM25's tie reads (to order
        equal scores) are kept in read."""

        def tie(seg: int, row: int) -> Any:
            # (source, position): a cold build's rows (within one segment rows are in that
            # order, and the ranker orders them by row).
            if (seg, row) not in read:
                read[seg, row] = self.record(seg, row)
            return read[seg, row].source, read[seg, row].position

        terms = tokenize(query) if isinstance(query, str) else query
        if not settings.uses_vectors:
            return search_segments(self.segments, self.stats, terms, k, level, tie)
        vector = self.query_vector(str(query), settings)
        if settings.ranker == "dense":
            return dense_search(self.segments, vector, k, level)
        depth = max(k, settings.depth)
        bm25 = search_segments(self.segments, self.stats, terms, depth, level, tie)
        dense = dense_search(self.segments, vector, depth, level)
        return fused(bm25, dense, self.segments, vector, settings, k)

    def query_vector(self, query: str, settings: RankerSettings) -> Any:
        """Return the query's unit vector from the index's encoder (each text encoded once)."""
        if not self.has_vectors():
            raise UsageError(no_vectors_message(settings.ranker))
        vector = self._query_vectors.get(query)
        if vector is None:
            if self.encoder is None:
                self.encoder = self.load_encoder()
            vector = self.encoder.encode([query])[0]
            if len(self._query_vectors) >= QUERY_VECTORS_KEPT:
                self._query_vectors.clear()
            self._query_vectors[query] = vector
        return vector

    def embedding_model(self) -> str | None:
        """Return the model (a folder or a cache name) the index's vectors were made with;
        None when the index does not record one (an in-memory index: pass an encoder)."""
        return None

    def load_encoder(self) -> QueryEncoder:
        """Return an encoder of the model the index records; UsageError when it records none."""
        model = self.embedding_model()
        if model is None:
            raise UsageError("the index records no embedding model to encode queries with")
        from policy_assistant.embed.encoder import Encoder  # the dense extra loads only now
        from policy_assistant.embed.model import resolve_model

        return Encoder(resolve_model(model), self.embedding_runtime())

    def embedding_runtime(self) -> str:
        """Return the runtime the index's vectors were made with (queries run the same)."""
        return "auto"

    def _placed(
        self, found: list[tuple[int, int, float]], read: dict[tuple[int, int], Chunk]
    ) -> tuple[list[Chunk], list[int]]:
        """Return the found hits' chunks (those tie read, or read now) and index rows."""
        segments, live = self.segments, self._live
        if len(segments) == 1 and segments[0].deleted is None:  # local rows are index rows
            rows = [row for _, row, _ in found]  # tie is never asked: nothing was read
            return [segments[0].record(row) for row in rows], rows
        chunks = [read.get((seg, row)) or segments[seg].record(row) for seg, row, _ in found]
        return chunks, [live[seg] + segments[seg].live_before(row) for seg, row, _ in found]

    def record(self, seg: int, row: int) -> Chunk:
        """Return a segment's chunk; BadIndex naming the index when it is damaged."""
        try:
            return self.segments[seg].record(row)
        except BadIndex as exc:
            raise self.damage(str(exc)) from exc

    def damage(self, problem: str) -> BadIndex:
        """Return the error for an index whose files disagree."""
        return BadIndex(f"index is damaged: {problem}")


class MemoryIndex(Index):
    """One segment counted in memory over chunks (eval's index), searched as a folder is;
    equal scores rank by row, as the chunks were given."""

    def __init__(
        self,
        chunks: Sequence[Chunk],
        bm25: BM25Settings = BM25_DEFAULTS,
        vectors: Vectors | None = None,
        encoder: QueryEncoder | None = None,
    ) -> None:
        """Count chunks (in the order given) with these BM25 settings; vectors (one unit
        vector per chunk) and a query encoder let it rank dense and hybrid."""
        unknown = sorted({c.access for c in chunks} - set(ACCESS_LABELS))
        if unknown:
            raise UsageError(f"unknown access labels {unknown}; expected one of {ACCESS_LABELS}")
        codes = np.array([ACCESS_LABELS.index(c.access) for c in chunks], np.uint8)
        if vectors is not None and np.shape(vectors)[:1] != (len(chunks),):
            raise UsageError(f"{np.shape(vectors)[0]} vectors for {len(chunks)} chunks")
        segment = MemorySegment(chunks, codes, vectors)
        info = segment.info
        stats = statistics(bm25, info.rows, info.nonempty, info.length, 0.0)
        if stats.variant == "okapi":
            stats = replace(stats, mean_idf=okapi_mean_idf([segment], stats.counted))
        keep_weights(segment, stats)  # one segment, never changed: its weights hold for good
        super().__init__([segment], stats, ACCESS_LABELS)
        self._chunks = tuple(chunks)
        self.encoder = encoder

    def chunk(self, row: int) -> Chunk:
        """Return the chunk at row."""
        return self._chunks[row]

    def chunks(self) -> list[Chunk]:
        """Return every chunk, in row order."""
        return list(self._chunks)


memory_index = MemoryIndex
"""Return an in-memory index of chunks: MemoryIndex's constructor, under the name the
package exports."""


def no_vectors_message(ranker: str) -> str:
    """Return the one line saying how to give an index the vectors a ranker needs."""
    from policy_assistant.embed.encoder import INSTALL_HINT

    hint = "re-ingest with `ingest --embed MODEL` to add them"
    missing = [name for name in ("tokenizers", "onnxruntime") if find_spec(name) is None]
    if missing:
        hint += f" (after `{INSTALL_HINT}`)"
    return f"the {ranker} ranker needs vectors and this index holds none: {hint}"
