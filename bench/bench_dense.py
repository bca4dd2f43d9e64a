"""Exact dense search at scale: each inner-product kernel a reader can have, in one run.

    python bench/bench_dense.py [--rows 100000,1000000] [--write]

For each size, random unit vectors (384 wide, all-MiniLM-L6-v2's width) are written as an
index segment writes them (float16 .npy) and read back by the index's own loader
(index/chunks/vector_file.load_vectors), then searched with index/chunks/dense.dense_search
for the top 100, under each kernel (index/chunks/kernel.py): simsimd on the memory map, and
numpy's BLAS over the float32 copy a reader keeps without simsimd. Every kernel gets the same
vectors, the same 10 queries and one warm-up query; the median of the other 9 is reported,
with the time to open the vectors, and hybrid's own step (the exact products of 100 BM25
candidates the dense list lacks, and the fusion). The load average is printed beside the
figures, since the machine is shared; the floor (50 ms at 1M rows) is checked on the median.
--write records the figures in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from results import parse_args, write_section

from policy_assistant.index.chunks.dense import dense_search, fused
from policy_assistant.index.chunks.kernel import simd_kernel
from policy_assistant.index.chunks.segment import MemorySegment
from policy_assistant.index.chunks.vector_file import VECTORS_FILE, load_vectors
from policy_assistant.index.settings import RankerSettings

DIMENSION = 384
QUERIES = 10
FLOOR_MS = 50.0
"""Dense exact search at 1M rows, median in process: the floor the benchmark checks."""


def median_ms(run: Callable[[Any], Any], probes: list[Any]) -> float:
    """Return the median milliseconds of run(probe) over probes after the first (a warm-up)."""
    took = []
    for probe in probes:
        start = time.perf_counter()
        run(probe)
        took.append((time.perf_counter() - start) * 1000)
    return statistics.median(took[1:])


def one_size(rows: int) -> tuple[list[str], float | None]:
    """Return the lines of one size (each kernel's open and query times, and hybrid's step)
    and the simsimd median (None without simsimd)."""
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((rows, DIMENSION), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    probes = [q / np.linalg.norm(q) for q in vectors[:QUERIES] + 0.1]
    candidates = [(0, int(r), 1.0) for r in rng.choice(rows, 100, replace=False)]
    lines, best = [], None
    with tempfile.TemporaryDirectory() as tmp:
        np.save(Path(tmp) / VECTORS_FILE, vectors.astype(np.float16))
        del vectors
        for name, simd in (("simsimd, float16 memory map", True), ("numpy, float32 copy", False)):
            if simd and simd_kernel() is None:
                lines.append(f"{rows:>9,}  {name}: simsimd is not installed")
                continue
            line, dense = kernel_line(Path(tmp), rows, probes, candidates, name, simd)
            lines.append(line)
            best = dense if simd else best
    return lines, best


def kernel_line(
    folder: Path, rows: int, probes: list[Any], bm25: list[Any], name: str, simd: bool
) -> tuple[str, float]:
    """Return one line timing dense_search and hybrid's step with one kernel, and the dense ms."""
    start = time.perf_counter()
    loaded = load_vectors(folder, rows, widen=not simd)
    opened = (time.perf_counter() - start) * 1000
    segment = MemorySegment([], np.zeros(rows, np.uint8), loaded)
    segment.info = segment.info.__class__("bench", rows, rows, rows, "")
    dense = median_ms(lambda q: dense_search([segment], q, 100, 0), probes)
    found = dense_search([segment], probes[0], 100, 0)
    hybrid = RankerSettings("hybrid")
    step = median_ms(lambda q: fused(bm25, found, [segment], q, hybrid, 100), probes)
    blas = os.environ.get("OPENBLAS_NUM_THREADS", "numpy's default")
    threads = f"all {os.cpu_count()} CPUs" if simd else f"BLAS threads: {blas}"
    return (
        f"{rows:>9,}  {name + ' (' + threads + ')':<58} open {opened:7.0f} ms   "
        f"dense top 100 {dense:6.1f} ms   hybrid step {step:5.1f} ms"
    ), dense


def main() -> None:
    """Time every size given; print, check the floor and record the figures (--write)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", default="100000,1000000")
    args = parse_args(parser)
    sizes = [int(x) for x in args.rows.split(",")]
    lines = []
    for rows in sizes:
        found, best = one_size(rows)
        lines += found
        if rows == 1_000_000 and best is not None:
            verdict = "PASS" if best <= FLOOR_MS else "FAIL"
            lines.append(f"floor at 1,000,000 rows: simsimd median <= {FLOOR_MS:.0f} ms: {verdict}")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    lines.append(f"load average {load} (1, 5, 15 min) on {os.cpu_count()} CPUs")
    text = "\n".join(lines)
    print(text)
    write_section("bench_dense", f"```\n{text}\n```\n")


if __name__ == "__main__":
    main()
