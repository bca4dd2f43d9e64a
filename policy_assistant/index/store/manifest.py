"""The index manifest: settings, the live segments and the statistics search scores with.

Small whatever the corpus, so opening an index for search parses little: the per-document
entries stay with the segments (entries.py) until `Manifest.documents` is first read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from functools import cached_property
from pathlib import Path
from typing import Any

from policy_assistant import __version__
from policy_assistant.index.settings import UNIT_SETTINGS, BM25Settings
from policy_assistant.index.store.entries import DocumentEntry as DocumentEntry
from policy_assistant.index.store.entries import LiveSegment as LiveSegment
from policy_assistant.index.store.entries import SegmentEntries, read_entries
from policy_assistant.index.store.entries import ids_digest as ids_digest
from policy_assistant.index.tokenize import TOKENIZER_SETTINGS
from policy_assistant.records import ACCESS_LABELS
from policy_assistant.sentences import SENTENCES_VERSION
from policy_assistant.text import WORDS_VERSION

FORMAT_VERSION = 4
"""Version of the index folder layout (4: entries per segment); an index in any other is stale."""


@dataclass(frozen=True)
class Manifest:
    """Everything needed to tell whether an index is current, and to score its segments."""

    format_version: int
    """FORMAT_VERSION of the writer."""
    tool_version: str
    """policy_assistant.__version__ of the writer."""
    chunker: dict[str, Any]
    """The chunker's name and settings."""
    tokenizer: dict[str, Any]
    """TOKENIZER_SETTINGS the chunks were indexed with."""
    bm25: BM25Settings
    """BM25 variant and parameters."""
    segments: tuple[LiveSegment, ...] = ()
    """The live segments, in row order."""
    mean_idf: float = 0.0
    """okapi only: the mean idf over every live term (0 for lucene)."""
    document_count: int = 0
    """Documents indexed (their entries), those without chunks included."""
    access_labels: tuple[str, ...] = ACCESS_LABELS
    """Access labels, least restricted first; a segment's access.npy holds indexes into it."""
    files: dict[str, str] = field(default_factory=dict)
    """Hex SHA-256 of each generation-level file (empty.json, deletion masks, units), by
    POSIX path; each segment's own files are checked through its segment.json's SHA-256."""
    corpus: dict[str, Any] = field(default_factory=dict)
    """The corpus options ingest read with, where they differ from the defaults (sticky)."""
    units: dict[str, Any] = field(default_factory=dict)
    """UNIT_SETTINGS the retrieval units were cut with (empty in an index older than them)."""
    words: int = 1
    """text.WORDS_VERSION of the word counts stored (chunks' words, the units' columns): 1, the
    first definition, in an index older than the field."""
    sentences: int = 1
    """sentences.SENTENCES_VERSION of the rules the chunks and units were cut with: 1 in an
    index older than the field."""
    embedding: dict[str, Any] | None = None
    """The model the segments' vectors were made with and how (index/store/vectors.py), or
    None when the index holds no vectors."""
    folder: Path | None = field(default=None, compare=False, repr=False)
    """The generation it was read from (where its entries are), None for a new one."""
    given: tuple[DocumentEntry, ...] | None = field(default=None, compare=False, repr=False)
    """Entries of a manifest made in memory (create), not yet written."""

    @classmethod
    def create(
        cls,
        chunker: dict[str, Any],
        bm25: BM25Settings,
        documents: Sequence[DocumentEntry],
        corpus: dict[str, Any] | None = None,
        embedding: dict[str, Any] | None = None,
    ) -> Manifest:
        """Return a manifest for this tool version and tokenizer, documents sorted by source."""
        ordered = tuple(sorted(documents, key=lambda d: d.source))
        tokenizer = dict(TOKENIZER_SETTINGS)
        return cls(
            FORMAT_VERSION, __version__, dict(chunker), tokenizer, bm25,
            corpus=dict(corpus or {}), units=dict(UNIT_SETTINGS), words=WORDS_VERSION,
            sentences=SENTENCES_VERSION, embedding=embedding, given=ordered,
        )  # fmt: skip

    @cached_property
    def documents(self) -> tuple[DocumentEntry, ...]:
        """One entry per document, by source (read from the segments' entries on first use)."""
        if self.given is not None or self.folder is None:
            return self.given or ()
        return read_entries(self.folder, self.segments)

    def documents_through(self, known: SegmentEntries) -> tuple[DocumentEntry, ...]:
        """Return documents, reading the entries of only the segments `known` (a long-lived
        caller's cache: entries.SegmentEntries) does not hold."""
        if "documents" not in self.__dict__ and self.given is None and self.folder is not None:
            self.__dict__["documents"] = read_entries(self.folder, self.segments, known)
        return self.documents

    @property
    def rows(self) -> int:
        """Live rows (chunks) in the index."""
        return sum(s.live for s in self.segments)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        # Hand-written: segments in LiveSegment's flattened form, folder and given left out,
        # corpus left out when empty.
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        del data["folder"], data["given"]
        if not data["corpus"]:  # left out, so an index built with defaults reads as before
            del data["corpus"]
        if data["embedding"] is None:  # likewise: an index without vectors reads as before
            del data["embedding"]
        data["bm25"] = self.bm25.to_dict()
        data["segments"] = [s.to_dict() for s in self.segments]
        data["access_labels"] = list(self.access_labels)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], folder: Path | None = None) -> Manifest:
        """Rebuild a manifest from its JSON form."""
        # Hand-written: reads the flattened segments, and takes the folder it was read from.
        segments = tuple(LiveSegment.from_dict(s) for s in data["segments"])
        labels = tuple(data["access_labels"])
        bm25 = BM25Settings.from_dict(data["bm25"])
        given = {**data, "bm25": bm25, "segments": segments, "access_labels": labels}
        return cls(**given, folder=folder)
