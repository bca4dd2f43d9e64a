"""One file's bytes into a Document: the parser is chosen by the file's ending, loaded lazily."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from policy_assistant.errors import DocumentError
from policy_assistant.ids import file_sha256
from policy_assistant.parse.catalog import Catalog, meta_from_fields
from policy_assistant.parse.discover import SUFFIXES, suffix_of
from policy_assistant.parse.limits import check_words, cpu_limit
from policy_assistant.parse.read_records import AfterParse, Parsed
from policy_assistant.records import Document, DocumentMeta
from policy_assistant.text import count_words

MetaParser = Callable[[bytes, str, DocumentMeta, str], Document]
"""A parser taking (data, source, meta, sha256): every format but Markdown."""

PARSERS = {
    "pdf": ("policy_assistant.parse.pdf.reader", "parse_pdf"),
    "text": ("policy_assistant.parse.text", "parse_text"),
    "html": ("policy_assistant.parse.html", "parse_html"),
    "docx": ("policy_assistant.parse.docx", "parse_docx"),
    "pptx": ("policy_assistant.parse.pptx", "parse_pptx"),
}
"""Module and function of each parser that takes a DocumentMeta; imported only when used."""


def kind_of(source: str) -> str | None:
    """Return the parser kind for a source's ending, or None when no parser reads it."""
    return SUFFIXES.get(suffix_of(source))


def parse_bytes(data: bytes, source: str, catalog: Catalog, sha256: str | None = None) -> Document:
    """Parse one file's bytes, choosing the parser by the source's ending."""
    digest = sha256 or file_sha256(data)
    kind = kind_of(source)
    if kind == "markdown":
        from policy_assistant.parse.markdown import parse_markdown  # reads its own front matter

        return parse_markdown(data, source, catalog, digest)
    if kind is None:
        known = ", ".join(sorted(SUFFIXES))
        raise DocumentError(source, f"unsupported file type (expected one of {known})")
    return _load(kind, source)(data, source, catalog.meta_for(source), digest)


def _load(kind: str, source: str) -> MetaParser:
    """Import the parser of `kind`; one missing from this installation fails this file only."""
    module_name, function = PARSERS[kind]
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        suffix = Path(source).suffix.lower()
        problem = f"no parser for {suffix} in this installation"
        if exc.name and exc.name != module_name:  # the parser is there, a library it needs is not
            problem = f"{problem} (module {exc.name} is missing)"
        raise DocumentError(source, problem) from exc
    parser: MetaParser = getattr(module, function)
    return parser


def parse_document(data: bytes, source: str, catalog: Catalog) -> Document:
    """Parse one file, turning any parser crash into a DocumentError so the rest go on.

    A document whose catalog entry and front matter name no language gets the one its text
    is in (parse/language.py), kept with it in the parse cache and the index. The parse has
    a CPU-time limit (parse/limits.py).
    """
    try:
        with cpu_limit(source):
            document = parse_bytes(data, source, catalog)
            check_words(source, count_words(document.text))
            if _given_field("language", source, data, catalog.fields_for(source)):
                return document
            from policy_assistant.parse.language import detect_language

            return replace(document, language=detect_language(document.text, document.language))
    except DocumentError:
        raise
    except Exception as exc:  # a third-party parser may fail in ways it does not document
        raise DocumentError(source, f"parser failed: {type(exc).__name__}: {exc}") from exc


def parse_file(
    data: bytes, source: str, catalog: Catalog, after_parse: AfterParse | None
) -> Parsed:
    """Parse one file's bytes (and chunk the document); a DocumentError becomes its problem."""
    try:
        document = parse_document(data, source, catalog)
    except DocumentError as exc:
        return Parsed(None, False, None, exc.problem)
    fields, front = catalog.fields_for(source), _front_field("access", source, data)
    labelled = "default_access" in fields or "access" in fields or front is not None
    chunks = after_parse(document) if after_parse else None
    return Parsed(document, labelled, chunks, front_access=front)


def relabel(
    document: Document, fields: dict[str, str], front_access: str | None
) -> tuple[Document, bool] | None:
    """Return a cached parse labelled as the catalog fields (and its front matter) now say,
    and whether it is labelled; None when a label is invalid (then the parse says why)."""
    try:
        front = {"access": front_access} if front_access is not None else {}
        meta = meta_from_fields(document.source, fields, front)
    except DocumentError:
        return None
    if meta.access != document.access:
        document = replace(document, access=meta.access)
    return document, meta.labelled


def is_labelled(source: str, data: bytes, catalog: Catalog) -> bool:
    """Return whether the catalog, its defaults or front matter give `source` an access label."""
    return _labelled_by(source, data, catalog.fields_for(source))


def _labelled_by(source: str, data: bytes, fields: dict[str, str]) -> bool:
    """Return whether catalog `fields` (Catalog.fields_for) or front matter label `source`."""
    return "default_access" in fields or _given_field("access", source, data, fields)


def _given_field(name: str, source: str, data: bytes, fields: dict[str, str]) -> bool:
    """Return whether catalog `fields` or the file's front matter give the field `name`."""
    return name in fields or _front_field(name, source, data) is not None


def _front_field(name: str, source: str, data: bytes) -> str | None:
    """Return the field `name` of the file's front matter (Markdown only), or None."""
    if kind_of(source) != "markdown":
        return None
    from policy_assistant.parse.markdown import decode_markdown, split_front_matter

    try:
        return split_front_matter(decode_markdown(data, source))[0].get(name)
    except DocumentError:
        return None
