"""`policy-assistant parse`: documents into blocks, as a summary table or JSON lines."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

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
    DefaultAccess,
    Exclude,
    Include,
    MaxFileSize,
    NoOcr,
    Workers,
    corpus_options,
    set_ocr,
)
from policy_assistant.parse import ParseResult, parse_path
from policy_assistant.records import Document
from policy_assistant.text import count_words


def register(app: typer.Typer) -> None:
    """Add the parse command to the app."""
    app.command("parse")(guarded(parse))


def parse(
    path: Annotated[Path, typer.Argument(help="A .pdf or .md file, or a corpus folder.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Write JSON lines to this file.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    include: Include = None,
    exclude: Exclude = None,
    default_access: DefaultAccess = None,
    max_file_size: MaxFileSize = DEFAULT_MAX_FILE_MIB,
    no_ocr: NoOcr = False,
    workers: Workers = None,
) -> None:
    """Parse documents into blocks with offsets, pages and sections."""
    set_ocr(no_ocr)
    options = corpus_options(include, exclude, default_access, max_file_size, workers=workers)
    with progress_bar("parsing", quiet) as progress:
        result = parse_path(path, progress, options)
    print_notices(result.notices)
    print_warnings(result.warnings)
    if as_json or out_file is not None:
        emit_json_lines((d.to_dict() for d in result.documents), out_file)
    if not as_json:
        out.print(summary_table(result))
    raise typer.Exit(report_failures(result.failures))


def document_row(document: Document) -> tuple[str, ...]:
    """Return one document's figures for the summary table."""
    blocks = document.blocks
    sections = {b.section for b in blocks if b.kind == "heading"}
    return (
        escape(document.source),
        document.access,
        document.language,
        str(len(blocks)),
        str(count_words(document.text)),
        str(len(document.pages)) if document.pages else "-",
        str(sum(b.kind == "table" for b in blocks)),
        str(len(sections)),
    )


def summary_table(result: ParseResult) -> Table:
    """Return the per-document summary of a parse run."""
    table = Table(title=f"{len(result.documents)} documents parsed", title_justify="left")
    for name in ("source", "access", "lang", "blocks", "words", "pages", "tables", "sections"):
        left = name in ("source", "access", "lang")
        table.add_column(name, justify="left" if left else "right", overflow="fold")
    for document in result.documents:
        table.add_row(*document_row(document))
    return table
