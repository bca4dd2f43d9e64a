"""A BERT encoder's forward pass in numpy float32, from model.safetensors.

Two jobs: a runtime where onnxruntime is absent or no ONNX file ships, and an independent
reference for the ONNX runtime (different code, different weights file, same model). It
follows Hugging Face's BertModel in eval mode: embeddings, then per layer self-attention and
a GELU feed-forward block, each with a residual connection and post-LayerNorm.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from policy_assistant.embed.model import BertShape, ModelError
from policy_assistant.embed.safetensors import read_safetensors

Floats = NDArray[np.float32]
Ints = NDArray[np.int64]

# Abramowitz & Stegun 7.1.26: erf to 1.5e-7, below float32's own rounding; numpy has no erf.
ERF_P = 0.3275911
ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def erf(x: Floats) -> Floats:
    """Return erf(x) elementwise to 1.5e-7 absolute."""
    a = np.abs(x)
    t = 1.0 / (1.0 + ERF_P * a)
    poly = t * (ERF_A[0] + t * (ERF_A[1] + t * (ERF_A[2] + t * (ERF_A[3] + t * ERF_A[4]))))
    y = 1.0 - poly * np.exp(-a * a)
    out: Floats = np.copysign(y, x).astype(np.float32)
    return out


def gelu(x: Floats) -> Floats:
    """Return the exact (erf) GELU that BERT's "gelu" means, not the tanh approximation."""
    out: Floats = 0.5 * x * (1.0 + erf(x * np.float32(1 / math.sqrt(2))))
    return out.astype(np.float32)


def _layer_norm(x: Floats, gain: Floats, bias: Floats, eps: float) -> Floats:
    """Return x normalised over its last axis, then scaled and shifted."""
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    out: Floats = (x - mean) / np.sqrt(var + np.float32(eps)) * gain + bias
    return out.astype(np.float32)


def _softmax(x: Floats) -> Floats:
    """Return the softmax over the last axis, shifted by the maximum for range."""
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    out: Floats = e / e.sum(axis=-1, keepdims=True)
    return out.astype(np.float32)


@dataclass(frozen=True)
class Layer:
    """One encoder layer's weights, transposed once so each product is x @ W."""

    qkv: Floats
    qkv_bias: Floats
    out: Floats
    out_bias: Floats
    norm1: tuple[Floats, Floats]
    up: Floats
    up_bias: Floats
    down: Floats
    down_bias: Floats
    norm2: tuple[Floats, Floats]


def _load_layer(get: Callable[[str], Floats], i: int) -> Layer:
    """Return layer `i`, its query, key and value projections fused into one product."""
    p = f"encoder.layer.{i}."
    a = p + "attention."
    return Layer(
        qkv=np.concatenate([get(f"{a}self.{n}.weight").T for n in ("query", "key", "value")], 1),
        qkv_bias=np.concatenate([get(f"{a}self.{n}.bias") for n in ("query", "key", "value")]),
        out=np.ascontiguousarray(get(a + "output.dense.weight").T),
        out_bias=get(a + "output.dense.bias"),
        norm1=(get(a + "output.LayerNorm.weight"), get(a + "output.LayerNorm.bias")),
        up=np.ascontiguousarray(get(p + "intermediate.dense.weight").T),
        up_bias=get(p + "intermediate.dense.bias"),
        down=np.ascontiguousarray(get(p + "output.dense.weight").T),
        down_bias=get(p + "output.dense.bias"),
        norm2=(get(p + "output.LayerNorm.weight"), get(p + "output.LayerNorm.bias")),
    )


class NumpyBert:
    """BERT's last hidden state from token ids, in numpy float32."""

    def __init__(self, weights: Path, shape: BertShape) -> None:
        tensors = read_safetensors(weights)
        # Checkpoints saved from BertForX carry a "bert." prefix; sentence-transformers' do not.
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in tensors else ""

        def get(name: str) -> Floats:
            if prefix + name not in tensors:
                raise ModelError(f"{weights}: tensor {prefix + name} missing")
            return np.array(tensors[prefix + name], dtype=np.float32)

        e = "embeddings."
        self.shape = shape
        self.word = get(e + "word_embeddings.weight")
        self.position = get(e + "position_embeddings.weight")
        self.token_type = get(e + "token_type_embeddings.weight")
        self.norm = (get(e + "LayerNorm.weight"), get(e + "LayerNorm.bias"))
        self.layers = [_load_layer(get, i) for i in range(shape.layers)]

    def __call__(self, ids: Ints, mask: Ints, types: Ints) -> Floats:
        """Return the last hidden state, (batch, tokens, hidden)."""
        positions = np.arange(ids.shape[1])
        x = self.word[ids] + self.position[positions][None] + self.token_type[types]
        x = _layer_norm(x, *self.norm, self.shape.eps)
        # Padding gets a large negative score, so softmax gives it no weight.
        bias = ((1.0 - mask.astype(np.float32)) * np.float32(-1e9))[:, None, None, :]
        for layer in self.layers:
            x = self.block(x, layer, bias)
        return x

    def block(self, x: Floats, layer: Layer, bias: Floats) -> Floats:
        """Return one layer's output: attention, then the feed-forward, each add & norm."""
        x = _layer_norm(x + self.attention(x, layer, bias), *layer.norm1, self.shape.eps)
        hidden = gelu(x @ layer.up + layer.up_bias)
        return _layer_norm(x + hidden @ layer.down + layer.down_bias, *layer.norm2, self.shape.eps)

    def attention(self, x: Floats, layer: Layer, bias: Floats) -> Floats:
        """Return multi-head self-attention's projected output."""
        batch, tokens, width = x.shape
        heads = self.shape.heads
        size = width // heads
        qkv = (x @ layer.qkv + layer.qkv_bias).reshape(batch, tokens, 3, heads, size)
        q, k, v = qkv.transpose(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(0, 1, 3, 2)) * np.float32(1 / math.sqrt(size)) + bias
        context = (_softmax(scores) @ v).transpose(0, 2, 1, 3).reshape(batch, tokens, width)
        out: Floats = context @ layer.out + layer.out_bias
        return out.astype(np.float32)
