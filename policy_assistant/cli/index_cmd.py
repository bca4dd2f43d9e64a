"""`policy-assistant index`: chunk records (JSON lines) into an index folder."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from policy_assistant.cli.common import guarded, out
from policy_assistant.cli.index_options import (
    AsJson,
    Bm25Variant,
    IndexDir,
    LockWait,
    bm25_settings,
    set_wait,
)
from policy_assistant.index.settings import BM25_DEFAULTS

STDIN = Path("-")
"""The path that means: read the chunks from standard input."""


def register(app: typer.Typer) -> None:
    """Add the index command to the app."""
    app.command("index")(guarded(_index_command))


def _index_command(
    chunks_file: Annotated[
        Path,
        typer.Argument(help="Chunk records as JSON lines (`chunk --json` output); - reads stdin."),
    ],
    index: IndexDir = None,
    bm25_variant: Bm25Variant = BM25_DEFAULTS.variant,
    as_json: AsJson = False,
    wait: LockWait = None,
) -> None:
    """Index chunk records: the same generations, manifest and incremental rules as ingest."""
    from policy_assistant.cli.summary import summary_table
    from policy_assistant.index import IndexSettings, build_index, resolve_index_dir
    from policy_assistant.index.store.chunk_file import read_chunk_lines
    from policy_assistant.jsonio import json_text

    bm25 = bm25_settings(bm25_variant)
    set_wait(wait)
    index_dir = resolve_index_dir(index)
    if chunks_file == STDIN:
        chunks = read_chunk_lines(sys.stdin.buffer, "<stdin>")
    else:
        with chunks_file.open("rb") as stream:
            chunks = read_chunk_lines(stream, str(chunks_file))
    result = build_index(chunks, index_dir, IndexSettings(bm25=bm25))
    if as_json:
        data = {**vars(result), "index_dir": result.index_dir.as_posix()}
        typer.echo(json_text(data))
    else:
        out.print(summary_table(result, index_dir.as_posix()))
