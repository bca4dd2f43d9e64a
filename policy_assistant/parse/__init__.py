"""Parse a corpus: discover files, read the catalog, and turn each file into a Document.

`read_corpus` is the one reader every command uses; `parse_bytes` parses one file's bytes.
"""

from __future__ import annotations

from pathlib import Path

from policy_assistant.parse.cache import DEFAULT_CACHE_DIR, ParseCache
from policy_assistant.parse.catalog import CATALOG_NAME, Catalog, load_catalog
from policy_assistant.parse.corpus import (
    CorpusFile,
    CorpusOptions,
    CorpusRead,
    Progress,
    Reused,
    document_warnings,
    read_corpus,
    read_sources,
)
from policy_assistant.parse.discover import SUFFIXES, Discovery, discover, source_of
from policy_assistant.parse.dispatch import is_labelled, parse_bytes, parse_document
from policy_assistant.parse.files import DEFAULT_MAX_FILE_SIZE, printable, read_regular

DEFAULT_CORPUS = Path("corpus")
"""The corpus folder commands read when none is named."""

ParseResult = CorpusRead
"""The result of parsing a path (the name earlier callers know)."""

__all__ = [
    "CATALOG_NAME",
    "DEFAULT_CACHE_DIR",
    "DEFAULT_CORPUS",
    "DEFAULT_MAX_FILE_SIZE",
    "SUFFIXES",
    "Catalog",
    "CorpusFile",
    "CorpusOptions",
    "CorpusRead",
    "Discovery",
    "ParseCache",
    "ParseResult",
    "Progress",
    "Reused",
    "discover",
    "document_warnings",
    "is_labelled",
    "load_catalog",
    "parse_bytes",
    "parse_document",
    "parse_path",
    "printable",
    "read_corpus",
    "read_file",
    "read_sources",
    "source_of",
]


def read_file(path: Path, source: str) -> bytes:
    """Read a regular file's bytes within the size limit, or raise a DocumentError naming it."""
    return read_regular(path, source)


def parse_path(
    path: Path, progress: Progress | None = None, options: CorpusOptions | None = None
) -> CorpusRead:
    """Parse a file or a folder (recursively, in sorted order); bad files do not stop the rest."""
    return read_corpus(path, options, progress=progress)
