"""Glob patterns over corpus-relative paths, for catalog keys and --include / --exclude.

`*` matches within one folder level, `?` one character, `[abc]` / `[!abc]` one character of a
set, and `**` any number of folder levels (`staff/**` is everything under `staff/`,
`**/*.pdf` every PDF at any depth). A pattern always matches the whole path.

Matching takes time linear in the path whatever the pattern: a pattern that a backtracking
regular expression could match in more than linear time (`*a*a*a*b`, `**/**/**/z.md`) runs
on an automaton instead (a set of pattern positions per path character, as bits), and the
rest, the everyday patterns, on a regular expression that has at most one choice to undo.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

WILDCARDS = frozenset("*?[")
"""Characters that make a pattern a glob rather than a literal path."""

MAX_STATES = 4096
"""Transitions the automaton of one pattern remembers before it starts afresh (memory bound)."""


class GlobError(ValueError):
    """A pattern that cannot be matched (a character set such as `[z-a]`)."""


def is_glob(pattern: str) -> bool:
    """Return whether `pattern` holds a wildcard character."""
    return any(char in WILDCARDS for char in pattern)


@dataclass(frozen=True)
class Glob:
    """One pattern, compiled once."""

    pattern: str
    """The pattern as written."""

    @cached_property
    def _matcher(self) -> re.Pattern[str] | _Automaton:
        """A regular expression when it cannot backtrack far, else the automaton."""
        tokens = _collapse(_tokens(self.pattern))
        if _backtracks_little(tokens):
            try:
                return re.compile(_translate(tokens), re.DOTALL)
            except re.error as exc:
                raise GlobError(f"{self.pattern!r} is not a valid pattern: {exc}") from None
        return _Automaton(tokens, self.pattern)

    def check(self) -> None:
        """Raise GlobError if the pattern cannot be matched (a bad character set)."""
        _ = self._matcher

    def matches(self, path: str) -> bool:
        """Return whether the whole of `path` matches the pattern."""
        matcher = self._matcher
        if isinstance(matcher, _Automaton):
            return matcher.matches(path)
        return matcher.fullmatch(path) is not None

    def matches_or_above(self, path: str) -> bool:
        """Return whether the pattern matches `path` or one of the folders above it."""
        matcher = self._matcher
        if isinstance(matcher, _Automaton):
            return matcher.matches(path, folders=True)
        parts = path.split("/")
        return any(matcher.fullmatch("/".join(parts[: i + 1])) for i in range(len(parts)))

    @cached_property
    def specificity(self) -> tuple[int, int]:
        """(literal characters, -wildcards): the larger, the more specific the pattern."""
        tokens = _tokens(self.pattern)
        literal = sum(len(t) for t in tokens if not _is_wildcard(t))
        return literal, -sum(_is_wildcard(t) for t in tokens)


def _is_wildcard(token: str) -> bool:
    return token[0] in WILDCARDS and token != "["


_TOKEN = re.compile(r"\*\*/|\*\*|\*|\?|\[!?\]?[^\]]*\]|.", re.DOTALL)
_UNBOUNDED = frozenset({"**/", "**", "*"})
# Two wildcards in a row match what the wider one alone does: (this, next) -> the one kept.
_MERGED = {
    ("**/", "**/"): "**/",
    ("**", "**"): "**",
    ("**", "*"): "**",
    ("*", "**"): "**",
    ("*", "*"): "*",
}


def _tokens(pattern: str) -> list[str]:
    return _TOKEN.findall(pattern)


def _collapse(tokens: list[str]) -> list[str]:
    """Merge runs of wildcards that match what one of them does (`**/**/` is `**/`)."""
    out: list[str] = []
    for token in tokens:
        merged = _MERGED.get((out[-1], token)) if out else None
        if merged is not None:
            out[-1] = merged
        else:
            out.append(token)
    return out


def _backtracks_little(tokens: list[str]) -> bool:
    """Whether a regular expression of these tokens backtracks at most linearly.

    True with at most one `*` per folder level and no `**`, or one `**/` besides those
    (its choices are folder boundaries), or one `**` and no other wildcard.
    """
    deep = [t for t in tokens if t in ("**", "**/")]
    if deep == ["**"]:
        return sum(t in _UNBOUNDED for t in tokens) == 1
    if len(deep) > 1:
        return False
    stars = 0
    for token in tokens:
        if token in ("/", "**/"):
            stars = 0
        stars += token == "*"
        if stars > 1:
            return False
    return True


def _translate(tokens: list[str]) -> str:
    parts: list[str] = []
    for token in tokens:
        if token == "**/":
            parts.append("(?:[^/]*/)*")
        elif token == "**":
            parts.append(".*")
        elif token == "*":
            parts.append("[^/]*")
        else:
            parts.append(_one_character(token))
    return "".join(parts)


def _one_character(token: str) -> str:
    """The regular expression of a token that matches one character."""
    if token == "?":
        return "[^/]"
    if token.startswith("[") and len(token) > 1:
        body = token[1:-1]
        negate = body.startswith("!")
        body = body[1:] if negate else body
        escaped = body.replace("\\", "\\\\").replace("^", "\\^")
        return f"[^/{escaped}]" if negate else f"[{escaped}]"
    return re.escape(token)


class _Automaton:
    """The pattern as a nondeterministic automaton run on bit sets: linear in the path.

    Bit i set means the tokens before i have matched the path so far. `**/` becomes three
    positions: an entry that may jump past the rest (it may match nothing), "any run", "/".
    """

    def __init__(self, tokens: list[str], pattern: str) -> None:
        self.singles: list[tuple[int, re.Pattern[str]]] = []
        self.any_run = self.name_run = self.skip_one = self.skip_three = 0
        position = 0
        for token in tokens:
            if token == "**/":
                # An entry that may jump past the whole, then "any run", then "/".
                self.skip_one |= 1 << position
                self.skip_three |= 1 << position
                position += 1
            bit = 1 << position
            if token in ("**", "**/"):
                self.any_run |= bit
                self.skip_one |= bit
            elif token == "*":
                self.name_run |= bit
                self.skip_one |= bit
            else:
                self.singles.append((position, _compile_one(token, pattern)))
            position += 1
            if token == "**/":
                self.singles.append((position, re.compile("/")))
                position += 1
        self.accept = 1 << position
        self.start = self._closure(1)
        self.by_char: dict[str, int] = {}
        self.steps: dict[tuple[int, str], int] = {}

    def _closure(self, states: int) -> int:
        """Add the positions reached without reading a character (wildcards matching nothing)."""
        while True:
            more = states | ((states & self.skip_one) << 1) | ((states & self.skip_three) << 3)
            if more == states:
                return states
            states = more

    def _singles_taking(self, char: str) -> int:
        """The positions whose one-character token takes `char`, as bits."""
        found = self.by_char.get(char)
        if found is None:
            found = sum(1 << at for at, one in self.singles if one.fullmatch(char))
            if len(self.by_char) < MAX_STATES:
                self.by_char[char] = found
        return found

    def _step(self, states: int, char: str) -> int:
        """The positions after reading `char` from `states`."""
        moved = (states & self._singles_taking(char)) << 1
        moved |= states & (self.any_run | (self.name_run if char != "/" else 0))
        return self._closure(moved)

    def matches(self, path: str, folders: bool = False) -> bool:
        """Return whether the automaton takes the whole of `path` (or, with `folders`, the
        path of a folder above it)."""
        states, steps = self.start, self.steps
        for char in path:
            if folders and char == "/" and states & self.accept:
                return True
            known = steps.get((states, char))
            if known is None:
                known = self._step(states, char)
                if len(steps) >= MAX_STATES:
                    steps.clear()
                steps[(states, char)] = known
            states = known
            if not states:
                return False
        return bool(states & self.accept)


def _compile_one(token: str, pattern: str) -> re.Pattern[str]:
    """Compile a one-character token; a bad character set is a GlobError naming the pattern."""
    try:
        return re.compile(_one_character(token), re.DOTALL)
    except re.error as exc:
        raise GlobError(f"{pattern!r} is not a valid pattern: {exc}") from None


def path_selected(source: str, include: tuple[Glob, ...], exclude: tuple[Glob, ...]) -> bool:
    """Return whether --include / --exclude keep `source`; exclude wins over include.

    A pattern also matches a path when it matches one of its folders (`--exclude drafts` drops
    everything under drafts/), and a pattern without `/` is tried on every folder and file name
    too (`--exclude '*.tmp'` at any depth).
    """
    if any(_hits(g, source) for g in exclude):
        return False
    return not include or any(_hits(g, source) for g in include)


def excluded_folder(folder: str, exclude: tuple[Glob, ...]) -> bool:
    """Return whether an --exclude pattern drops the folder `folder` and all under it."""
    return any(_hits(g, folder) for g in exclude)


def _hits(glob: Glob, source: str) -> bool:
    if glob.matches_or_above(source):
        return True
    return "/" not in glob.pattern and any(glob.matches(p) for p in source.split("/"))
