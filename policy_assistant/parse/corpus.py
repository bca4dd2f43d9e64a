"""The one corpus reader: discovery, catalog, safe reads, the parse cache, and every warning.

`parse`, `chunk`, `ingest`, `eval` and `inspect` all read a corpus through `read_corpus`, so
what they skip, refuse and warn about is the same everywhere.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from policy_assistant.errors import DocumentError, PolicyAssistantError, UsageError
from policy_assistant.ids import file_sha256
from policy_assistant.parse.cache import ParseCache
from policy_assistant.parse.catalog import CATALOG_NAME, Catalog, load_catalog
from policy_assistant.parse.discover import Discovery, discover, skipped_line
from policy_assistant.parse.dispatch import labelled_by, parse_document
from policy_assistant.parse.files import DEFAULT_MAX_FILE_SIZE, printable, read_regular
from policy_assistant.parse.globs import is_glob
from policy_assistant.records import ACCESS_LABELS, Document

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

    def check(self) -> None:
        """Refuse impossible options with a UsageError naming the option."""
        if self.default_access is not None and self.default_access not in ACCESS_LABELS:
            labels = " or ".join(ACCESS_LABELS)
            raise UsageError(f"--default-access must be {labels}, got {self.default_access!r}")
        if self.max_file_size <= 0:
            raise UsageError(f"--max-file-size must be above 0, got {self.max_file_size}")


@dataclass(frozen=True)
class CorpusFile:
    """One document file as read, before it is parsed."""

    source: str
    """Corpus-relative POSIX path: the document's ID."""
    path: Path
    """Where it was read from."""
    sha256: str
    """Hex SHA-256 of its bytes."""
    fields: dict[str, str]
    """Its catalog fields (Catalog.fields_for)."""


@dataclass(frozen=True)
class Reused:
    """What a caller that keeps its own copy of a document (ingest) says about it."""

    empty: bool
    """Whether the kept document has no text, so the reader warns as it would after a parse."""


Reuse = Callable[[CorpusFile], Reused | None]
"""Asked before each parse: a Reused means the caller keeps its copy and nothing is parsed."""


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


def read_corpus(
    path: Path,
    options: CorpusOptions | None = None,
    *,
    progress: Progress | None = None,
    reuse: Reuse | None = None,
    strict: bool = False,
    root: Path | None = None,
) -> CorpusRead:
    """Read a file or a folder into documents; bad files are listed and do not stop the rest.

    With `strict`, the first failure is raised instead. A path that holds no document at all
    is a PolicyAssistantError (exit 1), not an empty success. `root` names the corpus root
    when `path` is a folder or file inside it (sources and the catalog are the root's).
    """
    options = options or CorpusOptions()
    options.check()
    found = discover(path, options.include, options.exclude, root)
    catalog = load_catalog(found.root, options.default_access)
    result = CorpusRead(found.root, failures=list(found.failures), catalog=catalog)
    result.skipped = found.skipped
    if strict and result.failures:
        raise result.failures[0]
    cache = ParseCache(options.cache_dir) if options.cache_dir is not None else None
    for done, (source, file) in enumerate(zip(found.sources, found.files, strict=True), 1):
        try:
            _read_one(file, source, options, cache, reuse, result)
        except DocumentError as exc:
            if strict:
                raise
            result.failures.append(exc)
        if progress:
            progress(done, len(found.files), source)
    result.failures.sort(key=lambda e: e.source)
    result.notices = _notices(path, found, catalog)
    if not (result.documents or result.reused or result.failures):
        raise PolicyAssistantError(_nothing_to_read(path, found))
    return result


def _read_one(
    file: Path,
    source: str,
    options: CorpusOptions,
    cache: ParseCache | None,
    reuse: Reuse | None,
    result: CorpusRead,
) -> None:
    """Read, then reuse, take from the cache, or parse one document."""
    catalog = result.catalog
    data = read_regular(file, source, options.max_file_size)
    corpus_file = CorpusFile(source, file, file_sha256(data), catalog.fields_for(source))
    kept = reuse(corpus_file) if reuse is not None else None
    if kept is not None:
        result.reused.append(corpus_file)
        labelled = labelled_by(source, data, corpus_file.fields)
        result.warnings.extend(document_warnings(source, labelled, kept.empty))
        return
    key = ParseCache.key(source, corpus_file.sha256, corpus_file.fields) if cache else ""
    hit = cache.get(key) if cache else None
    if hit is None:
        document = parse_document(data, source, catalog)
        labelled = labelled_by(source, data, corpus_file.fields)
        result.parsed += 1
        if cache:
            cache.put(key, document, labelled)
    else:
        document, labelled = hit
    result.documents.append(document)
    result.warnings.extend(document_warnings(source, labelled, not document.blocks))


def document_warnings(source: str, labelled: bool, empty: bool) -> list[str]:
    """Return what to tell the user about one document."""
    out: list[str] = []
    if not labelled:
        out.append(f"{source}: no access label; treated as staff (fail closed)")
    if empty:
        out.append(f"{source}: no text; the document gives no chunks")
    return out


def _notices(path: Path, found: Discovery, catalog: Catalog) -> list[str]:
    """Return the corpus-level lines: hostile entries, catalog problems, skipped files."""
    notices = list(found.warnings) + list(catalog.problems)
    if path.is_dir() and Path(os.path.abspath(path)) == found.root:
        present = list(found.sources)
        present += [e.source for e in found.failures]
        notices += [_unmatched(key) for key in catalog.unmatched(present)]
    line = skipped_line(found.skipped)
    return notices + ([line] if line else [])


def _unmatched(key: str) -> str:
    where = "which matches no file in the corpus" if is_glob(key) else "which is not in the corpus"
    return f"{CATALOG_NAME}: lists {printable(key)}, {where}"


def _nothing_to_read(path: Path, found: Discovery) -> str:
    """Return the message for a path that holds no document."""
    shown = printable(os.fspath(path))
    line = skipped_line(found.skipped)
    what = "no documents to read" + (f" ({line})" if line else "")
    if found.warnings:
        what += "; refused: " + "; ".join(found.warnings[:3])
    return f"{shown}: {what}"
