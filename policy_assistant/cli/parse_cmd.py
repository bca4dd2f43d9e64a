"""`policy-assistant parse`: documents into blocks, as a summary table or JSON lines."""

from __future__ import annotations

from collections import Counter
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
        for line in remarks(result.documents):
            out.print(line, highlight=False)
    raise typer.Exit(report_failures(result.failures))


def _document_row(document: Document) -> tuple[str, ...]:
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


def _page_list(pages: tuple[int, ...]) -> str:
    """Return pages as a short list of ranges: 1-3, 7."""
    spans: list[list[int]] = []
    for page in sorted(pages):
        if spans and page == spans[-1][1] + 1:
            spans[-1][1] = page
        else:
            spans.append([page, page])
    return ", ".join(f"{a}-{b}" if b > a else str(a) for a, b in spans)


def document_remarks(document: Document) -> list[str]:
    """Return a document's lines under the table: what was dropped, OCR'd, and its notes."""
    lines = []
    reasons = Counter(record.reason for record in document.dropped)
    if reasons:
        counted = ", ".join(f"{reason} {n}" for reason, n in sorted(reasons.items()))
        lines.append(f"dropped: {counted}")
    if document.ocr_pages:
        lines.append(f"OCR'd pages: {_page_list(document.ocr_pages)}")
    lines.extend(f"note: {note}" for note in document.notes)
    return [escape(f"{document.source}: {line}") for line in lines]


def remarks(documents: list[Document]) -> list[str]:
    """Return the remark lines of every document, in order: notes, drops and OCR."""
    return [line for document in documents for line in document_remarks(document)]


def summary_table(result: ParseResult) -> Table:
    """Return the per-document summary of a parse run."""
    table = Table(title=f"{len(result.documents)} documents parsed", title_justify="left")
    # What was dropped and OCR'd goes in the remark lines under the table: two more
    # columns would squeeze the source path to a letter a line at 60 columns.
    for name in ("source", "access", "lang", "blocks", "words", "pages", "tables", "sections"):
        left = name in ("source", "access", "lang")
        table.add_column(name, justify="left" if left else "right", overflow="fold")
    for document in result.documents:
        table.add_row(*_document_row(document))
    return table
