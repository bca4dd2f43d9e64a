"""`policy-assistant show`: one chunk's record."""

from __future__ import annotations

from typing import Annotated

import typer

from policy_assistant.cli.common import guarded, out
from policy_assistant.cli.index_options import AsJson, IndexDir


def register(app: typer.Typer) -> None:
    """Add the show command to the app."""
    app.command("show")(guarded(_show_command))


def _show_command(
    chunk_id: Annotated[str, typer.Argument(help="A chunk ID, as search and ls --json show it.")],
    index: IndexDir = None,
    as_json: AsJson = False,
) -> None:
    """Print one chunk's record: where it comes from, and its text."""
    from rich.markup import escape

    from policy_assistant.index import open_index, resolve_index_dir
    from policy_assistant.index.store.listing import find_chunk
    from policy_assistant.jsonio import json_text

    with open_index(resolve_index_dir(index), check_tokenizer=False) as opened:
        chunk = find_chunk(opened, chunk_id)
    if as_json:
        typer.echo(json_text(chunk.to_dict()))
        return
    sections = "; ".join(" > ".join(s) for s in chunk.sections) or "-"
    pages = ",".join(map(str, chunk.pages)) or "-"
    fields = (
        ("id", chunk.id),
        ("source", chunk.source),
        ("title", chunk.title),
        ("version", chunk.version),
        ("access", chunk.access),
        ("sections", sections),
        ("pages", pages),
        ("offsets", f"{chunk.start}-{chunk.end}"),
        ("words", str(chunk.words)),
    )
    for name, value in fields:
        out.print(f"[bold]{name}:[/] {escape(value)}", highlight=False)
    out.print(escape(chunk.text), highlight=False)
