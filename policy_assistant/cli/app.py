"""The Typer app: one command per stage, each a thin layer over one library call."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from policy_assistant import __version__
from policy_assistant.cli import (
    chunk_cmd,
    eval_cmd,
    index_cmd,
    ingest_cmd,
    inspect_cmd,
    parse_cmd,
    search_cmd,
)
from policy_assistant.errors import ExitCode

app = typer.Typer(
    name="policy-assistant",
    help="Turn a folder of PDFs and Markdown into a searchable, citable knowledge base.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"policy-assistant {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Turn a folder of PDFs and Markdown into a searchable, citable knowledge base."""


for module in (parse_cmd, chunk_cmd, index_cmd, ingest_cmd, search_cmd, eval_cmd, inspect_cmd):
    module.register(app)


def main() -> None:
    """Run the command line; Ctrl-C outside a command (while starting) is exit 130 too."""
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        raise SystemExit(int(ExitCode.INTERRUPTED)) from None
