"""Options several commands share, defined once so their names, help and defaults agree."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from policy_assistant.chunk import (
    CHUNKERS,
    DEFAULT_CHUNKER,
    DEFAULT_MAX_TABLE_WORDS,
    DEFAULT_MAX_WORDS,
    DEFAULT_OVERLAP,
    DEFAULT_OVERLAP_SENTENCES,
    DEFAULT_SIZE,
    Chunker,
    make_chunker,
)
from policy_assistant.errors import UsageError
from policy_assistant.index.settings import VARIANTS

ChunkerName = Annotated[str, typer.Option("--chunker", help=f"One of: {', '.join(CHUNKERS)}.")]
Size = Annotated[
    int | None,
    typer.Option("--size", help=f"fixed, overlapping: words per window [{DEFAULT_SIZE}]."),
]
Overlap = Annotated[
    int | None,
    typer.Option("--overlap", help=f"overlapping: words windows share [{DEFAULT_OVERLAP}]."),
]
MaxWords = Annotated[
    int | None,
    typer.Option(
        "--max-words",
        help=f"structure, sentence: words per chunk, prefix in [{DEFAULT_MAX_WORDS}].",
    ),
]
MaxTableWords = Annotated[
    int | None,
    typer.Option(
        "--max-table-words",
        help=f"structure: words up to which a table stays whole [{DEFAULT_MAX_TABLE_WORDS}].",
    ),
]
OverlapSentences = Annotated[
    int | None,
    typer.Option(
        "--overlap-sentences",
        help=f"sentence: sentences repeated from the chunk before [{DEFAULT_OVERLAP_SENTENCES}].",
    ),
]
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
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
AsJson = Annotated[bool, typer.Option("--json", help="JSON on stdout instead of a table.")]

__all__ = [
    "DEFAULT_CHUNKER",
    "AsJson",
    "Bm25Variant",
    "ChunkerName",
    "IndexDir",
    "MaxTableWords",
    "MaxWords",
    "Overlap",
    "OverlapSentences",
    "Quiet",
    "Size",
    "check_bm25_variant",
    "chunker_settings",
    "make_cli_chunker",
]


def check_bm25_variant(variant: str) -> None:
    """Raise UsageError unless variant names a BM25 variant."""
    if variant not in VARIANTS:
        raise UsageError(f"--bm25 must be one of {', '.join(VARIANTS)}, got {variant!r}")


def chunker_settings(
    size: int | None = None,
    overlap: int | None = None,
    max_words: int | None = None,
    max_table_words: int | None = None,
    overlap_sentences: int | None = None,
) -> dict[str, int]:
    """Return the chunker settings given on the command line, leaving out those not given."""
    given = {
        "size": size,
        "overlap": overlap,
        "max_words": max_words,
        "max_table_words": max_table_words,
        "overlap_sentences": overlap_sentences,
    }
    return {name: value for name, value in given.items() if value is not None}


def make_cli_chunker(name: str, settings: dict[str, int]) -> Chunker:
    """Return the chunker, with usage errors naming command-line options, not settings."""
    try:
        return make_chunker(name, **settings)
    except UsageError as exc:
        message = str(exc)
        names = {n for cls in CHUNKERS.values() for n in cls.setting_names}
        for setting in sorted(names, key=len, reverse=True):
            message = re.sub(rf"\b(?<!-){setting}\b", "--" + setting.replace("_", "-"), message)
        raise UsageError(message) from exc
