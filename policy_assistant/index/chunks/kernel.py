"""The inner-product kernel of the dense ranker: simsimd when installed, else numpy's BLAS.

simsimd (the `dense` extra) multiplies float16 rows in SIMD with float32 sums, straight from
the segment's memory map: a 1M x 384 search in under 40 ms on two cores against about 75 ms
for BLAS over a float32 copy twice the size (bench/bench_dense.py). Each row's product is
one row's sum, so the bytes do not depend on the number of threads. float32 rows (vectors
handed over in memory, as eval's are) keep numpy's product, so eval's figures do not move.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

BLOCK_ROWS = 1 << 15
"""Rows widened and multiplied at once by numpy: bounds a query's temporary memory."""

Floats = npt.NDArray[np.float32]


@cache
def simd_kernel() -> Any:
    """Return the simsimd module, or None when it is not installed."""
    try:
        import simsimd
    except ImportError:
        return None
    # Sapphire Rapids' float16 kernel (AVX512-FP16) sums in float16: products off by up to
    # 6e-2 on 384 dimensions, and scores that differ by machine. Without it simsimd widens
    # each float16 to float32 before its fused multiply-add, as on every other x86 CPU.
    if simsimd.get_capabilities().get("sapphire"):
        simsimd.disable_capability("sapphire")
    return simsimd


def products(matrix: npt.ArrayLike, query: Floats) -> Floats:
    """Return the inner product of every row of matrix with query, as float32."""
    rows = np.asarray(matrix)
    kernel = simd_kernel()
    if kernel is not None and rows.dtype == np.float16 and rows.ndim == 2 and len(rows):
        probe = np.ascontiguousarray(query, dtype=np.float16)[None, :]
        found = kernel.cdist(probe, rows, metric="dot", out_dtype="float32", threads=0)
        return np.asarray(found, dtype=np.float32).reshape(len(rows))
    scores = np.empty(len(rows), np.float32)
    for start in range(0, len(rows), BLOCK_ROWS):
        block = np.asarray(rows[start : start + BLOCK_ROWS], dtype=np.float32)
        scores[start : start + BLOCK_ROWS] = block @ query
    return scores
