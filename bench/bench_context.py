"""Benchmark retrieval units and context assembly beside chunks and plain search.

    python bench/bench_context.py --units 1000000 [--write]   # --write: into bench/RESULTS.md

Generates documents of Zipf-distributed made-up words (bench_index.py's vocabulary) with
headings, paragraphs of sentences, list items and a table per section, then reports:

- build: seconds to cut units and write their one unit segment (write_units, as ingest and
  eval write them), beside the structure chunker and the chunks' segment (write_segment, as
  ingest writes it), on the same documents; and the size on disk of each;
- per query (100 queries of 3-8 words taken from random units), in process, each row run
  PASSES times (the median of the passes' median CPU ms, and the p90 of all): plain chunk
  search (Index.search, k=10), unit search (SegmentedUnits.ranked, 50 candidates, four
  fields), assembly alone (assemble, budget 400; memory-mapped columns, texts read on
  demand), and the whole context (context_for, the path of Index.context and eval: unit
  search, hit order, assembly) over units written at once (one segment) and written in
  SEGMENTS parts as successive ingests leave them (hits fall in several segments), with what
  each adds over chunk search.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from policy_assistant.chunk import Chunker, make_chunker
from policy_assistant.index.chunks.search import Index, memory_index
from policy_assistant.index.chunks.segment_build import write_segment
from policy_assistant.index.context.assembler import (
    DEFAULT_CONTEXT,
    ContextSettings,
    assemble,
    context_for,
)
from policy_assistant.index.context.unit_rank import Hits, SegmentedUnits
from policy_assistant.index.context.units import UnitSet
from policy_assistant.index.settings import BM25_DEFAULTS
from policy_assistant.index.store.units import (
    load_units,
    update_units,
    write_units,
)
from policy_assistant.index.tokenize import STOPWORDS
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import ACCESS_LABELS, Chunk, Document, DocumentMeta

SEED = 20261201
QUERIES = 100
BUDGET = 400
UNITS_PER_DOC = 161
"""Units one generated document holds: a heading, then 10 sections of a heading, 12
sentences, a list item and a two-row table."""
VOCABULARY = 50_000
"""Distinct made-up words the documents draw from."""


def make_words(seed: int) -> list[str]:
    """Return VOCABULARY distinct lowercase made-up words of 2-4 syllables."""
    rng = np.random.default_rng(seed)
    onsets = [*"bcdfghjklmnprstvwz", "br", "ch", "st", "tr", "pl"]
    vowels = ["a", "e", "i", "o", "u", "ai", "ou"]
    seen: set[str] = set()
    words: list[str] = []
    while len(words) < VOCABULARY:
        size = int(rng.integers(2, 5))
        picks = zip(rng.integers(len(onsets), size=size), rng.integers(7, size=size), strict=True)
        word = "".join(onsets[i] + vowels[j] for i, j in picks)
        if word not in seen and word not in STOPWORDS:
            seen.add(word)
            words.append(word)
    return words


def make_documents(units: int, seed: int = SEED) -> list[Document]:
    """Return documents holding about `units` units in all."""
    words = make_words(seed)
    weights = 1.0 / np.arange(1, len(words) + 1)
    cdf = np.cumsum(weights / weights.sum())
    rng = np.random.default_rng(seed)

    def sentence() -> str:
        ids = np.searchsorted(cdf, rng.random(int(rng.integers(8, 26))))
        text = " ".join(words[min(i, len(words) - 1)] for i in ids.tolist())
        return text[0].upper() + text[1:] + "."

    docs = []
    for n in range(max(1, units // UNITS_PER_DOC)):
        builder = DocumentBuilder()
        builder.heading(f"Manual {n}", 1, ())
        for s in range(10):
            builder.heading(f"Section {s} {words[(n * 10 + s) % len(words)]}", 2, ())
            for _ in range(3):
                builder.add("paragraph", " ".join(sentence() for _ in range(4)), ())
            builder.add("list_item", sentence(), ())
            builder.add("table", f"Name | Value\n{sentence()[:-1]} | {n}", ())
        meta = DocumentMeta(access="public", title=f"Manual {n}", version="1")
        docs.append(builder.build(f"m/{n:06d}.md", "0" * 64, meta, f"manual-{n}"))
    return docs


T = TypeVar("T")


def timed(action: Callable[[], T]) -> tuple[float, T]:
    """Return CPU seconds of this process taken and the result (forked workers not counted)."""
    started = time.process_time()
    result = action()
    return time.process_time() - started, result


def folder_mb(folder: Path) -> float:
    """Return the size of a folder's files in MB."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


PASSES = 3
"""Times each row runs its queries: the machine is shared, so one pass's median moves."""


def per_query(
    action: Callable[[Any], object], queries: list[str], prepare: Callable[[str], Any] = str
) -> tuple[float, float]:
    """Return the median of PASSES passes' median CPU ms of action over the queries (after a
    warm-up) and the 90th percentile of every query's time. prepare(query), untimed, makes
    what action is given (fresh each time, so no pass reads what an earlier one kept).

    CPU time, not wall time: the machine is shared, and a query never waits on anything.
    """
    action(prepare(queries[0]))
    medians, times = [], []
    for _ in range(PASSES):
        one = []
        for query in queries:
            given = prepare(query)
            started = time.process_time()
            action(given)
            one.append((time.process_time() - started) * 1000)
        medians.append(statistics.median(one))
        times += one
    return statistics.median(medians), float(np.percentile(times, 90))


def pick_queries(units: UnitSet, seed: int = SEED) -> list[str]:
    """Return QUERIES queries of 3-8 words from random prose units."""
    rng = np.random.default_rng([seed, 1])
    out: list[str] = []
    kinds = units.col("unit_kind")
    while len(out) < QUERIES:
        row = int(rng.integers(len(units)))
        if kinds[row] == 1:  # a sentence
            words = units.unit_text(row).rstrip(".").lower().split()
            count = min(len(words), int(rng.integers(3, 9)))
            out.append(" ".join(rng.choice(words, count, replace=False).tolist()))
    return out


def main() -> None:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--units", type=int, default=1_000_000)
    from results import parse_args  # bench/ is on sys.path when run from it

    args = parse_args(parser)
    docs = make_documents(args.units)
    chunker = make_chunker("structure")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        chunk_s, chunks = timed(lambda: _chunks(chunker, docs, root / "chunks"))
        unit_s, _ = timed(lambda: write_units(docs, root / "units", BM25_DEFAULTS))
        loaded = load_units(root / "units")
        units = _segment_units(loaded)
        print(f"{len(docs)} documents, {len(units)} units, {len(chunks)} chunks")
        print(f"build CPU s: units {unit_s:.1f} (cut + 4 fields written), "
              f"chunks {chunk_s:.1f} (chunker + segment written)")  # fmt: skip
        units_mb, chunks_mb = folder_mb(root / "units"), folder_mb(root / "chunks")
        print(f"size MB: units/ {units_mb:.0f}, chunk segment {chunks_mb:.0f}")
        write_in_parts(docs, root / "parts", SEGMENTS)
        parts = load_units(root / "parts")
        print(f"unit segments: {len(loaded.segments)} (one write), {len(parts.segments)} (parts)")
        report((loaded, parts), memory_index(chunks), pick_queries(units))
        loaded.close()
        parts.close()
    shutil.rmtree(root, ignore_errors=True)


def _assembly(settings: ContextSettings) -> Callable[[tuple[UnitSet, Hits]], object]:
    """Return an action assembling a search result's context at BUDGET with settings."""
    return lambda found: assemble(found[0], found[1], BUDGET, settings)


def _segment_units(index: SegmentedUnits) -> UnitSet:
    """Return the units of a one-segment store."""
    from policy_assistant.index.context.unit_open import segment_units

    return segment_units(index.segments[0])


def _chunks(chunker: Chunker, docs: list[Document], folder: Path) -> list[Chunk]:
    """Return the documents' chunks, written as one segment into folder."""
    chunks = [c for d in docs for c in chunker.chunk(d)]
    folder.mkdir()
    write_segment(folder, chunks, ACCESS_LABELS)
    return chunks


SEGMENTS = 4
"""Unit segments of the second layout from disk: a write, then three updates adding the rest."""


def write_in_parts(docs: list[Document], folder: Path, parts: int) -> None:
    """Write the units of docs as an index's ingests would: one write, then updates that add
    the rest a part at a time (each a new segment; the folder ends as the last one)."""
    size = -(-len(docs) // parts)
    write_units(docs[:size], folder.with_name("part-0"), BM25_DEFAULTS)
    for n in range(1, parts):
        old, new = folder.with_name(f"part-{n - 1}"), folder.with_name(f"part-{n}")
        update_units(old, new, [], docs[n * size : (n + 1) * size], BM25_DEFAULTS)
        shutil.rmtree(old)
    folder.with_name(f"part-{parts - 1}").rename(folder)


def report(
    disks: tuple[SegmentedUnits, SegmentedUnits], chunk_index: Index, queries: list[str]
) -> None:
    """Print per-query times (the unit segments an index folder holds, written at once and in
    SEGMENTS parts)."""
    disk, parts = disks
    settings = DEFAULT_CONTEXT
    rows: list[tuple[str, Callable[[Any], object]]] = [
        ("chunk search (k=10)", lambda q: chunk_index.search(q, 10, "staff")),
        ("unit search (50, 4 fields)", lambda q: disk.ranked(q, settings.candidates)),
    ]
    rows += [
        ("context (search + assembly)", lambda q: context_for(disk, q, BUDGET, None, settings)),
        (f"context, {SEGMENTS} segments", lambda q: context_for(parts, q, BUDGET, None, settings)),
    ]
    print(f"{'per query (CPU)':<28} {'median ms':>10} {'p90 ms':>8}")
    medians = {}
    for name, action in rows:
        median, p90 = per_query(action, queries)
        medians[name] = median
        print(f"{name:<28} {median:10.2f} {p90:8.2f}")
    for strategy in ("window", "automerge", "units"):
        other = settings if strategy == "window" else ContextSettings(strategy)
        # Each call is handed a fresh search result: its texts and paths not yet read.
        median, p90 = per_query(
            _assembly(other),
            queries,
            lambda q: disk.ranked(q, settings.candidates)[:2],
        )
        print(f"{'assembly, ' + strategy:<28} {median:10.2f} {p90:8.2f}")
    for name in ("context (search + assembly)", f"context, {SEGMENTS} segments"):
        extra = medians[name] - medians["chunk search (k=10)"]
        print(f"{name} adds {extra:.2f} ms median over chunk search")
    extra = medians["context (search + assembly)"] - medians["chunk search (k=10)"]
    print(f"chunk search {medians['chunk search (k=10)']:.2f} ms, context "
          f"{medians['context (search + assembly)']:.2f} ms: +{extra:.2f} ms "
          f"(load {os.getloadavg()[0]:.2f})")  # fmt: skip
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    from results import recording, write_section  # bench/ is on sys.path when run from it

    with recording() as printed:
        main()
    write_section("bench_context", "```\n" + printed.getvalue() + "```")
