"""Write an fp32 ONNX graph of a BERT sentence model from its model.safetensors, without torch.

    pip install onnx          # the graph builder only; not a dependency of the package
    python scripts/export_onnx.py [build/models/all-MiniLM-L6-v2]   # -> onnx/model.onnx

The graph is Hugging Face's BertModel in eval mode, written node by node with onnx.helper:
inputs input_ids, attention_mask, token_type_ids (int64, batch x sequence), output
last_hidden_state (float32, batch x sequence x hidden), the layout of the usual exports, so
the encoder's onnx runtime runs it like any other. The weights are the safetensors' own
float32 values, unchanged. tests/test_embed.py checks it against the numpy forward pass.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from policy_assistant.embed.safetensors import read_safetensors

ROOT = Path(__file__).resolve().parent.parent
OPSET = 17
"""LayerNormalization is an operator from opset 17 on."""


class Graph:
    """Nodes and initializers, each output named in order."""

    def __init__(self, tensors: dict[str, np.ndarray]) -> None:
        self.tensors = tensors
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.count = 0
        self.named: set[str] = set()

    def const(self, name: str, value: np.ndarray) -> str:
        """Return the name of a constant, added once."""
        if name not in self.named:
            self.named.add(name)
            self.inits.append(numpy_helper.from_array(value, name))
        return name

    def weight(self, name: str, transpose: bool = False) -> str:
        """Return the name of a safetensors weight as a float32 initializer."""
        value = np.asarray(self.tensors[name], dtype=np.float32)
        return self.const(name, np.ascontiguousarray(value.T if transpose else value))

    def op(self, kind: str, *inputs: str, **attrs: object) -> str:
        """Append one node and return its output's name."""
        self.count += 1
        out = f"{kind.lower()}_{self.count}"
        self.nodes.append(helper.make_node(kind, list(inputs), [out], **attrs))
        return out

    def dense(self, x: str, prefix: str) -> str:
        """Return x @ W.T + b for the Linear layer at `prefix`."""
        product = self.op("MatMul", x, self.weight(prefix + ".weight", transpose=True))
        return self.op("Add", product, self.weight(prefix + ".bias"))

    def norm(self, x: str, prefix: str, eps: float) -> str:
        """Return LayerNorm of x with the gain and bias at `prefix`."""
        gain, bias = self.weight(prefix + ".weight"), self.weight(prefix + ".bias")
        return self.op("LayerNormalization", x, gain, bias, axis=-1, epsilon=eps)


def embeddings(g: Graph, eps: float) -> str:
    """Word + position + token-type embeddings, then LayerNorm."""
    e = "embeddings."
    shape = g.op("Shape", "input_ids")
    length = g.op("Gather", shape, g.const("one", np.array(1, dtype=np.int64)), axis=0)
    zero, step = g.const("zero", np.array(0, np.int64)), g.const("step", np.array(1, np.int64))
    positions = g.op("Range", zero, length, step)
    words = g.op("Gather", g.weight(e + "word_embeddings.weight"), "input_ids")
    where = g.op("Gather", g.weight(e + "position_embeddings.weight"), positions)
    types = g.op("Gather", g.weight(e + "token_type_embeddings.weight"), "token_type_ids")
    return g.norm(g.op("Add", g.op("Add", words, where), types), e + "LayerNorm", eps)


def attention(g: Graph, x: str, p: str, heads: int, size: int, bias: str) -> str:
    """Multi-head self-attention of layer prefix `p`, before its residual."""
    split = g.const(f"{p}split", np.array([0, 0, heads, size], dtype=np.int64))
    merge = g.const(f"{p}merge", np.array([0, 0, heads * size], dtype=np.int64))

    def heads_of(name: str, perm: list[int]) -> str:
        """Return one projection split into heads and transposed by `perm`."""
        return g.op("Transpose", g.op("Reshape", g.dense(x, f"{p}self.{name}"), split), perm=perm)

    q, k = heads_of("query", [0, 2, 1, 3]), heads_of("key", [0, 2, 3, 1])
    v = heads_of("value", [0, 2, 1, 3])
    scale = g.const(f"{p}scale", np.array(1 / math.sqrt(size), dtype=np.float32))
    scores = g.op("Add", g.op("Mul", g.op("MatMul", q, k), scale), bias)
    context = g.op("MatMul", g.op("Softmax", scores, axis=-1), v)
    merged = g.op("Reshape", g.op("Transpose", context, perm=[0, 2, 1, 3]), merge)
    return g.dense(merged, f"{p}output.dense")


def mask_bias(g: Graph) -> str:
    """(1 - mask) * -1e9, shaped (batch, 1, 1, sequence): padding gets no attention."""
    mask = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    one = g.const("one_f", np.array(1.0, dtype=np.float32))
    big = g.const("minus_big", np.array(-1e9, dtype=np.float32))
    axes = g.const("axes_12", np.array([1, 2], dtype=np.int64))
    return g.op("Unsqueeze", g.op("Mul", g.op("Sub", one, mask), big), axes)


def gelu(g: Graph, x: str) -> str:
    """Exact GELU, 0.5 x (1 + erf(x / sqrt 2)), from opset-9 operators."""
    root2 = g.const("root2", np.array(math.sqrt(2), dtype=np.float32))
    half = g.const("half", np.array(0.5, np.float32))
    one = g.const("one_f", np.array(1.0, dtype=np.float32))
    return g.op("Mul", g.op("Mul", x, half), g.op("Add", one, g.op("Erf", g.op("Div", x, root2))))


def build(folder: Path) -> onnx.ModelProto:
    """Return the ONNX model of the BERT in `folder`."""
    config = json.loads((folder / "config.json").read_text())
    g = Graph(read_safetensors(folder / "model.safetensors"))
    eps, heads = float(config["layer_norm_eps"]), int(config["num_attention_heads"])
    size = int(config["hidden_size"]) // heads
    x, bias = embeddings(g, eps), mask_bias(g)
    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}."
        a = attention(g, x, p + "attention.", heads, size, bias)
        x = g.norm(g.op("Add", x, a), p + "attention.output.LayerNorm", eps)
        up = gelu(g, g.dense(x, p + "intermediate.dense"))
        x = g.norm(g.op("Add", x, g.dense(up, p + "output.dense")), p + "output.LayerNorm", eps)
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    ints = [["batch", "sequence"]]
    inputs = [
        helper.make_tensor_value_info(n, TensorProto.INT64, *ints)
        for n in ("input_ids", "attention_mask", "token_type_ids")
    ]
    hidden = int(config["hidden_size"])
    output = helper.make_tensor_value_info(
        "last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", hidden]
    )
    graph = helper.make_graph(g.nodes, "bert", inputs, [output], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.producer_name = "policy-assistant scripts/export_onnx.py"
    onnx.checker.check_model(model)
    return model


def main() -> None:
    """Write onnx/model.onnx into the model folder."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "folder", type=Path, nargs="?", default=ROOT / "build/models/all-MiniLM-L6-v2"
    )
    folder = parser.parse_args().folder
    target = folder / "onnx" / "model.onnx"
    target.parent.mkdir(exist_ok=True)
    onnx.save(build(folder), str(target))
    print(f"{target}: {target.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
