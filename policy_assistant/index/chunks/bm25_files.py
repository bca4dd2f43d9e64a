"""Reading the files BM25Index.save wrote, checked, so damage is a BadIndex (bm25.py)."""

from __future__ import annotations

import mmap
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from policy_assistant.errors import BadIndex


def load_array(path: Path, mode: Literal["r"] | None) -> Any:
    """Load one .npy file; raise ValueError naming it when its header is damaged."""
    try:
        # A plain view of the map: numpy's memmap subclass costs on every index (term lookup).
        return np.asarray(np.load(path, mmap_mode=mode, allow_pickle=False))
    except OSError:
        raise
    except Exception as exc:  # numpy's header parser also raises tokenize and syntax errors
        raise ValueError(f"{path.name}: {type(exc).__name__}: {exc}") from exc


_PARAM_TYPES: dict[str, type | tuple[type, ...]] = {
    "documents": int,
    "k1": (int, float),
    "b": (int, float),
    "epsilon": (int, float),
    "nonnegative": bool,
}


def check_params(folder: Path, params: dict[str, Any], variants: Sequence[str]) -> None:
    """Raise BadIndex unless params.json holds every setting search reads."""
    bad = [key for key, kind in _PARAM_TYPES.items() if not isinstance(params.get(key), kind)]
    if bad or params.get("variant") not in variants:
        raise BadIndex(f"{folder.name}/params.json is damaged ({', '.join(bad) or 'variant'})")


def read_terms(path: Path, use_mmap: bool) -> bytes | mmap.mmap:
    """Return the term list's bytes, memory-mapped when asked and not empty."""
    with path.open("rb") as handle:
        if use_mmap and path.stat().st_size:
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        return handle.read()


def check_shapes(folder: Path, params: dict[str, Any], arrays: dict[str, Any], size: int) -> None:
    """Raise BadIndex unless the arrays agree with each other and with params."""
    n_terms, n_postings = params.get("terms"), params.get("postings")
    if not isinstance(n_terms, int) or not isinstance(n_postings, int):
        raise BadIndex(f"{folder.name}/params.json lacks the term and posting counts")
    expected = {
        "term_offsets": (n_terms + 1, np.int64),
        "ptr": (n_terms + 1, np.int64),
        "rows": (n_postings, np.int32),
        "weights": (n_postings, np.float64),
        "term_max": (n_terms, np.float64),
    }
    for name, (length, dtype) in expected.items():
        found = arrays[name]
        if found.ndim != 1 or found.shape[0] != length or found.dtype != dtype:
            raise BadIndex(f"{folder.name}/{name}.npy does not fit the other arrays")
    if int(arrays["ptr"][-1]) != n_postings or int(arrays["term_offsets"][-1]) != size:
        raise BadIndex(f"{folder.name}: offsets do not reach the end of the data")
