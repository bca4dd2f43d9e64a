"""Parse a corpus: discover files, read the catalog, and turn each file into a Document."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from policy_assistant.errors import DocumentError
from policy_assistant.ids import file_sha256
from policy_assistant.parse.catalog import CATALOG_NAME, Catalog, load_catalog
from policy_assistant.parse.discover import SUFFIXES, Discovery, discover, source_of
from policy_assistant.records import Document

DEFAULT_CORPUS = Path("corpus")
"""The corpus folder commands read when none is named."""

Progress = Callable[[int, int, str], None]
"""Called as progress(done, total, source) after each file."""

__all__ = [
    "CATALOG_NAME",
    "DEFAULT_CORPUS",
    "Catalog",
    "Discovery",
    "ParseResult",
    "Progress",
    "catalog_warnings",
    "discover",
    "is_labelled",
    "load_catalog",
    "parse_bytes",
    "parse_document",
    "parse_path",
    "read_file",
    "source_of",
]


@dataclass
class ParseResult:
    """Documents parsed from a path, with what failed and what deserves a warning."""

    root: Path
    """The corpus root that sources are relative to."""
    documents: list[Document] = field(default_factory=list)
    """Parsed documents, in sorted source order."""
    failures: list[DocumentError] = field(default_factory=list)
    """One error per file that could not be parsed."""
    warnings: list[str] = field(default_factory=list)
    """Things the user should know that did not stop a document (e.g. no access label)."""


def parse_bytes(data: bytes, source: str, catalog: Catalog, sha256: str | None = None) -> Document:
    """Parse one file's bytes, choosing the parser by the source's ending."""
    digest = sha256 or file_sha256(data)
    kind = SUFFIXES.get(Path(source).suffix.lower())
    if kind == "pdf":
        from policy_assistant.parse.pdf import parse_pdf  # pymupdf loads only when needed

        return parse_pdf(data, source, catalog.meta_for(source), digest)
    if kind == "markdown":
        from policy_assistant.parse.markdown import parse_markdown

        return parse_markdown(data, source, catalog, digest)
    raise DocumentError(source, "unsupported file type (expected .pdf or .md)")


def parse_document(data: bytes, source: str, catalog: Catalog) -> Document:
    """Parse one file, turning any parser crash into a DocumentError so the rest go on."""
    try:
        return parse_bytes(data, source, catalog)
    except DocumentError:
        raise
    except Exception as exc:  # a third-party parser may fail in ways it does not document
        raise DocumentError(source, f"parser failed: {type(exc).__name__}: {exc}") from exc


def read_file(path: Path, source: str) -> bytes:
    """Read a file's bytes, turning OS errors into a DocumentError that names it."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise DocumentError(source, f"cannot read: {exc.strerror or exc}") from exc


def parse_path(path: Path, progress: Progress | None = None) -> ParseResult:
    """Parse a file or a folder (recursively, in sorted order); bad files do not stop the rest."""
    found = discover(path)
    catalog = load_catalog(found.root)
    result = ParseResult(found.root, failures=list(found.failures))
    for done, file in enumerate(found.files, 1):
        source = source_of(file, found.root)
        try:
            data = read_file(file, source)
            document = parse_document(data, source, catalog)
        except DocumentError as exc:
            result.failures.append(exc)
        else:
            result.documents.append(document)
            result.warnings.extend(document_warnings(document, data, catalog))
        if progress:
            progress(done, len(found.files), source)
    result.failures.sort(key=lambda e: e.source)
    if path.is_dir():
        result.warnings.extend(catalog_warnings(catalog, found))
    return result


def is_labelled(source: str, data: bytes, catalog: Catalog) -> bool:
    """Return whether the catalog or the front matter gives `source` an access label."""
    if "access" in catalog.entries.get(source, {}):
        return True
    if SUFFIXES.get(Path(source).suffix.lower()) != "markdown":
        return False
    from policy_assistant.parse.markdown import decode_markdown, split_front_matter

    return "access" in split_front_matter(decode_markdown(data, source))[0]


def document_warnings(document: Document, data: bytes, catalog: Catalog) -> list[str]:
    """Return what to tell the user about one parsed document."""
    out: list[str] = []
    if not is_labelled(document.source, data, catalog):
        out.append(f"{document.source}: no access label; treated as staff (fail closed)")
    if not document.blocks:
        out.append(f"{document.source}: no text; the document gives no chunks")
    return out


def catalog_warnings(catalog: Catalog, found: Discovery) -> list[str]:
    """Return catalog entries that name no file in the corpus."""
    present = {source_of(f, found.root) for f in found.files}
    present |= {e.source for e in found.failures}
    missing = sorted(s for s in catalog.entries if s not in present)
    return [f"{CATALOG_NAME}: lists {s}, which is not in the corpus" for s in missing]
