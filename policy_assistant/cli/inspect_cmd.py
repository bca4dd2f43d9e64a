"""`policy-assistant inspect`: a document with its chunks drawn over it, or a page of it."""

from __future__ import annotations

import os
import sys
import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from policy_assistant.chunk import CHUNKERS, DEFAULT_CHUNKER, Chunker
from policy_assistant.cli.common import (
    err,
    guarded,
    out,
    print_notices,
    print_warnings,
    progress_bar,
    report_failures,
    warn,
)
from policy_assistant.cli.options import (
    DEFAULT_CACHE_DIR,
    DEFAULT_MAX_FILE_MIB,
    DefaultAccess,
    Exclude,
    Include,
    MaxFileSize,
    MaxTableWords,
    MaxWords,
    NoOcr,
    Overlap,
    OverlapSentences,
    ParseCache,
    Quiet,
    Size,
    Workers,
    chunker_settings,
    corpus_options,
    make_cli_chunker,
    set_ocr,
)
from policy_assistant.errors import UsageError
from policy_assistant.inspect import Inspection, inspect_document, write_pages
from policy_assistant.inspect.terminal import render_inspection
from policy_assistant.parse import DEFAULT_CORPUS, CorpusOptions

Opt = typer.Option


def register(app: typer.Typer) -> None:
    """Add the inspect command to the app."""
    app.command("inspect")(guarded(_inspect_command))


def _inspect_command(
    source: Annotated[
        str,
        typer.Argument(
            help="A corpus-relative document (policies/warranty-policy.pdf); "
            "with --html, also a folder (. for the whole corpus)."
        ),
    ],
    corpus: Annotated[
        Path | None, Opt(help=f"The corpus folder SOURCE is in (default: {DEFAULT_CORPUS}).")
    ] = None,
    index: Annotated[
        Path | None,
        Opt(help="Show the chunks of this index (the document is parsed from --corpus)."),
    ] = None,
    chunker: Annotated[
        str | None, Opt(help=f"{', '.join(CHUNKERS)} (default: {DEFAULT_CHUNKER}).")
    ] = None,
    size: Size = None,
    overlap: Overlap = None,
    max_words: MaxWords = None,
    max_table_words: MaxTableWords = None,
    overlap_sentences: OverlapSentences = None,
    html_file: Annotated[
        Path | None,
        Opt("--html", help="Write a self-contained page; for a folder, an index page too."),
    ] = None,
    open_page: Annotated[bool, Opt("--open", help="Open the written page in a browser.")] = False,
    quiet: Quiet = False,
    include: Include = None,
    exclude: Exclude = None,
    default_access: DefaultAccess = None,
    max_file_size: MaxFileSize = DEFAULT_MAX_FILE_MIB,
    no_ocr: NoOcr = False,
    workers: Workers = None,
    parse_cache: ParseCache = DEFAULT_CACHE_DIR,
) -> None:
    """Draw a document's chunks over its text: where each starts, overlaps and cuts."""
    set_ocr(no_ocr)
    reading = corpus_options(include, exclude, default_access, max_file_size, parse_cache, workers)
    given = chunker_settings(size, overlap, max_words, max_table_words, overlap_sentences)
    _check_options(index, chunker, given)
    made = make_cli_chunker(chunker or DEFAULT_CHUNKER, given)
    if open_page and html_file is None:
        raise UsageError("--open opens the page that --html writes: give --html FILE too")
    if html_file is None:
        _print_inspection(inspect_document(source, made, corpus, index, reading))
        return
    code = write_html(source, made, html_file, corpus, index, quiet, reading)
    _maybe_open(html_file, open_page)
    raise typer.Exit(code)


def _check_options(index: Path | None, chunker: str | None, given: dict[str, int]) -> None:
    """Refuse options that contradict each other: an index brings its own chunker."""
    if index is not None and (given or chunker is not None):
        raise UsageError("--index shows the index's own chunks: drop --chunker and size options")


def write_html(
    source: str,
    chunker: Chunker,
    target: Path,
    corpus: Path | None,
    index: Path | None,
    quiet: bool,
    reading: CorpusOptions | None = None,
) -> int:
    """Write the page (or a folder's pages), say what was written, return the exit code."""
    with progress_bar("writing pages", quiet) as progress:
        result = write_pages(source, chunker, target, corpus, index, progress, reading)
    print_notices(result.notices)
    print_warnings(result.warnings)
    others = [page for page in result.pages if page != target]
    beside = f" and {len(others)} document pages beside it" if others else ""
    out.print(f"wrote {target}{beside}", highlight=False, soft_wrap=True)
    return report_failures(result.failures)


def _print_inspection(inspection: Inspection) -> None:
    """Print the view: colours on a terminal, plain text with the marks otherwise."""
    plain = out.no_color or out.color_system is None
    out.print(render_inspection(inspection.view(), inspection.variant.spec, plain))


def _has_display() -> bool:
    """Return whether a browser window can be opened here."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _maybe_open(page: Path, wanted: bool) -> None:
    """Open the page in the default browser when asked and a display is there."""
    if not wanted:
        return
    if not _has_display():
        warn(f"no display to open a browser on; open {page} yourself")
        return
    if webbrowser.open(page.resolve().as_uri()):
        err.print(f"opened {page}", highlight=False, markup=False)
    else:
        warn(f"no browser could be started; open {page} yourself")
