"""Chunker throughput on 2,000,000 words of generated Markdown-like text, beside peers.

Run: .venv/bin/python bench/bench_chunk.py [--words N] [--docs N] [--runs N] [--peer-timeout S]

The same text is measured twice in one run: as ~1,000 documents and as one single document.
Our chunkers start from parsed blocks (Documents built with DocumentBuilder, as the parsers
build them); the peers get the same blocks rendered as Markdown. Words per second always count
the words of our documents' text (a word is a run of non-whitespace), so rows compare. In the
one document, each former document's top heading becomes part of the heading path that the
section-aware chunkers put in front of a chunk, so those make a few more, longer chunks there.

Peers (LangChain's text splitters, Chonkie, LlamaIndex) are optional: a peer that does not
import is listed as such. Ours and the peers are measured the same way: each chunker, for each
shape, runs in a forked child process that builds it (not timed), runs it once as a warm-up,
then --runs times, and the best run counts. A child is stopped once it has used
--peer-timeout CPU seconds (ours too), since some peers slow down sharply on one long
document: the best of the runs it finished counts, marked "(k/N)"; with none finished, the
figure is an upper bound ("< rate": the warm-up and a timed run took more than the limit, so
one run took more than half of it). Times are CPU seconds of the process doing the work
(time.process_time), so that other work on a shared machine does not skew the figures.
The generated corpus is moved out of the garbage collector's sight (gc.freeze) before the
children fork, so all of them inherit the same heap. Nothing is written to disk.
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing as mp
import os
import random
import statistics
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from chunk_peers import PEERS

from policy_assistant.chunk import CHUNKERS, chunk_documents, make_chunker
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import BlockKind, Document, DocumentMeta
from policy_assistant.text import count_words

WORD_LIST = (
    "warranty cover repair replace refund product store receipt customer staff garden lawn "
    "mower pressure washer pump nozzle hose battery charger blade filter season water frost "
    "plant soil compost seed grass delivery order collect return policy period days months "
    "years the a of to and in for with on at by from is are be will may must not any every "
    "each all your our their this that these those when where which who how what "
    "clean store check replace tighten drain fill start stop run turn press hold release"
)
VOCABULARY = WORD_LIST.split()
EXTRAS = ("e.g.", "i.e.", "approx.", "No.", "2.5", "kW", "PW-3100", "GH-40V", "30-day", "(see")

BlockSpec = tuple[BlockKind, str, int]
"""A generated block: its kind, its text, its heading level (0 for the rest)."""
Message = tuple[str, float, int | str]
"""A child's message: "ok", "done", "missing" or "error", CPU seconds, chunks or what went wrong."""


class Generator:
    """Deterministic Markdown-like blocks: headings, paragraphs, list items, pipe tables."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def words(self, n: int) -> str:
        rng = self.rng
        return " ".join(
            rng.choice(EXTRAS) if rng.random() < 0.03 else rng.choice(VOCABULARY) for _ in range(n)
        )

    def sentence(self) -> str:
        text = self.words(self.rng.randint(6, 24))
        return text[0].upper() + text[1:] + self.rng.choice((".", ".", ".", "?", "!"))

    def paragraph(self) -> str:
        return " ".join(self.sentence() for _ in range(self.rng.randint(1, 7)))

    def table(self) -> str:
        columns = self.rng.randint(2, 5)
        rows = self.rng.randint(3, 14)
        return "\n".join(
            " | ".join(self.words(self.rng.randint(1, 4)) for _ in range(columns))
            for _ in range(rows + 1)
        )

    def document(self, target_words: int) -> list[BlockSpec]:
        blocks: list[BlockSpec] = [("heading", self.words(self.rng.randint(2, 6)).title(), 1)]
        words = 0
        while words < target_words:
            roll = self.rng.random()
            block: BlockSpec
            if roll < 0.15:
                block = (
                    "heading",
                    self.words(self.rng.randint(2, 6)).title(),
                    self.rng.randint(2, 3),
                )
            elif roll < 0.7:
                block = ("paragraph", self.paragraph(), 0)
            elif roll < 0.9:
                block = ("list_item", self.sentence(), 0)
            else:
                block = ("table", self.table(), 0)
            blocks.append(block)
            words += count_words(block[1])
        return blocks


def build(blocks: list[BlockSpec], source: str) -> Document:
    builder = DocumentBuilder()
    for kind, text, level in blocks:
        if kind == "heading":
            builder.heading(text, level)
        else:
            builder.add(kind, text)
    return builder.build(source, "0" * 64, DocumentMeta(title=None), source)


def markdown(blocks: list[BlockSpec]) -> str:
    parts = []
    for kind, text, level in blocks:
        if kind == "heading":
            parts.append("#" * level + " " + text)
        elif kind == "list_item":
            parts.append("- " + text)
        elif kind == "table":
            rows = text.split("\n")
            columns = rows[0].count(" | ") + 1
            lines = ["| " + r + " |" for r in rows]
            lines.insert(1, "|" + "---|" * columns)
            parts.append("\n".join(lines))
        else:
            parts.append(text)
    return "\n\n".join(parts)


@dataclass(frozen=True)
class Corpus:
    docs: list[Document]
    single: Document
    texts: list[str]
    single_text: str
    words: int


def make_corpus(total_words: int, documents: int) -> Corpus:
    gen = Generator(seed=20250301)
    per_doc = [gen.document(total_words // documents) for _ in range(documents)]
    docs = [build(blocks, f"doc-{i:04d}.md") for i, blocks in enumerate(per_doc)]
    every_block = [b for blocks in per_doc for b in blocks]
    single = build(every_block, "single.md")
    texts = [markdown(blocks) for blocks in per_doc]
    words = sum(count_words(d.text) for d in docs)
    assert words == count_words(single.text)
    return Corpus(docs, single, texts, "\n\n".join(texts), words)


def ours(name: str) -> Callable[[], Callable[[list[Document]], int]]:
    """Return a factory of one of our chunkers with its defaults, as the peers have."""

    def factory() -> Callable[[list[Document]], int]:
        chunker = make_chunker(name)
        return lambda docs: len(chunk_documents(docs, chunker))

    return factory


def our_label(name: str) -> str:
    """Return the row label of one of our chunkers: its name and settings."""
    settings = make_chunker(name).settings()
    return f"{name} " + " ".join(f"{k}={v}" for k, v in settings.items())


_SHARED: dict[str, dict[str, Any]] = {}
"""Per shape, our Documents and the peers' texts, inherited by forked children, not pickled."""


def _child(kind: str, name: str, shape: str, runs: int, conn: Connection) -> None:
    warnings.simplefilter("ignore")
    try:
        data = _SHARED[shape][kind]
        run: Callable[[Any], int] = (ours(name) if kind == "ours" else PEERS[name])()
        run(data)  # warm-up: first-call caches, lazy imports, regex compilation
        for _ in range(runs):
            gc.collect()
            start = time.process_time()
            count = run(data)
            conn.send(("ok", time.process_time() - start, count))
        conn.send(("done", 0.0, 0))
    except ImportError as exc:
        conn.send(("missing", 0.0, str(exc.name)))
    except Exception as exc:  # a peer failing is a result to report, not a crash
        conn.send(("error", 0.0, f"{type(exc).__name__}: {exc}"[:60]))


def cpu_seconds(pid: int) -> float | None:
    """Return the CPU time a child has used so far, where the system tells (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Result:
    """What one child measured."""

    status: str
    """ok, timeout (no run finished in the limit), missing or error."""
    seconds: float
    """The best run's CPU seconds; for a timeout, half the limit (a lower bound of a run)."""
    count: int | str
    """Chunks made, or what is missing or went wrong."""
    runs: int
    """Timed runs finished."""


def _collect(conn: Connection, process: Any, limit: float) -> tuple[list[Message], bool]:
    """Read a child's messages until it is done, fails or passes the CPU limit."""
    messages: list[Message] = []
    started = time.monotonic()
    while True:
        if conn.poll(0.2):
            try:
                message = conn.recv()
            except EOFError:
                return messages, False
            messages.append(message)
            if message[0] != "ok":
                return messages, False
            continue
        if not process.is_alive() and not conn.poll(0):
            return messages, False
        used = cpu_seconds(process.pid or 0)
        if (time.monotonic() - started if used is None else used) >= limit:
            process.kill()
            return messages, True


def run_child(kind: str, name: str, shape: str, runs: int, limit: float) -> Result:
    """Measure one chunker on one shape in a child: warm-up, then the best of `runs` runs."""
    context = mp.get_context("fork")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(kind, name, shape, runs, child))
    process.start()
    child.close()
    messages, killed = _collect(parent, process, limit)
    process.join()
    done = [m for m in messages if m[0] == "ok"]
    last = messages[-1] if messages else ("error", 0.0, f"the child exited with {process.exitcode}")
    if not done:
        if killed:
            # The warm-up and the first timed run did not fit: one run takes over half the limit.
            return Result("timeout", limit / 2, "", 0)
        return Result(last[0] if last[0] != "ok" else "error", 0.0, last[2], 0)
    if last[0] in ("missing", "error"):
        return Result(last[0], 0.0, last[2], 0)
    best = min(done, key=lambda m: m[1])
    return Result("ok", best[1], best[2], len(done))


# --- report ------------------------------------------------------------------------------------


WIDTH = 44
"""Width of the first column."""


def rate(words: int, seconds: float) -> str:
    return f"{words / seconds / 1e6:6.2f}"


def cell(words: int, result: Result, runs: int) -> str:
    if result.status == "ok":
        partial = f" ({result.runs}/{runs})" if result.runs < runs else ""
        return rate(words, result.seconds) + partial
    if result.status == "timeout":
        return f"< {rate(words, result.seconds).strip()}"
    return result.status


def ratio(many: Result, one: Result) -> str:
    if many.status != "ok" or one.status not in ("ok", "timeout"):
        return ""
    bound = "> " if one.status == "timeout" else ""
    return f"{bound}{one.seconds / many.seconds:.2f}x"


def measure(corpus: Corpus, rows: list[tuple[str, str, str]], runs: int, limit: float) -> None:
    """Measure every (kind, name, label) row on both shapes and print its line."""
    _SHARED["many"] = {"ours": corpus.docs, "peer": corpus.texts}
    _SHARED["one"] = {"ours": [corpus.single], "peer": [corpus.single_text]}
    for kind, name, label in rows:
        many = run_child(kind, name, "many", runs, limit)
        one = run_child(kind, name, "one", runs, limit)
        counts = [r.count if r.status == "ok" else "" for r in (many, one)]
        print(
            f"{label:{WIDTH}} {cell(corpus.words, many, runs):>16} "
            f"{cell(corpus.words, one, runs):>15} {ratio(many, one):>9} "
            f"{counts[0]!s:>8} {counts[1]!s:>8}",
            flush=True,
        )
        for shape, result in (("many", many), ("one", one)):
            if result.status in ("missing", "error"):
                print(f"{'':{WIDTH}}   {shape}: {result.status}: {result.count}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--words", type=int, default=2_000_000)
    parser.add_argument("--docs", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=3, help="timed runs after the warm-up")
    parser.add_argument("--peer-timeout", type=float, default=120.0, help="CPU seconds")
    parser.add_argument("--no-peers", action="store_true")
    args = parser.parse_args()

    start = time.perf_counter()
    corpus = make_corpus(args.words, args.docs)
    # The corpus lives all run long: keep the collector from re-walking it on every pass, for
    # ours and (inherited through fork) for the peers alike.
    gc.collect()
    gc.freeze()
    median = statistics.median(count_words(d.text) for d in corpus.docs)
    print(
        f"corpus: {corpus.words:,} words; {len(corpus.docs)} documents (median {median:,.0f} "
        f"words) and 1 document; generated in {time.perf_counter() - start:.1f} s"
    )
    header = (
        f"{'chunker':{WIDTH}} {'many: M words/s':>16} {'one: M words/s':>15} "
        f"{'one/many':>9} {'chunks':>8} {'(one)':>8}"
    )
    print(f"each: built, one warm-up run, then the best of {args.runs}, in a forked child")
    print(header)
    print("-" * len(header))
    rows = [("ours", name, our_label(name)) for name in CHUNKERS]
    if not args.no_peers:
        rows += [("peer", name, name) for name in PEERS]
    measure(corpus, rows, args.runs, args.peer_timeout)


if __name__ == "__main__":
    main()
