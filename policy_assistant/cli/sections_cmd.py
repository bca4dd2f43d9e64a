"""`policy-assistant sections`: a document's section paths and their spans, to write questions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from policy_assistant.cli.common import emit_json_lines, guarded, out
from policy_assistant.cli.options import DEFAULT_CACHE_DIR, AsJson, ParseCache, Workers
from policy_assistant.evaluate import DEFAULT_CORPUS
from policy_assistant.evaluate.authoring import document_sections
from policy_assistant.parse import CorpusOptions


def register(app: typer.Typer) -> None:
    """Add the sections command to the app."""
    app.command("sections")(guarded(_sections_command))


def _sections_command(
    source: Annotated[str, typer.Argument(help="The document, as its corpus-relative path.")],
    corpus: Annotated[Path, typer.Option(help="The corpus folder.")] = DEFAULT_CORPUS,
    workers: Workers = None,
    parse_cache: ParseCache = DEFAULT_CACHE_DIR,
    as_json: AsJson = False,
) -> None:
    """List a document's section paths and their spans in the parsed text."""
    rows = document_sections(corpus, source, CorpusOptions(cache_dir=parse_cache, workers=workers))
    if as_json:
        emit_json_lines((r.to_dict() for r in rows), None)
        return
    table = Table(title=f"{escape(source)}: {len(rows)} sections", title_justify="left")
    for name in ("section", "start", "end", "words"):
        table.add_column(name, justify="left" if name == "section" else "right")
    for r in rows:
        table.add_row(escape(r.to_dict()["section"]), str(r.start), str(r.end), str(r.words))
    out.print(table)
