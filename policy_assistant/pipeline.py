"""ingest = discover → parse → chunk → index, doing again only what changed.

A document is reused, not parsed or chunked again, when its file bytes (sha256) and its
catalog entry are the same as when it was indexed and the chunker, tokenizer and BM25 settings
are unchanged. A change of any of those settings rebuilds everything, and the summary says why.
Nothing is written when nothing changed, so an unchanged corpus leaves the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from policy_assistant.chunk import Chunker
from policy_assistant.errors import DocumentError, IndexError_
from policy_assistant.ids import file_sha256
from policy_assistant.index import (
    BM25_DEFAULTS,
    DocumentEntry,
    Manifest,
    build_bm25,
    index_lock,
    load_chunks,
    load_manifest,
    sort_chunks,
    write_index,
)
from policy_assistant.index.folder import live_generation
from policy_assistant.index.tokenize import TOKENIZER_SETTINGS
from policy_assistant.index.unit_store import UNITS_DIR, load_documents
from policy_assistant.parse import (
    Catalog,
    catalog_warnings,
    discover,
    is_labelled,
    load_catalog,
    parse_document,
    read_file,
    source_of,
)
from policy_assistant.records import Chunk, Document

Progress = Callable[[int, int, str], None]
"""Called as progress(done, total, source) after each file."""


@dataclass
class IngestSummary:
    """What an ingest did, for the user and for tests."""

    index_dir: Path
    """The index folder written (or left as it was)."""
    added: list[str] = field(default_factory=list)
    """Sources indexed for the first time."""
    changed: list[str] = field(default_factory=list)
    """Sources parsed and chunked again because their bytes or catalog entry changed."""
    removed: list[str] = field(default_factory=list)
    """Sources dropped from the index (gone from the corpus, or now failing to parse)."""
    unchanged: list[str] = field(default_factory=list)
    """Sources whose chunks were reused as they were."""
    chunks: int = 0
    """Chunks in the index after the run."""
    words: int = 0
    """Words in those chunks, prefixes included."""
    failures: list[DocumentError] = field(default_factory=list)
    """Files that could not be parsed."""
    warnings: list[str] = field(default_factory=list)
    """Things the user should know (unlabelled documents, stale catalog entries)."""
    rebuilt: str | None = None
    """Why every document was redone, when the settings or the old index called for it."""
    written: bool = False
    """Whether a new index generation was written."""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {
            "index": self.index_dir.as_posix(),
            "added": self.added,
            "changed": self.changed,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "chunks": self.chunks,
            "words": self.words,
            "failures": [{"source": f.source, "problem": f.problem} for f in self.failures],
            "warnings": self.warnings,
            "rebuilt": self.rebuilt,
            "written": self.written,
        }


@dataclass
class _Previous:
    """The index being replaced: what can be reused from it."""

    entries: dict[str, DocumentEntry] = field(default_factory=dict)
    """Entries that may be reused (none when everything must be redone)."""
    chunks: dict[str, list[Chunk]] = field(default_factory=dict)
    """Reusable chunks by source."""
    documents: dict[str, Document] = field(default_factory=dict)
    """Reusable parsed documents by source (stored with the units), for the units."""
    known: set[str] = field(default_factory=set)
    """Every source the old index held, reusable or not."""
    exists: bool = False
    """Whether there was a usable old index."""
    rebuild: str | None = None
    """Why nothing can be reused, when something rules it out."""


def ingest(
    corpus: Path,
    index_dir: Path,
    chunker: Chunker,
    *,
    bm25: dict[str, Any] | None = None,
    strict: bool = False,
    progress: Progress | None = None,
) -> IngestSummary:
    """Bring the index at index_dir up to date with the corpus; see the module docstring."""
    params = {**BM25_DEFAULTS, **(bm25 or {})}
    found = discover(corpus)
    catalog = load_catalog(found.root)
    summary = IngestSummary(index_dir, failures=list(found.failures))
    if strict and summary.failures:
        raise summary.failures[0]
    with index_lock(index_dir):
        previous = _load_previous(index_dir, chunker.spec(), params)
        summary.rebuilt = previous.rebuild
        entries, chunks, documents = _collect(
            found.files, found.root, catalog, chunker, previous, summary, strict, progress
        )
        summary.removed = sorted(previous.known - set(entries))
        summary.warnings.extend(catalog_warnings(catalog, found))
        summary.chunks = len(chunks)
        summary.words = sum(c.words for c in chunks)
        if _needs_writing(summary, previous):
            _write(index_dir, chunker, params, entries, chunks, documents)
            summary.written = True
    return summary


def _collect(
    files: list[Path],
    root: Path,
    catalog: Catalog,
    chunker: Chunker,
    previous: _Previous,
    summary: IngestSummary,
    strict: bool,
    progress: Progress | None,
) -> tuple[dict[str, DocumentEntry], list[Chunk], list[Document]]:
    """Reuse or redo each document; return the new entries, every chunk and every document."""
    entries: dict[str, DocumentEntry] = {}
    chunks: list[Chunk] = []
    documents: list[Document] = []
    for done, path in enumerate(files, 1):
        source = source_of(path, root)
        try:
            entry, doc_chunks, document = _one(path, source, catalog, chunker, previous, summary)
        except DocumentError as exc:
            if strict:
                raise
            summary.failures.append(exc)
        else:
            entries[source] = entry
            chunks.extend(doc_chunks)
            documents.append(document)
        if progress:
            progress(done, len(files), source)
    summary.failures.sort(key=lambda e: e.source)
    return entries, sort_chunks(chunks), documents


def _one(
    path: Path,
    source: str,
    catalog: Catalog,
    chunker: Chunker,
    previous: _Previous,
    summary: IngestSummary,
) -> tuple[DocumentEntry, list[Chunk], Document]:
    """Return one document's manifest entry, chunks and document, parsing only when it changed."""
    data = read_file(path, source)
    sha256 = file_sha256(data)
    entry_catalog = catalog.entries.get(source, {})
    if not is_labelled(source, data, catalog):
        summary.warnings.append(f"{source}: no access label; treated as staff (fail closed)")
    old = previous.entries.get(source)
    if old is not None and old.sha256 == sha256 and old.catalog == entry_catalog:
        summary.unchanged.append(source)
        return old, previous.chunks.get(source, []), previous.documents[source]
    document = parse_document(data, source, catalog)
    doc_chunks = chunker.chunk(document)
    (summary.changed if source in previous.known else summary.added).append(source)
    entry = DocumentEntry.from_document(document, [c.id for c in doc_chunks], entry_catalog)
    return entry, doc_chunks, document


def _load_previous(index_dir: Path, spec: dict[str, Any], params: dict[str, Any]) -> _Previous:
    """Read what the old index offers, or say why everything must be redone."""
    try:
        manifest = load_manifest(index_dir)
    except IndexError_ as exc:
        missing = not (index_dir / "CURRENT").exists()
        return _Previous(rebuild=None if missing else f"the old index is unusable ({exc})")
    known = {entry.source for entry in manifest.documents}
    reason = _settings_change(manifest, spec, params)
    if reason:
        return _Previous(known=known, exists=True, rebuild=reason)
    by_source: dict[str, list[Chunk]] = {}
    try:
        for chunk in load_chunks(index_dir):
            by_source.setdefault(chunk.source, []).append(chunk)
    except IndexError_ as exc:
        return _Previous(known=known, exists=True, rebuild=f"the old index is unusable ({exc})")
    try:
        documents = load_documents(live_generation(index_dir) / UNITS_DIR)
    except (IndexError_, OSError, ValueError, KeyError, TypeError):
        return _Previous(known=known, exists=True, rebuild="the old index holds no units")
    entries = {e.source: e for e in manifest.documents if e.source in documents}
    return _Previous(entries, by_source, documents, known, exists=True)


def _settings_change(manifest: Manifest, spec: dict[str, Any], params: dict[str, Any]) -> str:
    """Return why the old index's settings rule out reuse, or an empty string."""
    if manifest.chunker != spec:
        return f"chunker settings changed ({_spec(manifest.chunker)} -> {_spec(spec)})"
    if manifest.tokenizer != TOKENIZER_SETTINGS:
        return "tokenizer settings changed"
    # The index records derived parameters too (okapi's epsilon); compare what can be asked for.
    if {key: manifest.bm25.get(key) for key in params} != params:
        return f"BM25 settings changed ({manifest.bm25} -> {params})"
    return ""


def _spec(spec: dict[str, Any]) -> str:
    settings = " ".join(f"{k}={v}" for k, v in sorted(spec.items()) if k != "name")
    return f"{spec.get('name')} {settings}".strip()


def _needs_writing(summary: IngestSummary, previous: _Previous) -> bool:
    """Whether the index must change: anything redone, dropped, or no usable index yet."""
    changed = summary.added or summary.changed or summary.removed
    return bool(changed or summary.rebuilt or not previous.exists)


def _write(
    index_dir: Path,
    chunker: Chunker,
    params: dict[str, Any],
    entries: dict[str, DocumentEntry],
    chunks: list[Chunk],
    documents: list[Document],
) -> None:
    """Build BM25 over every chunk and publish a new generation, units included."""
    index = build_bm25(chunks, params["variant"], params["k1"], params["b"])
    manifest = Manifest.create(chunker.spec(), index.params(), list(entries.values()))
    write_index(index_dir, chunks, manifest, index, documents=documents)
