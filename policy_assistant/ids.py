"""Stable identities from canonical content: same input, same ID, on every machine."""

from __future__ import annotations

import hashlib
from typing import Any

from policy_assistant.jsonio import compact_json


def canonical_json(value: Any) -> bytes:
    """Return JSON with sorted keys and no spaces, the form identities hash."""
    return compact_json(value)


def content_id(value: Any, length: int = 16) -> str:
    """Return the first `length` hex characters of SHA-256 over canonical JSON of value."""
    return hashlib.sha256(canonical_json(value)).hexdigest()[:length]


def file_sha256(data: bytes) -> str:
    """Return the hex SHA-256 of a file's bytes."""
    return hashlib.sha256(data).hexdigest()
