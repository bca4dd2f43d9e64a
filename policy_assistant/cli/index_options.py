"""Options of the commands that read or write an index, importable without the parsers.

`search`, `ls`, `show` and `index` take only these, so starting one of them never imports the
corpus reader or the chunkers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from policy_assistant.errors import UsageError
from policy_assistant.index.settings import BM25_DEFAULTS, VARIANTS, BM25Settings

IndexDir = Annotated[
    Path | None,
    typer.Option(
        "--index",
        help="Index folder [$POLICY_ASSISTANT_INDEX, else build/index].",
        show_default=False,
    ),
]
Bm25Variant = Annotated[
    str,
    typer.Option(
        "--bm25",
        help=f"BM25 scoring: {' or '.join(VARIANTS)} (okapi reproduces rank-bm25's BM25Okapi).",
    ),
]
STRATEGY_NAMES = (
    "units, window, window-plain, window-1, window-2, automerge, passages, window-dense"
)
"""The context strategies `search --strategy` and `eval --strategy` name, as their help lists
them (evaluate.strategies.NAMED_STRATEGIES holds them; a test keeps the two alike)."""
AsJson = Annotated[bool, typer.Option("--json", help="JSON on stdout instead of a table.")]
LockWait = Annotated[
    float | None,
    typer.Option(
        "--wait",
        metavar="SECONDS",
        min=0,
        help="How long to wait for another writer of the index "
        "[$POLICY_ASSISTANT_LOCK_WAIT, else 600].",
        show_default=False,
    ),
]


def set_wait(seconds: float | None) -> None:
    """Make this process's index writers wait `seconds` for another (None: the default)."""
    from policy_assistant.index.store.writer import set_lock_wait

    if seconds is not None:
        set_lock_wait(seconds)


def check_bm25_variant(variant: str) -> None:
    """Raise UsageError unless variant names a BM25 variant."""
    if variant not in VARIANTS:
        raise UsageError(f"--bm25 must be one of {', '.join(VARIANTS)}, got {variant!r}")


def bm25_settings(variant: str) -> BM25Settings:
    """Return the BM25 settings --bm25 names (the defaults but the variant); UsageError else."""
    check_bm25_variant(variant)
    return BM25_DEFAULTS.with_changes({"variant": variant})
