"""The index folder: the only writer, and the reader search uses.

The folder's format (generations, segments, entries, units, the lock, kills and damage) is
described in one place, docs/index-format.md. This module is the public API, imported lazily;
the work is done in the modules it names below."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from policy_assistant.index.chunks.search import Index, SearchHit, memory_index
    from policy_assistant.index.settings import BM25_DEFAULTS, BM25Settings
    from policy_assistant.index.store.build import IndexSettings, build_index, sort_chunks
    from policy_assistant.index.store.folder import (
        DEFAULT_INDEX_DIR,
        INDEX_ENV,
        ingest_hint,
        resolve_index_dir,
    )
    from policy_assistant.index.store.manifest import FORMAT_VERSION, DocumentEntry, Manifest
    from policy_assistant.index.store.reader import load_chunks, load_manifest, open_index
    from policy_assistant.index.store.writer import IndexBusyError, index_lock, write_index

_HOMES = {
    "chunks.search": ("Index", "SearchHit", "memory_index"),
    "settings": ("BM25_DEFAULTS", "BM25Settings"),
    "store.build": ("IndexSettings", "build_index", "sort_chunks"),
    "store.folder": ("DEFAULT_INDEX_DIR", "INDEX_ENV", "ingest_hint", "resolve_index_dir"),
    "store.manifest": ("FORMAT_VERSION", "DocumentEntry", "Manifest"),
    "store.reader": ("load_chunks", "load_manifest", "open_index"),
    "store.writer": ("IndexBusyError", "index_lock", "write_index"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "BM25_DEFAULTS",
    "DEFAULT_INDEX_DIR",
    "FORMAT_VERSION",
    "INDEX_ENV",
    "BM25Settings",
    "DocumentEntry",
    "Index",
    "IndexBusyError",
    "IndexSettings",
    "Manifest",
    "SearchHit",
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
