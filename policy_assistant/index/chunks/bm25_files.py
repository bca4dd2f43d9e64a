"""Reading .npy arrays and term lists memory-mapped, so damage is a ValueError or OSError."""

from __future__ import annotations

import mmap
from pathlib import Path
from typing import Any, Literal

import numpy as np


def load_array(path: Path, mode: Literal["r"] | None) -> Any:
    """Load one .npy file; raise ValueError naming it when its header is damaged."""
    try:
        # A plain view of the map: numpy's memmap subclass costs on every index (term lookup).
        return np.asarray(np.load(path, mmap_mode=mode, allow_pickle=False))
    except OSError:
        raise
    except Exception as exc:  # numpy's header parser also raises tokenize and syntax errors
        raise ValueError(f"{path.name}: {type(exc).__name__}: {exc}") from exc


def read_terms(path: Path, use_mmap: bool) -> bytes | mmap.mmap:
    """Return the term list's bytes, memory-mapped when asked and not empty."""
    with path.open("rb") as handle:
        if use_mmap and path.stat().st_size:
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        return handle.read()
