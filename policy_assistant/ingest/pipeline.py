"""ingest = discover → parse → chunk → index, doing again only what changed.

A document is reused, not parsed or chunked again, when its file bytes (sha256) and the
metadata its catalog entry gives it are the same as when it was indexed and the chunker,
tokenizer and BM25 settings are unchanged. The index stage itself is build_index, which the
`index` command calls too, so both write the same bytes for the same chunks (ingest with
units=False; by default ingest also stores the parsed documents' retrieval units, which index,
holding chunk records only, cannot). A change of any of those settings rebuilds everything,
and the summary says why.
Nothing is written when nothing changed, so an unchanged corpus leaves the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from policy_assistant.chunk import DEFAULT_CHUNKER, Chunker
from policy_assistant.collector import fewer_collections
from policy_assistant.errors import BadIndex, DocumentError
from policy_assistant.index import (
    BM25_DEFAULTS,
    BM25Settings,
    DocumentEntry,
    Manifest,
    index_lock,
    load_manifest,
    open_index,
)
from policy_assistant.index.store.build import (
    BuildResult,
    IndexSettings,
    build_index,
    settings_change,
    unusable,
)
from policy_assistant.index.store.folder import live_generation
from policy_assistant.index.store.reader import load_entries, verify_files
from policy_assistant.ingest.units import UnitDocuments
from policy_assistant.parse import DEFAULT_MAX_FILE_SIZE, CorpusOptions, CorpusRead, read_corpus
from policy_assistant.parse.cache import DISK_FULL, cache_size
from policy_assistant.parse.corpus import CorpusFile, Reused
from policy_assistant.procs.side_job import SideJob, spare_core
from policy_assistant.records import Chunk

if TYPE_CHECKING:
    from policy_assistant.index.store.vectors import Embedding

PARSE_CACHE_NAME = "parse-cache"
"""The parse cache ingest keeps beside its index folder when none is named."""

Progress = Callable[[int, int, str], None]
"""Called as progress(done, total, source) after each file."""


@dataclass
class IngestSummary(BuildResult):
    """What an ingest did, for the user and for tests: what the index stage did, and more."""

    failures: list[DocumentError] = field(default_factory=list)
    """Files that could not be parsed."""
    warnings: list[str] = field(default_factory=list)
    """Per-document things the user should know (no access label, no text)."""
    notices: list[str] = field(default_factory=list)
    """Corpus-level lines never folded away (refused entries, stale catalog keys, skipped files)."""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        # Hand-written: index_dir renamed `index` as a POSIX path, failures as source and
        # problem, `damaged` left out (the warning says it).
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
    damage: str | None = None
    """What was found damaged in the old index, when its manifest read but its chunks did not."""
    manifest: Manifest | None = None
    """The live manifest, when it could be read (handed on, so it is read once)."""


def ingest(
    corpus: Path,
    index_dir: Path,
    chunker: Chunker,
    *,
    bm25: BM25Settings = BM25_DEFAULTS,
    strict: bool = False,
    progress: Progress | None = None,
    options: CorpusOptions | None = None,
    units: bool = True,
    embed: Embedding | None = None,
) -> IngestSummary:
    """Bring the index at index_dir up to date with the corpus; see the module docstring.

    units (the default) also stores the documents' retrieval units, for Index.context; embed
    stores each chunk's vector too (only text not embedded before reaches its encoder).
    """
    params = bm25
    reading = with_cache(options, index_dir)

    def read_with(previous: _Previous) -> tuple[CorpusRead, list[DocumentEntry], list[Chunk]]:
        read = read_corpus(
            corpus,
            reading,
            progress=progress,
            reuse=_reuse(previous),
            strict=strict,
            after_parse=chunker.chunk,  # chunked in the worker that parsed it
        )
        return read, *collect(read, chunker, previous.entries)

    with index_lock(index_dir), fewer_collections():
        vectors = None if embed is None else embed.settings
        previous = _load_previous(index_dir, chunker.spec(), params, False, vectors)
        checking = _verify_beside(index_dir, previous, reading.workers)
        try:
            read, entries, chunks = read_with(previous)
        except BaseException:
            if isinstance(checking, SideJob):
                checking.cancel()
            raise
        damage = _damage(index_dir, checking)
        if damage is not None:  # nothing of a damaged index is kept: the corpus is read again
            previous = _Previous(damage=damage, manifest=previous.manifest)
            read, entries, chunks = read_with(previous)
        settings = IndexSettings(chunker.spec(), params, _corpus_settings(reading), embed)
        try:
            built = build_index(
                chunks,
                index_dir,
                settings,
                entries=entries,
                damage=previous.damage,
                documents=UnitDocuments(read, index_dir, corpus, reading) if units else None,
                live=previous.manifest,
                workers=reading.workers,
            )
        except BadIndex as exc:
            raise _naming_cache(exc, reading.cache_dir) from exc
    return summarize(read, built)


def _naming_cache(exc: BadIndex, cache_dir: Path | None) -> BadIndex:
    """Return the error of a full disk naming the parse cache, the space one may free at once."""
    cause = exc.__cause__
    if cache_dir is None or not isinstance(cause, OSError) or cause.errno not in DISK_FULL:
        return exc
    size = cache_size(cache_dir) / (1024 * 1024)
    return BadIndex(
        f"{exc}; the parse cache {cache_dir} holds {size:.1f} MiB: delete that folder to free "
        "it (it is rebuilt as needed)"
    )


def summarize(read: CorpusRead, built: BuildResult) -> IngestSummary:
    """Return what an ingest did: what its read found and what its index stage did."""
    summary = IngestSummary(built.index_dir, failures=read.failures, warnings=read.warnings)
    summary.notices = read.notices
    for built_field in fields(BuildResult):
        setattr(summary, built_field.name, getattr(built, built_field.name))
    if built.damaged and built.rebuilt:
        summary.warnings.append(built.rebuilt)
    return summary


@dataclass(frozen=True)
class StickySettings:
    """What an ingest is built with: the live index's own settings, changed only where asked."""

    chunker: str
    """Registry name of the chunker."""
    chunker_settings: dict[str, int]
    """Its settings."""
    bm25: BM25Settings
    """The BM25 settings: the defaults but the variant (the index's, unless one is given)."""
    changed: tuple[str, ...]
    """What the options given change from the live index, one phrase each (empty: nothing)."""
    corpus: dict[str, Any] = field(default_factory=dict)
    """The corpus options to read with (CorpusOptions fields), those that differ from the
    defaults only: the index's, changed where given."""
    kept: tuple[str, ...] = ()
    """The index's corpus options reused because none was given, one phrase each."""


CORPUS_DEFAULTS: dict[str, Any] = {
    "default_access": None,
    "include": [],
    "exclude": [],
    "max_file_size": DEFAULT_MAX_FILE_SIZE,
}
"""The corpus options an index records when they differ from these (CorpusOptions fields)."""


def _corpus_settings(options: CorpusOptions) -> dict[str, Any]:
    """Return the corpus options an index records: those that differ from the defaults."""
    given = {key: getattr(options, key) for key in CORPUS_DEFAULTS}
    given = {k: list(v) if isinstance(v, tuple) else v for k, v in given.items()}
    return {k: v for k, v in given.items() if v != CORPUS_DEFAULTS[k]}


def apply_corpus(options: CorpusOptions, corpus: dict[str, Any]) -> CorpusOptions:
    """Return options reading with these recorded corpus options (defaults where absent)."""
    chosen = {**CORPUS_DEFAULTS, **corpus}
    chosen = {k: tuple(v) if isinstance(v, list) else v for k, v in chosen.items()}
    return replace(options, **chosen)


def _phrase(key: str, value: Any) -> str:
    """Say one corpus option and its value as a person reads it."""
    name = key.replace("_", " ")
    if key == "max_file_size":
        return f"{name} {value // (1024 * 1024)} MiB"
    if isinstance(value, list):
        return f"{name} {', '.join(value) or 'none'}"
    return f"{name} {value or 'unset'}"


def _sticky_corpus(
    old: dict[str, Any], given: dict[str, Any]
) -> tuple[dict[str, Any], list[str], list[str]]:
    """Return the corpus options to use, what was kept from the index and what changed."""
    merged = {**CORPUS_DEFAULTS, **old, **given}
    corpus = {k: v for k, v in merged.items() if v != CORPUS_DEFAULTS[k]}
    kept = [_phrase(k, v) for k, v in old.items() if k not in given]
    before = {**CORPUS_DEFAULTS, **old}
    changed = [
        f"{_phrase(k, before[k])} -> {_phrase(k, v).removeprefix(k.replace('_', ' ') + ' ')}"
        for k, v in given.items()
        if before[k] != v
    ]
    return corpus, kept, changed


def sticky_settings(
    index_dir: Path,
    chunker: str | None,
    options: dict[str, int],
    bm25_variant: str | None,
    corpus: dict[str, Any] | None = None,
) -> StickySettings:
    """Return the settings an ingest uses: the index's, where the caller gives none.

    An index keeps its chunker, settings, BM25 variant and corpus options (corpus: those
    given, by CorpusOptions field) from run to run; an option given changes only itself, and
    a chunker named anew starts from that chunker's defaults.
    """
    try:
        manifest = load_manifest(index_dir)
        old = dict(manifest.chunker)
        old_variant = manifest.bm25.variant
        old_corpus, fresh = dict(manifest.corpus), False
    except BadIndex:  # no index yet: nothing is changed from it
        old, old_variant = {"name": DEFAULT_CHUNKER}, BM25_DEFAULTS.variant
        old_corpus, fresh = {}, True
    reading, kept_corpus, corpus_changed = _sticky_corpus(old_corpus, corpus or {})
    old_name = str(old.pop("name"))
    name = chunker or old_name
    kept = old if name == old_name else {}
    settings = {**kept, **options}
    variant = bm25_variant or old_variant
    # Only the variant sticks (k1 and b take the defaults): what --bm25 can ask for.
    bm25 = BM25_DEFAULTS.with_changes({"variant": variant})
    if fresh:
        return StickySettings(name, settings, bm25, (), reading)
    changed = [f"chunker {old_name} -> {name}"] if name != old_name else []
    changed += [f"{k} {kept[k]} -> {v}" for k, v in options.items() if k in kept and kept[k] != v]
    changed += [f"BM25 {old_variant} -> {variant}"] if variant != old_variant else []
    changed += corpus_changed
    return StickySettings(name, settings, bm25, tuple(changed), reading, tuple(kept_corpus))


_REUSED = {empty: Reused(empty) for empty in (False, True)}


def _reuse(previous: _Previous) -> Callable[[CorpusFile], Reused | None]:
    """Return the reader's reuse hook: keep a file whose bytes and parsed metadata are those
    of its indexed entry, so it is neither read nor parsed (its chunks stay in their segment)."""

    def reuse(file: CorpusFile) -> Reused | None:
        entry, meta = previous.entries.get(file.source), file.meta
        if entry is None or meta is None or entry.sha256 != file.sha256:
            return None
        found = (meta.title, meta.version, meta.access, meta.language)
        same = found == (entry.title, entry.version, entry.access, entry.language)
        return _REUSED[meta.empty] if same else None

    return reuse


def collect(
    read: CorpusRead, chunker: Chunker, previous: dict[str, DocumentEntry]
) -> tuple[list[DocumentEntry], list[Chunk]]:
    """Chunk each document read again only when it differs from the indexed one (previous:
    the indexed entries, by source); return the entry of every file read (in source order),
    and the chunks of the documents chunked (the others' stay in the index)."""
    entries = [previous[file.source] for file in read.reused]
    chunks: list[Chunk] = []
    for document in read.documents:
        old = previous.get(document.source)
        if old is not None and old.same_document(document):
            entries.append(old)
            continue
        doc_chunks = read.chunks_of(document, chunker.chunk)
        entries.append(DocumentEntry.from_document(document, [c.id for c in doc_chunks]))
        chunks.extend(doc_chunks)
    entries.sort(key=lambda e: e.source)
    return entries, chunks


def with_cache(options: CorpusOptions | None, index_dir: Path) -> CorpusOptions:
    """Return the reading options with a parse cache: the one given, else one beside the index.

    Beside, not inside: the index folder holds only what `index` would write too.
    """
    chosen = options or CorpusOptions()
    if chosen.cache_dir is not None:
        return chosen
    return replace(chosen, cache_dir=index_dir.absolute().parent / PARSE_CACHE_NAME)


def _verify_beside(
    index_dir: Path, previous: _Previous, workers: int | None
) -> SideJob | str | None:
    """Start checking every file of the index whose entries are to be kept against its
    checksum, in a forked child while the corpus is read (here, at once, on one core, when
    it returns what it found damaged, if anything)."""
    if not previous.entries or previous.manifest is None:
        return None  # nothing is kept: the index is written whole
    manifest = previous.manifest

    def verify() -> None:
        verify_files(index_dir, live_generation(index_dir), manifest)

    try:
        return SideJob(verify, fork=spare_core(workers))
    except BadIndex as exc:  # checked here, at once
        return unusable(index_dir, exc)


def _damage(index_dir: Path, checking: SideJob | str | None) -> str | None:
    """Return what the check found damaged (None when all is well or nothing was checked)."""
    if checking is None or isinstance(checking, str):
        return checking
    try:
        checking.join()
    except OSError as exc:
        return unusable(index_dir, BadIndex(str(exc)))
    return None


def _load_previous(
    index_dir: Path,
    spec: dict[str, Any],
    params: BM25Settings,
    checksums: bool = True,
    embedding: dict[str, Any] | None = None,
) -> _Previous:
    """Read what the old index offers: its per-document entries, never its chunks (those of
    an unchanged document stay in their segment); nothing to reuse when it is unusable or
    its settings differ. Without checksums its files are only checked to be there (ingest
    checks their checksums beside its read: _verify_beside)."""
    try:
        with open_index(index_dir, check_tokenizer=False) as old:
            manifest = old.manifest
            # A damaged file is found here and rebuilt from the corpus, not reused.
            verify_files(index_dir, old.generation, manifest, checksums=checksums)
            if settings_change(manifest, spec, params, embedding):
                return _Previous(manifest=manifest)
            entries = load_entries(index_dir, manifest)
    except BadIndex as exc:
        # A readable manifest beside damaged files: rebuild, and say so; an unreadable or
        # missing manifest: build_index finds that itself and says why.
        try:
            return _Previous(damage=unusable(index_dir, exc), manifest=load_manifest(index_dir))
        except BadIndex:
            return _Previous()
    return _Previous({e.source: e for e in entries}, manifest=manifest)
