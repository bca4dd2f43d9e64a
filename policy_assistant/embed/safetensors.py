"""Read a .safetensors file with numpy alone: the format is small enough to need no library.

The file is an 8-byte little-endian header length, a JSON header naming each tensor's dtype,
shape and byte range, then the raw little-endian tensors. Tensors are memory-mapped views.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from policy_assistant.embed.model import ModelError

DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "I64": "<i8", "I32": "<i4", "U8": "u1"}
"""safetensors dtype names and their numpy equivalents (BF16 is widened by hand)."""


def read_safetensors(path: Path) -> dict[str, NDArray[Any]]:
    """Return every tensor of a .safetensors file by name, as read-only arrays."""
    header, start = _read_header(path)
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=start)
    return {
        name: tensor(data, info, f"{path}: {name}")
        for name, info in header.items()
        if name != "__metadata__"
    }


def _read_header(path: Path) -> tuple[dict[str, Any], int]:
    """Return the JSON header and the offset where the tensor bytes start."""
    with open(path, "rb") as handle:
        size = int.from_bytes(handle.read(8), "little")
        if not 2 <= size <= 100_000_000:
            raise ModelError(f"{path}: not a safetensors file (header length {size})")
        try:
            header = json.loads(handle.read(size))
        except ValueError:
            raise ModelError(f"{path}: not a safetensors file (bad header)") from None
    return header, 8 + size


def tensor(data: NDArray[np.uint8], info: dict[str, Any], where: str) -> NDArray[Any]:
    """Return one tensor's bytes viewed as its dtype and shape, checking the byte count."""
    begin, end = info["data_offsets"]
    shape = tuple(int(n) for n in info["shape"])
    raw = data[begin:end]
    if info["dtype"] == "BF16":
        # bfloat16 is the top half of a float32: widen by shifting into the high bits.
        wide = raw.view("<u2").astype(np.uint32) << 16
        return check(wide.view(np.float32), shape, where)
    if info["dtype"] not in DTYPES:
        raise ModelError(f"{where}: dtype {info['dtype']} not supported")
    return check(raw.view(DTYPES[info["dtype"]]), shape, where)


def check(array: NDArray[Any], shape: tuple[int, ...], where: str) -> NDArray[Any]:
    """Return `array` in `shape`, or a ModelError when the file holds another count."""
    if array.size != math.prod(shape):
        raise ModelError(f"{where}: {array.size} values where shape {shape} needs more or fewer")
    return array.reshape(shape)
