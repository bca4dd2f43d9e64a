"""Bare chunks made straight from text, for index tests that need no parser or chunker."""

from __future__ import annotations

from typing import Any

from policy_assistant.ids import content_id
from policy_assistant.records import Chunk


def bare_chunk(
    source: str, position: int, text: str, access: str, chunker: dict[str, Any], **fields: Any
) -> Chunk:
    """Return a chunk of one section-less page whose body is the whole text.

    `fields` overrides the rest (version, sha256, id); the id defaults to one of source,
    position and text.
    """
    record: dict[str, Any] = {
        "id": content_id([source, position, text]),
        "source": source,
        "title": source,
        "version": "v1",
        "access": access,
        "language": "en",
        "chunker": chunker,
        "position": position,
        "start": 0,
        "end": len(text),
        "pages": (),
        "sections": (),
        "text": text,
        "words": len(text.split()),
    }
    return Chunk(**{**record, **fields})
