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
from policy_assistant.index.tokenize import TOKENIZER_SETTINGS
from policy_assistant.parse import CorpusFile, CorpusOptions, CorpusRead, Reused, read_corpus
from policy_assistant.records import Chunk

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
    """Per-document things the user should know (no access label, no text)."""
    notices: list[str] = field(default_factory=list)
    """Corpus-level lines never folded away (refused entries, stale catalog keys, skipped files)."""
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
            "notices": self.notices,
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
    options: CorpusOptions | None = None,
) -> IngestSummary:
    """Bring the index at index_dir up to date with the corpus; see the module docstring."""
    params = {**BM25_DEFAULTS, **(bm25 or {})}
    summary = IngestSummary(index_dir)
    with index_lock(index_dir):
        previous = _load_previous(index_dir, chunker.spec(), params)
        summary.rebuilt = previous.rebuild

        def reuse(file: CorpusFile) -> Reused | None:
            old = previous.entries.get(file.source)
            if old is None or old.sha256 != file.sha256 or old.catalog != file.fields:
                return None
            return Reused(empty=not old.chunk_ids)

        read = read_corpus(corpus, options, progress=progress, reuse=reuse, strict=strict)
        summary.failures, summary.warnings = read.failures, read.warnings
        summary.notices = read.notices
        entries, chunks = _collect(read, chunker, previous, summary)
        summary.removed = sorted(previous.known - set(entries))
        summary.chunks = len(chunks)
        summary.words = sum(c.words for c in chunks)
        if _needs_writing(summary, previous):
            _write(index_dir, chunker, params, entries, chunks)
            summary.written = True
    return summary


def _collect(
    read: CorpusRead, chunker: Chunker, previous: _Previous, summary: IngestSummary
) -> tuple[dict[str, DocumentEntry], list[Chunk]]:
    """Keep what was reused, chunk what was parsed; return the new entries and every chunk."""
    entries: dict[str, DocumentEntry] = {}
    chunks: list[Chunk] = []
    for file in read.reused:
        summary.unchanged.append(file.source)
        entries[file.source] = previous.entries[file.source]
        chunks.extend(previous.chunks.get(file.source, []))
    for document in read.documents:
        doc_chunks = chunker.chunk(document)
        known = document.source in previous.known
        (summary.changed if known else summary.added).append(document.source)
        fields = read.catalog.fields_for(document.source)
        ids = [c.id for c in doc_chunks]
        entries[document.source] = DocumentEntry.from_document(document, ids, fields)
        chunks.extend(doc_chunks)
    return entries, sort_chunks(chunks)


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
    entries = {entry.source: entry for entry in manifest.documents}
    return _Previous(entries, by_source, known, exists=True)


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
) -> None:
    """Build BM25 over every chunk and publish a new generation."""
    index = build_bm25(chunks, params["variant"], params["k1"], params["b"])
    manifest = Manifest.create(chunker.spec(), index.params(), list(entries.values()))
    write_index(index_dir, chunks, manifest, index)
