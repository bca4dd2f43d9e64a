"""Documents from `parse --json` output, or from a corpus: what `chunk` reads."""

from __future__ import annotations

import sys
from pathlib import Path

from policy_assistant.errors import DocumentError, UsageError
from policy_assistant.jsonio import JSONDecodeError, loads
from policy_assistant.parse.corpus import read_corpus
from policy_assistant.parse.read_records import AfterParse, CorpusOptions, CorpusRead, Progress
from policy_assistant.records import Document

PARSE_OUTPUT_SUFFIXES = (".jsonl", ".ndjson")
"""Files read as parse output (one Document per line) rather than parsed."""


CHUNK_RECORD = (
    "line {number} is a chunk record (`chunk --json` output), not a parsed document: give "
    "`chunk` the corpus, a document or `parse --json` output"
)
"""What a chunk record read as parse output is told: the chunker would take it for a document."""


def read_documents(
    path: Path,
    options: CorpusOptions | None = None,
    progress: Progress | None = None,
    after_parse: AfterParse | None = None,
) -> CorpusRead:
    """Return the documents of a parse output (.jsonl, or - for stdin), or parse a corpus.

    A corpus's documents go through `after_parse` where they are parsed (CorpusRead.chunks_of).
    """
    if path == Path("-"):
        data = sys.stdin.buffer.read()
        return CorpusRead(root=Path("."), documents=_parse_output_documents(data, "<stdin>"))
    if path.is_file() and path.suffix.lower() in PARSE_OUTPUT_SUFFIXES:
        return CorpusRead(root=path.parent, documents=_read_parse_output(path))
    return read_corpus(path, options, progress=progress, after_parse=after_parse)


def _read_parse_output(path: Path) -> list[Document]:
    """Read Documents from JSON lines written by `parse --json`; a bad line is a DocumentError."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    return _parse_output_documents(data, path.name)


def _parse_output_documents(data: bytes, name: str) -> list[Document]:
    """Return the Documents of `parse --json` lines; a bad line is a DocumentError."""
    documents = []
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = loads(line)
            if isinstance(record, dict) and {"id", "position"} <= record.keys():
                raise DocumentError(name, CHUNK_RECORD.format(number=number))
            documents.append(Document.from_dict(record))
        except (JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            problem = f"line {number} is not a parsed document ({type(exc).__name__}: {exc})"
            raise DocumentError(name, problem) from exc
    return documents
