"""Chunker throughput on 2,000,000 words of generated Markdown-like text, beside peers.

Run: .venv/bin/python bench/bench_chunk.py [--words N] [--docs N] [--peer-timeout S]

The same text is measured twice in one run: as ~1,000 documents and as one single document.
Our chunkers start from parsed blocks (Documents built with DocumentBuilder, as the parsers
build them); the peers get the same blocks rendered as Markdown. Words per second always count
the words of our documents' text (a word is a run of non-whitespace), so rows compare. In the
one document, each former document's top heading becomes part of the heading path that the
section-aware chunkers put in front of a chunk, so those make a few more, longer chunks there.

Peers (LangChain's text splitters, Chonkie, LlamaIndex) are optional: a peer that does not
import is listed as such. Each peer runs once per shape in a child process, stopped once it has
used --peer-timeout CPU seconds, since some slow down sharply on one long document; a run cut
off is reported as an upper bound ("< rate"). Our chunkers run in this process, best of three.
Times are CPU seconds of the process doing the work (time.process_time), so that other work on
a shared machine does not skew the figures. The generated corpus is moved out of the garbage
collector's sight (gc.freeze) before timing, for ours and, through fork, the peers alike.
Nothing is written to disk.
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
from pathlib import Path

from policy_assistant.chunk import CHUNKERS, Chunker, chunk_documents, make_chunker
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import Document, DocumentMeta
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

    def document(self, target_words: int) -> list[tuple[str, str, int]]:
        blocks = [("heading", self.words(self.rng.randint(2, 6)).title(), 1)]
        words = 0
        while words < target_words:
            roll = self.rng.random()
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


def build(blocks: list[tuple[str, str, int]], source: str) -> Document:
    builder = DocumentBuilder()
    for kind, text, level in blocks:
        if kind == "heading":
            builder.heading(text, level)
        else:
            builder.add(kind, text)
    return builder.build(source, "0" * 64, DocumentMeta(title=None), source)


def markdown(blocks: list[tuple[str, str, int]]) -> str:
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


def best_of(runs: int, work: Callable[[], int]) -> tuple[float, int]:
    times = []
    count = 0
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        count = work()
        times.append(time.process_time() - start)
    return min(times), count


# --- peers -------------------------------------------------------------------------------------
# Each factory imports and configures a peer (not timed) and returns a function that chunks a
# list of Markdown texts, offsets included where the library offers them, and returns how many
# chunks it made. Sizes match ours: 100 words, 25 overlapping (Chonkie's recursive chunker has
# no overlap); the character-sized rows use 600/150 characters, about 100/25 words here.
Run = Callable[[list[str]], int]


def peer_str_split() -> Run:
    return lambda texts: sum(len(t.split()) for t in texts)


def peer_langchain_recursive_chars() -> Run:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(
        chunk_size=600, chunk_overlap=150, add_start_index=True
    )
    return lambda texts: len(splitter.create_documents(texts))


def peer_langchain_markdown_chars() -> Run:
    from langchain_text_splitters import MarkdownTextSplitter

    splitter = MarkdownTextSplitter(chunk_size=600, chunk_overlap=150, add_start_index=True)
    return lambda texts: len(splitter.create_documents(texts))


def peer_langchain_recursive_words() -> Run:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(
        chunk_size=100, chunk_overlap=25, length_function=count_words, add_start_index=True
    )
    return lambda texts: len(splitter.create_documents(texts))


def peer_chonkie_recursive() -> Run:
    from chonkie import RecursiveChunker

    chunker = RecursiveChunker(tokenizer="word", chunk_size=100)
    return lambda texts: sum(len(chunker.chunk(t)) for t in texts)


def peer_llamaindex_sentence() -> Run:
    from llama_index.core import Document as LlamaDocument
    from llama_index.core.node_parser import SentenceSplitter

    splitter = SentenceSplitter(chunk_size=100, chunk_overlap=25, tokenizer=str.split)
    return lambda texts: len(
        splitter.get_nodes_from_documents([LlamaDocument(text=t) for t in texts])
    )


def peer_llamaindex_token() -> Run:
    from llama_index.core import Document as LlamaDocument
    from llama_index.core.node_parser import TokenTextSplitter

    splitter = TokenTextSplitter(chunk_size=100, chunk_overlap=25, tokenizer=str.split)
    return lambda texts: len(
        splitter.get_nodes_from_documents([LlamaDocument(text=t) for t in texts])
    )


PEERS: dict[str, Callable[[], Run]] = {
    "python str.split (words only)": peer_str_split,
    "langchain recursive 600/150 chars": peer_langchain_recursive_chars,
    "langchain markdown 600/150 chars": peer_langchain_markdown_chars,
    "langchain recursive 100/25 words": peer_langchain_recursive_words,
    "chonkie recursive 100 words": peer_chonkie_recursive,
    "llamaindex sentence 100/25 words": peer_llamaindex_sentence,
    "llamaindex token 100/25 words": peer_llamaindex_token,
}

_SHARED: dict[str, list[str]] = {}
"""The peers' texts, inherited by forked children instead of pickled to them."""


def _child(name: str, shape: str, conn: mp.connection.Connection) -> None:
    warnings.simplefilter("ignore")
    try:
        texts = _SHARED[shape]
        run = PEERS[name]()
        gc.collect()
        start = time.process_time()
        count = run(texts)
        conn.send(("ok", time.process_time() - start, count))
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


def run_peer(name: str, shape: str, limit: float) -> tuple[str, float, int | str]:
    """Run one peer in a child; stop it once it has used `limit` CPU seconds."""
    context = mp.get_context("fork")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(name, shape, child))
    process.start()
    child.close()
    started = time.monotonic()
    while not parent.poll(0.2):
        if not process.is_alive() and not parent.poll(0):
            process.join()
            return "error", 0.0, f"the child exited with {process.exitcode}"
        used = cpu_seconds(process.pid or 0)
        if used is None:
            used = time.monotonic() - started
        if used >= limit:
            process.kill()
            process.join()
            return "timeout", limit, 0
    status, seconds, detail = parent.recv()
    process.join()
    return status, seconds, detail


# --- report ------------------------------------------------------------------------------------


WIDTH = 44
"""Width of the first column."""


def rate(words: int, seconds: float) -> str:
    return f"{words / seconds / 1e6:6.2f}"


def cell(words: int, result: tuple[str, float, int | str]) -> str:
    status, seconds, _ = result
    if status == "ok":
        return rate(words, seconds)
    if status == "timeout":
        return f"< {rate(words, seconds).strip()}"
    return status


def ratio(many: tuple[str, float, int | str], one: tuple[str, float, int | str]) -> str:
    if many[0] != "ok" or one[0] not in ("ok", "timeout"):
        return ""
    bound = "> " if one[0] == "timeout" else ""
    return f"{bound}{one[1] / many[1]:.2f}x"


def measure_ours(corpus: Corpus) -> None:
    for name in CHUNKERS:
        chunker = make_chunker(name)

        def many(c: Chunker = chunker) -> int:
            return len(chunk_documents(corpus.docs, c))

        def one(c: Chunker = chunker) -> int:
            return len(c.chunk(corpus.single))

        many_s, many_n = best_of(3, many)
        one_s, one_n = best_of(3, one)
        label = f"{name} " + " ".join(f"{k}={v}" for k, v in chunker.settings().items())
        print(
            f"{label:{WIDTH}} {rate(corpus.words, many_s):>16} {rate(corpus.words, one_s):>15} "
            f"{one_s / many_s:>8.2f}x {many_n:>8} {one_n:>8}"
        )


def measure_peers(corpus: Corpus, timeout: float) -> None:
    _SHARED["many"] = corpus.texts
    _SHARED["one"] = [corpus.single_text]
    for name in PEERS:
        many = run_peer(name, "many", timeout)
        one = run_peer(name, "one", timeout)
        counts = [r[2] if r[0] == "ok" else "" for r in (many, one)]
        print(
            f"{name:{WIDTH}} {cell(corpus.words, many):>16} {cell(corpus.words, one):>15} "
            f"{ratio(many, one):>9} {counts[0]!s:>8} {counts[1]!s:>8}"
        )
        for shape, result in (("many", many), ("one", one)):
            if result[0] in ("missing", "error"):
                print(f"{'':{WIDTH}}   {shape}: {result[0]}: {result[2]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--words", type=int, default=2_000_000)
    parser.add_argument("--docs", type=int, default=1_000)
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
    print(header)
    print("-" * len(header))
    measure_ours(corpus)
    if not args.no_peers:
        measure_peers(corpus, args.peer_timeout)


if __name__ == "__main__":
    main()
