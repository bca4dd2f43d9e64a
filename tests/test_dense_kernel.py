"""The dense ranker's inner-product kernel (index/chunks/kernel.py) against numpy's float32."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from policy_assistant.index.chunks.dense import dense_search
from policy_assistant.index.chunks.kernel import products, simd_kernel
from policy_assistant.index.chunks.segment import MemorySegment
from policy_assistant.index.chunks.vector_file import VECTORS_FILE, load_vectors

needs_simd = pytest.mark.skipif(simd_kernel() is None, reason="simsimd (the dense extra) absent")


def unit_rows(rows: int, dim: int = 48, seed: int = 0) -> np.ndarray:
    """Return rows random unit vectors, float32."""
    found = np.random.default_rng(seed).standard_normal((rows, dim), dtype=np.float32)
    return found / np.linalg.norm(found, axis=1, keepdims=True)


@needs_simd
def test_float16_rows_are_multiplied_as_stored_to_float32_precision() -> None:
    rows = unit_rows(5000).astype(np.float16)
    query = unit_rows(1, seed=1)[0]
    found = products(rows, query)
    assert found.dtype == np.float32 and found.shape == (5000,)
    widened = rows.astype(np.float32) @ query.astype(np.float16).astype(np.float32)
    assert np.abs(found - widened).max() < 1e-5


@needs_simd
def test_the_models_width_sums_in_float32_on_every_cpu() -> None:
    # all-MiniLM-L6-v2's 384 dimensions: a float16 sum (AVX512-FP16) is off by about 1e-2.
    rows = unit_rows(2000, dim=384).astype(np.float16)
    query = unit_rows(1, dim=384, seed=3)[0]
    widened = rows.astype(np.float32) @ query.astype(np.float16).astype(np.float32)
    assert np.abs(products(rows, query) - widened).max() < 1e-5


@needs_simd
def test_a_row_scores_the_same_bits_alone_as_among_all() -> None:
    rows = unit_rows(3000).astype(np.float16)
    query = unit_rows(1, seed=2)[0]
    every = products(rows, query)
    assert all(products(rows[i : i + 1], query)[0] == every[i] for i in range(0, 3000, 101))


def test_float32_rows_keep_numpys_product() -> None:
    rows, query = unit_rows(100), unit_rows(1, seed=3)[0]
    assert np.array_equal(products(rows, query), rows @ query)


@pytest.mark.parametrize("widen", [True, False])
def test_dense_search_ranks_alike_on_the_map_and_on_the_float32_copy(
    tmp_path: Path, widen: bool
) -> None:
    stored = unit_rows(4000)
    np.save(tmp_path / VECTORS_FILE, stored.astype(np.float16))
    loaded = load_vectors(tmp_path, 4000, widen=widen)
    assert loaded.dtype == (np.float32 if widen or simd_kernel() is None else np.float16)
    segment = MemorySegment([], np.zeros(4000, np.uint8), loaded)
    segment.info = segment.info.__class__("test", 4000, 4000, 4000, "")
    query = stored[17] + 0.05 * unit_rows(1, seed=4)[0]
    hits = dense_search([segment], query / np.linalg.norm(query), 10, 0)
    reference = np.argsort(-(stored.astype(np.float16).astype(np.float32) @ query), kind="stable")
    assert [row for _, row, _ in hits][:3] == reference[:3].tolist()
    assert hits[0][1] == 17
