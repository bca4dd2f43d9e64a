"""Text to sentence vectors with a local model: tokenize, run, pool, normalise.

Two runtimes read the same model folder: onnxruntime on an onnx/model*.onnx file, and a
numpy forward pass on model.safetensors (bert_numpy). Texts are run in batches of similar
length (padding costs as much as text), and each vector lands back at its text's position.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from policy_assistant.embed.model import ModelError, ModelFolder, ModelIdentity, identity
from policy_assistant.procs.pool import machine_cores

Floats = NDArray[np.float32]
Ints = NDArray[np.int64]
Forward = Callable[[Ints, Ints, Ints], Floats]
"""(ids, attention mask, token types) -> last hidden state, (batch, tokens, hidden)."""

RUNTIMES = ("auto", "onnx", "numpy")
INSTALL_HINT = "pip install 'policy-assistant[dense]'"


class Encoder:
    """Unit-length float32 sentence vectors from a local model; the same texts, the same bytes."""

    def __init__(
        self,
        model: ModelFolder,
        runtime: str = "auto",
        onnx_file: Path | None = None,
        threads: int | None = None,
        batch_size: int = 32,
    ) -> None:
        """Load the tokenizer and the runtime; `threads` is onnxruntime's (None: one per CPU
        this process may run on; the vectors' bytes do not depend on it, a test checks).

        The numpy runtime's threads are its BLAS library's, fixed by OPENBLAS_NUM_THREADS (or
        OMP_NUM_THREADS) before numpy is first imported; set it to 1 per worker process.
        """
        self.model = model
        self.batch_size = batch_size
        self.tokenizer = _load_tokenizer(model)
        threads = threads or machine_cores()
        self.runtime, weights, self.forward = _load_runtime(model, runtime, onnx_file, threads)
        self.identity: ModelIdentity = identity(model, self.runtime, weights)

    @property
    def dimension(self) -> int:
        """Return the length of one vector."""
        return self.model.dimension

    def encode(self, texts: Sequence[str]) -> Floats:
        """Return one vector per text, float32 (len(texts), dimension), in the texts' order."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(list(texts)) if texts else []
        # Longest first, ties by position: batches of near-equal length pad little.
        order = sorted(range(len(texts)), key=lambda i: (-len(encodings[i].ids), i))
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            ids, mask, types = pad([encodings[i] for i in rows])
            out[rows] = pool(self.forward(ids, mask, types), mask, self.model)
        return out


def _load_tokenizer(model: ModelFolder) -> Any:
    """Return the model's tokenizer, truncating at its max_seq_length and never padding.

    tokenizer.json may carry its own truncation and fixed padding (all-MiniLM-L6-v2's: 128);
    both are replaced, as sentence-transformers replaces them.
    """
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise ModelError(f"tokenizers is not installed: {INSTALL_HINT}") from None
    tokenizer = Tokenizer.from_file(str(model.tokenizer))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=model.max_seq_length)
    return tokenizer


def pad(encodings: Sequence[Any]) -> tuple[Ints, Ints, Ints]:
    """Return ids, attention mask and token types, right-padded with 0 to the longest."""
    width = max(len(e.ids) for e in encodings)
    arrays = np.zeros((3, len(encodings), width), dtype=np.int64)
    for row, e in enumerate(encodings):
        n = len(e.ids)
        arrays[0, row, :n] = e.ids
        arrays[1, row, :n] = e.attention_mask
        arrays[2, row, :n] = e.type_ids
    return arrays[0], arrays[1], arrays[2]


def pool(hidden: Floats, mask: Ints, model: ModelFolder) -> Floats:
    """Return one vector per row: the mask-weighted mean (or [CLS]), then unit length."""
    if model.pooling == "cls":
        vectors = hidden[:, 0, :]
    else:
        weights = mask.astype(np.float32)[:, :, None]
        vectors = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    if model.normalize:
        # The floor is torch.nn.functional.normalize's, which sentence-transformers uses.
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors = vectors / np.maximum(norms, 1e-12)
    return vectors.astype(np.float32)


def _load_runtime(
    model: ModelFolder, runtime: str, onnx_file: Path | None, threads: int
) -> tuple[str, Path, Forward]:
    """Return (runtime name, weights file, forward pass) for the runtime asked for.

    "auto" takes onnxruntime when the folder has an ONNX file (or one is given), else numpy.
    """
    if runtime not in RUNTIMES:
        raise ModelError(f"runtime {runtime!r}: not one of {', '.join(RUNTIMES)}")
    if runtime == "auto":
        runtime = "onnx" if onnx_file or model.onnx else "numpy"
    if runtime == "onnx":
        path = onnx_file or _preferred_onnx(model)
        return "onnx", path, _onnx_forward(path, threads)
    if model.weights is None:
        raise ModelError(f"{model.root / 'model.safetensors'}: missing; the numpy runtime reads it")
    from policy_assistant.embed.bert_numpy import NumpyBert

    return "numpy", model.weights, NumpyBert(model.weights, model.bert)


def _preferred_onnx(model: ModelFolder) -> Path:
    """Return onnx/model.onnx (full precision) if present, else the folder's first export."""
    if not model.onnx:
        raise ModelError(f"{model.root / 'onnx'}: no model*.onnx in it for the onnx runtime")
    exact = [p for p in model.onnx if p.name == "model.onnx"]
    return (exact or list(model.onnx))[0]


def _onnx_forward(path: Path, threads: int) -> Forward:
    """Return a forward pass through an ONNX export on `threads` CPU threads."""
    try:
        import onnxruntime as ort
    except ImportError:
        raise ModelError(f"onnxruntime is not installed: {INSTALL_HINT}") from None
    if not path.is_file():
        raise ModelError(f"{path}: missing; the onnx runtime runs it")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    wanted = {i.name for i in session.get_inputs()}
    output = session.get_outputs()[0].name

    def forward(ids: Ints, mask: Ints, types: Ints) -> Floats:
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        hidden = session.run([output], {k: v for k, v in feed.items() if k in wanted})[0]
        if hidden.ndim != 3:
            raise ModelError(f"{path}: first output {output} is not (batch, tokens, hidden)")
        return np.asarray(hidden, dtype=np.float32)

    return forward
