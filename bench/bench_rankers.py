"""Which chunk ranker, and which hybrid fusion: bm25, dense and hybrid measured side by side.

    python bench/bench_rankers.py                  # the bundled set, and every fetched set named
    python bench/bench_rankers.py --set build/external/licences:questions/external/licences.jsonl
    python bench/bench_rankers.py --write          # and record the table in bench/RESULTS.md

Each set's documents are chunked by the default chunker, each chunk embedded (as
embed.text.embedding_text makes it) with the model folder given, and each question ranked by
eval's own retriever (evaluate.retrieval.chunk_retriever over memory_index) under every ranker:
hit@5 (a relevant chunk in the first five, as eval counts it), MRR@10 (1 / rank of the first
relevant chunk, 0 past 10) and hit@20. The default fusion is the one whose WORST set is best
(hit@5, then MRR@10): a fusion that wins on average by losing a set is not a default.

The dense ranker's speed at scale: bench/bench_dense.py.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import numpy as np
from results import parse_args, write_section

from policy_assistant.chunk import DEFAULT_CHUNKER, chunk_documents
from policy_assistant.embed.encoder import Encoder
from policy_assistant.embed.model import resolve_model
from policy_assistant.evaluate.metrics import is_relevant
from policy_assistant.evaluate.questions import load_questions
from policy_assistant.evaluate.retrieval import chunk_retriever
from policy_assistant.evaluate.variants import parse_variant
from policy_assistant.index.settings import RankerSettings
from policy_assistant.index.store.vectors import chunk_text
from policy_assistant.parse import parse_path
from policy_assistant.records import Chunk

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = f"{ROOT / 'corpus'}:{ROOT / 'questions' / 'questions.jsonl'}"
EXTERNAL = (
    "licences",
    "coreutils-news",
    "fhs",
    "gpl-3",
    "debian-reference",
    "developers-reference",
    "ansible-lint-rules",
)
"""External sets used when fetched (build/external/NAME); heldout-rsync-man never is."""
UNLIKE = ("heldout-alice", "heldout-austen", "heldout-irc", "sotu")
"""Tuning sets of text unlike our manuals (long, without headings), asked blind."""
HELD = ("heldout-rsync-man", "heldout-northanger")
"""The held-out sets: printed after a choice, never deciding it."""


def sweep_sets() -> dict[str, tuple[Path, Path]]:
    """Return (corpus, questions) of the bundled set, then every fetched external set, the
    unlike-ours ones and, last, the held-out ones: the sets the context sweeps read."""
    paths = {"bundled": (ROOT / "corpus", ROOT / "questions" / "questions.jsonl")}
    for name in (*EXTERNAL, *UNLIKE, *HELD):
        corpus = ROOT / "build" / "external" / name
        if corpus.is_dir():
            paths[name] = (corpus, ROOT / "questions" / "external" / f"{name}.jsonl")
    return paths


MODEL = ROOT / "build" / "models" / "all-MiniLM-L6-v2"
NAME = 22
"""The width of the table's ranker column."""
DEPTH = 20
"""Results ranked per question: the deepest figure is hit@20."""

WEIGHTS = (0.25, 0.5, 0.75, 1, 1.5, 2, 3)
"""The dense list's weights tried (BM25's is 1)."""
RANKERS: list[tuple[str, RankerSettings]] = [
    ("bm25", RankerSettings("bm25")),
    ("dense", RankerSettings("dense")),
    ("rrf", RankerSettings("hybrid", "rrf")),
    *[(f"minmax w={w}", RankerSettings("hybrid", weight=w, norm="minmax")) for w in WEIGHTS],
    *[(f"max w={w}", RankerSettings("hybrid", weight=w, norm="max")) for w in WEIGHTS],
    *[
        (f"minmax w=0.5 depth={d}", RankerSettings("hybrid", weight=0.5, depth=d))
        for d in (30, 300)
    ],
]


def chunk_vectors(encoder: Encoder, chunks: tuple[Chunk, ...]) -> np.ndarray:
    """Return each chunk's vector, of the text the index embeds (vectors.chunk_text)."""
    return encoder.encode([chunk_text(c) for c in chunks])


def figures(retriever: Any, chunks: tuple[Chunk, ...], questions: Any) -> tuple[float, ...]:
    """Return hit@5, MRR@10 and hit@20 over the questions, as percentages (metrics.is_relevant,
    eval's test of a chunk against a question's passages)."""
    hits5 = mrr = hits20 = 0.0
    for question in questions:
        ranked = retriever.search(question, DEPTH)
        ranks = [
            rank
            for rank, (row, _) in enumerate(ranked, 1)
            if any(is_relevant(chunks[row], p) for p in question.relevant)
        ]
        first = ranks[0] if ranks else DEPTH + 1
        hits5 += first <= 5
        mrr += 1 / first if first <= 10 else 0.0
        hits20 += first <= 20
    n = len(questions)
    return 100 * hits5 / n, 100 * mrr / n, 100 * hits20 / n


def measure_set(item: str, encoder: Encoder) -> tuple[str, int, dict[str, tuple[float, ...]]]:
    """Return a set's name, question count and each ranker's figures."""
    corpus, _, questions = item.partition(":")
    docs = parse_path(Path(corpus)).documents
    qset = load_questions(Path(questions), docs, strict=False)
    chunks = tuple(chunk_documents(docs, parse_variant(DEFAULT_CHUNKER).make({})))
    vectors = chunk_vectors(encoder, chunks)
    found = {}
    for name, ranker in RANKERS:
        retriever = chunk_retriever(chunks, vectors=vectors, encoder=encoder, ranker=ranker)
        found[name] = figures(retriever, chunks, qset.questions)
    return Path(questions).stem, len(qset.questions), found


def table(results: list[tuple[str, int, dict[str, tuple[float, ...]]]]) -> str:
    """Return the figures as a fixed-width table: a row per ranker, a column group per set."""
    head = f"{'ranker':<{NAME}}" + "".join(f" | {name[:24]:<24}" for name, _, _ in results)
    sub = f"{'':<{NAME}}" + "".join(f" | {'hit@5':>7} {'MRR@10':>7} {'hit@20':>7}" for _ in results)
    lines = [head, sub, f"{'':<{NAME}}" + "".join(f" | n={n:<22}" for _, n, _ in results)]
    for name, _ in RANKERS:
        cells = "".join(" | {:7.1f} {:7.1f} {:7.1f}".format(*found[name]) for *_, found in results)
        lines.append(f"{name:<{NAME}}{cells}")
    lines.append("")
    lines += choices(results)
    return "\n".join(lines)


def choices(results: list[tuple[str, int, dict[str, tuple[float, ...]]]]) -> list[str]:
    """Return the hybrid chosen by its worst set's figures and by its worst loss to the best
    ranker of each set (both hit@5, then MRR@10)."""
    fused = [name for name, r in RANKERS if r.ranker == "hybrid"]
    worst = {n: min((f[n][0], f[n][1]) for *_, f in results) for n in fused}
    best = {name: max((f[0], f[1]) for f in found.values()) for name, _, found in results}
    loss = {
        n: max((best[s][0] - f[n][0], best[s][1] - f[n][1]) for s, _, f in results) for n in fused
    }
    by_worst, by_loss = max(fused, key=lambda n: worst[n]), min(fused, key=lambda n: loss[n])
    return [
        f"best hybrid by its worst set's figures (hit@5, then MRR@10): {by_worst}",
        f"best hybrid by its worst loss to a set's best ranker: {by_loss} "
        f"(loses at most {loss[by_loss][0]:.1f} hit@5 points)",
    ]


def main() -> None:
    """Measure every ranker on every set given (or found); print, and record with --write."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", action="append", metavar="CORPUS:QUESTIONS")
    parser.add_argument("--model", type=Path, default=MODEL)
    args = parse_args(parser)
    sets = args.set or [BUNDLED] + [
        f"{ROOT / 'build' / 'external' / name}:{ROOT / 'questions' / 'external' / name}.jsonl"
        for name in EXTERNAL
        if (ROOT / "build" / "external" / name).is_dir()
    ]
    encoder = Encoder(resolve_model(args.model), threads=int(os.environ.get("THREADS", "1")))
    results = [measure_set(item, encoder) for item in sets]
    text = table(results)
    print(text)
    if args.write:
        write_section("bench_rankers", f"Model {args.model.name}, runtime {encoder.runtime}.\n\n"
                      f"```\n{text}\n```\n")  # fmt: skip


if __name__ == "__main__":
    main()
