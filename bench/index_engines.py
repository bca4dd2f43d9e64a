"""The BM25 engines bench_index.py compares, each fed the same input in one of two modes.

- "tokens": every engine gets the same pre-tokenized text (our tokenizer's terms, space-joined,
  one chunk per line) and the same query terms; each splits the lines at whitespace itself,
  inside its build time (tantivy through its text input with a whitespace analyzer; bm25s
  and rank-bm25, which take no such analyzer, as token lists). Ours always runs our
  tokenizer, which is not idempotent, so it runs in text mode only. Indexing and
  scoring are compared on equal work: no engine's tokenizer is on the clock.
- "text": every engine gets the same raw text and query and tokenizes it its own way (ours:
  our tokenizer; tantivy: its en_stem analyzer; bm25s: its tokenizer with PyStemmer's English
  stemmer and English stopwords; rank-bm25, which has none: ours). This is what a user of each
  pays end to end, but the tokenizers do different work.

An engine's build(data, folder, mode) reads the written corpus from data, saves its index in
folder (rank-bm25 cannot save) and returns a Searcher; open(folder, mode) opens a saved index.
A Searcher's search(query) is what the query time measures; rows(result) turns its result into
row numbers afterwards, off the clock, to check that the engines agree.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

K = 10
"""Results per query."""


@dataclass(frozen=True)
class Searcher:
    """A query function and the conversion of its results to row numbers."""

    search: Callable[[Any], Any]
    """Query (terms in tokens mode, text in text mode) -> the engine's own result."""
    rows: Callable[[Any], list[int]]
    """The engine's result -> the rows found, best first, hits with a positive score only."""


def lines(path: Path) -> Iterator[str]:
    """Yield the lines of a written corpus file, streaming from disk."""
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            yield line[:-1]


def corpus_file(data: Path, mode: str) -> Path:
    """Return the file an engine reads in this mode."""
    return data / ("tokens.txt" if mode == "tokens" else "corpus.txt")


def queries(data: Path, mode: str) -> list[Any]:
    """Return the queries of this mode: term lists for tokens, texts for text."""
    written = json.loads((data / "queries.json").read_text(encoding="utf-8"))
    return list(written["tokens" if mode == "tokens" else "text"])


# --- ours ----------------------------------------------------------------------------------


def build_ours(data: Path, folder: Path, mode: str) -> Searcher:
    """The one chunk ranker over one segment counted in memory (memory_index, what eval
    searches); `store` is the same ranker over an index folder on disk."""
    from policy_assistant import index as store

    index = store.memory_index(synthetic_chunks(data))
    return Searcher(lambda q: index.search(q, K, access="staff"), _hit_rows)


CHUNKS_PER_DOCUMENT = 20


def synthetic_chunks(data: Path) -> list[Any]:
    """Return the corpus as Chunk records, 20 to a document, documents public and staff."""
    from policy_assistant.ids import content_id
    from policy_assistant.records import Chunk

    out = []
    for row, text in enumerate(lines(corpus_file(data, "text"))):
        source, position = f"doc{row // CHUNKS_PER_DOCUMENT:06d}.md", row % CHUNKS_PER_DOCUMENT
        out.append(
            Chunk(
                id=content_id([source, position, text]),
                source=source,
                title=source,
                version="v1",
                access=("public", "staff")[row // CHUNKS_PER_DOCUMENT % 2],
                language="en",
                chunker={"name": "synthetic"},
                position=position,
                start=0,
                end=len(text),
                pages=(),
                sections=(),
                text=text,
                words=len(text.split()),
            )
        )
    return out


def build_store(data: Path, folder: Path, mode: str) -> Searcher:
    from policy_assistant import index as store

    chunks = synthetic_chunks(data)
    store.build_index(chunks, folder, store.IndexSettings({"name": "synthetic"}))
    return open_store(folder, mode)


def open_store(folder: Path, mode: str) -> Searcher:
    from policy_assistant import index as store

    index = store.open_index(folder)

    return Searcher(lambda q: index.search(q, K, access="staff"), _hit_rows)


def _hit_rows(hits: Any) -> list[int]:
    """Return the corpus rows of chunk hits (synthetic_chunks' sources and positions)."""
    return [int(h.chunk.source[3:9]) * CHUNKS_PER_DOCUMENT + h.chunk.position for h in hits]


# --- peers ---------------------------------------------------------------------------------


def build_tantivy(data: Path, folder: Path, mode: str) -> Searcher:
    import tantivy

    builder = tantivy.SchemaBuilder()
    analyzer = "whitespace" if mode == "tokens" else "en_stem"
    builder.add_text_field("body", stored=False, tokenizer_name=analyzer, index_option="freq")
    builder.add_unsigned_field("row", stored=True)
    folder.mkdir(parents=True)
    index = tantivy.Index(builder.build(), path=str(folder))
    writer = index.writer(heap_size=256_000_000)
    for row, text in enumerate(lines(corpus_file(data, mode))):
        writer.add_document(tantivy.Document(body=[text], row=[row]))
    writer.commit()
    writer.wait_merging_threads()
    return open_tantivy(folder, mode)


def open_tantivy(folder: Path, mode: str) -> Searcher:
    import tantivy

    index = tantivy.Index.open(str(folder))
    index.reload()
    searcher = index.searcher()
    schema = index.schema

    def terms_query(terms: list[str]) -> Any:
        should = tantivy.Occur.Should
        return tantivy.Query.boolean_query(
            [(should, tantivy.Query.term_query(schema, "body", t)) for t in terms]
        )

    def search(q: Any) -> Any:
        query = terms_query(q) if mode == "tokens" else index.parse_query(q, ["body"])
        return searcher.search(query, K).hits

    def rows(hits: Any) -> list[int]:
        return [int(searcher.doc(address)["row"][0]) for score, address in hits if score > 0]

    return Searcher(search, rows)


def _bm25s_tokens(texts: list[str]) -> Any:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    return bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)


def build_bm25s(data: Path, folder: Path, mode: str) -> Searcher:
    import bm25s

    retriever = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    if mode == "tokens":
        corpus: Any = [line.split() for line in lines(corpus_file(data, mode))]
    else:
        corpus = _bm25s_tokens(list(lines(corpus_file(data, mode))))
    retriever.index(corpus, show_progress=False)
    retriever.save(str(folder), show_progress=False)
    return open_bm25s(folder, mode)


def open_bm25s(folder: Path, mode: str) -> Searcher:
    import bm25s

    retriever = bm25s.BM25.load(str(folder), mmap=True, show_progress=False)

    def search(q: Any) -> Any:
        tokens = [q] if mode == "tokens" else _bm25s_tokens([q])
        return retriever.retrieve(tokens, k=K, show_progress=False, n_threads=1)

    def rows(result: Any) -> list[int]:
        docs, scores = result
        return [int(d) for d, s in zip(docs[0], scores[0], strict=True) if s > 0]

    return Searcher(search, rows)


def build_rank_bm25(data: Path, folder: Path, mode: str) -> Searcher:
    from rank_bm25 import BM25Okapi

    from policy_assistant.index.tokenize import tokenize

    split: Callable[[str], list[str]] = str.split if mode == "tokens" else tokenize
    model = BM25Okapi([split(text) for text in lines(corpus_file(data, mode))])

    def search(q: Any) -> Any:
        scores = model.get_scores(q if mode == "tokens" else tokenize(q))
        top = np.argpartition(-scores, K)[:K]
        return top[np.argsort(-scores[top], kind="stable")], scores

    def rows(result: Any) -> list[int]:
        top, scores = result
        return [int(r) for r in top if scores[r] > 0]

    return Searcher(search, rows)


@dataclass(frozen=True)
class Engine:
    """One engine: how to build and open it, what it imports, the largest size it runs at."""

    build: Callable[[Path, Path, str], Searcher]
    """Build from the written corpus and save; return a searcher."""
    open: Callable[[Path, str], Searcher] | None
    """Open a saved index in a fresh process (None: the engine cannot save)."""
    module: str | None
    """A bench-only package the engine needs, or None."""
    max_size: int | None = None
    """Chunks above which it is not run (too slow or too large), or None."""
    modes: tuple[str, ...] = ("tokens", "text")
    """Input modes it takes."""


ENGINES = {
    "ours": Engine(build_ours, None, None, None, ("text",)),
    "store": Engine(build_store, open_store, None, 100_000, ("text",)),
    "tantivy": Engine(build_tantivy, open_tantivy, "tantivy"),
    "bm25s": Engine(build_bm25s, open_bm25s, "bm25s"),
    "rank_bm25": Engine(build_rank_bm25, None, "rank_bm25", 100_000),
}
"""ours is the chunk ranker over one segment in memory, store the same over an index folder
(chunks, manifest, atomic write); both tokenize the chunks' text themselves."""
