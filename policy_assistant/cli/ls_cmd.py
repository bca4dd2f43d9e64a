"""`policy-assistant ls`: what an index holds."""

from __future__ import annotations

import typer

from policy_assistant.cli.common import guarded, out
from policy_assistant.cli.index_options import AsJson, IndexDir


def register(app: typer.Typer) -> None:
    """Add the ls command to the app."""
    app.command("ls")(guarded(_ls_command))


def _ls_command(index: IndexDir = None, as_json: AsJson = False) -> None:
    """List the documents an index holds: source, title, version, access, chunks and words."""
    from rich.markup import escape
    from rich.table import Table

    from policy_assistant.cli.common import emit_json_lines
    from policy_assistant.index import open_index, resolve_index_dir
    from policy_assistant.index.store.listing import list_documents
    from policy_assistant.text import printable

    with open_index(resolve_index_dir(index), check_tokenizer=False) as opened:
        listing = list_documents(opened)
    if as_json:
        emit_json_lines((d.to_dict() for d in listing), None)
        return
    table = Table(title=f"{len(listing)} documents", title_justify="left")
    for name in ("source", "version", "access", "lang", "chunks", "words"):
        numeric = name in ("chunks", "words")
        table.add_column(name, justify="right" if numeric else "left", overflow="fold")
    for d in listing:
        source, title, *rest = (
            escape(printable(v)) for v in (d.source, d.title, d.version, d.access, d.language)
        )
        # The title goes under the source: joined after escaping, the newline stays a newline.
        table.add_row(f"{source}\n{title}", *rest, str(d.chunks), str(d.words))
    out.print(table)
