"""Counting texts into raw postings: per term its rows and term frequencies, per row its length.

Rows are counted batch by batch (_count_rows), after the first few batches in forked worker
processes, texts split into words by numpy over their UTF-8 bytes (_split_texts); every
counted batch is kept until all rows are in, then count_postings sorts the terms and moves
each batch's postings into its terms' slices. Nothing here touches disk; the only pickling
is multiprocessing's own (batches of texts to the workers, their counts back), and
word_terms is not sent at all: each worker inherits it through fork.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import sys
import threading
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import ExitStack
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt

from policy_assistant.index.chunks.bm25_types import Ints, Rows, WordTerms
from policy_assistant.index.tokenize import word_terms
from policy_assistant.procs.children import die_with_parent

BATCH_ROWS = 32768
"""Rows counted per batch while building: bounds temporary memory; at most 65536 (uint16)."""
BUILD_WORKERS = min(2, os.cpu_count() or 1)
"""Worker processes counting rows in a build of more than one batch (Linux, no threads)."""
PARALLEL_AFTER_BATCHES = 1
"""Batches counted in-process before workers start: builds of one batch never fork."""


Counted = tuple[list[str], Rows, Rows, npt.NDArray[Any], npt.NDArray[Any], Ints]
"""A batch counted by _count_rows."""
Split = tuple[list[str], Ints, Ints]
"""A batch's distinct words, each word's index into them, words before each row (_split)."""

_OTHER_SPACE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
"""The non-ASCII characters str.split() splits at (tested against str.isspace)."""
_SOLID = np.ones(256, dtype=np.bool_)
_SOLID[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = False
"""Per byte value: False for the ASCII bytes str.split() splits at."""
_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)
"""Per word size 0-8: the low bytes of a little-endian 8-byte load that hold the word."""
_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x94D049BB133111EB], dtype=np.uint64)


class _Vocab(dict[str, int]):
    """Term -> provisional id, assigned in order of first sight."""

    def __missing__(self, term: str) -> int:
        value = self[term] = len(self)
        return value


def _count_rows(rows: Sequence[str], word_terms: WordTerms) -> Counted:
    """Count one batch: each row (a text split on whitespace) is its words' terms in order.
    Needs no shared state, so any worker process can run it.

    Returns the batch's distinct terms, then grouped by term (in the order of that list):
    each term's index into it and posting count, each posting's row and tf; then row lengths.
    """
    words, word_ids, per_row = _split_texts(rows) or _split(rows)
    analyzed = list(map(word_terms, words))  # each distinct word once
    terms = _Vocab()
    flat = np.fromiter(map(terms.__getitem__, chain.from_iterable(analyzed)), np.int64)
    starts = np.zeros(len(analyzed) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, analyzed), np.int64, len(analyzed)), out=starts[1:])
    sizes = starts[word_ids + 1] - starts[word_ids]
    ends = np.cumsum(sizes)
    where = np.repeat(starts[word_ids] - ends + sizes, sizes) + np.arange(int(sizes.sum()))
    term_ids = flat[where]
    lengths = np.diff(np.concatenate([[0], ends])[per_row])
    return (list(terms), *_group(term_ids, lengths), lengths)


def _split(rows: Sequence[str]) -> Split:
    """Return the batch's distinct words, each word's index into them, and per row the
    number of words before it (one more entry than rows): word by word, in Python."""
    words = _Vocab()
    ids, per_row = array("l"), np.zeros(len(rows) + 1, dtype=np.int64)
    for i, row in enumerate(rows, 1):
        ids.extend(map(words.__getitem__, row.split()))
        per_row[i] = len(ids)
    return list(words), np.asarray(ids, dtype=np.int64), per_row


def _split_texts(texts: Sequence[str]) -> Split | None:
    """Return what _split does for texts, found with numpy over their UTF-8 bytes.

    Words of up to 16 bytes are told apart by a hash of their bytes, checked against one
    occurrence of each hash (None on a collision: _split takes over); longer ones, rare, by
    a dict. Non-ASCII whitespace becomes a space first: the words are those of str.split().
    """
    spaced = (t if t.isascii() else _OTHER_SPACE.sub(" ", t) for t in texts)
    encoded = [t.encode("utf-8", "surrogatepass") for t in spaced]  # lone surrogates too
    data = b" ".join(encoded) + b" " * 16  # the padding keeps 8-byte loads in bounds
    row_starts = np.cumsum([0, *map(len, encoded)]) + np.arange(len(texts) + 1)
    starts, sizes = _word_spans(np.frombuffer(data, np.uint8))
    short, word_ids = sizes <= 16, np.empty(len(starts), dtype=np.int64)
    found = _short_words(data, starts[short], sizes[short])
    if found is None:
        return None
    words, word_ids[short] = found
    long = np.flatnonzero(~short)
    long_words = _Vocab()
    spans = zip(starts[long].tolist(), (starts[long] + sizes[long]).tolist(), strict=True)
    each = (data[start:end].decode("utf-8", "surrogatepass") for start, end in spans)
    word_ids[long] = np.fromiter(map(long_words.__getitem__, each), np.int64, len(long))
    word_ids[long] += len(words)
    return words + list(long_words), word_ids, np.searchsorted(starts, row_starts)


def _word_spans(data: npt.NDArray[np.uint8]) -> tuple[Ints, Ints]:
    """Return where each word of data (UTF-8 ending in whitespace) starts, and its size."""
    spaces = np.flatnonzero(data <= 32)  # every ASCII whitespace byte, and a few others
    spaces = spaces[~_SOLID[data[spaces]]]
    gaps = np.diff(spaces, prepend=-1)
    words = gaps > 1
    return spaces[words] - gaps[words] + 1, gaps[words] - 1


def _short_words(data: bytes, starts: Ints, sizes: Ints) -> tuple[list[str], Ints] | None:
    """Return the distinct words of up to 16 bytes at starts in data, and each word's index
    into them; None if two distinct words share a hash."""
    loads = np.ndarray((len(data) - 7,), "<u8", data, 0, (1,))  # unaligned 8-byte loads
    low = loads[starts] & _MASKS[np.minimum(sizes, 8)]
    high = loads[starts + 8] & _MASKS[np.clip(sizes - 8, 0, 8)]
    hashes = low * _MIX[0] ^ (high + sizes.astype(np.uint64)) * _MIX[1]
    hashes ^= hashes >> np.uint64(31)
    hashes *= _MIX[2]
    bits = np.uint64(len(hashes).bit_length())  # the low bits hold each word's position
    keys = hashes >> bits << bits | np.arange(len(hashes), dtype=np.uint64)
    keys.sort()  # by hash, then position: far faster than an argsort
    order = (keys & ((np.uint64(1) << bits) - np.uint64(1))).astype(np.int64)
    new = _new_runs(keys >> bits)
    ids = np.empty(len(keys), dtype=np.int64)
    ids[order] = np.cumsum(new) - 1
    first = order[new]
    seen = first[ids]
    if not all((part[seen] == part).all() for part in (low, high, sizes)):
        return None
    spans = zip(starts[first].tolist(), (starts[first] + sizes[first]).tolist(), strict=True)
    return [data[start:end].decode("utf-8", "surrogatepass") for start, end in spans], ids


def _group(ids: Ints, lengths: Ints) -> tuple[Rows, Rows, npt.NDArray[Any], npt.NDArray[Any]]:
    """Return a batch's terms, postings per term, and per posting its row in the batch and tf.

    Rows in a batch must fit in uint16 (BATCH_ROWS <= 65536).
    """
    count = max(len(lengths), 1)
    keys = ids * count + np.repeat(np.arange(len(lengths)), lengths)
    keys.sort()
    starts = np.flatnonzero(_new_runs(keys))
    tf = np.diff(np.append(starts, len(keys)))
    terms, local = np.divmod(keys[starts], count)
    term_starts = np.flatnonzero(_new_runs(terms))
    sizes = np.diff(np.append(term_starts, len(terms))).astype(np.int32)
    tf_type = np.uint16 if len(tf) == 0 or tf.max() <= 0xFFFF else np.int64
    return terms[term_starts].astype(np.int32), sizes, local.astype(np.uint16), tf.astype(tf_type)


def _new_runs(values: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    """Return, per value of a sorted array, whether it starts a run of equal values."""
    edges = np.empty(len(values), dtype=np.bool_)
    edges[:1] = True
    np.not_equal(values[1:], values[:-1], out=edges[1:])
    return edges


def _batched(rows: Iterable[str]) -> Iterator[list[str]]:
    """Yield rows in lists of BATCH_ROWS (the last one shorter, possibly empty)."""
    batch: list[str] = []
    for row in rows:
        batch.append(row)
        if len(batch) == BATCH_ROWS:
            yield batch
            batch = []
    yield batch


def _can_fork(workers: int) -> bool:
    """Return whether to fork workers: asked for, and no other thread exists that forking
    could break.

    fork, not spawn or forkserver: those re-import the caller's main module, which breaks
    scripts without a main guard. A forked worker only runs _count_rows.
    """
    return workers >= 2 and sys.platform == "linux" and threading.active_count() == 1


_worker_word_terms: WordTerms | None = None
"""In a forked worker, the build's word_terms (set by _start_worker)."""


def _start_worker(word_terms: WordTerms, parent: int) -> None:
    """Die with parent, and keep word_terms for this worker: it arrives through fork."""
    die_with_parent(parent)
    global _worker_word_terms
    _worker_word_terms = word_terms


def _count_in_worker(rows: Sequence[str]) -> Counted:
    """Run _count_rows in a worker with the word_terms _start_worker kept."""
    if _worker_word_terms is None:
        raise RuntimeError("_count_in_worker runs only in a worker _start_worker set up")
    return _count_rows(rows, _worker_word_terms)


def feed_rows(
    rows: Iterable[str], word_terms: WordTerms, add: Callable[[Counted], None], workers: int
) -> None:
    """Count rows batch by batch, each counted batch given to add in order; after the first
    few batches, in worker processes.

    At most 2 * workers batches are in flight and results are taken in submission order,
    so rows keep their order and memory stays bounded.
    """
    pending: deque[Future[Counted]] = deque()
    with ExitStack() as stack:
        pool: ProcessPoolExecutor | None = None
        for n, batch in enumerate(_batched(rows)):
            if pool is None and n == PARALLEL_AFTER_BATCHES and _can_fork(workers):
                # Forked workers, each holding word_terms and dying with us.
                init = (word_terms, os.getpid())
                context = multiprocessing.get_context("fork")
                pool = ProcessPoolExecutor(workers, context, _start_worker, init)
                stack.enter_context(pool)
            if pool is None:
                add(_count_rows(batch, word_terms))
            else:
                pending.append(pool.submit(_count_in_worker, batch))
            while pending and (len(pending) > 2 * workers or pending[0].done()):
                add(pending.popleft().result())
        while pending:
            add(pending.popleft().result())


def count_postings(
    rows: Iterable[str], analyze: WordTerms = word_terms, workers: int = BUILD_WORKERS
) -> tuple[bytes, dict[str, Any]]:
    """Return the sorted term list (UTF-8 lines) and the raw postings arrays, one row per
    text (its words' terms under analyze): term_offsets, ptr, rows, tf (uint16, uint32 when
    a count needs it), dl. The result does not depend on workers (forked counting processes)."""
    # Counted batches, kept until every row is in: then the postings can be laid out. Each
    # holds its first row, its terms (global ids, in first-sight order), per term its posting
    # count, and per posting its row within the batch and its tf.
    vocab = _Vocab()
    parts: list[tuple[int, Rows, Rows, npt.NDArray[Any], npt.NDArray[Any]]] = []
    lengths: list[Ints] = []

    def add(counted: Counted) -> None:  # a batch's terms renumbered into the vocabulary
        distinct, local_terms, sizes, local_rows, tf, batch_lengths = counted
        ids = np.fromiter(map(vocab.__getitem__, distinct), np.int32, len(distinct))
        if len(batch_lengths):
            parts.append((sum(map(len, lengths)), ids[local_terms], sizes, local_rows, tf))
        lengths.append(batch_lengths)

    feed_rows(rows, analyze, add, workers)
    terms = sorted(vocab, key=lambda t: t.encode("utf-8"))
    new_of_old = np.empty(len(terms), dtype=np.int32)
    old_ids = np.fromiter(map(vocab.__getitem__, terms), np.int64, len(terms))
    new_of_old[old_ids] = np.arange(len(terms), dtype=np.int32)
    vocab.clear()  # the largest thing the count holds
    df = np.zeros(len(terms), dtype=np.int64)
    for _, old, sizes, _, _ in parts:
        df[new_of_old[old]] += sizes  # a term appears once per batch
    ptr = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum(df, out=ptr[1:])
    wide = any(len(part[4]) and int(part[4].max()) > 0xFFFF for part in parts)
    rows = np.empty(int(ptr[-1]), np.int32)
    tf = np.empty(int(ptr[-1]), np.uint32 if wide else np.uint16)
    fill = ptr[:-1].copy()
    for first, old, sizes, local, batch_tf in parts:
        new = new_of_old[old]
        pos = np.repeat(fill[new] - (np.cumsum(sizes) - sizes), sizes) + np.arange(len(local))
        fill[new] += sizes
        rows[pos] = local.astype(np.int32) + first
        tf[pos] = batch_tf
    encoded = [t.encode("utf-8") + b"\n" for t in terms]
    offsets = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    arrays = {"term_offsets": offsets, "ptr": ptr, "rows": rows, "tf": tf}
    arrays["dl"] = np.concatenate(lengths).astype(np.uint32)  # one batch at least
    return b"".join(encoded), arrays
