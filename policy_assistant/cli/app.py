"""The Typer app: one command per stage, each imported only when it runs.

`policy-assistant --help` lists the commands from the table below without importing any of
them, and `policy-assistant search ...` imports the search command's module alone: start-up
pays only for what the command uses (bench/bench_startup.py measures it).
"""

from __future__ import annotations

import importlib
import sys
from typing import Annotated, Any

import typer
import typer.core

from policy_assistant import __version__
from policy_assistant.errors import ExitCode

COMMANDS: dict[str, tuple[str, str]] = {
    "parse": ("parse_cmd", "Parse documents into blocks with offsets, pages and sections."),
    "chunk": (
        "chunk_cmd",
        "Split documents into chunks and show what the chunker did to their structure.",
    ),
    "index": (
        "index_cmd",
        "Index chunk records: the same generations, manifest and incremental rules as ingest.",
    ),
    "ingest": (
        "ingest_cmd",
        "Parse, chunk and index a corpus; unchanged documents are not parsed again.",
    ),
    "search": ("search_cmd", "Search the index; a public search never returns a staff chunk."),
    "eval": (
        "eval_cmd",
        "Compare chunkers on a question set at equal context budgets; optionally gate CI.",
    ),
    "ls": (
        "ls_cmd",
        "List the documents an index holds: source, title, version, access, chunks and words.",
    ),
    "show": ("show_cmd", "Print one chunk's record: where it comes from, and its text."),
    "inspect": (
        "inspect_cmd",
        "Draw a document's chunks over its text: where each starts, overlaps and cuts.",
    ),
    "questions": (
        "questions_cmd",
        "Check a questions file against the corpus, listing every invalid question.",
    ),
    "sections": (
        "sections_cmd",
        "List a document's section paths and their spans in the parsed text.",
    ),
}
"""Command name -> (module in policy_assistant.cli, the first line of its help)."""

SETTINGS: dict[str, Any] = {
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
}
"""What every Typer app here is made with: plain help, no completion, our own error lines."""


class _LazyGroup(typer.core.TyperGroup):
    """A command group that imports a command's module only when that command is asked for."""

    def list_commands(self, ctx: Any) -> list[str]:
        """Return the command names in the order shown."""
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """Import and return one command, or None for a name that is not one."""
        if cmd_name not in COMMANDS:
            return None
        return load_command(cmd_name)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        """Resolve the command; for a name that is none, suggest the nearest (a usage error)."""
        name = args[0] if args else ""
        if name and not name.startswith("-") and name not in COMMANDS:
            import difflib

            near = difflib.get_close_matches(name, list(COMMANDS), n=1)
            hint = f" Did you mean '{near[0]}'?" if near else ""
            ctx.fail(f"No such command '{name}'.{hint}")
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """List the commands with their help line, importing none of them."""
        rows = [(name, help_line) for name, (_, help_line) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def load_command(name: str) -> Any:
    """Return the click command of one of COMMANDS, importing its module."""
    module = importlib.import_module(f"policy_assistant.cli.{COMMANDS[name][0]}")
    single = typer.Typer(**SETTINGS)
    module.register(single)
    command = typer.main.get_command(single)
    command.name = name
    return command


app = typer.Typer(
    name="policy-assistant",
    help="Turn a folder of documents into a searchable, citable knowledge base.",
    no_args_is_help=True,
    cls=_LazyGroup,
    **SETTINGS,
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
    """Turn a folder of documents into a searchable, citable knowledge base."""


def main() -> None:
    """Run the command line; Ctrl-C outside a command (while starting) is exit 130 too."""
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        raise SystemExit(int(ExitCode.INTERRUPTED)) from None
