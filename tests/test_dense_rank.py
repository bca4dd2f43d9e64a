"""The dense ranker (exact inner product) and hybrid fusion: hand-checked numbers, the access
checks every ranker passes, and that eval and `Index.search` run the same functions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from support.chunk_factory import bare_chunk

from policy_assistant.errors import BadIndex, UsageError
from policy_assistant.evaluate.questions import Question
from policy_assistant.evaluate.retrieval import chunk_retriever
from policy_assistant.index import memory_index
from policy_assistant.index.chunks import search as search_module
from policy_assistant.index.chunks.dense import dense_search, top_rows
from policy_assistant.index.chunks.fusion import fuse
from policy_assistant.index.chunks.segment import MemorySegment
from policy_assistant.index.settings import HYBRID_RANKER, RankerSettings
from policy_assistant.records import Chunk

CHUNKER = {"name": "test"}


def unit(*values: float) -> np.ndarray:
    vector = np.array(values, np.float32)
    return vector / np.linalg.norm(vector)


class FakeEncoder:
    """Each query text's vector from a table, counting the texts encoded."""

    def __init__(self, table: dict[str, np.ndarray]) -> None:
        self.table, self.calls = table, 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += len(texts)
        return np.stack([self.table[text] for text in texts])


def segment_of(vectors: list[np.ndarray], access: list[int]) -> MemorySegment:
    chunks = [bare_chunk(f"d{i}.md", 0, f"text {i}", "public", CHUNKER) for i in range(len(access))]
    return MemorySegment(chunks, np.array(access, np.uint8), np.stack(vectors))


def test_dense_search_ranks_by_inner_product_skipping_unseen_and_deleted_rows():
    vectors = [unit(1, 0), unit(0.6, 0.8), unit(0, 1), unit(0.6, 0.8), unit(0.8, 0.6)]
    segment = segment_of(vectors, [0, 0, 1, 0, 0])
    query = unit(1, 0)
    found = dense_search([segment], query, 10, 0)
    # equal scores (rows 1 and 3) rank by row; row 2 is staff, unseen at level 0
    assert [(s, r) for s, r, _ in found] == [(0, 0), (0, 4), (0, 1), (0, 3)]
    np.testing.assert_allclose([x for *_, x in found], [1.0, 0.8, 0.6, 0.6], rtol=1e-6)
    assert [r for _, r, _ in dense_search([segment], query, 10, 1)] == [0, 4, 1, 3, 2]
    segment.deleted = np.array([True, False, False, False, False])
    assert [r for _, r, _ in dense_search([segment], query, 2, 0)] == [4, 1]
    other = segment_of([unit(0.6, 0.8), unit(1, 0)], [0, 0])
    both = dense_search([segment, other], query, 4, 0)
    assert [(s, r) for s, r, _ in both] == [(1, 1), (0, 4), (0, 1), (0, 3)]


def test_top_rows_keeps_every_tie_at_the_cut_then_orders_by_row():
    rows = np.array([7, 3, 5, 9])
    scores = np.array([0.5, 0.5, 0.9, 0.5], np.float32)
    picked, best = top_rows(rows, scores, 2)
    assert picked.tolist() == [5, 3] and best.tolist() == pytest.approx([0.9, 0.5])


def test_vectors_that_do_not_fit_the_segment_are_damage():
    segment = segment_of([unit(1, 0), unit(0, 1)], [0, 0])
    with pytest.raises(BadIndex, match="shape"):
        dense_search([segment], unit(1, 0, 0), 2, 0)


BM25 = [(0, 0, 10.0), (0, 1, 5.0), (0, 2, 2.0)]
DENSE = [(0, 3, 0.75), (0, 0, 0.5), (0, 4, 0.25)]
MORE = {(0, 1): 0.125, (0, 2): 0.375}


def test_weighted_minmax_fusion_by_hand():
    # BM25 shares: row 0 (10-2)/8 = 1, row 1 (5-2)/8 = 0.375, row 2 0.
    # dense shares (x-0.25)/0.5: row 3 1, row 0 0.5, row 4 0, row 1 below 0.25: 0, row 2 0.25.
    fused = fuse(BM25, DENSE, MORE, RankerSettings("hybrid", norm="minmax"), 10)
    assert [r for _, r, _ in fused] == [0, 3, 1, 2, 4]
    assert [s for *_, s in fused] == pytest.approx([1.5, 1.0, 0.375, 0.25, 0.0])
    doubled = fuse(BM25, DENSE, MORE, RankerSettings("hybrid", weight=2.0), 2)
    assert doubled == [(0, 0, 2.0), (0, 3, 2.0)]  # a tie: (segment, row) order


def test_weighted_max_fusion_by_hand():
    # BM25 / 10: 1, 0.5, 0.2; dense / 0.75: row 3 1, row 0 2/3, row 4 1/3, row 1 1/6, row 2 1/2.
    fused = fuse(BM25, DENSE, MORE, RankerSettings("hybrid", norm="max"), 10)
    assert [r for _, r, _ in fused] == [0, 3, 2, 1, 4]
    expected = [1 + 2 / 3, 1.0, 0.2 + 1 / 2, 0.5 + 1 / 6, 1 / 3]
    assert [s for *_, s in fused] == pytest.approx(expected)


def test_reciprocal_rank_fusion_by_hand():
    fused = fuse(BM25, DENSE, MORE, RankerSettings("hybrid", "rrf", rrf_k=60), 10)
    # rows 2 and 4 tie at 1/63: (segment, row) order
    assert [r for _, r, _ in fused] == [0, 3, 1, 2, 4]
    assert [s for *_, s in fused] == pytest.approx(
        [1 / 61 + 1 / 62, 1 / 61, 1 / 62, 1 / 63, 1 / 63]
    )


def test_a_nan_dense_score_counts_as_nothing():
    fused = fuse(BM25, DENSE, {(0, 1): float("nan"), (0, 2): 0.375}, RankerSettings("hybrid"), 10)
    assert dict(((s, r), x) for s, r, x in fused)[0, 1] == 0.375


def test_one_value_lists_and_empty_lists_fuse():
    assert fuse([], [(0, 1, 0.3)], {}, RankerSettings("hybrid"), 5) == [(0, 1, 1.0)]
    assert fuse([(0, 2, 4.0)], [], {}, RankerSettings("hybrid"), 5) == [(0, 2, 1.0)]
    assert fuse(BM25, DENSE, MORE, RankerSettings("hybrid"), 0) == []


TEXTS = [
    ("refund policy for returned goods", "public", unit(1, 0, 0)),
    ("salary bands for managers", "staff", unit(0.2, 1, 0)),
    ("money back when an item comes back", "public", unit(0.1, 0.99, 0.1)),
    ("parking at the office", "public", unit(0, 0, 1)),
]


def corpus() -> tuple[list[Chunk], np.ndarray]:
    chunks = [bare_chunk(f"d{i}.md", 0, t, a, CHUNKER) for i, (t, a, _) in enumerate(TEXTS)]
    return chunks, np.stack([v for *_, v in TEXTS])


QUERIES = {"refund": unit(0.2, 1, 0), "parking": unit(0, 0, 1)}


def test_dense_and_hybrid_never_show_a_staff_chunk_to_a_public_caller():
    chunks, vectors = corpus()
    index = memory_index(chunks, vectors=vectors, encoder=FakeEncoder(QUERIES))
    for ranker in ("dense", "hybrid"):
        staff = index.search("refund", 4, "staff", ranker=ranker)
        assert "staff" in [h.chunk.access for h in staff]  # its vector matches the query best
        assert index.search("refund", 1, "staff", ranker="dense")[0].chunk.access == "staff"
        public = index.search("refund", 4, "public", ranker=ranker)
        assert [h.chunk.access for h in public] == ["public"] * 3
    index.segments[0].access = np.zeros(4, np.uint8)  # damage: the staff row coded public
    for ranker in ("dense", "hybrid"):
        with pytest.raises(BadIndex, match="disagrees"):
            index.search("refund", 4, "public", ranker=ranker)


def test_hybrid_lets_a_strong_dense_only_hit_through():
    chunks, vectors = corpus()
    index = memory_index(chunks, vectors=vectors, encoder=FakeEncoder(QUERIES))
    bm25 = index.search("refund", 4, "public", ranker="bm25")
    assert [h.row for h in bm25] == [0]  # row 2 shares no word with the query
    hybrid = index.search("refund", 4, "public", ranker="hybrid")
    assert [h.row for h in hybrid][:2] == [0, 2]
    assert hybrid[1].score == pytest.approx(HYBRID_RANKER.weight)  # the whole dense share
    assert [h.row for h in index.search("refund", 1, "public", ranker="dense")] == [2]


def test_the_default_ranker_follows_the_vectors_and_queries_are_encoded_once():
    chunks, vectors = corpus()
    plain = memory_index(chunks)
    assert plain.default_ranker().ranker == "bm25"
    encoder = FakeEncoder(QUERIES)
    index = memory_index(chunks, vectors=vectors, encoder=encoder)
    assert index.default_ranker().ranker != "bm25"
    first = index.search("refund", 3)
    assert index.search("refund", 3, ranker=index.default_ranker()) == first
    assert encoder.calls == 1


def test_dense_without_vectors_says_how_to_add_them_and_terms_need_text():
    chunks, vectors = corpus()
    with pytest.raises(UsageError, match=r"ingest --embed MODEL") as caught:
        memory_index(chunks).search("refund", 3, ranker="dense")
    assert "\n" not in str(caught.value)
    index = memory_index(chunks, vectors=vectors, encoder=FakeEncoder(QUERIES))
    with pytest.raises(UsageError, match="query's text"):
        index.search_rows(["refund"], 3, ranker="hybrid")
    with pytest.raises(UsageError, match="unknown ranker"):
        index.search("refund", 3, ranker="splade")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="3 vectors for 4 chunks"):
        memory_index(chunks, vectors=vectors[:3])


@pytest.mark.parametrize("ranker", ["dense", "hybrid"])
def test_eval_and_index_search_run_the_same_dense_functions(monkeypatch, ranker):
    """If eval's retrieval ranked with anything but Index's dense and fusion path, this fails."""
    calls: list[str] = []
    real_dense, real_fuse = search_module.dense_search, search_module.fused

    def dense_spy(*args: Any) -> Any:
        calls.append("dense")
        return real_dense(*args)

    def fuse_spy(*args: Any) -> Any:
        calls.append("fuse")
        return real_fuse(*args)

    monkeypatch.setattr(search_module, "dense_search", dense_spy)
    monkeypatch.setattr(search_module, "fused", fuse_spy)
    chunks, vectors = corpus()
    index = memory_index(chunks, vectors=vectors, encoder=FakeEncoder(QUERIES))
    shown = [h.row for h in index.search("refund", 3, "public", ranker=ranker)]
    searched = list(calls)
    assert searched == (["dense"] if ranker == "dense" else ["dense", "fuse"])
    retriever = chunk_retriever(chunks, vectors=vectors, encoder=FakeEncoder(QUERIES),
                                ranker=ranker)  # fmt: skip
    ranked = retriever.search(Question("q1", "refund", "public", ()), 3)
    assert calls == searched * 2
    assert [row for row, _ in ranked] == shown
