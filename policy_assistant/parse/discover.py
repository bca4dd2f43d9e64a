"""Find the documents under a path: sorted, corpus-relative, never leaving the corpus."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from policy_assistant.errors import DocumentError, UsageError
from policy_assistant.parse.catalog import CATALOG_NAME

SUFFIXES = {".pdf": "pdf", ".md": "markdown", ".markdown": "markdown"}
"""File endings the parsers read, and which parser reads each."""


@dataclass(frozen=True)
class Discovery:
    """What a walk found: the corpus root, the files to parse, and what was refused."""

    root: Path
    """The corpus root that sources are relative to."""
    files: list[Path] = field(default_factory=list)
    """Files to parse, in sorted source order."""
    failures: list[DocumentError] = field(default_factory=list)
    """Files that cannot be parsed (unsupported type, a link out of the corpus)."""


def source_of(path: Path, root: Path) -> str:
    """Return the corpus-relative POSIX path of a file: the document's ID."""
    return path.relative_to(root).as_posix()


def find_root(path: Path) -> Path:
    """Return the corpus root of a file: the nearest folder above it with a catalog."""
    for parent in path.parents:
        if (parent / CATALOG_NAME).is_file():
            return parent
    return path.parent


def discover(path: Path) -> Discovery:
    """Walk a folder (or take one file) and sort what is parseable from what is not."""
    if not path.exists():
        raise UsageError(f"{path}: no such file or folder")
    if path.is_file():
        root = find_root(path.absolute())
        found = Discovery(root)
        _consider(path.absolute(), root, found)
        return found
    root = path.absolute()
    found = Discovery(root)
    for candidate in _walk(root):
        _consider(candidate, root, found)
    found.files.sort(key=lambda p: source_of(p, root))
    return found


def _walk(root: Path) -> list[Path]:
    out: list[Path] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        base = Path(folder)
        out.extend(base / d for d in dirs if (base / d).is_symlink())
        out.extend(base / name for name in sorted(files) if not name.startswith("."))
    return out


def _consider(candidate: Path, root: Path, found: Discovery) -> None:
    source = source_of(candidate, root)
    if source == CATALOG_NAME:
        return
    if candidate.is_symlink() and not _inside(candidate.resolve(), root.resolve()):
        found.failures.append(DocumentError(source, "link points outside the corpus"))
        return
    if candidate.is_dir():
        return
    if candidate.suffix.lower() not in SUFFIXES:
        suffix = candidate.suffix or "(none)"
        problem = f"unsupported file type {suffix} (expected .pdf or .md)"
        found.failures.append(DocumentError(source, problem))
        return
    found.files.append(candidate)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
