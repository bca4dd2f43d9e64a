"""The one corpus reader: discovery, catalog, safe reads, the parse cache, and every warning.

`parse`, `chunk`, `ingest`, `eval` and `inspect` all read a corpus through `read_corpus`, so
what they skip, refuse and warn about is the same everywhere.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path

from policy_assistant.collector import fewer_collections
from policy_assistant.errors import DocumentError, PolicyAssistantError
from policy_assistant.parse.cache import ParseCache, parser_fingerprint
from policy_assistant.parse.catalog import CATALOG_NAME, Catalog, load_catalog
from policy_assistant.parse.discover import (
    Discovery,
    discover,
    discover_sources,
    skipped_line,
)
from policy_assistant.parse.dispatch import parse_file
from policy_assistant.parse.file_table import FileTable
from policy_assistant.parse.files import printable
from policy_assistant.parse.globs import is_glob
from policy_assistant.parse.language import use_model_folder
from policy_assistant.parse.pdf.ocr import ocr_state
from policy_assistant.parse.read_records import AfterParse
from policy_assistant.parse.read_records import (  # re-exported: the reader's records
    CorpusFile as CorpusFile,
)
from policy_assistant.parse.read_records import (
    CorpusOptions as CorpusOptions,
)
from policy_assistant.parse.read_records import (
    CorpusRead as CorpusRead,
)
from policy_assistant.parse.read_records import (
    Parsed as Parsed,
)
from policy_assistant.parse.read_records import (
    Progress as Progress,
)
from policy_assistant.parse.read_records import (
    Reuse as Reuse,
)
from policy_assistant.parse.read_records import (
    Reused as Reused,
)
from policy_assistant.parse.read_records import (
    document_warnings as document_warnings,
)
from policy_assistant.parse.reading import Reader


def read_corpus(
    path: Path,
    options: CorpusOptions | None = None,
    *,
    progress: Progress | None = None,
    reuse: Reuse | None = None,
    strict: bool = False,
    root: Path | None = None,
    after_parse: AfterParse | None = None,
) -> CorpusRead:
    """Read a file or a folder into documents; bad files are listed and do not stop the rest.

    With `strict`, the first failure is raised instead. A path that holds no document at all
    is a PolicyAssistantError (exit 1), not an empty success. `root` names the corpus root
    when `path` is a folder or file inside it (sources and the catalog are the root's). With
    a `after_parse`, each document parsed is chunked where it was parsed (see CorpusRead.chunks_of).
    """
    options = options or CorpusOptions()
    options.check()
    found = discover(path, options.include, options.exclude, root)
    read = _read_found(found, options, progress, reuse, strict, after_parse, table=True)
    if read.table is not None:
        read.table.save(whole=_whole_root(path, options, found))
    result = read.result
    result.notices = [*_notices(path, found, result.catalog), *result.notices]
    if root is None or _absolute_path(root) == _absolute_path(path):  # a part keeps the rest
        _prune_cache(result, options.cache_dir)
    if not (result.documents or result.reused or result.failures):
        raise PolicyAssistantError(_nothing_to_read(path, found))
    return result


def _absolute_path(path: Path) -> str:
    """Return the path absolute with '..' folded, to tell a whole corpus from a part of it."""
    return os.path.abspath(path)


def _prune_cache(read: CorpusRead, cache_dir: Path | None) -> None:
    """After a whole read that parsed something, drop the parse cache's entries it left
    unused (ParseCache.prune): every command's cache is bounded by what its corpus needs."""
    if cache_dir is None or not read.parsed:
        return  # nothing was added: the cache is no larger than after the last prune
    ocr, fields_for = ocr_state(), read.catalog.fields_for
    used = {ParseCache.key(f.source, f.sha256, f.fields, ocr) for f in read.reused}
    used |= {ParseCache.key(d.source, d.sha256, fields_for(d.source), ocr) for d in read.documents}
    ParseCache(cache_dir).prune(used)


def read_sources(
    root: Path,
    sources: Iterable[str],
    options: CorpusOptions | None = None,
    *,
    reuse: Reuse | None = None,
    after_parse: AfterParse | None = None,
) -> CorpusRead:
    """Read only these corpus-relative sources of the corpus at root, as read_corpus would
    read them in the whole corpus; a source that is gone (or not a document) reads as nothing.

    For a caller told what changed (watch). The file table is neither read nor written (it
    is the whole corpus's, written whole): the next full read hashes these files again and
    takes their parses from the cache.
    """
    options = options or CorpusOptions()
    options.check()
    found = discover_sources(root, sources, options.include, options.exclude)
    result = _read_found(found, options, None, reuse, False, after_parse, table=False).result
    result.notices = [*found.warnings, *result.notices]
    return result


@dataclass
class _Read:
    """A read's result and the file table it used (None without one)."""

    result: CorpusRead
    table: FileTable | None


def _read_found(
    found: Discovery,
    options: CorpusOptions,
    progress: Progress | None,
    reuse: Reuse | None,
    strict: bool,
    after_parse: AfterParse | None,
    table: bool,
) -> _Read:
    """Read the files a discovery found (with the file table, if `table`), in source order."""
    catalog = load_catalog(found.root, options.default_access)
    result = CorpusRead(found.root, failures=list(found.failures), catalog=catalog)
    result.skipped = found.skipped
    if strict and result.failures:
        raise result.failures[0]
    cache = ParseCache(options.cache_dir) if options.cache_dir is not None else None
    if cache is not None:
        cache.tag()
    use_model_folder(options.cache_dir)
    files = _file_table(options, found.root) if table else None
    reader = Reader(options, cache, reuse, result, after_parse, parse_file, files)
    arrived = _counter(progress, len(found.files))
    with ExitStack() as stack, fewer_collections():
        for step in reader.outcomes(found, stack, arrived):
            try:
                reader.finish(step)
            except DocumentError as exc:
                if strict:
                    raise
                result.failures.append(exc)
    full = cache.full_notice() if cache is not None else None
    result.notices += [full] if full else []
    result.failures.sort(key=lambda e: e.source)
    result.reused.sort(key=attrgetter("source"))  # files kept by stat come ahead of their turn
    return _Read(result, files)


def _file_table(options: CorpusOptions, root: Path) -> FileTable | None:
    """Return the file table of root in the parse cache's folder (None without a cache)."""
    if options.cache_dir is None:
        return None
    return FileTable(options.cache_dir, root, parser_fingerprint(), ocr_state())


def _whole_root(path: Path, options: CorpusOptions, found: Discovery) -> bool:
    """Whether a read saw every document of its root (so what it did not see is gone)."""
    if options.include or options.exclude:
        return False
    return path.is_dir() and Path(os.path.abspath(path)) == found.root


def _counter(progress: Progress | None, total: int) -> Callable[[str], None]:
    """Return what to call as each file's outcome arrives: progress with the count so far."""
    count = [0]

    def arrived(source: str) -> None:
        count[0] += 1
        if progress is not None:
            progress(count[0], total, source)

    return arrived


def _notices(path: Path, found: Discovery, catalog: Catalog) -> list[str]:
    """Return the corpus-level lines: hostile entries, catalog problems, skipped files."""
    notices = list(found.warnings) + list(catalog.problems)
    if path.is_dir() and Path(os.path.abspath(path)) == found.root:
        present = list(found.sources)
        present += [e.source for e in found.failures]
        notices += _unmatched_lines(catalog.unmatched(present))
    line = skipped_line(found.skipped)
    return notices + ([line] if line else [])


UNMATCHED_SHOWN = 5
"""Catalog keys that match nothing named one per line; the rest are counted on one more."""


def _unmatched_lines(keys: list[str]) -> list[str]:
    """Return a line per catalog key that matches nothing, the first few only, then a count."""
    lines = [_unmatched(key) for key in keys[:UNMATCHED_SHOWN]]
    if len(keys) > UNMATCHED_SHOWN:
        more = len(keys) - UNMATCHED_SHOWN
        lines.append(f"{CATALOG_NAME}: and {more:,} more keys that match nothing in the corpus")
    return lines


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
