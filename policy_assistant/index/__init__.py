"""The index folder: the only writer, and the reader search uses.

An index folder (default build/index) holds:

    CURRENT                  one line naming the live generation, e.g. gen-3f9a0c1d2b4e5f60
    .lock                    fcntl.flock'ed by the one writer
    gen-<hash>/              a complete, immutable generation:
        chunks.jsonl         one chunk per line (orjson, sorted keys), by source then position
        chunk_offsets.npy    int64 byte offset of each line, then the file size
        chunk_access.npy     uint8 per row: index of its label in the manifest's access_labels
        bm25/                the BM25 index (bm25.py)
        manifest.json        written last: settings, and per document its entry

Why a CURRENT file: renaming a directory over a non-empty one is not atomic on POSIX, but
os.replace of a file is. A writer fills `.tmp-<pid>/`, fsyncs it, renames it to
`gen-<hash of its chunks and manifest>` (with "-b" when that very name is live: rewriting
the same content repairs a damaged folder without touching the live one) and only then
replaces CURRENT; older generations are renamed to `.trash-*` and deleted after that. A
process killed at any moment leaves CURRENT naming a complete generation, old or new; the
next writer removes the leftovers.
The index folder stays a real directory (not a symlink), so the lock file can live in it.
Readers take no lock: they follow CURRENT once and keep their files open, and retry if a
writer retired the generation before they opened it.

This module is the public API; the work is done in manifest.py (the manifest),
folder.py (locating the folder and its live generation), writer.py (the lock and
the writer) and reader.py (opening and searching an index).
"""

from __future__ import annotations

from collections.abc import Sequence

from policy_assistant.index.bm25 import BM25_DEFAULTS, BM25Index
from policy_assistant.index.folder import (
    DEFAULT_INDEX_DIR,
    INDEX_ENV,
    ingest_hint,
    resolve_index_dir,
)
from policy_assistant.index.manifest import FORMAT_VERSION, DocumentEntry, Manifest
from policy_assistant.index.reader import (
    Index,
    LoadedIndex,
    SearchHit,
    load_chunks,
    load_manifest,
    open_index,
)
from policy_assistant.index.tokenize import word_terms
from policy_assistant.index.writer import (
    LOCK_TIMEOUT,
    IndexBusyError,
    Progress,
    index_lock,
    write_index,
)
from policy_assistant.records import Chunk

__all__ = [
    "BM25_DEFAULTS",
    "DEFAULT_INDEX_DIR",
    "FORMAT_VERSION",
    "INDEX_ENV",
    "LOCK_TIMEOUT",
    "DocumentEntry",
    "Index",
    "IndexBusyError",
    "LoadedIndex",
    "Manifest",
    "Progress",
    "SearchHit",
    "build_bm25",
    "index_lock",
    "ingest_hint",
    "load_chunks",
    "load_manifest",
    "open_index",
    "resolve_index_dir",
    "sort_chunks",
    "write_index",
]


def sort_chunks(chunks: Sequence[Chunk]) -> list[Chunk]:
    """Return chunks in index row order: by source, then position."""
    return sorted(chunks, key=lambda c: (c.source, c.position))


def build_bm25(
    chunks: Sequence[Chunk],
    variant: str = BM25_DEFAULTS["variant"],
    k1: float = BM25_DEFAULTS["k1"],
    b: float = BM25_DEFAULTS["b"],
    progress: Progress | None = None,
) -> BM25Index:
    """Return the BM25 index of the chunks' texts under tokenize(), one row per chunk."""
    texts = (chunk.text for chunk in chunks)
    return BM25Index.build(texts, variant, k1, b, word_terms=word_terms, progress=progress)
