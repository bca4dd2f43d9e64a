"""ingest = discover → parse → chunk → index, doing again only what changed.

A document is reused, not parsed or chunked again, when its file bytes (sha256) and the
metadata its catalog entry gives it are the same as when it was indexed and the chunker,
tokenizer and BM25 settings are unchanged. The index stage itself is build_index, which the
`index` command calls too, so both write the same bytes for the same chunks. A change of any
of those settings rebuilds everything, and the summary says why.
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
    index_lock,
    load_chunks,
    load_manifest,
)
from policy_assistant.index.build import IndexSettings, build_index, settings_change
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
from policy_assistant.parse.discover import SUFFIXES
from policy_assistant.records import Chunk, Document, DocumentMeta

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
    """Reusable parsed documents by source (stored with the units), when units are asked for."""


def ingest(
    corpus: Path,
    index_dir: Path,
    chunker: Chunker,
    *,
    bm25: dict[str, Any] | None = None,
    strict: bool = False,
    progress: Progress | None = None,
    units: bool = False,
) -> IngestSummary:
    """Bring the index at index_dir up to date with the corpus; see the module docstring."""
    params = {**BM25_DEFAULTS, **(bm25 or {})}
    found = discover(corpus)
    catalog = load_catalog(found.root)
    summary = IngestSummary(index_dir, failures=list(found.failures))
    if strict and summary.failures:
        raise summary.failures[0]
    with index_lock(index_dir):
        previous = _load_previous(index_dir, chunker.spec(), params, units)
        entries, chunks, documents = _collect(
            found.files, found.root, catalog, chunker, previous, summary, strict, progress
        )
        summary.warnings.extend(catalog_warnings(catalog, found))
        built = build_index(
            chunks, index_dir, IndexSettings(chunker.spec(), params), entries=entries,
            documents=documents if units else None,
        )  # fmt: skip
    summary.added, summary.changed, summary.removed = built.added, built.changed, built.removed
    summary.unchanged, summary.chunks, summary.words = built.unchanged, built.chunks, built.words
    summary.rebuilt, summary.written = built.rebuilt, built.written
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
) -> tuple[list[DocumentEntry], list[Chunk], list[Document]]:
    """Reuse or redo each document; return the new entries, every chunk and the documents
    parsed or reused (reused ones only when the old index stored them)."""
    entries: list[DocumentEntry] = []
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
            entries.append(entry)
            chunks.extend(doc_chunks)
            if document is not None:
                documents.append(document)
        if progress:
            progress(done, len(files), source)
    summary.failures.sort(key=lambda e: e.source)
    return entries, chunks, documents


def _one(
    path: Path,
    source: str,
    catalog: Catalog,
    chunker: Chunker,
    previous: _Previous,
    summary: IngestSummary,
) -> tuple[DocumentEntry, list[Chunk], Document | None]:
    """Return one document's manifest entry, chunks and document, parsing only when it changed."""
    data = read_file(path, source)
    if not is_labelled(source, data, catalog):
        summary.warnings.append(f"{source}: no access label; treated as staff (fail closed)")
    old = previous.entries.get(source)
    if old is not None and _unchanged(old, source, data, catalog):
        return old, previous.chunks.get(source, []), previous.documents.get(source)
    document = parse_document(data, source, catalog)
    doc_chunks = chunker.chunk(document)
    entry = DocumentEntry.from_document(document, [c.id for c in doc_chunks])
    return entry, doc_chunks, document


def _unchanged(old: DocumentEntry, source: str, data: bytes, catalog: Catalog) -> bool:
    """Whether a file's bytes and the metadata the catalog gives it are as when indexed."""
    if old.sha256 != file_sha256(data):
        return False
    meta = explicit_meta(source, data, catalog)
    same = (meta.version, meta.access, meta.language) == (old.version, old.access, old.language)
    # A title the catalog does not give comes from the bytes, which are unchanged.
    return same and meta.title in (None, old.title)


def explicit_meta(source: str, data: bytes, catalog: Catalog) -> DocumentMeta:
    """Return the metadata the catalog and front matter give a file, without parsing it."""
    if SUFFIXES.get(Path(source).suffix.lower()) != "markdown":
        return catalog.meta_for(source)
    from policy_assistant.parse.markdown import decode_markdown, split_front_matter

    return catalog.meta_for(source, split_front_matter(decode_markdown(data, source))[0])


def _load_previous(
    index_dir: Path, spec: dict[str, Any], params: dict[str, Any], units: bool = False
) -> _Previous:
    """Read what the old index offers: nothing when it is unusable or its settings differ,
    or when units are asked for and it holds none (every document is parsed again)."""
    try:
        manifest = load_manifest(index_dir)
        if settings_change(manifest, spec, params):
            return _Previous()
        by_source: dict[str, list[Chunk]] = {}
        for chunk in load_chunks(index_dir):
            by_source.setdefault(chunk.source, []).append(chunk)
        documents = _stored_documents(index_dir) if units else {}
    except IndexError_:
        return _Previous()  # build_index says why everything is redone
    entries = {e.source: e for e in manifest.documents}
    if units and (documents is None or set(documents) != set(entries)):
        return _Previous()
    return _Previous(entries, by_source, documents or {})


def _stored_documents(index_dir: Path) -> dict[str, Document] | None:
    """Return the documents the live generation stores with its units, or None."""
    from policy_assistant.index.folder import live_generation
    from policy_assistant.index.unit_store import UNITS_DIR, load_documents

    folder = live_generation(index_dir) / UNITS_DIR
    try:
        return load_documents(folder) if folder.is_dir() else None
    except (OSError, ValueError, KeyError, TypeError):
        return None
