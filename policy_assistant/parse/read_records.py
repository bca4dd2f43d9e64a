"""What a read of a corpus takes and gives: its options, the files as read, and the result."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from policy_assistant.errors import DocumentError, UsageError
from policy_assistant.parse.catalog import Catalog
from policy_assistant.parse.file_table import DocMeta
from policy_assistant.parse.files import DEFAULT_MAX_FILE_SIZE
from policy_assistant.parse.globs import Glob, GlobError
from policy_assistant.procs.engine import Engine
from policy_assistant.records import ACCESS_LABELS, Chunk, Document

AfterParse = Callable[[Document], list[Chunk]]
"""Work done on each document where it was parsed, in the worker that parsed it: ingest and
`chunk` pass a chunker's `chunk`, so a document is chunked without crossing processes twice."""

Progress = Callable[[int, int, str], None]
"""Called as progress(done, total, source) after each file."""


@dataclass(frozen=True)
class CorpusOptions:
    """How to read a corpus: which files, the default label, the size limit and the cache."""

    include: tuple[str, ...] = ()
    """Globs a file must match one of to be read (none: every document)."""
    exclude: tuple[str, ...] = ()
    """Globs of files (or folders) left out; exclude wins over include."""
    default_access: str | None = None
    """Access label for documents nothing else labels; None leaves them staff, with a warning."""
    cache_dir: Path | None = None
    """Folder of the parse cache; None parses every file."""
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    """Largest file read, in bytes; a larger document is a failure."""
    workers: int | None = None
    """Processes that parse (1: this one alone); None: one per core this process may use."""
    engine: Engine | None = None
    """Where files are parsed: None or a local Engine, forked workers here; a "ray" Engine,
    Ray tasks (procs/ray_pool.py), all files of the read but those kept or in the cache."""

    def check(self) -> None:
        """Refuse impossible options with a UsageError naming the option."""
        if self.default_access is not None and self.default_access not in ACCESS_LABELS:
            labels = " or ".join(ACCESS_LABELS)
            raise UsageError(f"--default-access must be {labels}, got {self.default_access!r}")
        if self.max_file_size <= 0:
            raise UsageError(f"--max-file-size must be above 0, got {self.max_file_size}")
        if self.workers is not None and self.workers < 1:
            raise UsageError(f"--workers must be 1 or more, got {self.workers}")
        for option, patterns in (("--include", self.include), ("--exclude", self.exclude)):
            for pattern in patterns:
                try:
                    Glob(pattern).check()
                except GlobError as exc:
                    raise UsageError(f"{option}: {exc}") from None


@dataclass(frozen=True)
class CorpusFile:
    """One document file as read, before it is parsed."""

    source: str
    """Corpus-relative POSIX path: the document's ID."""
    path: str
    """Where it was read from (an OS path)."""
    sha256: str
    """Hex SHA-256 of its bytes."""
    fields: dict[str, str]
    """Its catalog fields (Catalog.fields_for)."""
    meta: DocMeta | None = None
    """What a parse of these bytes under these fields gave, when the file table knows it."""
    info: os.stat_result | None = None
    """Its stat, taken before it was read (None without a file table)."""


@dataclass(frozen=True)
class Reused:
    """What a caller that keeps its own copy of a document (ingest) says about it."""

    empty: bool
    """Whether the kept document has no text, so the reader warns as it would after a parse."""


Reuse = Callable[[CorpusFile], Reused | None]
"""Asked before each parse of a file whose meta the file table knows: a Reused means the
caller keeps its copy, and the file is neither parsed nor read."""


@dataclass
class CorpusRead:
    """Everything one read of a corpus found."""

    root: Path
    """The corpus root that sources are relative to."""
    documents: list[Document] = field(default_factory=list)
    """Parsed (or cached) documents, in sorted source order."""
    failures: list[DocumentError] = field(default_factory=list)
    """One error per document that should have been read and could not."""
    warnings: list[str] = field(default_factory=list)
    """One line per document worth a word (no access label, no text), in source order."""
    notices: list[str] = field(default_factory=list)
    """Lines about the corpus as a whole, never folded away: hostile entries, catalog keys that
    match nothing, a refused catalog, and what was skipped."""
    skipped: Counter[str] = field(default_factory=Counter)
    """Files that are not documents, counted by extension."""
    reused: list[CorpusFile] = field(default_factory=list)
    """Files the caller's reuse hook kept, in source order (not parsed)."""
    catalog: Catalog = field(default_factory=Catalog)
    """The catalog the documents were labelled with."""
    parsed: int = 0
    """How many files went through a parser (cache hits and reused files do not)."""
    chunked: dict[str, list[Chunk]] = field(default_factory=dict)
    """Chunks of the documents parsed in this read, by source, when it had a hook."""

    def chunks_of(self, document: Document, after_parse: AfterParse) -> list[Chunk]:
        """Return a document's chunks: those made where it was parsed, else chunked now.

        `after_parse` must be the one the read was given (chunking it again gives the same chunks).
        """
        made = self.chunked.get(document.source)
        return made if made is not None else after_parse(document)


@dataclass(frozen=True)
class Parsed:
    """What parsing one file gave: it crosses from a worker process, so it is plain data."""

    document: Document | None
    """The document, or None when it could not be parsed."""
    labelled: bool
    """Whether the catalog or front matter gave it an access label."""
    chunks: list[Chunk] | None
    """Its chunks, when the reader was given an after_parse hook."""
    problem: str | None = None
    """Why it could not be parsed (a DocumentError's problem)."""
    front_access: str | None = None
    """The access label the file's own front matter gives, if any: kept with a cached parse,
    so that a catalog label change relabels the document without parsing it again."""


def document_warnings(source: str, labelled: bool, empty: bool) -> list[str]:
    """Return what to tell the user about one document."""
    out: list[str] = []
    if not labelled:
        out.append(f"{source}: no access label; treated as staff (fail closed)")
    if empty:
        out.append(f"{source}: no text; the document gives no chunks")
    return out
