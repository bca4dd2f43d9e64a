"""Chunk records from JSON lines (`chunk --json` output, or any tool writing the same records)."""

from __future__ import annotations

from collections.abc import Iterable

from policy_assistant.codec import MissingField
from policy_assistant.errors import PolicyAssistantError
from policy_assistant.jsonio import JSONDecodeError, loads
from policy_assistant.records import Chunk


class _ChunkFileError(PolicyAssistantError):
    """A chunk stream that cannot be read: which file, which line, what is wrong."""


def read_chunk_lines(lines: Iterable[bytes], name: str) -> list[Chunk]:
    """Return the chunk records of JSON lines; _ChunkFileError names the first bad line."""
    chunks: list[Chunk] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = loads(line)
            if not isinstance(data, dict):
                raise TypeError("not a JSON object")
            chunk = Chunk.from_dict(data)
            _check(chunk)
            chunks.append(chunk)
        except JSONDecodeError as exc:
            raise _ChunkFileError(f"{name}:{number}: not valid JSON ({exc})") from None
        except MissingField as exc:
            raise _ChunkFileError(f"{name}:{number}: a chunk record needs {exc.name!r}") from None
        except (TypeError, ValueError, AttributeError) as exc:
            raise _ChunkFileError(f"{name}:{number}: not a chunk record ({exc})") from None
    return chunks


def _check(chunk: Chunk) -> None:
    """Raise TypeError or ValueError unless the record's fields have their types and sense."""
    numbers = (chunk.position, chunk.start, chunk.end, chunk.words)
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        raise TypeError("position, start, end and words must be whole numbers")
    texts = (chunk.id, chunk.source, chunk.text, chunk.access, chunk.title, chunk.version)
    if not all(isinstance(t, str) for t in texts) or not chunk.source or not chunk.id:
        raise TypeError("id, source, text, title, version and access must be text")
    if not 0 <= chunk.start <= chunk.end:
        raise ValueError(f"start {chunk.start} and end {chunk.end} are not a span")
