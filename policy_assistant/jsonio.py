"""The project's JSON conventions in one place: orjson, sorted keys, stable bytes."""

from __future__ import annotations

from typing import Any

import orjson

PRETTY = orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2
"""Reports and settings files a person reads and diffs."""


def pretty_json(data: Any) -> bytes:
    """Return data as stable, indented JSON with sorted keys and one trailing newline."""
    return orjson.dumps(data, option=PRETTY) + b"\n"
