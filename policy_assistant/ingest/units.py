"""The documents ingest hands the index stage for retrieval units, gathered only if written.

A re-ingest's units need only the documents added or changed, which this read parsed
(UnitDocuments.subset). Units written whole (the first time, or after a settings change)
need every document, but a file the reader kept (bytes and metadata those of its indexed
entry) was neither read nor parsed. Its document is taken from the live generation's unit
segments, which store each document's text and blocks, and where they do not hold it (an
index written without units, units in the older layout, damaged units) the corpus is read
again through the parse cache. Nothing is gathered when nothing is written: a no-op ingest
touches no document.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import overload

from policy_assistant.errors import PolicyAssistantError
from policy_assistant.parse import CorpusOptions, CorpusRead, read_corpus
from policy_assistant.records import Document


class UnitDocuments(Sequence[Document]):
    """Every document of an ingest, in source order, gathered on first use."""

    def __init__(
        self,
        read: CorpusRead,
        index_dir: Path,
        corpus: Path,
        options: CorpusOptions,
        kept: Callable[[], dict[str, str]] | None = None,
    ) -> None:
        """Gather from this read, the live generation at index_dir, and the corpus again;
        kept gives the sha256 of each document kept unread when the read does not list them
        (a read of some sources only), asked only if every document is gathered."""
        self.read, self.index_dir, self.corpus, self.options = read, index_dir, corpus, options
        self.kept = kept or (lambda: {f.source: f.sha256 for f in self.read.reused})
        self._docs: list[Document] | None = None

    def _all(self) -> list[Document]:
        if self._docs is None:
            self._docs = self._gather()
        return self._docs

    def _gather(self) -> list[Document]:
        docs = {d.source: d for d in self.read.documents}
        wanted = self.kept()
        if wanted:
            stored = stored_documents(self.index_dir)
            docs.update({s: stored[s] for s, sha in wanted.items() if _holds(stored, s, sha)})
            missing = {s for s in wanted if s not in docs}
            if missing:
                again = read_corpus(self.corpus, self.options)
                docs.update({d.source: d for d in again.documents if d.source in missing})
        return [docs[source] for source in sorted(docs)]

    def subset(self, sources: set[str]) -> list[Document]:
        """Return the documents of these sources, in source order: those parsed by this read
        (an added or changed file is), gathering the rest only if one is not."""
        docs = [d for d in self.read.documents if d.source in sources]
        if len(docs) < len(sources):
            docs = [d for d in self._all() if d.source in sources]
        return sorted(docs, key=lambda d: d.source)

    def __len__(self) -> int:
        return len(self._all())

    @overload
    def __getitem__(self, i: int) -> Document: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Document]: ...
    def __getitem__(self, i: int | slice) -> Document | Sequence[Document]:
        return self._all()[i]

    def __iter__(self) -> Iterator[Document]:
        return iter(self._all())


def _holds(stored: dict[str, Document], source: str, sha256: str) -> bool:
    """Whether the stored documents hold this source with these bytes."""
    doc = stored.get(source)
    return doc is not None and doc.sha256 == sha256


def stored_documents(index_dir: Path) -> dict[str, Document]:
    """Return the documents the live generation's units store, by source ({} when none)."""
    from policy_assistant.index.store.folder import live_generation
    from policy_assistant.index.store.units import UNITS_DIR
    from policy_assistant.index.store.units import stored_documents as stored_in

    try:
        return stored_in(live_generation(index_dir) / UNITS_DIR)
    except (PolicyAssistantError, OSError, ValueError, KeyError, TypeError, IndexError):
        return {}  # damaged units: the corpus is read again instead
