"""Find the documents under a path: sorted, corpus-relative, never leaving the corpus.

The walk survives hostile trees: symlink loops, broken links, names that are not UTF-8,
folders nested past `MAX_DEPTH`, FIFOs and devices each become one warning line, and the rest
of the corpus is still read. Links are never followed into folders; a link to a file inside
the corpus is read, one that leaves it is refused.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path

from policy_assistant.errors import DocumentError, UsageError
from policy_assistant.parse.catalog import CATALOG_NAME
from policy_assistant.parse.files import file_kind, is_utf8_name, printable
from policy_assistant.parse.globs import Glob, excluded_folder, path_selected
from policy_assistant.text import counted

SUFFIXES = {
    ".pdf": "pdf",
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdx": "markdown",
    ".txt": "text",
    ".html": "html",
    ".htm": "html",
    ".docx": "docx",
    ".pptx": "pptx",
}
"""File endings the parsers read, and which parser reads each."""

MAX_DEPTH = 64
"""Folder levels below the corpus root that are walked; deeper folders give a warning."""

HIDDEN = "hidden"
"""Key under which hidden files are counted as skipped."""

EXCLUDED = "excluded"
"""Key under which files left out by --include / --exclude are counted as skipped."""


GENERATION = re.compile(r"gen-[0-9a-f]{16}(-b)?")
"""An index generation's folder name (index/folder.py's rule, copied: parse never imports index)."""

CACHE_TAG = "CACHEDIR.TAG"
"""The file that marks a cache folder (the Cache Directory Tagging Specification)."""

CACHE_SIGNATURE = b"Signature: 8a477f597d28d172789f06886806bc55"
"""How a cache tag starts."""


def _tool_folder(folder: str, names: Iterable[str]) -> str:
    """Return what a folder holding `names` is when a tool wrote it (an index, a cache), else "".

    Such a folder is never read as documents: an index's term lists would be indexed, and
    each run would add the next generation's files.
    """
    present = set(names) & {"CURRENT", "manifest.json", CACHE_TAG}
    if "CURRENT" in present and GENERATION.fullmatch(_head(folder, "CURRENT").strip()):
        return "an index folder"
    if "manifest.json" in present and GENERATION.fullmatch(os.path.basename(folder)):
        return "an index generation"
    if CACHE_TAG in present and _head(folder, CACHE_TAG).encode().startswith(CACHE_SIGNATURE):
        return "a cache folder"
    return ""


def _head(folder: str, name: str) -> str:
    """Return the first bytes of a small marker file as text ("" when unreadable)."""
    try:
        with open(os.path.join(folder, name), "rb") as handle:
            return handle.read(64).decode("ascii", "replace")
    except OSError:
        return ""


@dataclass(frozen=True)
class Discovery:
    """What a walk found: the corpus root, the files to parse, and what was refused or skipped."""

    root: Path
    """The corpus root that sources are relative to."""
    files: list[str] = field(default_factory=list)
    """Files to parse (OS paths: a Path per file costs more than its stat), in source order."""
    sources: list[str] = field(default_factory=list)
    """The corpus-relative source of each file, in the same order."""
    failures: list[DocumentError] = field(default_factory=list)
    """Documents that cannot be read (a link out of the corpus)."""
    warnings: list[str] = field(default_factory=list)
    """One line per hostile entry: loop, broken link, bad name, FIFO, device, deep folder."""
    skipped: Counter[str] = field(default_factory=Counter)
    """Files that are not documents, counted by extension (or `hidden`, `excluded`, the catalog)."""


@dataclass(frozen=True)
class _Walk:
    """What every step of one walk shares."""

    found: Discovery
    """Where results go."""
    real_root: str
    """The corpus root with links resolved, to tell whether a link leaves it."""
    include: tuple[Glob, ...]
    """--include patterns."""
    exclude: tuple[Glob, ...]
    """--exclude patterns."""


def source_of(path: Path, root: Path) -> str:
    """Return the corpus-relative POSIX path of a file: the document's ID."""
    return path.relative_to(root).as_posix()


def find_root(path: Path) -> Path:
    """Return the corpus root of a file: the nearest folder above it with a catalog."""
    for parent in path.parents:
        if os.path.lexists(parent / CATALOG_NAME):
            return parent
    return path.parent


def discover(
    path: Path,
    include: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
    root: Path | None = None,
) -> Discovery:
    """Walk a folder (or take one file) and sort what is parseable from what is not.

    Sources are relative to `root` when given (a folder inside a corpus), else to the folder
    walked, or for one file to the nearest folder above it holding a catalog.
    """
    if not os.path.lexists(path):
        raise UsageError(f"{printable(str(path))}: no such file or folder")
    target = Path(os.path.abspath(path))
    if root is not None:
        root = Path(os.path.abspath(root))
    else:
        root = target if path.is_dir() else find_root(target)
    walk = _Walk(
        Discovery(root),
        os.path.realpath(root),
        tuple(Glob(p) for p in include),
        tuple(Glob(p) for p in exclude),
    )
    if path.is_dir():
        _walk(walk, target, source_of(target, root))
    else:
        _entry(walk, str(target), source_of(target, root), target.name, 0, None)
    return _in_order(walk.found)


def discover_sources(
    root: Path,
    sources: Iterable[str],
    include: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
) -> Discovery:
    """Find what a walk of root would find at these corpus-relative sources (files or
    folders), and nothing else; a source that is gone, or that a walk would not reach (under
    a hidden folder, a link or too deep), is left out."""
    root = Path(os.path.abspath(root))
    walk = _Walk(
        Discovery(root),
        os.path.realpath(root),
        tuple(Glob(p) for p in include),
        tuple(Glob(p) for p in exclude),
    )
    wanted = set(sources)
    for source in sorted(wanted):
        if any(folder in wanted for folder in _folders_above(source)):
            continue  # walked with its folder
        full = os.path.join(root, source)
        if not os.path.lexists(full) or not _reached(root, source):
            continue
        name, depth = source.rsplit("/", 1)[-1], source.count("/")
        below = _entry(walk, full, source, name, depth, None)
        if below is not None:
            _walk(walk, Path(below[0]), below[1])
    return _in_order(walk.found)


def _folders_above(source: str) -> Iterator[str]:
    """Yield the sources of the folders above a source, nearest last."""
    at = source.find("/")
    while at > 0:
        yield source[:at]
        at = source.find("/", at + 1)


def _reached(root: Path, source: str) -> bool:
    """Whether a walk of root would go down to source: every folder above it a plain,
    visible folder, not a link, within MAX_DEPTH."""
    parts = source.split("/")
    if len(parts) > MAX_DEPTH + 1 or "" in parts or ".." in parts:
        return False
    folder = str(root)
    for part in parts[:-1]:
        folder = os.path.join(folder, part)
        if part.startswith(".") or not is_utf8_name(part) or os.path.islink(folder):
            return False
        if _holds_marker(folder) and _tool_folder(folder, os.listdir(folder)):
            return False
    return True


def _holds_marker(folder: str) -> bool:
    """Whether a folder may be a tool's (holds a marker file): cheap stats, no listing."""
    names = ("CURRENT", "manifest.json", CACHE_TAG)
    return any(os.path.lexists(os.path.join(folder, name)) for name in names)


def _in_order(found: Discovery) -> Discovery:
    """Return what a walk found, its files in source order."""
    ordered = sorted(zip(found.sources, found.files, strict=True))
    found.sources[:] = [source for source, _ in ordered]
    found.files[:] = [file for _, file in ordered]
    found.failures.sort(key=lambda e: e.source)
    return found


def _walk(walk: _Walk, top: Path, prefix: str) -> None:
    """Walk the tree iteratively (no recursion limit), sorted, one folder at a time."""
    start = "" if prefix == "." else f"{prefix}/"
    stack: list[tuple[str, str, int]] = [(str(top), start, start.count("/"))]
    while stack:
        folder, prefix, depth = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=attrgetter("name"))
        except OSError as exc:
            shown = printable(prefix.rstrip("/") or ".")
            walk.found.warnings.append(f"{shown}: cannot list the folder ({exc.strerror}); skipped")
            continue
        kind = _tool_folder(folder, (e.name for e in entries))
        if kind:
            shown = printable(prefix.rstrip("/") or ".")
            walk.found.warnings.append(f"{shown}: {kind}, not documents; skipped")
            continue
        below = [_entry(walk, e.path, prefix + e.name, e.name, depth, e) for e in entries]
        stack.extend(reversed([(f, f"{rel}/", depth + 1) for f, rel in filter(None, below)]))


def _mode(entry: os.DirEntry[str] | None, full: str) -> int:
    """Return an entry's file type: from the folder listing when it tells, else from lstat.

    Most file systems give the type in the listing, so a walk of 100,000 files makes no
    stat call per file (bench/bench_cores.py: bench_discovery).
    """
    if entry is not None:  # a file first: most entries are, and a link is neither of these
        if entry.is_file(follow_symlinks=False):
            return stat.S_IFREG
        if entry.is_dir(follow_symlinks=False):
            return stat.S_IFDIR
        if entry.is_symlink():
            return stat.S_IFLNK
    return os.lstat(full).st_mode  # a FIFO, a device, or a type the listing did not give


def _is_dir(entry: os.DirEntry[str] | None, full: str) -> bool:
    """Return whether an entry is a folder or a link to one (os.path.isdir)."""
    if entry is None:
        return os.path.isdir(full)
    try:
        return entry.is_dir()
    except OSError:
        return False


def _entry(
    walk: _Walk,
    full: str,
    rel: str,
    name: str,
    depth: int,
    entry: os.DirEntry[str] | None,
) -> tuple[str, str] | None:
    """Sort one entry (from a folder listing, if any); return (path, source) of a folder
    to walk into, else None."""
    found = walk.found
    if not is_utf8_name(name):
        found.warnings.append(f"{printable(rel)}: name is not valid UTF-8; skipped (rename it)")
        return None
    if name.startswith("."):
        found.skipped[HIDDEN] += not _is_dir(entry, full)
        return None
    if rel == CATALOG_NAME:
        # The catalog of a folder walked is read as the catalog, not skipped; named alone,
        # it is counted, so "no documents to read" says what was there.
        if entry is None:
            found.skipped[CATALOG_NAME] += 1
        return None
    chosen = walk.include or walk.exclude
    if chosen and not path_selected(rel, walk.include, walk.exclude):
        # An excluded folder is not walked at all (nothing in it is read or warned about):
        # it counts as one entry left out. A folder only outside --include is walked.
        folder = _is_dir(entry, full)
        if not folder or excluded_folder(rel, walk.exclude):
            found.skipped[EXCLUDED] += 1
            return None
    try:
        mode = _mode(entry, full)
        if stat.S_ISLNK(mode):
            _link(walk, full, rel)
            return None
    except OSError as exc:
        found.warnings.append(f"{printable(rel)}: cannot read ({exc.strerror}); skipped")
        return None
    if stat.S_ISDIR(mode):
        return _folder(walk, full, rel, depth)
    _file(walk, full, rel, mode)
    return None


def _folder(walk: _Walk, full: str, rel: str, depth: int) -> tuple[str, str] | None:
    if depth + 1 > MAX_DEPTH:
        problem = f"folders nested more than {MAX_DEPTH} deep; not read"
        walk.found.warnings.append(f"{printable(rel)}: {problem}")
        return None
    return full, rel


def _link(walk: _Walk, full: str, rel: str) -> None:
    """A symbolic link: a file inside the corpus is read; folders and loops are not."""
    found, shown = walk.found, printable(rel)
    try:
        info = os.stat(full)
    except OSError as exc:
        problem = "symlink loop" if exc.errno == errno.ELOOP else f"broken link ({exc.strerror})"
        found.warnings.append(f"{shown}: {problem}; skipped")
        return
    real = os.path.realpath(full)
    inside = real == walk.real_root or real.startswith(walk.real_root.rstrip(os.sep) + os.sep)
    if stat.S_ISDIR(info.st_mode):
        where = "" if inside else ", pointing outside the corpus"
        found.warnings.append(f"{shown}: a symlinked folder{where}; not followed")
    elif not inside and _is_document(rel):
        found.failures.append(DocumentError(rel, "link points outside the corpus"))
    elif inside:
        _file(walk, full, rel, info.st_mode)
    else:
        _count(found, rel)


def _file(walk: _Walk, full: str, rel: str, mode: int) -> None:
    found = walk.found
    if not _is_document(rel):
        _count(found, rel)
    elif not stat.S_ISREG(mode):
        found.warnings.append(f"{printable(rel)}: {file_kind(mode)}, not a regular file; skipped")
    else:
        found.files.append(full)
        found.sources.append(rel)


def suffix_of(name: str) -> str:
    """Return a file name's ending, lower-cased, as Path.suffix gives it ("" for none).

    os.path.splitext's rule without its cost (a walk asks once per file): a dot preceded
    only by dots in the last part of the path starts no ending.
    """
    base = name[name.rfind("/") + 1 :]
    dot = base.rfind(".")
    if dot <= 0 or not base[:dot].strip("."):
        return ""
    suffix = base[dot:].lower()
    return "" if suffix == "." else suffix


def _is_document(rel: str) -> bool:
    return suffix_of(rel) in SUFFIXES


def _count(found: Discovery, rel: str) -> None:
    found.skipped[suffix_of(rel) or "(no extension)"] += 1


def skipped_line(skipped: Counter[str]) -> str:
    """Return the summary of skipped files, e.g. "skipped 3 files: .xlsx 2, .zip 1"."""
    total = sum(skipped.values())
    if not total:
        return ""
    parts = ", ".join(f"{key} {count}" for key, count in sorted(skipped.items()) if count)
    return f"skipped {counted(total, 'file')}: {parts}"
