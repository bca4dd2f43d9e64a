"""Build, load and query BM25 engines side by side on synthetic corpora.

    .venv/bin/python bench/bench_index.py [--sizes 10000 100000 1000000] [--engines ...]

Each corpus has N chunks of 50-150 words (mean 100) drawn from a Zipf(1.0) vocabulary of
50,000 made-up words, written once to a temporary file (one text per line) that every engine
streams; each of the 100 queries takes 3-8 distinct words of one random chunk, so queries
hold common words as real ones do. Each engine runs in its own subprocess. Figures:

- build: reading the texts -> an index saved on disk (tokenizing included);
- peak: the engine process's VmHWM; "+w" is the largest peak of its worker processes, if any;
- load: a fresh process opening the saved index and answering one query (imports excluded,
  page cache warm);
- query: median and 95th percentile over the 100 queries of text -> top-10 row ids.

Engines: ours (policy_assistant.index.bm25 via the tokenizer), store (ours through the index
folder: chunks, manifest, atomic write; load includes reading the hit chunks), rank_bm25
(BM25Okapi, no save/load), bm25s and tantivy (bench-only installs; skipped if missing).
Temporary indexes go under the system temp folder; nothing is written into the repository.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

VOCABULARY = 50_000
BATCH = 10_000
QUERIES = 100
SEED = 20240601
ENGINES = ("ours", "store", "tantivy", "bm25s", "rank_bm25")
RANK_BM25_MAX = 100_000
STORE_MAX = 100_000


def make_words(seed: int) -> list[str]:
    """Return VOCABULARY distinct lowercase made-up words of 2-4 syllables."""
    from policy_assistant.index.tokenize import STOPWORDS

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


def generate(size: int, seed: int) -> Iterator[str]:
    """Yield the corpus texts, generated batch by batch."""
    words = make_words(seed)
    widths = np.array([len(w) + 1 for w in words])
    weights = 1.0 / np.arange(1, VOCABULARY + 1)
    cdf = np.cumsum(weights / weights.sum())
    for first in range(0, size, BATCH):
        rng = np.random.default_rng([seed, first])
        count = min(BATCH, size - first)
        lengths = rng.integers(50, 151, count)
        ids = np.minimum(np.searchsorted(cdf, rng.random(int(lengths.sum()))), VOCABULARY - 1)
        # One join per batch, then slices: far cheaper than a join per text.
        text = " ".join(map(words.__getitem__, ids.tolist()))
        ends = np.cumsum(widths[ids])[np.cumsum(lengths) - 1]
        starts = np.concatenate([[0], ends[:-1]])
        for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
            yield text[start : end - 1]


def write_corpus(size: int, seed: int, folder: Path) -> Path:
    """Write the corpus (one text per line) and its queries into folder; return the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng([seed, 7])
    picks = set(rng.integers(0, size, QUERIES).tolist())
    chosen: dict[int, str] = {}
    with (folder / "corpus.txt").open("w", encoding="utf-8") as out:
        for row, text in enumerate(generate(size, seed)):
            out.write(text + "\n")
            if row in picks:
                chosen[row] = text
    texts = []
    for row in rng.permutation(sorted(picks)).tolist():
        words = sorted(set(chosen[row].split()))
        count = min(len(words), int(rng.integers(3, 9)))
        texts.append(" ".join(rng.choice(words, count, replace=False).tolist()))
    while len(texts) < QUERIES:  # two picks of one row: reuse queries, in order
        texts.append(texts[len(texts) % len(picks)])
    (folder / "queries.json").write_text(json.dumps(texts), encoding="utf-8")
    return folder


def corpus(data: Path) -> Iterator[str]:
    """Yield the texts of a written corpus, streaming from disk."""
    with (data / "corpus.txt").open(encoding="utf-8") as lines:
        for line in lines:
            yield line[:-1]


def queries(data: Path) -> list[str]:
    """Return the written queries."""
    return list(json.loads((data / "queries.json").read_text(encoding="utf-8")))


def peak_mb() -> float:
    """Return this process's peak resident memory in MB (VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# Each engine: build(data, folder) -> searcher and open(folder) -> searcher, where data is a
# written corpus and a searcher maps a query text to its top-10 rows.
Searcher = Callable[[str], Any]


def build_ours(data: Path, folder: Path) -> Searcher:
    from policy_assistant.index.bm25 import BM25Index
    from policy_assistant.index.tokenize import word_terms

    BM25Index.build(corpus(data), word_terms=word_terms).save(folder)
    return open_ours(folder)


def open_ours(folder: Path) -> Searcher:
    from policy_assistant.index.bm25 import BM25Index
    from policy_assistant.index.tokenize import tokenize

    index = BM25Index.load(folder)
    return lambda q: index.search(tokenize(q), 10)


def synthetic_chunks(data: Path) -> list[Any]:
    from policy_assistant.ids import content_id
    from policy_assistant.records import Chunk

    chunker = {"name": "synthetic"}
    out = []
    for row, text in enumerate(corpus(data)):
        source, position = f"doc{row // 20:06d}.md", row % 20
        out.append(
            Chunk(
                id=content_id([source, position, text]),
                source=source,
                title=source,
                version="v1",
                access=("public", "staff")[row // 20 % 2],
                language="en",
                chunker=chunker,
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


def build_store(data: Path, folder: Path) -> Searcher:
    from policy_assistant import index as store

    chunks = synthetic_chunks(data)
    bm25 = store.build_bm25(chunks)
    ids: dict[str, list[str]] = {}
    for chunk in chunks:
        ids.setdefault(chunk.source, []).append(chunk.id)
    access = {chunk.source: chunk.access for chunk in chunks}
    entries = [
        store.DocumentEntry(source, "0" * 64, "v1", access[source], "en", tuple(row_ids))
        for source, row_ids in ids.items()
    ]
    manifest = store.Manifest.create({"name": "synthetic"}, bm25.params(), entries)
    store.write_index(folder, chunks, manifest, bm25)
    return open_store(folder)


def open_store(folder: Path) -> Searcher:
    from policy_assistant import index as store

    index = store.open_index(folder)
    return lambda q: index.search(q, 10, access="staff")


def build_tantivy(data: Path, folder: Path) -> Searcher:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("body", stored=False, tokenizer_name="en_stem", index_option="freq")
    folder.mkdir(parents=True)
    index = tantivy.Index(builder.build(), path=str(folder))
    writer = index.writer(heap_size=256_000_000)
    for text in corpus(data):
        writer.add_document(tantivy.Document(body=[text]))
    writer.commit()
    writer.wait_merging_threads()
    return open_tantivy(folder)


def open_tantivy(folder: Path) -> Searcher:
    import tantivy

    index = tantivy.Index.open(str(folder))
    index.reload()
    searcher = index.searcher()
    return lambda q: searcher.search(index.parse_query(q, ["body"]), 10).hits


def _bm25s_tokens(texts: list[str]) -> Any:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    return bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)


def build_bm25s(data: Path, folder: Path) -> Searcher:
    import bm25s

    retriever = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    retriever.index(_bm25s_tokens(list(corpus(data))), show_progress=False)
    retriever.save(str(folder), show_progress=False)
    return open_bm25s(folder)


def open_bm25s(folder: Path) -> Searcher:
    import bm25s

    retriever = bm25s.BM25.load(str(folder), mmap=True, show_progress=False)

    def search(q: str) -> Any:
        tokens = _bm25s_tokens([q])
        return retriever.retrieve(tokens, k=10, show_progress=False, n_threads=1)

    return search


def build_rank_bm25(data: Path, folder: Path) -> Searcher:
    from rank_bm25 import BM25Okapi

    from policy_assistant.index.tokenize import tokenize

    model = BM25Okapi([tokenize(text) for text in corpus(data)])

    def search(q: str) -> Any:
        scores = model.get_scores(tokenize(q))
        top = np.argpartition(-scores, 10)[:10]
        return top[np.argsort(-scores[top], kind="stable")]

    return search


BUILDERS: dict[str, tuple[Callable[[Path, Path], Searcher], Callable[[Path], Searcher] | None]]
BUILDERS = {
    "ours": (build_ours, open_ours),
    "store": (build_store, open_store),
    "tantivy": (build_tantivy, open_tantivy),
    "bm25s": (build_bm25s, open_bm25s),
    "rank_bm25": (build_rank_bm25, None),
}


def run_build(engine: str, data: Path, folder: Path) -> dict[str, Any]:
    """Build, then time the queries; runs inside the engine's own subprocess."""
    build, _ = BUILDERS[engine]
    texts = queries(data)
    start = time.perf_counter()
    search = build(data, folder)
    build_s = time.perf_counter() - start
    search(texts[0])  # the first query pays page faults; the load figure counts those
    times = []
    for text in texts:
        start = time.perf_counter()
        search(text)
        times.append(time.perf_counter() - start)
    ms = np.array(times) * 1000
    return {
        "build_s": build_s,
        "peak_mb": peak_mb(),
        "worker_peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
        "query_median_ms": float(np.median(ms)),
        "query_p95_ms": float(np.percentile(ms, 95)),
    }


def run_load(engine: str, data: Path, folder: Path) -> dict[str, Any]:
    """Open the saved index in this fresh process and answer one query."""
    _, opener = BUILDERS[engine]
    if opener is None:
        return {"load_ms": None}
    text = queries(data)[0]
    _preimport(engine)
    start = time.perf_counter()
    opener(folder)(text)
    return {"load_ms": (time.perf_counter() - start) * 1000}


def _preimport(engine: str) -> None:
    """Import what the engine needs, so the load figure excludes import time."""
    import Stemmer  # noqa: F401

    import policy_assistant.index  # noqa: F401

    if engine in ("tantivy", "bm25s"):
        __import__(engine)


def available(engine: str) -> bool:
    """Return whether the engine's package imports."""
    module = {"tantivy": "tantivy", "bm25s": "bm25s", "rank_bm25": "rank_bm25"}.get(engine)
    if module is None:
        return True
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def spawn(engine: str, data: Path, folder: Path, phase: str) -> dict[str, Any]:
    """Run one phase for one engine in a fresh subprocess and return its figures."""
    command = [sys.executable, __file__, "--worker", engine, "--phase", phase]
    command += ["--data", str(data), "--folder", str(folder)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return {"error": lines[-1] if lines else f"exit {done.returncode}"}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def fmt(value: Any, digits: int = 1) -> str:
    """Format a figure for the table."""
    return "n/a" if value is None else f"{value:,.{digits}f}"


def bench_size(size: int, engines: list[str], seed: int, tmp: Path) -> None:
    """Write one corpus, run every engine on it and print its rows."""
    data = write_corpus(size, seed, tmp / f"corpus-{size}")
    for engine in engines:
        limit = {"rank_bm25": RANK_BM25_MAX, "store": STORE_MAX}.get(engine, size)
        if size > limit or not available(engine):
            continue
        folder = tmp / f"{engine}-{size}"
        row = spawn(engine, data, folder, "build")
        if "error" not in row:
            row |= spawn(engine, data, folder, "load")
        shutil.rmtree(folder, ignore_errors=True)
        if "error" in row:
            print(f"| {size:,} | {engine} | error: {row['error']} | | | | |", flush=True)
            continue
        peak = fmt(row["peak_mb"], 0)
        if row["worker_peak_mb"]:
            peak += f" +w {fmt(row['worker_peak_mb'], 0)}"
        cells = [fmt(row["build_s"]), peak, fmt(row.get("load_ms"))]
        cells += [fmt(row["query_median_ms"], 2), fmt(row["query_p95_ms"], 2)]
        print(f"| {size:,} | {engine} | " + " | ".join(cells) + " |", flush=True)
    shutil.rmtree(data, ignore_errors=True)


def main() -> None:
    """Run every engine on every size and print the table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--engines", nargs="+", default=list(ENGINES), choices=ENGINES)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--worker", choices=ENGINES, help=argparse.SUPPRESS)
    parser.add_argument("--phase", choices=("build", "load"), help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        run = run_build if args.phase == "build" else run_load
        print(json.dumps(run(args.worker, args.data, args.folder)))
        return
    print("| chunks | engine | build s | peak MB | load ms | query median ms | query p95 ms |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="bench-index-") as tmp:
        for size in args.sizes:
            bench_size(size, args.engines, args.seed, Path(tmp))


if __name__ == "__main__":
    main()
