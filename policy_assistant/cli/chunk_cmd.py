"""`policy-assistant chunk`: documents into chunks, as tables with a quality readout, or JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Group
from rich.markup import escape
from rich.table import Table

from policy_assistant.chunk import (
    DEFAULT_CHUNKER,
    Chunker,
    Quality,
    corpus_quality,
    quality,
)
from policy_assistant.cli.common import (
    emit_json_lines,
    guarded,
    out,
    print_notices,
    print_warnings,
    progress_bar,
    report_failures,
)
from policy_assistant.cli.options import (
    DEFAULT_MAX_FILE_MIB,
    ChunkerName,
    DefaultAccess,
    Exclude,
    Include,
    MaxFileSize,
    MaxTableWords,
    MaxWords,
    NoOcr,
    Overlap,
    OverlapSentences,
    Quiet,
    Size,
    Workers,
    chunker_settings,
    corpus_options,
    make_cli_chunker,
    set_ocr,
)
from policy_assistant.parse import CorpusOptions, ParseResult
from policy_assistant.parse.output import read_documents
from policy_assistant.records import Chunk, Document
from policy_assistant.text import counted


def register(app: typer.Typer) -> None:
    """Add the chunk command to the app."""
    app.command("chunk")(guarded(chunk))


def chunk(
    path: Annotated[
        Path,
        typer.Argument(help="A corpus folder, a document, or parse output (.jsonl; - for stdin)."),
    ],
    chunker_name: ChunkerName = DEFAULT_CHUNKER,
    size: Size = None,
    overlap: Overlap = None,
    max_words: MaxWords = None,
    max_table_words: MaxTableWords = None,
    overlap_sentences: OverlapSentences = None,
    as_json: Annotated[bool, typer.Option("--json", help="One chunk per line, as JSON.")] = False,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Write the chunks as JSON lines to this file.")
    ] = None,
    quiet: Quiet = False,
    include: Include = None,
    exclude: Exclude = None,
    default_access: DefaultAccess = None,
    max_file_size: MaxFileSize = DEFAULT_MAX_FILE_MIB,
    no_ocr: NoOcr = False,
    workers: Workers = None,
) -> None:
    """Split documents into chunks and show what the chunker did to their structure."""
    settings = chunker_settings(size, overlap, max_words, max_table_words, overlap_sentences)
    chunker = make_cli_chunker(chunker_name, settings)
    set_ocr(no_ocr)
    options = corpus_options(include, exclude, default_access, max_file_size, workers=workers)
    result = _load_documents(path, quiet, options, chunker)
    print_notices(result.notices)
    print_warnings(result.warnings)
    chunks = [c for document in result.documents for c in result.chunks_of(document, chunker.chunk)]
    if as_json or out_file is not None:
        emit_json_lines((c.to_dict() for c in chunks), out_file)
    if not as_json:
        out.print(render(result.documents, chunks, chunker))
    raise typer.Exit(report_failures(result.failures))


def _load_documents(
    path: Path,
    quiet: bool = True,
    options: CorpusOptions | None = None,
    chunker: Chunker | None = None,
) -> ParseResult:
    """Return the documents of a parse output (.jsonl, or - for stdin), or parse a corpus."""
    after_parse = chunker.chunk if chunker is not None else None
    with progress_bar("parsing", quiet) as progress:
        return read_documents(path, options, progress, after_parse)


def render(documents: list[Document], chunks: list[Chunk], chunker: Chunker) -> Group:
    """Return every document's chunk table and readout, then the corpus readout."""
    by_source: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_source.setdefault(c.source, []).append(c)
    spec = " ".join(f"{k}={v}" for k, v in chunker.settings().items())
    parts: list[Table] = []
    for doc in documents:
        own = by_source.get(doc.source, [])
        parts.append(_chunk_table(doc, own, f"{chunker.name} {spec}"))
        parts.append(readout_table(quality(doc, own), "quality"))
    if len(documents) != 1:
        parts.append(
            readout_table(corpus_quality(documents, chunks), f"all {len(documents)} documents")
        )
    return Group(*parts)


def _chunk_table(doc: Document, chunks: list[Chunk], chunker_label: str) -> Table:
    """Return one document's chunks: # (from 1), ID, characters, pages, words, headings."""
    count = counted(len(chunks), "chunk")
    title = f"{escape(doc.source)}: {count} ({escape(chunker_label)})"
    table = Table(title=title, title_justify="left")
    for name in ("#", "id", "chars", "pages", "words", "sections"):
        table.add_column(name, justify="left" if name in ("id", "sections") else "right")
    for c in chunks:
        pages = ",".join(str(p) for p in c.pages) or "-"
        sections = "; ".join(s[-1] if s else "(before any heading)" for s in c.sections)
        table.add_row(
            str(c.position + 1), c.id, str(len(c.text)), pages, str(c.words), escape(sections)
        )
    return table


def readout_table(q: Quality, title: str) -> Table:
    """Return the quality readout as two columns: what, and how much."""
    table = Table(title=escape(title), title_justify="left", show_header=False, box=None)
    table.add_column("what", justify="left")
    table.add_column("value", justify="left")
    rows = (
        ("chunks", f"{q.chunks}"),
        ("words per chunk", f"min {q.words_min}, median {q.words_median:g}, max {q.words_max}"),
        ("tables cut", f"{q.tables_cut} of {q.tables} (into {q.table_chunks} chunks)"),
        (
            "chunks starting inside",
            f"a sentence {q.starts_in_sentence}, a list item {q.starts_in_list_item}, "
            f"a table row {q.starts_in_table_row}",
        ),
        ("chunks mixing sections", f"{q.mixed_sections}"),
        (
            "words stored",
            f"{q.words_stored} for {q.document_words} in the documents ({q.stored_ratio:.2f}x)",
        ),
    )
    for what, value in rows:
        table.add_row(what, value)
    return table
