"""The one chunk ranker (segment_search.search_segments): its scores against rank-bm25 and
Lucene's formula, its pruning, access filter and ties, and that eval and `search` both run it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rank_bm25 import BM25Okapi
from support.chunk_factory import bare_chunk
from support.zipf import naive_lucene, zipf_corpus, zipf_queries
from typer.testing import CliRunner

from policy_assistant.cli import app
from policy_assistant.errors import BadIndex
from policy_assistant.evaluate.questions import Question
from policy_assistant.evaluate.retrieval import chunk_retriever
from policy_assistant.index import BM25Settings, build_index, memory_index, open_index
from policy_assistant.index.chunks import search as search_module
from policy_assistant.index.chunks import segment_search
from policy_assistant.index.store.build import IndexSettings, sort_chunks
from policy_assistant.index.tokenize import tokenize
from policy_assistant.records import Chunk

CHUNKER = {"name": "test"}


def chunks_of(rows: list[list[str]]) -> list[Chunk]:
    """One chunk per row, in row order (= (source, position) order), 10 to a document,
    every third document staff."""
    labels = ("public", "public", "staff")
    return [
        bare_chunk(f"d{i // 10:04d}.md", i % 10, " ".join(row), labels[i // 10 % 3], CHUNKER)
        for i, row in enumerate(rows)
    ]


@pytest.fixture(scope="module")
def corpus() -> list[list[str]]:
    """The corpus as our tokenizer sees it (it splits w12 into w, 12 and w12)."""
    return [tokenize(" ".join(row)) for row in zipf_corpus(1200)]


@pytest.fixture(scope="module")
def chunks() -> list[Chunk]:
    return chunks_of(zipf_corpus(1200))


def check_against(index: Any, reference: Any, queries: list[list[str]]) -> None:
    """Every hit's score is the reference's for its row, and the hits are its top scores."""
    for query in queries:
        expected = np.asarray(reference(query))
        hits = index.search_terms(query, 20, "staff")
        got = np.array([h.score for h in hits])
        np.testing.assert_allclose(got, [expected[h.row] for h in hits], atol=1e-9)
        top = np.sort(expected[expected > 0])[::-1][:20]
        np.testing.assert_allclose(got, top, atol=1e-9)


def test_memory_and_folder_scores_match_the_lucene_formula(corpus, chunks, tmp_path: Path):
    queries = [tokenize(" ".join(q)) for q in zipf_queries(15)]
    check_against(memory_index(chunks), lambda q: naive_lucene(corpus, q), queries)
    build_index(chunks, tmp_path / "i", IndexSettings(CHUNKER))
    with open_index(tmp_path / "i") as index:
        check_against(index, lambda q: naive_lucene(corpus, q), queries)


def test_okapi_scores_match_rank_bm25(corpus, chunks):
    settings = BM25Settings("okapi", k1=1.5, b=0.75, epsilon=0.25)
    queries = [tokenize(" ".join(q)) for q in zipf_queries(15)]
    check_against(memory_index(chunks, settings), BM25Okapi(corpus).get_scores, queries)


@pytest.mark.parametrize("path", ["prune", "dense", "sparse"])
def test_pruning_never_changes_the_results(monkeypatch, chunks, path):
    index = memory_index(chunks)
    queries = [tokenize(" ".join(q)) for q in zipf_queries(30)]
    whole = {
        (tuple(q), a): [(h.row, h.score) for h in index.search_terms(q, 10, a)]
        for q in queries
        for a in ("public", "staff")
    }
    check, sparse = {"prune": (0, 8), "dense": (0, 0), "sparse": (0, 10**12)}[path]
    monkeypatch.setattr(segment_search, "PRUNE_MIN_POSTINGS", 0)
    monkeypatch.setattr(segment_search, "CHECK_RATIO", check)
    monkeypatch.setattr(segment_search, "SPARSE_RATIO", sparse)
    finished = []
    original = segment_search._Ranker._finish
    monkeypatch.setattr(
        segment_search._Ranker, "_finish", lambda *a: finished.append(1) or original(*a)
    )
    for (query, access), expected in whole.items():
        assert [(h.row, h.score) for h in index.search_terms(list(query), 10, access)] == expected
    assert finished, "pruning never happened"


def test_the_access_filter_applies_before_the_top_k(chunks):
    index = memory_index(chunks)
    hits = index.search("w0 w1 w2", 50, "public")
    assert len(hits) == 50 and {h.chunk.access for h in hits} == {"public"}
    assert any(h.chunk.access == "staff" for h in index.search("w0 w1 w2", 50, "staff"))


def test_ties_break_by_row_in_memory_and_by_source_position_on_disk(tmp_path: Path):
    texts = ["mower lawn", "hose", "mower lawn", "mower lawn", "hose", "mower lawn"]
    given = [bare_chunk(f"s{5 - i}.md", 0, t, "public", CHUNKER) for i, t in enumerate(texts)]
    hits = memory_index(given).search("mower", 3)
    assert [h.row for h in hits] == [0, 2, 3] and len({h.score for h in hits}) == 1
    build_index(given, tmp_path / "i", IndexSettings(CHUNKER))
    with open_index(tmp_path / "i") as index:
        assert [h.chunk.source for h in index.search("mower", 3)] == ["s0.md", "s2.md", "s3.md"]
    assert sort_chunks(given)[0].source == "s0.md"


def test_repeats_unknown_terms_empty_queries_and_half_the_rows(chunks):
    index = memory_index(chunks)
    once, twice = index.search_terms(["w5"], 5), index.search_terms(["w5", "w5"], 5)
    np.testing.assert_allclose([h.score for h in twice], [2 * h.score for h in once])
    assert index.search_terms(["never-seen"], 5) == index.search_terms([], 5) == []
    assert index.search_terms(["w0"], 0) == []
    # rank-bm25's trap on tiny corpora: okapi's idf is 0 for a term in exactly half the rows
    tiny = chunks_of([["policy", "refund"], ["policy"], ["leave"], ["travel"]])
    assert memory_index(tiny, BM25Settings("okapi")).search("policy", 5) == []
    assert [h.row for h in memory_index(tiny).search("policy", 5)] == [1, 0]


def test_postings_naming_rows_outside_the_index_raise_index_error(chunks):
    index = memory_index(chunks)
    index.segments[0].rows = index.segments[0].rows + len(chunks) + 5
    with pytest.raises(BadIndex, match="damaged postings"):
        index.search("w1", 5)


def test_eval_and_the_search_command_run_the_one_ranker(monkeypatch, chunks, tmp_path):
    """If eval's retrieval or the CLI's `search` ranked with anything else, this fails."""
    calls: list[int] = []
    real = segment_search.search_segments

    def spy(*args: Any) -> Any:
        calls.append(len(args[0]))  # the segments searched
        return real(*args)

    monkeypatch.setattr(search_module, "search_segments", spy)
    build_index(chunks, tmp_path / "i", IndexSettings(CHUNKER))
    done = CliRunner().invoke(
        app, ["search", "w3 w7", "--index", str(tmp_path / "i"), "-k", "5", "--json"]
    )
    assert done.exit_code == 0, done.output
    assert calls == [1]
    shown = [json.loads(line)["chunk"]["id"] for line in done.stdout.splitlines()]
    question = Question("q1", "w3 w7", "public", ())
    ranked = chunk_retriever(sort_chunks(chunks)).search(question, 5)
    assert calls == [1, 1]
    assert [sort_chunks(chunks)[row].id for row, _ in ranked] == shown


@pytest.mark.parametrize("variant", ["lucene", "okapi"])
def test_kept_weights_and_the_short_path_give_the_general_floats(monkeypatch, chunks, variant):
    """A MemorySegment's kept saturations, or its short one-segment path, change no float:
    hits equal those of the general path computing every weight at query time."""
    index = memory_index(chunks, BM25Settings(variant=variant))
    queries = [tokenize(" ".join(q)) for q in zipf_queries(30)] + [{"w1": 2.5, "w7": 1.0}]

    def run() -> list[Any]:
        return [
            [(h.row, h.score) for h in index.search_terms(q, 10, a)]  # type: ignore[arg-type]
            for q in queries
            for a in ("public", "staff")
        ]

    kept = run()
    assert index.segments[0].weighed is not None and index.segments[0].weighed[0] is index.stats
    index.segments[0].weighed = None
    assert run() == kept
    monkeypatch.setattr(segment_search, "_search_one", lambda *a: None)
    assert run() == kept


def test_search_rows_are_search_terms_hits_as_row_and_score(chunks):
    index = memory_index(chunks)
    for query in [tokenize(" ".join(q)) for q in zipf_queries(10)]:
        for access in ("public", "staff"):
            hits = index.search_terms(query, 10, access)
            assert index.search_rows(query, 10, access) == [(h.row, h.score) for h in hits]
