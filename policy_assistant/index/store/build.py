"""build_index: make an index folder hold exactly a set of documents, writing only on change.

Both `index CHUNKS.jsonl` and `ingest` end here, so the two write the same bytes for the same
chunks. A generation is written from scratch (one segment) when the settings differ from the
live generation's or none is usable, else only for what changed (plan.py), decided from the
per-document entries, never the chunks; with nothing changed nothing is touched.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress, groupby
from pathlib import Path
from typing import TYPE_CHECKING, Any

from policy_assistant.errors import BadIndex, PolicyAssistantError
from policy_assistant.index.settings import BM25_DEFAULTS, UNIT_SETTINGS, BM25Settings
from policy_assistant.index.store.entries import SEGMENTS_DIR
from policy_assistant.index.store.folder import ingest_hint, live_generation
from policy_assistant.index.store.manifest import DocumentEntry, Manifest
from policy_assistant.index.store.plan import Change, cold_generation, incremental_generation
from policy_assistant.index.store.reader import load_entries, load_manifest
from policy_assistant.index.store.vectors import embedding_change
from policy_assistant.index.store.writer import (
    Progress,
    UnitsJob,
    cold_units,
    index_lock,
    write_generation,
)
from policy_assistant.index.tokenize import TOKENIZER_SETTINGS
from policy_assistant.records import Chunk, Document
from policy_assistant.sentences import SENTENCES_VERSION
from policy_assistant.text import WORDS_VERSION

if TYPE_CHECKING:
    from policy_assistant.index.store.vectors import Embedding


@dataclass(frozen=True)
class IndexSettings:
    """What an index is built with besides its chunks."""

    chunker: dict[str, Any] | None = None
    """The chunker's spec; None takes the one every chunk record names."""
    bm25: BM25Settings = BM25_DEFAULTS
    """BM25 variant and parameters."""
    corpus: dict[str, Any] | None = None
    """The corpus options to record (ingest's sticky ones); None keeps the live index's."""
    embedding: Embedding | None = None
    """The encoder that gives each segment its vectors; None: an index without vectors."""


@dataclass
class BuildResult:
    """What build_index did."""

    index_dir: Path
    """The index folder."""
    added: list[str] = field(default_factory=list)
    """Sources new to the index."""
    changed: list[str] = field(default_factory=list)
    """Sources whose chunks or metadata changed."""
    removed: list[str] = field(default_factory=list)
    """Sources the index held and no longer does."""
    unchanged: list[str] = field(default_factory=list)
    """Sources exactly as they were."""
    chunks: int = 0
    """Chunks in the index after the build."""
    words: int = 0
    """Words in those chunks, prefixes included."""
    rebuilt: str | None = None
    """Why every document was indexed again, when the settings or the old index called for it."""
    written: bool = False
    """Whether a new generation was written."""
    damaged: bool = False
    """Whether the old index could not be read (worth a warning, not only a rebuild)."""


def sort_chunks(chunks: Iterable[Chunk]) -> list[Chunk]:
    """Return chunks in index row order: by source, then position."""
    return sorted(chunks, key=lambda c: (c.source, c.position))


def _chunker_spec(chunks: Sequence[Chunk]) -> dict[str, Any]:
    """Return the one chunker spec the chunks were made with; an error if none or mixed."""
    specs = {" ".join(f"{k}={v}" for k, v in sorted(c.chunker.items())): c.chunker for c in chunks}
    if not specs:
        raise PolicyAssistantError("no chunks to index")
    if len(specs) > 1:
        names = ", ".join(sorted(specs)[:3])
        raise PolicyAssistantError(
            f"the chunks were made by more than one chunker ({names}); index one"
        )
    return dict(next(iter(specs.values())))


def _entries_of(chunks: Sequence[Chunk]) -> list[DocumentEntry]:
    """Return one manifest entry per document of sorted chunks; an error on a bad stream."""
    entries = []
    for _, group in groupby(chunks, key=lambda c: c.source):
        doc_chunks = list(group)
        positions = [c.position for c in doc_chunks]
        if positions != sorted(set(positions)):
            raise PolicyAssistantError(f"{doc_chunks[0].source}: two chunks share a position")
        try:
            entries.append(DocumentEntry.from_chunks(doc_chunks))
        except ValueError as exc:
            raise PolicyAssistantError(str(exc)) from None
    return entries


def build_index(
    chunks: Sequence[Chunk],
    index_dir: Path,
    settings: IndexSettings | None = None,
    *,
    entries: Sequence[DocumentEntry] | None = None,
    damage: str | None = None,
    progress: Progress | None = None,
    documents: Sequence[Document] | None = None,
    live: Manifest | None = None,
    workers: int | None = None,
    live_entries: dict[str, DocumentEntry] | None = None,
) -> BuildResult:
    """Make the index at index_dir hold exactly these documents; see the module docstring.

    entries are every document's entry (by default read off the chunks), those without chunks
    included; a document whose entry equals the live one may leave its chunks out. damage says
    what the caller found damaged in the live generation (a new one is written from the chunks
    given). documents: their retrieval units go in too. live and live_entries: the live
    manifest and its entries by source when the caller (holding the lock) has read them.
    workers 1 keeps the write in this process (side_job.py).
    """
    settings = settings or IndexSettings()
    rows = sort_chunks(chunks)
    ids = [c.id for c in rows]
    if len(set(ids)) != len(ids):
        raise PolicyAssistantError(
            "two chunks share an ID; the chunk stream holds a document twice"
        )
    spec = settings.chunker or _chunker_spec(rows)
    params = settings.bm25
    new = {e.source: e for e in (entries if entries is not None else _entries_of(rows))}
    result = BuildResult(index_dir)
    with index_lock(index_dir):
        embedding = None if settings.embedding is None else settings.embedding.settings
        old, why, result.damaged = _previous(index_dir, spec, params, live, live_entries, embedding)
        if damage and not why:
            why, result.damaged = damage, True
        units = _units_change(index_dir, documents) if old is not None else ""
        result.rebuilt = why or units or None
        _compare(None if old is None else old[1], new, result)
        live_corpus = {} if old is None else old[0].corpus
        corpus = live_corpus if settings.corpus is None else settings.corpus
        manifest = Manifest.create(spec, params, [], corpus, embedding)
        vectors = _reusing(settings.embedding, None if old is None else old[0])
        job = None if documents is None else cold_units(documents, manifest.bm25, vectors)
        if old is None or why:
            make = cold_generation(rows, manifest, list(new.values()), vectors)
        elif units or corpus != live_corpus or result.added or result.changed or result.removed:
            fresh_sources = set(result.added) | set(result.changed)
            fresh = [c for c in rows if c.source in fresh_sources]
            replaced = result.changed + result.removed
            written = result.added + result.changed
            change = Change(old[0], old[1], new, written, replaced)
            make = incremental_generation(change, fresh, manifest, vectors)
            if documents is not None and not units:
                job = _units_update(
                    old[0], documents, fresh_sources, replaced, manifest.bm25, vectors
                )
        else:
            make = None
        if make is not None:
            write_generation(index_dir, make, progress=progress, workers=workers, units=job)
            result.written = True
    given = {s: sum(c.words for c in group) for s, group in groupby(rows, lambda c: c.source)}
    result.chunks = sum(e.chunks for e in new.values())
    # Every entry's words, but a document's given chunks count over what its entry says.
    result.words = sum(given.get(s, e.words) for s, e in new.items())
    return result


def _reusing(embedding: Embedding | None, old: Manifest | None) -> Embedding | None:
    """Return the embedding, set to take vectors from the live generation's segments."""
    if embedding is not None:
        folder = None if old is None else old.folder
        names = [] if old is None else [s.info.name for s in old.segments]
        chunks = [folder / SEGMENTS_DIR / n for n in names] if folder else []
        units = sorted(folder.glob("units/useg-*")) if folder else []
        embedding.reuse_from([*chunks, *units])
    return embedding


def _units_change(index_dir: Path, documents: Sequence[Document] | None) -> str:
    """Return why the live generation's units (held or not) must be written whole or dropped,
    or an empty string when they can be updated as they are."""
    from policy_assistant.index.store.units import UNITS_DIR, has_units

    folder = live_generation(index_dir) / UNITS_DIR
    if documents is None:
        return "units dropped" if folder.is_dir() else ""
    if not folder.is_dir():
        return "retrieval units asked for"
    return "" if has_units(folder) else "retrieval units in an older layout, written again"


def _units_update(
    old: Manifest, documents: Sequence[Document], fresh: set[str], replaced: Sequence[str],
    bm25: BM25Settings, vectors: Embedding | None = None,
) -> UnitsJob:  # fmt: skip
    """Return the job writing the old generation's units with the replaced sources deleted
    and the fresh ones' documents (only those are gathered) in a new unit segment."""
    from policy_assistant.index.store.units import UNITS_DIR, update_units

    assert old.folder is not None  # a manifest read from disk knows its generation
    units = old.folder / UNITS_DIR
    pick = getattr(documents, "subset", None)

    def job(folder: Path) -> None:
        chosen = pick(fresh) if pick else [d for d in documents if d.source in fresh]
        extra = None if vectors is None else vectors.unit_files
        update_units(units, folder, replaced, chosen, bm25, extra)

    return job


Previous = tuple[Manifest, dict[str, DocumentEntry]]


def _previous(
    index_dir: Path,
    spec: dict[str, Any],
    params: BM25Settings,
    live: Manifest | None,
    live_entries: dict[str, DocumentEntry] | None = None,
    embedding: dict[str, Any] | None = None,
) -> tuple[Previous | None, str | None, bool]:
    """Return the live manifest and entries (None if none), why to rebuild if so, and
    whether it is damaged."""
    try:
        manifest = live or load_manifest(index_dir)
        if live is not None and live_entries is not None:
            entries = live_entries
        else:
            entries = {e.source: e for e in load_entries(index_dir, manifest)}
    except BadIndex as exc:
        if not (index_dir / "CURRENT").exists():
            return None, None, False
        return None, unusable(index_dir, exc), True
    why = settings_change(manifest, spec, params, embedding)
    return (manifest, entries), why or None, False


def unusable(index_dir: Path, exc: BadIndex) -> str:
    """Say why the old index cannot be read, without its advice to run ingest."""
    problem = str(exc).removesuffix(f": {ingest_hint(index_dir)}")
    return f"the old index is unusable ({problem}); rebuilt from the corpus"


def settings_change(
    manifest: Manifest,
    spec: dict[str, Any],
    params: BM25Settings,
    embedding: dict[str, Any] | None = None,
) -> str:
    """Return why the old index's settings rule out reuse, or an empty string (embedding:
    the settings of the vectors asked for, None for none)."""
    if manifest.chunker != spec:
        return f"chunker settings changed ({_spec(manifest.chunker)} -> {_spec(spec)})"
    if manifest.tokenizer != TOKENIZER_SETTINGS:
        return "tokenizer settings changed"
    if manifest.bm25 != params:
        return f"BM25 settings changed ({manifest.bm25.describe()} -> {params.describe()})"
    if manifest.units != UNIT_SETTINGS:
        return "retrieval unit settings changed"
    if manifest.words != WORDS_VERSION:
        return f"word definition changed (version {manifest.words} -> {WORDS_VERSION})"
    if manifest.sentences != SENTENCES_VERSION:
        old = manifest.sentences
        return f"sentence rules changed (version {old} -> {SENTENCES_VERSION})"
    return embedding_change(manifest.embedding, embedding)


def _spec(spec: dict[str, Any]) -> str:
    settings = " ".join(f"{k}={v}" for k, v in sorted(spec.items()) if k != "name")
    return f"{spec.get('name')} {settings}".strip()


def _compare(
    old: dict[str, DocumentEntry] | None, new: dict[str, DocumentEntry], result: BuildResult
) -> None:
    """Sort sources into added, changed, unchanged and removed.

    An entry handed back as the very object read (ingest's kept documents) is unchanged
    without a look at its fields: that test runs in C over every source, and only the rest
    are compared field by field in Python.
    """
    before = old or {}
    sources = sorted(new)
    same = list(map(operator.is_, map(before.get, sources), map(new.__getitem__, sources)))
    result.unchanged = list(compress(sources, same))
    equal = []
    for source in compress(sources, map(operator.not_, same)):
        if source not in before:
            result.added.append(source)
        elif before[source] != new[source]:
            result.changed.append(source)
        else:
            equal.append(source)
    if equal:
        result.unchanged = sorted([*result.unchanged, *equal])
    result.removed = sorted(before.keys() - new.keys())
