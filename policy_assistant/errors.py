"""Exception classes and the exit codes they map to at the command-line edge."""

from __future__ import annotations

from enum import IntEnum

from policy_assistant.text import printable


class ExitCode(IntEnum):
    """Process exit codes: the one contract between the CLI and its callers."""

    OK = 0
    """Everything asked for was done."""
    FAILURE = 1
    """A domain failure: a bad file, a stale index, a bad questions file."""
    USAGE = 2
    """The command line itself was wrong."""
    INTERRUPTED = 130
    """Stopped by Ctrl-C (128 + SIGINT, as shells report it)."""


class PolicyAssistantError(Exception):
    """Base class of every error the library raises on purpose."""

    exit_code = ExitCode.FAILURE


class UsageError(PolicyAssistantError):
    """Bad options or arguments: the caller asked for something impossible."""

    exit_code = ExitCode.USAGE


class DocumentError(PolicyAssistantError):
    """One input file could not be read; the message names the file and the problem."""

    def __init__(self, source: str, problem: str) -> None:
        # the name is data: a newline in it must not split the message into two lines
        super().__init__(f"{printable(source)}: {problem}")
        self.source = source
        self.problem = problem


class BadIndex(PolicyAssistantError):
    """An index on disk is missing, stale or damaged; the message says what to run."""


class StaleIndex(BadIndex):
    """An index, or a part of one, written by another version: rebuilt, not damaged."""


class QuestionsError(PolicyAssistantError):
    """A questions file is malformed or refers to evidence the corpus does not hold."""
