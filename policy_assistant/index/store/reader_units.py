"""The retrieval units of an open index: opened with its chunks, and found again after a swap.

A handle keeps the files it opened: a memory map survives the rename and unlink of its file
(POSIX), so the units opened with the chunks answer for as long as the handle lives, whatever
writers do. A handle that could not open them then (none yet, or a writer retiring its
generation meanwhile) opens them on first use, from the live generation when its own is gone.
"""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path
from typing import Any

from policy_assistant.errors import BadIndex
from policy_assistant.index.store.folder import damaged, ingest_hint, read_current

SWAPS = 20
"""Generations in a row a first context() follows before it gives up: writers this fast
would starve any reader."""


def preload_units(index_dir: Path, generation: Path) -> Any:
    """Return the generation's units opened now (None when it has none or they fail to open:
    search needs no units, and context() says what is wrong when it is called)."""
    with suppress(BadIndex, OSError):
        return _load(index_dir, generation)
    return None


def units_for(index_dir: Path, generation: Path) -> Any:
    """Return the units of the generation, or of the live one when a writer retired it."""
    for _ in range(SWAPS):
        try:
            return _load(index_dir, generation)
        except BadIndex:
            live = read_current(index_dir)
            if live is None or live == generation.name or not (index_dir / live).is_dir():
                raise
            generation = index_dir / live
    return _load(index_dir, generation)


def _load(index_dir: Path, generation: Path) -> Any:
    """Open the generation's units; BadIndex saying what to run when it has none."""
    from policy_assistant.index.store.units import UNITS_DIR, has_units, load_units

    folder = generation / UNITS_DIR
    if not has_units(folder):
        why = (
            "retrieval units in an older layout"
            if folder.is_dir()
            else "no retrieval units (an `index` of chunk records or `ingest "
            "--no-units` stores none)"
        )
        raise BadIndex(f"index at {index_dir} holds {why}: {ingest_hint(index_dir)}")
    try:
        return load_units(folder)
    except BadIndex as exc:
        raise damaged(index_dir, exc) from exc
