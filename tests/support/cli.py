"""The shipped command line, as the CLI tests drive it: its Typer app and a CliRunner."""

from __future__ import annotations

from typer.testing import CliRunner

from policy_assistant.cli import app as APP

__all__ = ["APP", "runner"]

runner = CliRunner()
"""Runs a command of APP in-process, keeping stdout and stderr apart."""
