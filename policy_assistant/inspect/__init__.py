"""See the cuts: a document with its chunks drawn over it, in the terminal or as a web page.

`inspect_document` finds, parses and chunks one document (or reads its chunks from an index);
`build_view` turns a document and its chunks into the marked view that `terminal` and `html`
draw; `write_pages` writes the self-contained pages of a document or of a folder.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from policy_assistant.atomic import atomic_write_bytes
from policy_assistant.chunk import Chunker
from policy_assistant.errors import DocumentError, UsageError
from policy_assistant.inspect.html import (
    IndexEntry,
    page_path,
    render_document_page,
    render_index_page,
)
from policy_assistant.inspect.index_source import IndexSource, open_index_source
from policy_assistant.inspect.pictures import pictures_for
from policy_assistant.inspect.source import load_document, load_folder, locate
from policy_assistant.inspect.variants import Variant, chunk_variant, preset_variants
from policy_assistant.inspect.view import View, build_view
from policy_assistant.parse import DEFAULT_CORPUS, CorpusOptions
from policy_assistant.records import Document

__all__ = [
    "DEFAULT_CORPUS",
    "Inspection",
    "Pages",
    "View",
    "build_view",
    "inspect_document",
    "write_document_page",
    "write_pages",
]


@dataclass(frozen=True, slots=True)
class Inspection:
    """One document and the chunking to show over it."""

    document: Document
    """The document as the parser reads it."""
    variant: Variant
    """Its chunks, made by a chunker or read from an index."""
    file: Path | None = None
    """The document's file, for the pictures of a PDF's pages on its HTML page."""

    def view(self) -> View:
        """Return the marked view of the chunks over the document."""
        return build_view(self.document, list(self.variant.chunks))


def _variant_for(doc: Document, chunker: Chunker, index: IndexSource | None) -> Variant:
    if index is None:
        return chunk_variant(doc, chunker)
    return index.variant(doc)


def _resolve(
    source: str, corpus: Path | None, index: Path | None
) -> tuple[Path, Path, IndexSource | None]:
    """Return the corpus root, the path of SOURCE in it, and the opened index if any."""
    opened = open_index_source(index) if index is not None else None
    root, path = locate(source, corpus or DEFAULT_CORPUS)
    return root, path, opened


def inspect_document(
    source: str,
    chunker: Chunker,
    corpus: Path | None = None,
    index: Path | None = None,
    options: CorpusOptions | None = None,
) -> Inspection:
    """Parse SOURCE and chunk it with `chunker`, or take its chunks from the index at `index`."""
    root, path, opened = _resolve(source, corpus, index)
    if path.is_dir():
        raise UsageError(f"{source} is a folder: name one document, or give --html FILE")
    doc = load_document(root, path, options)
    return Inspection(doc, _variant_for(doc, chunker, opened), path)


def write_document_page(
    inspection: Inspection, target: Path, back: str | None = None, warnings: Sequence[str] = ()
) -> Path:
    """Write the page of one document: every method at three sizes, opening on its chunking."""
    variants = preset_variants(inspection.document, [inspection.variant])
    initial = next(
        i
        for i, v in enumerate(variants)
        if v.spec == inspection.variant.spec and v.origin == inspection.variant.origin
    )
    pictures = pictures_for(inspection.file, inspection.document)
    page = render_document_page(inspection.document, variants, initial, back, warnings, pictures)
    atomic_write_bytes(target, page.encode("utf-8"))
    return target


@dataclass
class Pages:
    """What writing pages did."""

    target: Path
    """The page asked for: a document's page, or the index page of a folder."""
    pages: list[Path] = field(default_factory=list)
    """One page per document, in source order."""
    failures: list[DocumentError] = field(default_factory=list)
    """Documents that could not be parsed (no page for them)."""
    notices: list[str] = field(default_factory=list)
    """Lines about the folder as a whole (refused entries, skipped files), as the reader gives."""
    warnings: list[str] = field(default_factory=list)
    """Per-document warnings (no access label, no text), as the reader gives."""


def write_pages(
    source: str,
    chunker: Chunker,
    target: Path,
    corpus: Path | None = None,
    index: Path | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    options: CorpusOptions | None = None,
) -> Pages:
    """Write SOURCE's page at `target`; for a folder, an index page there and one page each."""
    root, path, opened = _resolve(source, corpus, index)
    if not path.is_dir():
        doc = load_document(root, path, options)
        inspection = Inspection(doc, _variant_for(doc, chunker, opened), path)
        page = write_document_page(inspection, target)
        return Pages(target, [page])
    read = load_folder(root, path, options=options)
    docs = read.documents
    result = Pages(target, failures=read.failures, notices=read.notices, warnings=read.warnings)
    entries = []
    for done, doc in enumerate(docs, 1):
        inspection = Inspection(doc, _variant_for(doc, chunker, opened), root / doc.source)
        page = target.parent / page_path(doc.source)
        back = Path(os.path.relpath(target, page.parent)).as_posix()
        own = [w for w in read.warnings if w.startswith(f"{doc.source}: ")]
        result.pages.append(write_document_page(inspection, page, back, own))
        entries.append(IndexEntry(doc, page_path(doc.source), len(inspection.variant.chunks)))
        if progress:
            progress(done, len(docs), doc.source)
    spec = opened.spec if opened else chunker.spec()
    title = f"{root.absolute().name}: chunks of {len(docs)} documents"
    said = [*read.notices, *read.warnings, *(str(f) for f in read.failures)]
    atomic_write_bytes(target, render_index_page(title, entries, spec, said).encode("utf-8"))
    return result
