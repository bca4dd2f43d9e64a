"""Embedding throughput: passages of about 100 words per CPU-second, per runtime, one thread.

    OPENBLAS_NUM_THREADS=1 python bench/bench_embed.py [--passages 48] [--model DIR]

The passages are 100-word windows of the bundled corpus's Markdown, the same for every
runtime. Each runtime gets one warm-up batch (not timed), then one timed run over all the
passages; CPU seconds (process time) are what is divided, since the machine is shared and
wall time would measure the neighbours. The load average is printed beside each figure.
Runtimes: the int8 ONNX export (onnx/model_qint8.onnx), an fp32 ONNX export if the folder
has onnx/model.onnx, and the numpy fp32 forward pass on model.safetensors. The model folder
comes from `python scripts/fetch_model.py`. The numpy pass uses as many BLAS threads as
OPENBLAS_NUM_THREADS allows: set it to 1 before the run, as above, for a one-thread figure.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from policy_assistant.embed.encoder import Encoder
from policy_assistant.embed.model import ModelFolder, resolve_model

ROOT = Path(__file__).resolve().parent.parent
WORDS = 100


def passages(count: int) -> list[str]:
    """Return `count` windows of WORDS words from the bundled corpus's Markdown, in path order."""
    words = [w for p in sorted((ROOT / "corpus").rglob("*.md")) for w in p.read_text().split()]
    windows = [" ".join(words[i : i + WORDS]) for i in range(0, len(words) - WORDS, WORDS)]
    return windows[:count]


def runtimes(model: ModelFolder) -> list[tuple[str, str, Path | None]]:
    """Return (label, runtime, onnx file) for every runtime this folder can run."""
    found: list[tuple[str, str, Path | None]] = []
    for label, name in (("int8 ONNX", "model_qint8.onnx"), ("fp32 ONNX", "model.onnx")):
        path = model.root / "onnx" / name
        if path.is_file():
            found.append((label, "onnx", path))
    if model.weights is not None:
        found.append(("fp32 numpy", "numpy", None))
    return found


def measure(encoder: Encoder, texts: list[str]) -> tuple[float, float, np.ndarray]:
    """Return (CPU seconds, wall seconds, vectors) of one timed run after one warm-up batch."""
    encoder.encode(texts[: encoder.batch_size])
    cpu, wall = time.process_time(), time.perf_counter()
    vectors = encoder.encode(texts)
    return time.process_time() - cpu, time.perf_counter() - wall, vectors


def main() -> None:
    """Measure every runtime the model folder has and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--passages", type=int, default=48)
    parser.add_argument("--model", type=Path, default=ROOT / "build/models/all-MiniLM-L6-v2")
    args = parser.parse_args()
    model = resolve_model(args.model)
    texts = passages(args.passages)
    print(f"{len(texts)} passages of {WORDS} words, {model.name}, max {model.max_seq_length}")
    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    results = []
    for label, runtime, path in runtimes(model):
        encoder = Encoder(model, runtime=runtime, onnx_file=path, threads=1)
        results.append((label, *measure(encoder, texts), os.getloadavg()))
    # The numpy pass is the reference: fp32, and checked against a published vector.
    reference = results[-1][3]
    for label, cpu, wall, vectors, load in results:
        agree = float((vectors * reference).sum(axis=1).min())
        loads = ", ".join(f"{x:.2f}" for x in load)
        print(
            f"{label:11} {len(texts) / cpu:6.1f} passages/CPU-s  ({cpu:.2f} CPU-s, {wall:.2f} s "
            f"wall)  min cosine to {results[-1][0]}: {agree:.5f}  load {loads}"
        )


if __name__ == "__main__":
    main()
