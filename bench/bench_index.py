"""Build, load and query BM25 engines side by side on real English text, on equal input.

    .venv/bin/python bench/bench_index.py [--sizes 10000 100000 1000000] [--engines ...]
                                          [--modes tokens text] [--text FILE]

The text: 2.4 million words of the Python 3.11 and Perl 5.36 manuals, as Debian ships them
(bench/fetch_text.py downloads them on first use; provenance and licences in bench/README.md).
A corpus of N chunks takes N windows of 50-150 consecutive words (mean 100) at random places
of that text, so every chunk is real prose, code and punctuation, and a large N repeats the
text in overlapping windows (a million chunks hold each word about 40 times). Each of the
100 queries takes 3-8 distinct words (runs of letters and digits, 3 characters or more) of a
random chunk. Everything is written once to a temporary folder that every engine reads:
corpus.txt (the raw chunks), tokens.txt (our tokenizer's terms of each, space-joined) and the
queries in both forms. How the engines get that input, in the "tokens" mode (same
pre-tokenized input for all: equal work) and the "text" mode (each tokenizes the same raw text
its own way), is in bench/index_engines.py.

Each engine runs in its own subprocess. Figures:

- build: reading the input -> an index saved on disk (splitting or tokenizing included);
- peak: the engine process's VmHWM; "+w" is the largest peak of its worker processes, if any;
- load: a fresh process opening the saved index and answering one query (imports excluded,
  page cache warm);
- query: median and 95th percentile over the 100 queries of query -> top-10 result;
- agree: the share of ours' top-10 rows (same mode) that the engine's top 10 holds too, mean
  over the queries: 1.00 means the same results, so the same work was done.

Before the engines, our tokenizer is timed on the raw corpus (a fresh process, fresh memo):
the cost that the tokens mode takes off every engine's clock. Temporary files go under the
system temp folder; nothing is written into the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from index_engines import ENGINES, corpus_file, lines, queries

from policy_assistant.index.tokenize import tokenize

QUERIES = 100
SEED = 20240601
BATCH = 10_000
WORD_RE = re.compile(r"[^\W_]{3,}")


def real_words(text_file: Path | None) -> list[str]:
    """Return the words of the real text, fetching it first if need be."""
    if text_file is None:
        import fetch_text

        text_file = fetch_text.fetch(fetch_text.DEFAULT_OUT)
    return text_file.read_text(encoding="utf-8").split()


def write_corpus(words: list[str], size: int, seed: int, folder: Path) -> Path:
    """Write `size` windows of the words as raw chunks and as our terms, and the queries."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng([seed, size])
    lengths = rng.integers(50, 151, size)
    starts = rng.integers(0, len(words) - lengths)
    picks = set(rng.choice(size, QUERIES, replace=False).tolist())
    chosen: dict[int, str] = {}
    with (folder / "corpus.txt").open("w") as raw, (folder / "tokens.txt").open("w") as terms:
        for row, (start, length) in enumerate(zip(starts.tolist(), lengths.tolist(), strict=True)):
            text = " ".join(words[start : start + length])
            raw.write(text + "\n")
            terms.write(" ".join(tokenize(text)) + "\n")
            if row in picks:
                chosen[row] = text
    texts: list[str] = []
    for row in sorted(chosen):
        candidates = sorted(set(WORD_RE.findall(chosen[row])))
        while True:  # a query of stopwords only finds nothing in any engine: draw again
            count = min(len(candidates), int(rng.integers(3, 9)))
            query = " ".join(rng.choice(candidates, count, replace=False).tolist())
            if tokenize(query):
                break
        texts.append(query)
    written = {"text": texts, "tokens": [tokenize(q) for q in texts]}
    (folder / "queries.json").write_text(json.dumps(written), encoding="utf-8")
    return folder


def peak_mb() -> float:
    """Return this process's peak resident memory in MB (VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run_build(engine: str, mode: str, data: Path, folder: Path) -> dict[str, Any]:
    """Build, then time the queries and keep their rows; runs in the engine's own subprocess."""
    texts = queries(data, mode)
    start = time.perf_counter()
    searcher = ENGINES[engine].build(data, folder, mode)
    build_s = time.perf_counter() - start
    searcher.search(texts[0])  # the first query pays page faults; the load figure counts those
    times, results = [], []
    for text in texts:
        start = time.perf_counter()
        results.append(searcher.search(text))
        times.append(time.perf_counter() - start)
    ms = np.array(times) * 1000
    return {
        "build_s": build_s,
        "peak_mb": peak_mb(),
        "worker_peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
        "query_median_ms": float(np.median(ms)),
        "query_p95_ms": float(np.percentile(ms, 95)),
        "rows": [searcher.rows(result) for result in results],
    }


def run_load(engine: str, mode: str, data: Path, folder: Path) -> dict[str, Any]:
    """Open the saved index in this fresh process and answer one query."""
    opener = ENGINES[engine].open
    if opener is None:
        return {"load_ms": None}
    text = queries(data, mode)[0]
    import Stemmer  # noqa: F401  imports are kept off the clock

    import policy_assistant.index  # noqa: F401

    module = ENGINES[engine].module
    if module:
        __import__(module)
    start = time.perf_counter()
    opener(folder, mode).search(text)
    return {"load_ms": (time.perf_counter() - start) * 1000}


def run_tokenize(data: Path) -> dict[str, Any]:
    """Time our tokenizer over the raw corpus in this fresh process."""
    words = 0
    start = time.perf_counter()
    for text in lines(corpus_file(data, "text")):
        tokenize(text)
        words += text.count(" ") + 1
    return {"seconds": time.perf_counter() - start, "words": words}


def available(engine: str) -> bool:
    """Return whether the engine's package imports."""
    module = ENGINES[engine].module
    if module is None:
        return True
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def spawn(engine: str, mode: str, data: Path, folder: Path, phase: str) -> dict[str, Any]:
    """Run one phase for one engine in a fresh subprocess and return its figures."""
    command = [sys.executable, __file__, "--worker", engine, "--mode", mode, "--phase", phase]
    command += ["--data", str(data), "--folder", str(folder)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines_ = done.stderr.strip().splitlines()
        return {"error": lines_[-1] if lines_ else f"exit {done.returncode}"}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def fmt(value: Any, digits: int = 1) -> str:
    """Format a figure for the table."""
    return "n/a" if value is None else f"{value:,.{digits}f}"


def agreement(rows: list[list[int]], reference: list[list[int]] | None) -> str:
    """Return the mean share of the reference's top rows that rows holds too."""
    if reference is None:
        return "n/a"
    shares = [
        len(set(r) & set(ref)) / len(ref) for r, ref in zip(rows, reference, strict=True) if ref
    ]
    return f"{np.mean(shares):.2f}" if shares else "n/a"


def bench_size(
    size: int, engines: list[str], modes: list[str], words: list[str], tmp: Path
) -> None:
    """Write one corpus, run every engine in every mode on it and print its rows."""
    data = write_corpus(words, size, SEED, tmp / f"corpus-{size}")
    tok = json.loads(
        subprocess.run(
            [sys.executable, __file__, "--worker", "tokenize", "--data", str(data)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    rate = tok["words"] / tok["seconds"] / 1e6
    print(
        f"| {size:,} | our tokenizer alone | {tok['seconds']:.1f} s for {tok['words']:,} "
        f"words ({rate:.2f} M words/s) | | | | | |",
        flush=True,
    )
    for mode in modes:
        reference: list[list[int]] | None = None
        for engine in engines:
            spec = ENGINES[engine]
            too_big = spec.max_size is not None and size > spec.max_size
            if too_big or mode not in spec.modes or not available(engine):
                continue
            folder = tmp / f"{engine}-{mode}-{size}"
            row = spawn(engine, mode, data, folder, "build")
            if "error" not in row:
                row |= spawn(engine, mode, data, folder, "load")
            shutil.rmtree(folder, ignore_errors=True)
            if "error" in row:
                print(f"| {size:,} | {engine} ({mode}) | error: {row['error']} | | | | | |")
                continue
            if engine == "ours":
                reference = row["rows"]
            peak = fmt(row["peak_mb"], 0)
            if row["worker_peak_mb"]:
                peak += f" +w {fmt(row['worker_peak_mb'], 0)}"
            cells = [fmt(row["build_s"]), peak, fmt(row.get("load_ms"))]
            cells += [fmt(row["query_median_ms"], 2), fmt(row["query_p95_ms"], 2)]
            cells.append(agreement(row["rows"], reference))
            print(f"| {size:,} | {engine} ({mode}) | " + " | ".join(cells) + " |", flush=True)
    shutil.rmtree(data, ignore_errors=True)


def machine() -> str:
    """Return the CPU count and load: on a shared machine, the context every wall time needs."""
    return f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} over the last minute"


def main() -> None:
    """Run every engine on every size and print the table."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--engines", nargs="+", default=list(ENGINES), choices=list(ENGINES))
    parser.add_argument(
        "--modes", nargs="+", default=["tokens", "text"], choices=["tokens", "text"]
    )
    parser.add_argument("--text", type=Path, help="paragraphs file [bench/fetch_text.py's]")
    parser.add_argument("--worker", choices=[*ENGINES, "tokenize"], help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=("tokens", "text"), help=argparse.SUPPRESS)
    parser.add_argument("--phase", choices=("build", "load"), help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker == "tokenize":
        print(json.dumps(run_tokenize(args.data)))
        return
    if args.worker:
        run = run_build if args.phase == "build" else run_load
        print(json.dumps(run(args.worker, args.mode, args.data, args.folder)))
        return
    words = real_words(args.text)
    print(f"real text: {len(words):,} words; {machine()}")
    print(
        "| chunks | engine (input) | build s | peak MB | load ms | query median ms "
        "| query p95 ms | agree@10 with ours |"
    )
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="bench-index-") as tmp:
        for size in args.sizes:
            bench_size(size, args.engines, args.modes, words, Path(tmp))
    print(f"at the end: {machine()}")


if __name__ == "__main__":
    main()
