"""Writing one immutable segment: raw postings (tf, not weights), row lengths, records.

A segment stores what does not depend on the rest of the index: per term its rows and term
frequencies, per row its length, access code and chunk record. BM25 weights need N, avgdl and
df over every live segment, so search computes them at query time (segment_search.py); that
is what lets a segment outlive the ingest that wrote it, and scores equal a cold build's.

Records are orjson lines compressed in blocks of RECORDS_PER_BLOCK rows (zlib, fixed level,
so the bytes are deterministic); blocks.npy holds each block's byte offset. The segment's
name is the hash of its segment.json, which records every other file's SHA-256.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from io import BufferedReader
from pathlib import Path
from typing import Any

import numpy as np

from policy_assistant.index.chunks.bm25_build import count_postings
from policy_assistant.jsonio import json_line, pretty_json
from policy_assistant.records import Chunk

RECORDS_PER_BLOCK = 16
"""Chunk records per compressed block: one record read decompresses one block."""
ZLIB_LEVEL = 6
"""Fixed, so the same records always compress to the same bytes."""
SEGMENT_FORMAT = 2
"""Version of a segment's files; a reader refuses any other (2: with its entries.json)."""
ARRAYS = ("term_offsets", "ptr", "rows", "tf", "dl", "access", "blocks", "ids", "id_rows")
"""The .npy files of a segment."""


@dataclass(frozen=True, slots=True)
class SegmentInfo:
    """What the manifest keeps about one segment: enough for global BM25 statistics."""

    name: str
    """Folder name, seg-<16 hex>: the hash of its segment.json."""
    rows: int
    """Rows (chunks) it holds, deleted ones included."""
    nonempty: int
    """Rows with at least one term."""
    length: int
    """Terms in all its rows."""
    sha256: str
    """Hex SHA-256 of its segment.json."""


def _records(chunks: Sequence[Chunk]) -> tuple[bytes, np.ndarray[Any, Any]]:
    """Return the compressed record blocks and each block's offset (then the size)."""
    parts: list[bytes] = []
    offsets = [0]
    for start in range(0, len(chunks), RECORDS_PER_BLOCK):
        block = b"".join(json_line(c.to_dict()) for c in chunks[start : start + RECORDS_PER_BLOCK])
        parts.append(zlib.compress(block, ZLIB_LEVEL))
        offsets.append(offsets[-1] + len(parts[-1]))
    return b"".join(parts), np.array(offsets, np.int64)


def chunk_key(chunk_id: str) -> int:
    """Return the 64-bit key of a chunk ID (16 hex digits; any other string is hashed)."""
    try:
        if len(chunk_id) == 16:
            return int(chunk_id, 16)
    except ValueError:
        pass
    return int.from_bytes(hashlib.sha256(chunk_id.encode()).digest()[:8], "big")


def checksum(handle: BufferedReader) -> str:
    """Return the hex SHA-256 of an open file's bytes, read from where it stands."""
    return hashlib.file_digest(handle, "sha256").hexdigest()


def flush_files(folder: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """fsync every file under folder but those whose POSIX path there starts with one of
    skip; return each one's SHA-256 by that path."""
    checksums = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        name = path.relative_to(folder).as_posix()
        if name.startswith(skip):
            continue
        with path.open("rb") as handle:
            checksums[name] = checksum(handle)
            os.fsync(handle.fileno())
    return checksums


def seal_segment(parent: Path, tmp: Path, prefix: str, meta: dict[str, Any]) -> tuple[str, str]:
    """Checksum and fsync tmp's files into meta's "files", write it as segment.json and rename
    tmp to prefix-<16 hex of its hash> (or drop tmp when that folder exists: the same content,
    already written in this generation); return the folder's name and the hash."""
    meta_bytes = pretty_json({**meta, "files": flush_files(tmp)})
    (tmp / "segment.json").write_bytes(meta_bytes)
    digest = hashlib.sha256(meta_bytes).hexdigest()
    target = parent / f"{prefix}-{digest[:16]}"
    if target.exists():
        shutil.rmtree(tmp)
    else:
        tmp.rename(target)
    return target.name, digest


def write_segment(
    parent: Path,
    chunks: Sequence[Chunk],
    access_labels: Sequence[str],
    extra: Mapping[str, bytes] | None = None,
) -> SegmentInfo:
    """Write chunks (in row order) as a new segment folder under parent; return its info.

    extra holds more files of the segment (its entries.json), checksummed with the others.
    """
    codes = {label: i for i, label in enumerate(access_labels)}
    data, arrays = count_postings(c.text for c in chunks)
    arrays["access"] = np.array([codes[c.access] for c in chunks], np.uint8)
    records, arrays["blocks"] = _records(chunks)
    keys = np.array([chunk_key(c.id) for c in chunks], np.uint64)  # IDs sorted, and their rows
    order = np.argsort(keys, kind="stable")
    arrays["ids"], arrays["id_rows"] = keys[order], order.astype(np.int32)
    tmp = parent / f".seg-{os.getpid()}"
    tmp.mkdir(parents=True)
    files = {"terms.txt": data, "records.bin": records, **(extra or {})}
    for name, content in files.items():
        (tmp / name).write_bytes(content)
    for name in ARRAYS:
        np.save(tmp / f"{name}.npy", np.ascontiguousarray(arrays[name]))
    meta = {
        "format": SEGMENT_FORMAT,
        "rows": len(chunks),
        "terms": len(arrays["ptr"]) - 1,
        "postings": int(arrays["ptr"][-1]),
    }
    name, digest = seal_segment(parent, tmp, "seg", meta)
    dl = arrays["dl"]
    nonempty, length = int((dl > 0).sum()), int(dl.sum(dtype=np.int64))
    return SegmentInfo(name, len(chunks), nonempty, length, digest)
