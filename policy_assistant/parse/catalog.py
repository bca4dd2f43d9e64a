"""The corpus catalog: the one place that labels documents with version, access and language.

A corpus folder may hold `catalog.toml` at its root. A table's key is a corpus-relative POSIX
path (`"policies/warranty-policy.pdf"`) or a glob over such paths (`"staff/**"`,
`"policies/*.pdf"`), and a top-level `[defaults]` table labels what no key does. Each field is
taken from the most specific table that sets it: an exact path beats any glob; among globs the
one with more literal characters wins, then the one with fewer wildcards, then the key that
sorts first. Access labels from the catalog and from Markdown front matter combine by the more
restrictive (staff over public); `[defaults]`, then the caller's default access, label only what
neither gives. Other fields: the catalog wins over front matter, which wins over `[defaults]`.
A document labelled by nothing is treated as `staff` (fail closed) and reported.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from policy_assistant.errors import DocumentError, PolicyAssistantError
from policy_assistant.parse.files import read_regular
from policy_assistant.parse.globs import Glob, GlobError, is_glob
from policy_assistant.records import ACCESS_LABELS, Access, DocumentMeta, is_access

CATALOG_NAME = "catalog.toml"
"""File name of the catalog at a corpus root."""

DEFAULTS_KEY = "defaults"
"""The top-level table that labels documents no other key matches."""

META_KEYS = ("title", "version", "access", "language")
"""Fields a catalog table may set."""

DEFAULT_KEYS = ("version", "access", "language")
"""Fields `[defaults]` may set (a title for every document would be no title)."""

RESTRICTIVENESS: dict[Access, int] = {"public": 0, "staff": 1}
"""Order of access labels, least restrictive first: where two labels meet, the higher wins."""


@dataclass(frozen=True)
class Catalog:
    """Document metadata keyed by corpus-relative path or glob."""

    entries: dict[str, dict[str, str]] = field(default_factory=dict)
    """Catalog tables by key (a path or a glob), validated; `[defaults]` not among them."""
    path: Path | None = None
    """Where the catalog was read from, if anywhere."""
    defaults: dict[str, str] = field(default_factory=dict)
    """The `[defaults]` table."""
    default_access: str | None = None
    """Access label for documents neither the catalog nor front matter labels (the caller's)."""
    problems: tuple[str, ...] = ()
    """Why the catalog file was not read, when it was refused (one warning line each)."""

    @cached_property
    def _globs(self) -> list[tuple[Glob, dict[str, str]]]:
        globs = [(Glob(key), value) for key, value in self.entries.items() if is_glob(key)]
        # Most specific first; the key breaks ties so the order never depends on the file.
        return sorted(globs, key=lambda g: (*(-n for n in g[0].specificity), g[0].pattern))

    def has(self, source: str) -> bool:
        """Return whether any catalog key (exact or glob) matches `source`."""
        return source in self.entries or any(g.matches(source) for g, _ in self._globs)

    def fields_for(self, source: str) -> dict[str, str]:
        """Return the catalog's fields for `source`: exact key, then globs, most specific first.

        `[defaults]` and the default access appear as `default_<field>`, since front matter
        overrides them but not the catalog's own fields.
        """
        exact = self.entries.get(source, {})
        if not self._globs and not self._defaults:
            return dict(exact)  # no glob and no default: the common case, a file of 100,000
        tables = [exact]
        tables += [value for glob, value in self._globs if glob.matches(source)]
        merged: dict[str, str] = {}
        for table in reversed(tables):  # the most specific table goes last, so it wins
            merged.update(table)
        merged.update({f"default_{k}": v for k, v in self._defaults.items() if k not in merged})
        return merged

    @cached_property
    def _defaults(self) -> dict[str, str]:
        """The defaults every source falls back to: `[defaults]` and the default access."""
        defaults = dict(self.defaults)
        if self.default_access is not None:
            defaults.setdefault("access", self.default_access)
        return defaults

    def meta_for(self, source: str, fallback: dict[str, str] | None = None) -> DocumentMeta:
        """Return the metadata of `source`, with `fallback` the document's front matter."""
        return meta_from_fields(source, self.fields_for(source), fallback or {})

    def unmatched(self, sources: Iterable[str]) -> list[str]:
        """Return the catalog keys that match none of `sources`, sorted."""
        present = list(sources)
        known = set(present)
        missing = [k for k in self.entries if not is_glob(k) and k not in known]
        missing += [
            g.pattern
            for g, _ in self._globs
            if g.pattern not in known and not any(g.matches(s) for s in present)
        ]
        return sorted(missing)


def meta_from_fields(
    source: str, catalog: dict[str, str], front: dict[str, str] | None = None
) -> DocumentMeta:
    """Combine catalog fields and front matter into a DocumentMeta; unlabelled means staff."""
    front = front or {}
    given = (catalog.get("access"), front.get("access"))
    labels = [_checked_access(source, v) for v in given if v is not None]
    default = catalog.get("default_access")
    access: Access | None = None
    if labels:
        most: Access = max(labels, key=RESTRICTIVENESS.__getitem__)
        access = most
    elif default is not None:
        access = _checked_access(source, default)

    def pick(name: str) -> str | None:
        """Return a field: the catalog's, else the front matter's, else the default."""
        return catalog.get(name) or front.get(name) or catalog.get(f"default_{name}") or None

    return DocumentMeta(
        title=catalog.get("title") or front.get("title") or None,
        version=str(pick("version") or "unversioned"),
        access=access or "staff",
        language=str(pick("language") or "en"),
        labelled=access is not None,
    )


def _checked_access(source: str, label: str) -> Access:
    if not is_access(label):
        raise DocumentError(source, f"access label {label!r} is not one of public, staff")
    return label


def load_catalog(root: Path, default_access: str | None = None) -> Catalog:
    """Read `catalog.toml` at the corpus root; a corpus without one gets an empty catalog.

    A catalog that is not a regular file, or a link that leaves the corpus, is refused: the
    result is an empty catalog whose `problems` say why.
    """
    path = root / CATALOG_NAME
    if not os.path.lexists(path):
        return Catalog(default_access=default_access)
    refused = _refusal(path, root)
    if refused:
        return Catalog(default_access=default_access, problems=(f"{CATALOG_NAME}: {refused}",))
    try:
        text = read_regular(path, CATALOG_NAME).decode("utf-8-sig")
        raw = tomllib.loads(text)
    except DocumentError as exc:
        note = f"{exc}; not read, so it labels nothing"
        return Catalog(default_access=default_access, problems=(note,))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PolicyAssistantError(f"{CATALOG_NAME}: not valid TOML: {exc}") from exc
    defaults = _entry(DEFAULTS_KEY, raw.pop(DEFAULTS_KEY, {}), DEFAULT_KEYS)
    if "access" in defaults:
        _check_defaults_access(defaults["access"])
    entries = {key: _entry(key, value, META_KEYS) for key, value in raw.items()}
    _check_globs(entries)
    return Catalog(entries, path, defaults, default_access)


def _check_globs(entries: dict[str, dict[str, str]]) -> None:
    """Refuse a glob key that cannot be matched, naming the catalog and the key."""
    for key in entries:
        try:
            if is_glob(key):
                Glob(key).check()
        except GlobError as exc:
            raise PolicyAssistantError(f"{CATALOG_NAME}: key {exc}") from None


def _refusal(path: Path, root: Path) -> str:
    """Return why the catalog at `path` may not be read, or an empty string."""
    if path.is_symlink():
        target = Path(os.path.realpath(path))
        if not target.is_relative_to(Path(os.path.realpath(root))):
            return "links outside the corpus; not read, so it labels nothing"
    return ""


def _check_defaults_access(label: str) -> None:
    if label not in ACCESS_LABELS:
        problem = f"[{DEFAULTS_KEY}] access {label!r} is not one of public, staff"
        raise PolicyAssistantError(f"{CATALOG_NAME}: {problem}")


def _entry(key: str, value: Any, allowed: tuple[str, ...]) -> dict[str, str]:
    if not isinstance(value, dict):
        raise PolicyAssistantError(f"{CATALOG_NAME}: [{key}] must be a table of fields")
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise PolicyAssistantError(f"{CATALOG_NAME}: [{key}] has unknown fields: {unknown}")
    return {name: str(field_value) for name, field_value in value.items()}
