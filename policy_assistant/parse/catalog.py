"""The corpus catalog: the one place that labels documents with version, access and language.

A corpus folder may hold `catalog.toml` at its root, one table per document keyed by its
corpus-relative POSIX path. Markdown front matter is read as a fallback for documents the
catalog does not list. A document labelled by neither is treated as `staff` (fail closed)
and reported.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from policy_assistant.errors import DocumentError, PolicyAssistantError
from policy_assistant.records import ACCESS_LABELS, DocumentMeta

CATALOG_NAME = "catalog.toml"
"""File name of the catalog at a corpus root."""

META_KEYS = ("title", "version", "access", "language")


@dataclass(frozen=True)
class Catalog:
    """Document metadata keyed by corpus-relative path."""

    entries: dict[str, dict[str, str]] = field(default_factory=dict)
    """Raw catalog tables, validated."""
    path: Path | None = None
    """Where the catalog was read from, if anywhere."""

    def has(self, source: str) -> bool:
        """Return whether the catalog lists `source`."""
        return source in self.entries

    def meta_for(self, source: str, fallback: dict[str, str] | None = None) -> DocumentMeta:
        """Return the metadata of `source`; the catalog wins over `fallback` (front matter)."""
        merged = {**(fallback or {}), **self.entries.get(source, {})}
        return meta_from_fields(source, merged)


def meta_from_fields(source: str, fields: dict[str, str]) -> DocumentMeta:
    """Validate raw metadata fields into a DocumentMeta; unlabelled means staff."""
    access = fields.get("access")
    if access is not None and access not in ACCESS_LABELS:
        raise DocumentError(source, f"access label {access!r} is not one of public, staff")
    return DocumentMeta(
        title=fields.get("title") or None,
        version=str(fields.get("version") or "unversioned"),
        access=access or "staff",
        language=str(fields.get("language") or "en"),
        labelled=access is not None,
    )


def load_catalog(root: Path) -> Catalog:
    """Read `catalog.toml` at the corpus root; a corpus without one gets an empty catalog."""
    path = root / CATALOG_NAME
    if not path.is_file():
        return Catalog()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PolicyAssistantError(f"{CATALOG_NAME}: not valid TOML: {exc}") from exc
    return Catalog({key: _entry(key, value) for key, value in raw.items()}, path)


def _entry(key: str, value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise PolicyAssistantError(f"{CATALOG_NAME}: [{key}] must be a table of fields")
    unknown = sorted(set(value) - set(META_KEYS))
    if unknown:
        raise PolicyAssistantError(f"{CATALOG_NAME}: [{key}] has unknown fields: {unknown}")
    return {name: str(field_value) for name, field_value in value.items()}
