"""The index folder: the only writer, and the reader search uses.

An index folder (default build/index) holds:

    CURRENT                  one line naming the live generation, e.g. gen-3f9a0c1d2b4e5f60
    .lock                    fcntl.flock'ed by the one writer
    gen-<hash>/              a complete, immutable generation:
        segments/seg-<hash>/ immutable segments (segment_build.py): terms.txt, postings
                             (rows.npy int32, tf.npy uint16), dl.npy, access.npy, records.bin
                             (zlib blocks of chunk records) with blocks.npy, ids.npy and
                             id_rows.npy (chunk ID -> row), entries.json (the entries of its
                             documents: source, sha256, metadata, chunk count and digest,
                             first row, words; entries.py), segment.json (its files' SHA-256);
                             hard links to an older generation's files when unchanged
        deleted/seg-<hash>.npy  bool per row of that segment: chunks replaced or removed (an
                             entry is live while its first row is)
        empty.json           the entries of documents without chunks
        units/               retrieval units, written by `ingest`: units.json, unit segments
                             useg-<hash>/ and their deletion masks (unit_store.py)
        manifest.json        written last: settings, the live segments with their counts (the
                             global BM25 statistics), SHA-256 of every file outside segments/

Why a CURRENT file: renaming a directory over a non-empty one is not atomic on POSIX, but
os.replace of a file is. A writer fills `.tmp-<pid>/`, fsyncs it, renames it to
`gen-<hash of its manifest>` (with "-b" when that very name is live: rewriting
the same content repairs a damaged folder without touching the live one) and only then
replaces CURRENT; older generations are renamed to `.trash-*` and deleted after that. A
process killed at any moment leaves CURRENT naming a complete generation, old or new; the
next writer removes the leftovers.
The index folder stays a real directory (not a symlink), so the lock file can live in it.
Readers take no lock: they follow CURRENT once and keep their files open, and retry if a
writer retired the generation before they opened it.

This module is the public API, imported lazily; the work is done in build.py (build_index:
what changed, and the one call that writes), plan.py (which segments a generation keeps,
deletes from and merges), segment_build.py, segment.py and segment_search.py (writing,
reading and scoring segments), search.py (Index.search: the one place access is enforced),
manifest.py, entries.py (the per-document entries), folder.py (locating the folder and its
live generation), writer.py (the lock and the writer) and reader.py (opening an index,
verifying it).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from policy_assistant.index.chunks.search import (
        Index,
        MemoryIndex,
        SearchHit,
        build_bm25,
        memory_index,
    )
    from policy_assistant.index.settings import BM25_DEFAULTS, DEFAULT_ACCESS, DEFAULT_K
    from policy_assistant.index.store.build import (
        BuildResult,
        IndexSettings,
        build_index,
        sort_chunks,
    )
    from policy_assistant.index.store.folder import (
        DEFAULT_INDEX_DIR,
        INDEX_ENV,
        ingest_hint,
        resolve_index_dir,
    )
    from policy_assistant.index.store.manifest import FORMAT_VERSION, DocumentEntry, Manifest
    from policy_assistant.index.store.reader import (
        LoadedIndex,
        load_chunks,
        load_manifest,
        open_index,
    )
    from policy_assistant.index.store.writer import (
        LOCK_TIMEOUT,
        IndexBusyError,
        Progress,
        index_lock,
        write_index,
    )

_HOMES = {
    "store.build": ("BuildResult", "IndexSettings", "build_index", "sort_chunks"),
    "store.folder": ("DEFAULT_INDEX_DIR", "INDEX_ENV", "ingest_hint", "resolve_index_dir"),
    "store.manifest": ("FORMAT_VERSION", "DocumentEntry", "Manifest"),
    "store.reader": ("LoadedIndex", "load_chunks", "load_manifest", "open_index"),
    "chunks.search": (
        "Index",
        "MemoryIndex",
        "SearchHit",
        "build_bm25",
        "memory_index",
    ),
    "settings": ("BM25_DEFAULTS", "DEFAULT_ACCESS", "DEFAULT_K"),
    "store.writer": ("LOCK_TIMEOUT", "IndexBusyError", "Progress", "index_lock", "write_index"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "BM25_DEFAULTS",
    "DEFAULT_ACCESS",
    "DEFAULT_INDEX_DIR",
    "DEFAULT_K",
    "FORMAT_VERSION",
    "INDEX_ENV",
    "LOCK_TIMEOUT",
    "BuildResult",
    "DocumentEntry",
    "Index",
    "IndexBusyError",
    "IndexSettings",
    "LoadedIndex",
    "Manifest",
    "MemoryIndex",
    "Progress",
    "SearchHit",
    "build_bm25",
    "build_index",
    "index_lock",
    "ingest_hint",
    "load_chunks",
    "load_manifest",
    "memory_index",
    "open_index",
    "resolve_index_dir",
    "sort_chunks",
    "write_index",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use, so `import policy_assistant.index` is cheap."""
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
