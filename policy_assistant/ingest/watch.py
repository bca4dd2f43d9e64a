"""watch: keep an index current while its corpus changes, one round per burst of changes.

A watch starts as an ingest (pipeline.ingest) and then keeps in memory what the next round
needs: the live manifest, every document's entry, and each segment's entries (a segment is
immutable, so they are read once: entries.SegmentEntries). A round is handed the sources that
changed (ingest/loop.py takes them from file system events) and reads, parses and chunks
only those; every other document keeps its entry, and build_index writes a new segment for what
changed and marks the replaced chunks deleted, as a re-ingest of the whole corpus would. So a
round costs what changed, not what the corpus holds.

Another writer may change the index between rounds: a round that finds another generation
live reads that one's entries first (only its new segments'). A round that cannot be done on
its own is a whole ingest: a change of the catalog (it labels every document), a live index
of other settings, or none that can be read.
"""

from __future__ import annotations

import importlib
import os
from bisect import bisect_left
from collections.abc import Callable, Iterable
from pathlib import Path

from policy_assistant.chunk import Chunker
from policy_assistant.collector import fewer_collections
from policy_assistant.errors import BadIndex
from policy_assistant.index import BM25_DEFAULTS, BM25Settings, DocumentEntry, Manifest, index_lock
from policy_assistant.index.store.build import IndexSettings, build_index, settings_change
from policy_assistant.index.store.entries import (
    SegmentEntries,
    forget_gone,
    read_empty,
    segments_entries,
)
from policy_assistant.index.store.folder import damaged, live_generation
from policy_assistant.index.store.reader import load_entries, load_manifest
from policy_assistant.index.store.vectors import Embedding
from policy_assistant.ingest.pipeline import (
    IngestSummary,
    Progress,
    collect,
    ingest,
    summarize,
    with_cache,
)
from policy_assistant.ingest.units import UnitDocuments
from policy_assistant.parse import CATALOG_NAME, CorpusOptions, read_sources
from policy_assistant.parse.dispatch import PARSERS, kind_of
from policy_assistant.parse.language import detect_language


class Watch:
    """An ingest kept open between rounds; see the module docstring."""

    def __init__(
        self,
        corpus: Path,
        index_dir: Path,
        chunker: Chunker,
        *,
        bm25: BM25Settings = BM25_DEFAULTS,
        options: CorpusOptions | None = None,
        units: bool = True,
        embed: Embedding | None = None,
    ) -> None:
        """Watch the corpus folder, keeping the index at index_dir current (as ingest would)."""
        self.corpus, self.index_dir = Path(os.path.abspath(corpus)), index_dir
        self.chunker, self.units, self.embed = chunker, units, embed
        self.params = bm25
        self.options = with_cache(options, index_dir)  # the parse cache ingest keeps
        self.known: SegmentEntries = {}
        self.manifest: Manifest | None = None
        self.entries: dict[str, DocumentEntry] = {}
        self.sources: list[str] = []  # the entries' sources, sorted: a folder's are a range

    def ingest(self, progress: Progress | None = None) -> IngestSummary:
        """Ingest the whole corpus: a watch's first round, and any a round cannot do alone."""
        with index_lock(self.index_dir):
            summary = ingest(
                self.corpus,
                self.index_dir,
                self.chunker,
                bm25=self.params,
                progress=progress,
                options=self.options,
                units=self.units,
                embed=self.embed,
            )
            self._refresh()
        warm_parsers({kind_of(source) for source in self.sources})
        return summary

    def round(self, sources: Iterable[str]) -> IngestSummary:
        """Bring the index up to date with these changed sources (files or folders, relative
        to the corpus; gone ones are removed); every other document is kept as indexed."""
        changed = set(sources)
        with index_lock(self.index_dir), fewer_collections():
            if CATALOG_NAME in changed or not self._current():
                return self.ingest()
            read = read_sources(self.corpus, changed, self.options, after_parse=self.chunker.chunk)
            fresh, chunks = collect(read, self.chunker, self.entries)
            entries = self._kept(changed) | {e.source: e for e in fresh}
            kept = self._kept_shas(changed)
            documents = UnitDocuments(read, self.index_dir, self.corpus, self.options, kept)
            built = build_index(
                chunks,
                self.index_dir,
                IndexSettings(self.chunker.spec(), self.params, embedding=self.embed),
                entries=sorted(entries.values(), key=_source),
                documents=documents if self.units else None,
                live=self.manifest,
                workers=self.options.workers,
                live_entries=self.entries,
            )
            if built.written:
                self._refresh({*built.added, *built.changed, *built.removed})
        return summarize(read, built)

    def _current(self) -> bool:
        """Whether a round can build on the live generation (read again if another writer
        made it): there is one, readable, with the settings this watch writes with."""
        try:
            if self.manifest is None or self.manifest.folder != live_generation(self.index_dir):
                self._refresh()
        except BadIndex:
            return False  # gone or damaged: a whole ingest rebuilds it
        assert self.manifest is not None
        vectors = None if self.embed is None else self.embed.settings
        return not settings_change(self.manifest, self.chunker.spec(), self.params, vectors)

    def _refresh(self, written: set[str] | None = None) -> None:
        """Read the live generation's manifest and entries; after a round that wrote these
        sources (added, changed, removed), only the entries of its new segments. Until they
        are read the watch holds no manifest, so a failed read is read again next round."""
        before, self.manifest = self.manifest, None
        manifest = load_manifest(self.index_dir)
        if written is None or before is None:
            entries = load_entries(self.index_dir, manifest, self.known)
            self.entries = {e.source: e for e in entries}
        else:
            self.entries = self._after(before, manifest, written)
        self.manifest, self.sources = manifest, sorted(self.entries)

    def _after(
        self, before: Manifest, manifest: Manifest, written: set[str]
    ) -> dict[str, DocumentEntry]:
        """Return the entries of manifest after a write of these sources over before: the
        entries of the segments it wrote (the written sources' and those a merge moved), the
        written empty documents', and every other one as it was (its segment was kept, less
        the written sources' rows)."""
        assert manifest.folder is not None  # read from disk
        old = {s.info.name for s in before.segments}
        new = [s for s in manifest.segments if s.info.name not in old]
        try:
            placed = segments_entries(manifest.folder, new, self.known)
            placed += [e for e in read_empty(manifest.folder) if e.source in written]
        except (OSError, ValueError) as exc:
            raise damaged(self.index_dir, f"entries: {exc}") from exc
        forget_gone(self.known, manifest.segments)
        entries = dict(self.entries)  # a copy, then the few written dropped: a fifth the time
        for source in written:
            entries.pop(source, None)
        entries.update((e.source, e) for e in placed)
        return entries

    def _gone(self, changed: set[str]) -> set[str]:
        """Return the indexed sources a round of these changed sources reads again or drops:
        each one, and every document under one that was a folder."""
        gone = {source for source in changed if source in self.entries}
        for folder in changed:
            at = bisect_left(self.sources, folder + "/")
            while at < len(self.sources) and self.sources[at].startswith(folder + "/"):
                gone.add(self.sources[at])
                at += 1
        return gone

    def _kept(self, changed: set[str]) -> dict[str, DocumentEntry]:
        """Return the entries a round of these changed sources keeps as they are."""
        kept = dict(self.entries)
        for source in self._gone(changed):
            del kept[source]
        return kept

    def _kept_shas(self, changed: set[str]) -> Callable[[], dict[str, str]]:
        """Return what gives the sha256 of each document kept (asked only if the units are
        written whole)."""
        return lambda: {s: e.sha256 for s, e in self._kept(changed).items()}


WARM_TEXT = (
    "The first parse in a process imports its parser and maps the language model; a watch "
    "does that while it waits, so that its first round costs what the next ones do."
)
"""English text long enough for the language model to be asked."""


def warm_parsers(kinds: set[str | None]) -> None:
    """Import the parsers of these kinds (dispatch.kind_of) and load the language model now:
    a watch's first round then costs what its next ones do (0.21 s against 0.16 s at 1M)."""
    for kind in sorted(k for k in kinds if k is not None):
        module = "policy_assistant.parse.markdown" if kind == "markdown" else PARSERS[kind][0]
        try:
            importlib.import_module(module)
        except ImportError:
            continue  # this installation lacks that parser: its files fail when read
    detect_language(WARM_TEXT, "en")


def _source(entry: DocumentEntry) -> str:
    return entry.source
