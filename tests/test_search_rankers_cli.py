"""`search --ranker`: the dense and hybrid rankers through the command, on an index folder.

Index folders get their vectors from `ingest --embed`; here a segment's vectors() and the
index's query encoder are replaced by fakes, so the command's own path (options, access,
output) is what is tested, with no model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.chunk_factory import bare_chunk
from typer.testing import CliRunner

from policy_assistant.cli import app
from policy_assistant.evaluate.questions import Question
from policy_assistant.evaluate.retrieval import chunk_retriever
from policy_assistant.index import build_index
from policy_assistant.index.chunks import search as search_module
from policy_assistant.index.chunks.search import Index
from policy_assistant.index.chunks.segment import Segment
from policy_assistant.index.store.build import IndexSettings, sort_chunks

CHUNKER = {"name": "test"}
TEXTS = {
    "refund policy for returned goods": ("public", (1.0, 0.0, 0.0)),
    "salary bands for managers": ("staff", (0.2, 1.0, 0.0)),
    "money back when an item comes back": ("public", (0.1, 0.99, 0.1)),
    "parking at the office": ("public", (0.0, 0.0, 1.0)),
}
QUERIES = {"refund": (0.2, 1.0, 0.0)}


def unit(values: tuple[float, ...]) -> np.ndarray:
    vector = np.array(values, np.float32)
    return vector / np.linalg.norm(vector)


class FakeEncoder:
    def encode(self, texts: list[str]) -> np.ndarray:
        return np.stack([unit(QUERIES[t]) for t in texts])


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    chunks = [
        bare_chunk(f"d{i}.md", 0, t, a, CHUNKER) for i, (t, (a, _)) in enumerate(TEXTS.items())
    ]
    build_index(chunks, tmp_path / "i", IndexSettings(CHUNKER))
    return tmp_path / "i"


@pytest.fixture
def with_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    """Give every disk segment a vector per record, and indexes the fake query encoder."""
    monkeypatch.setattr(
        Segment, "vectors", lambda self: np.stack([unit(TEXTS[c.text][1]) for c in self.records()])
    )
    monkeypatch.setattr(Index, "load_encoder", lambda self: FakeEncoder())


def run(folder: Path, *args: str) -> Any:
    return CliRunner().invoke(app, ["search", "refund", "--index", str(folder), *args])


def test_dense_without_vectors_is_a_one_line_usage_error(folder):
    done = run(folder, "--ranker", "dense")
    assert done.exit_code == 2
    assert "ingest --embed MODEL" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert run(folder, "--ranker", "nope").exit_code == 2


@pytest.mark.usefixtures("with_vectors")
def test_hybrid_is_the_default_with_vectors_and_never_shows_staff_to_public(folder):
    done = run(folder, "--json", "-k", "4")
    assert done.exit_code == 0, done.output
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert {line["ranker"].split()[0] for line in lines} == {"hybrid"}
    assert [line["chunk"]["access"] for line in lines] == ["public"] * 3
    texts = [line["chunk"]["text"] for line in lines]
    assert texts[:2] == ["refund policy for returned goods", "money back when an item comes back"]
    dense = run(folder, "--json", "-k", "1", "--ranker", "dense", "--access", "staff")
    assert json.loads(dense.stdout)["chunk"]["access"] == "staff"
    table = run(folder, "--ranker", "dense")
    assert table.exit_code == 0 and "ranked by dense" in table.stdout


@pytest.mark.usefixtures("with_vectors")
def test_hybrid_takes_the_dense_weight_named(folder):
    heavy = run(folder, "--json", "-k", "4", "--ranker", "hybrid:50")
    assert heavy.exit_code == 0, heavy.output
    lines = [json.loads(line) for line in heavy.stdout.splitlines()]
    assert {line["ranker"] for line in lines} == {"hybrid weighted minmax weight=50.0 depth=100"}
    dense = run(folder, "--json", "-k", "4", "--ranker", "dense")
    # Weighted 50 to BM25's 1, the dense list decides the order.
    order = [json.loads(line)["chunk"]["id"] for line in dense.stdout.splitlines()]
    assert [line["chunk"]["id"] for line in lines] == order
    for bad in ("hybrid:x", "hybrid:-2", "dense:1"):
        done = run(folder, "--ranker", bad)
        assert done.exit_code == 2 and "--ranker" in done.stderr


@pytest.mark.usefixtures("with_vectors")
@pytest.mark.parametrize("ranker", ["dense", "hybrid"])
def test_eval_and_the_search_command_run_the_same_dense_functions(monkeypatch, folder, ranker):
    """If eval's retrieval or `search` ranked dense or hybrid with anything else, this fails."""
    calls: list[str] = []
    real_dense, real_fuse = search_module.dense_search, search_module.fused
    monkeypatch.setattr(
        search_module, "dense_search", lambda *a: calls.append("dense") or real_dense(*a)
    )
    monkeypatch.setattr(search_module, "fused", lambda *a: calls.append("fuse") or real_fuse(*a))
    done = run(folder, "--json", "--ranker", ranker)
    assert done.exit_code == 0, done.output
    searched = list(calls)
    assert searched == (["dense"] if ranker == "dense" else ["dense", "fuse"])
    shown = [json.loads(line)["chunk"]["id"] for line in done.stdout.splitlines()]
    chunks = sort_chunks(
        [bare_chunk(f"d{i}.md", 0, t, a, CHUNKER) for i, (t, (a, _)) in enumerate(TEXTS.items())]
    )
    vectors = np.stack([unit(TEXTS[c.text][1]) for c in chunks])
    retriever = chunk_retriever(chunks, vectors=vectors, encoder=FakeEncoder(), ranker=ranker)
    ranked = retriever.search(Question("q1", "refund", "public", ()), 5)
    assert calls == searched * 2
    assert [chunks[row].id for row, _ in ranked] == shown
