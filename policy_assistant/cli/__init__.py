"""The command line: a thin Typer layer over the library."""

from policy_assistant.cli.app import app, main

__all__ = ["app", "main"]
