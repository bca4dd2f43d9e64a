"""Glob patterns over corpus-relative paths, for catalog keys and --include / --exclude.

`*` matches within one folder level, `?` one character, `[abc]` / `[!abc]` one character of a
set, and `**` any number of folder levels (`staff/**` is everything under `staff/`,
`**/*.pdf` every PDF at any depth). A pattern always matches the whole path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

WILDCARDS = frozenset("*?[")
"""Characters that make a pattern a glob rather than a literal path."""


def is_glob(pattern: str) -> bool:
    """Return whether `pattern` holds a wildcard character."""
    return any(char in WILDCARDS for char in pattern)


@dataclass(frozen=True)
class Glob:
    """One pattern, compiled once."""

    pattern: str
    """The pattern as written."""

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """The pattern as an anchored regular expression."""
        return re.compile(_translate(self.pattern), re.DOTALL)

    def matches(self, path: str) -> bool:
        """Return whether the whole of `path` matches the pattern."""
        return self.regex.fullmatch(path) is not None

    @cached_property
    def specificity(self) -> tuple[int, int]:
        """(literal characters, -wildcards): the larger, the more specific the pattern."""
        tokens = _tokens(self.pattern)
        literal = sum(len(t) for t in tokens if not _is_wildcard(t))
        return literal, -sum(_is_wildcard(t) for t in tokens)


def _is_wildcard(token: str) -> bool:
    return token[0] in WILDCARDS and token != "["


_TOKEN = re.compile(r"\*\*/|\*\*|\*|\?|\[!?\]?[^\]]*\]|.", re.DOTALL)


def _tokens(pattern: str) -> list[str]:
    return _TOKEN.findall(pattern)


def _translate(pattern: str) -> str:
    parts: list[str] = []
    for token in _tokens(pattern):
        if token == "**/":
            parts.append("(?:[^/]*/)*")
        elif token == "**":
            parts.append(".*")
        elif token == "*":
            parts.append("[^/]*")
        elif token == "?":
            parts.append("[^/]")
        elif token.startswith("[") and len(token) > 1:
            body = token[1:-1]
            negate = body.startswith("!")
            body = body[1:] if negate else body
            escaped = body.replace("\\", "\\\\").replace("^", "\\^")
            parts.append(f"[^/{escaped}]" if negate else f"[{escaped}]")
        else:
            parts.append(re.escape(token))
    return "".join(parts)


def path_selected(source: str, include: tuple[Glob, ...], exclude: tuple[Glob, ...]) -> bool:
    """Return whether --include / --exclude keep `source`; exclude wins over include.

    A pattern also matches a path when it matches one of its folders (`--exclude drafts` drops
    everything under drafts/), and a pattern without `/` is tried on every folder and file name
    too (`--exclude '*.tmp'` at any depth).
    """
    if any(_hits(g, source) for g in exclude):
        return False
    return not include or any(_hits(g, source) for g in include)


def _hits(glob: Glob, source: str) -> bool:
    parts = source.split("/")
    prefixes = ("/".join(parts[: i + 1]) for i in range(len(parts)))
    if any(glob.matches(p) for p in prefixes):
        return True
    return "/" not in glob.pattern and any(glob.matches(p) for p in parts)
