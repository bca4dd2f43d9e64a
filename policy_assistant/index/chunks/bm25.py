"""BM25 over an inverted index held in flat numpy arrays, saved as .npy files.

Term t's postings are rows[ptr[t]:ptr[t + 1]] (chunk rows, ascending) and the same slice of
weights (t's whole BM25 contribution to each row, computed at build time); terms are sorted
by their UTF-8 bytes and found by bisection. Chunks are ranked by segment_search, not here:
this keeps the build, the files and the scores the retrieval units' fields use. Repeated
query terms count once per repeat, as in rank-bm25; weights are float64 (float32 would round
scores by ~1e-7, too coarse to reproduce rank-bm25 or to keep near-ties in order).

Variants (params() goes into the manifest):

- "lucene" (default), as Elasticsearch scores one text field: idf = ln(1 + (N - n + 0.5) /
  (n + 0.5)); weight = idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)); N and avgdl
  count only rows with at least one term (Lucene's docCount). Elasticsearch keeps the
  (k1 + 1) factor (LegacyBM25Similarity); plain Lucene 8+ drops it, which scales every score
  and changes no ranking. Lucene stores dl in one byte, so its scores differ slightly from
  these exact-length ones.
- "okapi": exactly rank_bm25.BM25Okapi: idf = ln(N - n + 0.5) - ln(n + 0.5), each negative
  idf replaced by epsilon * the mean idf of all terms; N and avgdl count every row. A term in
  exactly half the rows gets idf 0 and never scores.

Building (counting rows, in forked workers for large builds) lives in bm25_build.py; this
module validates the parameters, scores and saves (nothing reads the files back). Only
multiprocessing pickles, passing batches to build workers and their counts back.
"""

from __future__ import annotations

import bisect
import mmap
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from policy_assistant.codec import to_json_dict
from policy_assistant.index.chunks.bm25_types import Floats, Ints, Progress, Rows, WordTerms
from policy_assistant.index.settings import BM25_DEFAULTS as BM25_DEFAULTS  # re-exported
from policy_assistant.index.settings import OKAPI_EPSILON as OKAPI_EPSILON  # re-exported
from policy_assistant.index.settings import VARIANTS as VARIANTS  # re-exported
from policy_assistant.index.settings import BM25Settings, Variant
from policy_assistant.jsonio import pretty_json

BM25_FORMAT = 1
"""Version of the files save() writes."""
Query = Iterable[str] | Mapping[str, float]
"""Query tokens (a repeated token counts once per repeat), or each term with its weight."""
QueryTerms = list[tuple[int, float]]

_FILES = ("term_offsets", "ptr", "rows", "weights", "term_max")
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


class BM25Index:
    """An immutable BM25 index: term list, postings rows and weights, per-term offsets."""

    def __init__(
        self,
        settings: BM25Settings,
        counts: dict[str, Any],
        data: bytes | mmap.mmap,
        arrays: dict[str, Any],
    ) -> None:
        self._settings = settings
        # params.json: every parameter (epsilon too), the files' format and the build's counts.
        self._params = {**to_json_dict(settings), "format": BM25_FORMAT, **counts}
        self._terms = TermTable(data, arrays["term_offsets"])
        self._arrays = arrays
        self._ptr: Ints = arrays["ptr"]
        self._rows: Rows = arrays["rows"]
        self._weights: Floats = arrays["weights"]
        self._term_max: Floats = arrays["term_max"]

    @property
    def num_docs(self) -> int:
        """Rows (chunks) the index covers."""
        return int(self._params["documents"])

    def params(self) -> BM25Settings:
        """Return the scoring variant and parameters, for the manifest."""
        return self._settings

    @classmethod
    def build(
        cls,
        rows: Iterable[Sequence[str]] | Iterable[str],
        variant: Variant = "lucene",
        k1: float = 1.2,
        b: float = 0.75,
        epsilon: float = OKAPI_EPSILON,
        word_terms: WordTerms | None = None,
        progress: Progress | None = None,
        workers: int | None = None,
    ) -> BM25Index:
        """Index one row per item, in order: a token list, used as given, or with word_terms
        a text, whose tokens are word_terms(word) for each word of text.split().

        rows may be a generator (nothing needs them all in memory). The text form builds the
        same index as token lists from an equivalent tokenizer, faster: each distinct word is
        analyzed once per batch. After the first batch, `workers` forked processes count the
        rows (bm25_build); the result does not depend on workers. progress gets the rows
        counted so far, once per batch.
        """
        settings = BM25Settings(variant, k1, b, epsilon)
        # The builder (multiprocessing and all) loads only when an index is built, not searched.
        from policy_assistant.index.chunks.bm25_build import BUILD_WORKERS, build_postings

        chosen = BUILD_WORKERS if workers is None else workers
        counts, data, arrays = build_postings(rows, settings, word_terms, progress, chosen)
        return cls(settings, counts, data, arrays)

    def _query_terms(self, query_tokens: Query) -> QueryTerms:
        """Return (term id, repeats) of the known query terms, highest upper bound first.

        A mapping gives each term its weight (its repeats) directly, as feedback terms need."""
        counts = query_tokens if isinstance(query_tokens, Mapping) else Counter(query_tokens)
        found = [(self._terms.find(t), float(n)) for t, n in counts.items()]
        known = [(term, n) for term, n in found if term >= 0]
        return sorted(known, key=lambda tn: (-tn[1] * float(self._term_max[tn[0]]), tn[0]))

    def _postings(self, term: int, repeats: float = 1.0) -> tuple[Rows, Floats]:
        """Return a term's rows and weights, the weights times repeats."""
        start, stop = int(self._ptr[term]), int(self._ptr[term + 1])
        weights = self._weights[start:stop]
        return self._rows[start:stop], weights * repeats if repeats != 1 else weights

    def scores(self, query_tokens: Query) -> Floats:
        """Return every row's score for the query, as a float64 vector."""
        rows, weights = self._gather(self._query_terms(query_tokens))
        return _floats(np.bincount(rows, weights=weights, minlength=self.num_docs))

    def sparse_scores(self, query_tokens: Query) -> tuple[Rows, Floats]:
        """Return the rows the query touches, ascending, and their scores: the same floats as
        scores() gives them, with no vector over every row (for fields few rows match)."""
        return _sparse(*self._gather(self._query_terms(query_tokens)))

    def range_scores(self, query_tokens: Query, starts: Ints, stops: Ints) -> tuple[Rows, Floats]:
        """Return the rows the query touches inside sorted, disjoint [starts[i], stops[i])
        ranges, ascending, and per query term (in the order scores() sums them) its weight
        at each row: summed over axis 0, the rows' scores, the same floats as scores()."""
        terms = self._query_terms(query_tokens)
        # In the postings' own dtype: another one would make searchsorted copy them whole.
        bounds = np.column_stack([starts, stops]).ravel().astype(self._rows.dtype)
        found = [
            int(self._ptr[term]) + np.searchsorted(self._postings(term)[0], bounds)
            for term, _ in terms
        ]
        if not found:
            return np.empty(0, self._rows.dtype), np.zeros((0, 0))
        # Every term's ranges as positions in the shared postings arrays, gathered at once.
        lo, hi = np.concatenate(found).reshape(-1, 2).T
        sizes = hi - lo
        picks = np.repeat(lo - np.cumsum(sizes) + sizes, sizes) + np.arange(int(sizes.sum()))
        per_term = sizes.reshape(len(terms), -1).sum(axis=1)
        term_of = np.repeat(np.arange(len(terms)), per_term)
        picked, weights = self._rows[picks], self._weights[picks]
        repeats = np.array([n for _, n in terms])
        if (repeats != 1).any():
            weights = weights * repeats[term_of]
        rows = _unique(picked)
        matrix = np.zeros((len(terms), len(rows)))
        matrix[term_of, np.searchsorted(rows, picked)] = weights
        return rows, matrix

    def _gather(self, terms: QueryTerms) -> tuple[Rows, Floats]:
        """Concatenate the terms' postings in the given order (the order of the sums)."""
        parts = [self._postings(term, n) for term, n in terms]
        rows = np.concatenate([r for r, _ in parts]) if parts else np.empty(0, np.int32)
        return rows, np.concatenate([w for _, w in parts]) if parts else np.empty(0)

    def save(self, folder: Path) -> None:
        """Write the index into folder (created if needed) as .npy arrays and a term list."""
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "terms.txt").write_bytes(bytes(self._terms.data))
        for name in _FILES:
            np.save(folder / f"{name}.npy", np.ascontiguousarray(self._arrays[name]))
        (folder / "params.json").write_bytes(pretty_json(self._params))


def _floats(values: npt.NDArray[Any]) -> Floats:
    """Return values as float64 (np.bincount with weights already gives float64)."""
    return values.astype(np.float64, copy=False)


def _unique(rows: Rows) -> Rows:
    """Return the distinct rows, ascending (np.unique is far slower on large int arrays)."""
    ordered = np.sort(rows)
    return ordered[np.diff(ordered, prepend=-1) != 0] if len(ordered) else ordered


def _sparse(rows: Rows, weights: Floats) -> tuple[Rows, Floats]:
    """Return the distinct rows, ascending, and each one's weights summed in the given order
    (np.bincount adds in input order, so a row's sum is the dense vector's float)."""
    distinct = _unique(rows)
    inverse = np.searchsorted(distinct, rows)
    return distinct, _floats(np.bincount(inverse, weights=weights, minlength=len(distinct)))
