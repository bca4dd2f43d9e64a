"""`policy-assistant ingest`: parse, chunk and index a corpus, doing again only what changed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.markup import escape
from rich.table import Table

from policy_assistant.cli.common import (
    guarded,
    out,
    print_notices,
    print_warnings,
    progress_bar,
    report_failures,
)
from policy_assistant.cli.options import (
    DEFAULT_CHUNKER,
    DEFAULT_MAX_FILE_MIB,
    AsJson,
    ChunkerName,
    DefaultAccess,
    Exclude,
    Include,
    IndexDir,
    MaxFileSize,
    MaxTableWords,
    MaxWords,
    Overlap,
    OverlapSentences,
    Quiet,
    Size,
    chunker_settings,
    corpus_options,
    make_cli_chunker,
)
from policy_assistant.errors import UsageError
from policy_assistant.index import resolve_index_dir
from policy_assistant.index.bm25 import BM25_DEFAULTS, VARIANTS
from policy_assistant.pipeline import IngestSummary, ingest


def register(app: typer.Typer) -> None:
    """Add the ingest command to the app."""
    app.command("ingest")(guarded(ingest_command))


def ingest_command(
    corpus: Annotated[Path, typer.Argument(help="The corpus folder (or one file).")],
    index: IndexDir = None,
    chunker: ChunkerName = DEFAULT_CHUNKER,
    size: Size = None,
    overlap: Overlap = None,
    max_words: MaxWords = None,
    max_table_words: MaxTableWords = None,
    overlap_sentences: OverlapSentences = None,
    bm25_variant: Annotated[
        str,
        typer.Option(
            "--bm25",
            help=f"BM25 scoring: {' or '.join(VARIANTS)} (okapi reproduces rank-bm25's BM25Okapi).",
        ),
    ] = BM25_DEFAULTS["variant"],
    strict: Annotated[
        bool, typer.Option("--strict", help="Stop at the first bad file; keep the old index.")
    ] = False,
    as_json: AsJson = False,
    quiet: Quiet = False,
    include: Include = None,
    exclude: Exclude = None,
    default_access: DefaultAccess = None,
    max_file_size: MaxFileSize = DEFAULT_MAX_FILE_MIB,
) -> None:
    """Parse, chunk and index a corpus; unchanged documents are not parsed again."""
    if bm25_variant not in VARIANTS:
        raise UsageError(f"--bm25 must be one of {', '.join(VARIANTS)}, got {bm25_variant!r}")
    settings = chunker_settings(size, overlap, max_words, max_table_words, overlap_sentences)
    made = make_cli_chunker(chunker, settings)
    index_dir = resolve_index_dir(index)
    options = corpus_options(include, exclude, default_access, max_file_size)
    with progress_bar("ingesting", quiet) as progress:
        summary = ingest(
            corpus,
            index_dir,
            made,
            bm25={"variant": bm25_variant},
            strict=strict,
            progress=progress,
            options=options,
        )
    print_notices(summary.notices)
    print_warnings(summary.warnings)
    if as_json:
        typer.echo(orjson.dumps(summary.to_dict(), option=orjson.OPT_SORT_KEYS).decode())
    else:
        out.print(summary_table(summary))
    raise typer.Exit(report_failures(summary.failures))


def summary_table(summary: IngestSummary) -> Table:
    """Return what the ingest did, one line per figure."""
    state = "written" if summary.written else "unchanged, nothing written"
    table = Table(show_header=False, box=None, min_width=40)
    table.add_column("what")
    table.add_column("count", justify="right")
    table.add_column("which")
    for what, sources in (
        ("added", summary.added),
        ("changed", summary.changed),
        ("removed", summary.removed),
        ("unchanged", summary.unchanged),
    ):
        listed = _sample(sources) if what != "unchanged" else ""
        table.add_row(what, str(len(sources)), escape(listed))
    failed = _sample([f.source for f in summary.failures])
    table.add_row("failures", str(len(summary.failures)), escape(failed))
    table.add_row("chunks", str(summary.chunks), "")
    table.add_row("words", str(summary.words), "")
    if summary.rebuilt:
        table.add_row("rebuilt", "all", escape(summary.rebuilt))
    table.add_row("index", state, escape(summary.index_dir.as_posix()))
    return table


def _sample(sources: list[str], limit: int = 3) -> str:
    shown = ", ".join(sources[:limit])
    return shown + (f" and {len(sources) - limit} more" if len(sources) > limit else "")
