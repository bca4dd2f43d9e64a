"""The project's JSON conventions in one place: orjson, sorted keys, stable bytes.

Every file and line this program writes goes through one of these, so the bytes of the same
data are the same on every machine and in every command.
"""

from __future__ import annotations

from typing import Any

import orjson

PRETTY = orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2
"""Reports and settings files a person reads and diffs."""
COMPACT = orjson.OPT_SORT_KEYS
"""Lines, identities and caches: no spaces, keys sorted."""

JSONDecodeError = orjson.JSONDecodeError
"""What loads raises on bad JSON (a ValueError)."""


def pretty_json(data: Any) -> bytes:
    """Return data as stable, indented JSON with sorted keys and one trailing newline."""
    return orjson.dumps(data, option=PRETTY) + b"\n"


def compact_json(data: Any) -> bytes:
    """Return data as JSON with sorted keys and no spaces (no newline): the canonical form."""
    return orjson.dumps(data, option=COMPACT)


def json_line(data: Any) -> bytes:
    """Return data as one JSON line: compact, keys sorted, ending in a newline."""
    return orjson.dumps(data, option=COMPACT) + b"\n"


def json_text(data: Any) -> str:
    """Return data as a compact JSON string with sorted keys, for printing."""
    return orjson.dumps(data, option=COMPACT).decode()


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """Return the value of a JSON document; JSONDecodeError (a ValueError) when it is bad."""
    return orjson.loads(data)
