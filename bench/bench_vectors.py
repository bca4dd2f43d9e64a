"""Vectors in the index: ingest time and index size with and without them, and one changed file.

    OPENBLAS_NUM_THREADS=1 python bench/bench_vectors.py [--chunks 100000] [--model DIR] [--write]

Two corpora, each ingested in this process through the library's `ingest` (structure chunker
for the bundled corpus, `fixed --size 60` for the generated one, as bench_scale.py does):

- the bundled corpus (corpus/), with the real model (all-MiniLM-L6-v2, `auto` runtime: the
  int8 ONNX export, one thread): a cold ingest BM25-only and one with `--embed`, each with an
  empty parse cache; then one file changed (a sentence appended) and re-ingested, BM25-only
  and with vectors, alternately, REPEATS times each (median; a re-ingest with vectors encodes
  only the changed file's new chunks and units);
- a generated corpus of `--chunks` chunks (bench_scale.py's Zipf pseudo-words, 10 chunks a
  file): synthetic text, and a stand-in encoder (a unit vector from each text's hash, 384
  wide like the real model's), since encoding 100k chunks and their units with the real model
  takes longer than this machine's session; it measures what the index adds for vectors
  (keys, copies, files, merges), not the model. Then the real model's re-ingest of one
  changed file: a third index whose vectors come from the stand-in under the real model's
  identity, so the real ingest finds every unchanged text's vector by its key and runs the
  real encoder on exactly the changed file's chunks and units; the changed file is real prose
  (the bundled corpus's words, 600 of them, as long as a generated file), since the
  pseudo-words split into 3.7 word pieces each against about 1.3 for real text.

Also: float16 against int8 (a scale per row) storage, as the fraction of each vector's 10
nearest neighbours (by float32 cosine, over the bundled corpus's chunk vectors) each keeps.
Times are wall seconds with CPU seconds (process time) beside them; `uptime`'s load is
printed with the figures, since the machine is shared. Sizes count each inode once; the
parse cache beside the index is not counted.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from bench_scale import change_one_file, folder_mb, generate
from results import parse_args, write_section

from policy_assistant.chunk import make_chunker
from policy_assistant.embed.encoder import Encoder
from policy_assistant.embed.model import ModelIdentity, resolve_model
from policy_assistant.index import open_index
from policy_assistant.index.store.vectors import Embedding
from policy_assistant.ingest.pipeline import ingest

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "build" / "models" / "all-MiniLM-L6-v2"
REPEATS = 3
DIM = 384


class StandIn:
    """An encoder whose vectors come from each text's hash: no model, same shapes."""

    def __init__(self, identity: ModelIdentity | None = None) -> None:
        """Stand in under `identity` (None: a stand-in's own)."""
        self.identity = identity or ModelIdentity(
            "stand-in", "numpy", (("w", "0"),), "mean", True, 256, DIM
        )

    @property
    def dimension(self) -> int:
        """Return the width of a vector."""
        return DIM

    def encode(self, texts: Sequence[str]) -> Any:
        """Return one unit vector per text, from its hash."""
        out = np.empty((len(texts), DIM), np.float32)
        for row, text in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
            out[row] = np.random.default_rng(seed).standard_normal(DIM)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def load() -> str:
    """Return uptime's load averages."""
    done = subprocess.run(["uptime"], capture_output=True, text=True, check=False)
    return done.stdout.strip().split("load average:")[-1].strip()


def timed(run: Callable[[], Any]) -> tuple[float, float, Any]:
    """Return (wall s, CPU s, result) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = run()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def one_run(
    corpus: Path, index: Path, chunker: Any, embed: Embedding | None
) -> tuple[float, float]:
    """Return (wall, CPU) of one ingest."""
    wall, cpu, _ = timed(lambda: ingest(corpus, index, chunker, embed=embed))
    return wall, cpu


def changed_file(
    corpus: Path, root: Path, chunker: Any, embed: Embedding, edit: Callable[[int], None]
) -> dict[str, Any]:
    """Return the median re-ingest of one changed file, BM25-only and with vectors."""
    plain, dense = root / "plain" / "index", root / "dense" / "index"
    runs: dict[str, list[tuple[float, float]]] = {"plain": [], "dense": []}
    encoded = []
    for step in range(REPEATS):
        edit(step)
        runs["plain"].append(one_run(corpus, plain, chunker, None))
        before = embed.encoded
        runs["dense"].append(one_run(corpus, dense, chunker, embed))
        encoded.append(embed.encoded - before)
    med = {
        k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
        for k, v in runs.items()
    }
    return {"plain": med["plain"], "dense": med["dense"], "encoded": encoded}


def cold_pair(corpus: Path, root: Path, chunker: Any, embed: Embedding) -> dict[str, Any]:
    """Return the cold ingests BM25-only and with vectors: times, sizes, texts encoded."""
    # Each index in a folder of its own, so each has its own (empty) parse cache beside it.
    plain = one_run(corpus, root / "plain" / "index", chunker, None)
    dense = one_run(corpus, root / "dense" / "index", chunker, embed)
    with open_index(root / "dense" / "index") as index:
        rows = len(index)
    return {
        "plain": plain, "dense": dense, "rows": rows, "encoded": embed.encoded,
        "plain_mb": folder_mb(root / "plain" / "index"),
        "dense_mb": folder_mb(root / "dense" / "index"),
    }  # fmt: skip


def recall_of_storage(index_dir: Path) -> dict[str, float]:
    """Return the mean share of each row's 10 float32 nearest neighbours float16 and int8 keep."""
    with open_index(index_dir) as index:
        exact = np.concatenate([s.vectors() for s in index.segments]).astype(np.float32)
    half = exact.astype(np.float16).astype(np.float32)
    scale = np.abs(exact).max(axis=1, keepdims=True) / 127
    int8 = np.round(exact / scale).astype(np.int8).astype(np.float32) * scale

    def top(m: Any) -> Any:
        scores = exact @ m.T
        np.fill_diagonal(scores, -np.inf)
        return np.argsort(-scores, axis=1, kind="stable")[:, :10]

    truth = top(exact)
    share = {}
    for name, m in (("float16", half), ("int8", int8)):
        got = top(m)
        share[name] = float(
            np.mean([len(set(a) & set(b)) / 10 for a, b in zip(truth, got, strict=True)])
        )
    return share


def bundled(root: Path, model: Path) -> tuple[list[str], dict[str, Any]]:
    """Run the bundled corpus's figures; return the report lines and the figures."""
    corpus = root / "corpus"
    shutil.copytree(ROOT / "corpus", corpus)
    chunker = make_chunker("structure")
    encoder = Encoder(resolve_model(model), "auto")
    embed = Embedding(encoder, str(model))
    cold = cold_pair(corpus, root, chunker, embed)
    target = sorted(corpus.rglob("*.md"))[0]
    original = target.read_text(encoding="utf-8")

    def edit(step: int) -> None:
        target.write_text(original + f"\n\nA sentence added in edit {step} of the benchmark.\n")

    change = changed_file(corpus, root, chunker, embed, edit)
    share = recall_of_storage(root / "dense" / "index")
    lines = table("bundled corpus (real model, " + encoder.runtime + ")", cold, change)
    lines.append(
        f"  storage: float16 keeps {share['float16']:.3f} of each chunk's 10 nearest, "
        f"int8+scale {share['int8']:.3f} (float32 = 1)"
    )
    return lines, {"cold": cold, "change": change, "embed": embed, "target": target}


def generated(root: Path, chunks: int, real: Embedding) -> list[str]:
    """Run the generated corpus's figures with the stand-in encoder; return the report lines."""
    corpus, files = root / "gen", chunks // 10
    generate(corpus, files)
    chunker = make_chunker("fixed", size=60)
    embed = Embedding(StandIn(), "stand-in")
    cold = cold_pair(corpus, root / "g", chunker, embed)

    def edit(step: int) -> None:
        change_one_file(corpus, files, which=0, seed=step + 1)

    change = changed_file(corpus, root / "g", chunker, embed, edit)
    lines = table(
        f"generated corpus, {chunks:,} chunks (synthetic text, stand-in encoder)", cold, change
    )
    prose = prose_words()

    def edit_prose(step: int) -> None:
        _, path = change_one_file(corpus, files, which=0, seed=step + 1)
        start = (step * 97) % (len(prose) - 600)
        path.write_text(
            "---\naccess: public\n---\n# Edited\n\n" + " ".join(prose[start : start + 600]) + "\n",
            encoding="utf-8",
        )

    return [*lines, real_model_change(corpus, root, chunker, real, edit_prose)]


def prose_words() -> list[str]:
    """Return the bundled corpus's words in file order: real prose for the changed file (the
    generated pseudo-words split into 3.7 word pieces each, real text into about 1.3)."""
    return [w for p in sorted((ROOT / "corpus").rglob("*.md")) for w in p.read_text().split()]


def real_model_change(
    corpus: Path, root: Path, chunker: Any, real: Embedding, edit: Callable[[int], None]
) -> str:
    """Return the line of one changed file re-ingested with the real model: the index's
    other vectors come from the stand-in under the real model's identity (encoding 100k
    texts with the model takes longer than a session), so the re-ingest finds them by their
    keys and runs the real encoder, in the real ingest, on exactly the changed file's texts,
    here real prose of the generated file's length."""
    disguised = Embedding(StandIn(real.encoder.identity), **real_settings(real))
    index = root / "r" / "index"
    one_run(corpus, index, chunker, disguised)
    plain, dense, encoded = [], [], []
    for step in range(REPEATS):
        edit(step + REPEATS)
        plain.append(one_run(corpus, root / "g" / "plain" / "index", chunker, None))
        before = real.encoded
        dense.append(one_run(corpus, index, chunker, real))
        encoded.append(real.encoded - before)
    (pw, pc), (dw, dc) = (
        (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
        for v in (plain, dense)
    )
    return (
        f"  one file changed, real model: BM25 {pw:.2f} s (CPU {pc:.2f}), with vectors "
        f"{dw:.2f} s (CPU {dc:.2f}) = {dw / pw:.2f}x; chunk texts encoded {encoded} (its units "
        "in the units writer beside them)"
    )


def real_settings(embed: Embedding) -> dict[str, str]:
    """Return the model and runtime an Embedding was asked for."""
    return {"model": embed.settings["model"], "runtime": embed.settings["runtime"]}


def table(title: str, cold: dict[str, Any], change: dict[str, Any]) -> list[str]:
    """Return the figures of one corpus as aligned lines."""
    (pw, pc), (dw, dc) = cold["plain"], cold["dense"]
    (rw, rc), (vw, vc) = change["plain"], change["dense"]
    return [
        f"{title}: {cold['rows']:,} chunks, {cold['encoded']:,} chunk texts encoded cold (units "
        "are encoded in the forked units writer, beside the chunks, and not counted here)",
        f"  cold ingest      BM25 {pw:8.2f} s (CPU {pc:8.2f})   with vectors {dw:8.2f} s "
        f"(CPU {dc:8.2f})   {dw / pw:.2f}x",
        f"  index size       BM25 {cold['plain_mb']:8.1f} MB             with vectors "
        f"{cold['dense_mb']:8.1f} MB             {cold['dense_mb'] / cold['plain_mb']:.2f}x",
        f"  one file changed BM25 {rw:8.2f} s (CPU {rc:8.2f})   with vectors {vw:8.2f} s "
        f"(CPU {vc:8.2f})   {vw / rw:.2f}x; texts encoded per re-ingest {change['encoded']}",
    ]


def main() -> None:
    """Run both corpora, print the figures and record them in bench/RESULTS.md (--write)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--model", type=Path, default=MODEL)
    args = parse_args(parser)
    with tempfile.TemporaryDirectory(prefix="bench-vectors-") as tmp:
        root = Path(tmp)
        lines, found = bundled(root, args.model)
        lines += generated(root, args.chunks, found["embed"])
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "unset")
    lines.append(f"load average (uptime) at the end: {load()}; OPENBLAS_NUM_THREADS={threads}")
    text = "\n".join(lines)
    print(text)
    write_section("bench_vectors", "```\n" + text + "\n```")


if __name__ == "__main__":
    main()
