"""The parse cache: a parsed Document kept on disk, keyed by what can change it.

The key is SHA-256 over canonical JSON of: `PARSE_CACHE_VERSION`, the fingerprint of the
parser code (every module of `policy_assistant/parse/`, `records.py`, `boxes.py`,
`sentences.py` and `text.py`, which decide whether a Markdown paragraph keeps its lines, and the
versions of the libraries the package depends on), the document's source, its bytes' SHA-256
and its catalog fields but the access labels. Labels are no parse input: an entry keeps the
label its front matter gives, and the reader labels a hit as the catalog now says. Any change to
one of them is a miss, so a stale entry is never read. Entries are written atomically; a damaged or
foreign entry reads as a miss and is written again.

Entries are renamed into place but not fsynced: one lost or left empty by a crash reads as a
miss and is parsed again, while an fsync per file cost more than the parse of a Markdown file
(2,117 fsyncs took 14 s of a 43 s cold ingest, profiled on the shared machine).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from policy_assistant.ids import canonical_json
from policy_assistant.jsonio import JSONDecodeError, compact_json, loads
from policy_assistant.parse.pdf.ocr import ocr_key, ocr_state
from policy_assistant.records import Document

PARSE_CACHE_VERSION = 2
"""Bump whenever the cached form or the parsers' output changes in a way the code hash misses."""

DEFAULT_CACHE_DIR = Path("build/parse-cache")
"""Where eval and inspect keep parsed documents unless told otherwise."""

_LABELS = frozenset({"access", "default_access"})
"""Catalog fields that label a document without shaping its parse."""

_PACKAGE = Path(__file__).resolve().parent.parent
_REQUIREMENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*")


READER_ONLY = frozenset({"corpus.py", "reading.py", "pool.py", "file_table.py", "globs.py"})
"""Modules of parse/ that move files and results but never shape a parse (walk order, workers,
the file table, --include/--exclude): a change to them keeps the parse cache."""


SHAPING = ("records.py", "boxes.py", "sentences.py", "text.py")
"""Modules outside parse/ that shape a parse: the records, the boxes, and the sentences and
words that decide whether a Markdown paragraph keeps its lines (and a slide is mostly image)."""


@lru_cache(maxsize=1)
def parser_fingerprint() -> str:
    """Return a hash of the parser code and library versions: it changes when output may."""
    versions = canonical_json(_library_versions())
    return hashlib.sha256(code_fingerprint(_PACKAGE).encode() + b"\0" + versions).hexdigest()


def code_fingerprint(package: Path) -> str:
    """Return a hash of the package's modules that shape a parse (parse/ but READER_ONLY)."""
    # The format parsers' subpackages (parse/pdf/) shape a parse as much as parse/ does.
    modules = [p for p in sorted((package / "parse").rglob("*.py")) if p.name not in READER_ONLY]
    digest = hashlib.sha256()
    for module in [*modules, *(package / name for name in SHAPING)]:
        name = module.relative_to(package).as_posix()
        digest.update(name.encode() + b"\0" + module.read_bytes() + b"\0")
    return digest.hexdigest()


def _library_versions() -> dict[str, str]:
    """Return the installed version of every library the package requires (none imported)."""
    import importlib.metadata  # costs tens of milliseconds: only when the cache is used

    try:
        requirements = importlib.metadata.requires("policy-assistant") or []
    except importlib.metadata.PackageNotFoundError:
        return {}
    versions: dict[str, str] = {}
    for requirement in requirements:
        match = _REQUIREMENT_NAME.match(requirement)
        if match is None or "extra ==" in requirement:
            continue
        try:
            versions[match.group(0)] = importlib.metadata.version(match.group(0))
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


CACHE_TAG = "CACHEDIR.TAG"
"""The file that marks the folder as a cache (discover.py skips it; backup tools may too)."""
CACHE_TAG_TEXT = (
    b"Signature: 8a477f597d28d172789f06886806bc55\n"
    b"# policy-assistant's parse cache: safe to delete, it is rebuilt as needed.\n"
)
"""The tag's text, as the Cache Directory Tagging Specification has it start."""


class ParseCache:
    """Parsed documents under one folder, one JSON file each."""

    def __init__(self, folder: Path) -> None:
        """Use `folder` (created on the first write)."""
        self.folder = folder
        self._made: set[str] = set()  # sub-folders known to exist: one mkdir each, not a put
        self.full = False
        """Whether a write found the disk full (the read then stops writing entries)."""

    def tag(self) -> None:
        """Create the folder with its cache tag, so a walk of a corpus holding it skips it."""
        path = os.path.join(self.folder, CACHE_TAG)
        if os.path.exists(path):
            return
        with contextlib.suppress(OSError):  # a cache that cannot be written is only slower
            os.makedirs(self.folder, exist_ok=True)
            _replace(os.fspath(self.folder), CACHE_TAG, CACHE_TAG_TEXT)

    @staticmethod
    def key(source: str, sha256: str, fields: dict[str, str], ocr: str | None = None) -> str:
        """Return the cache key of a document: what its parse depends on, hashed.

        `ocr` is ocr_state(), which a caller keying many files finds once (it searches PATH).
        """
        what: dict[str, Any] = {
            "cache": PARSE_CACHE_VERSION,
            "parser": parser_fingerprint(),
            "source": source,
            "sha256": sha256,
            # Labels are applied after the cache (dispatch.relabel): a label change parses nothing.
            "catalog": {k: v for k, v in fields.items() if k not in _LABELS},
            # A scanned page parses to other text with OCR on, off or absent.
            "ocr": ocr_key(source, ocr if ocr is not None else ocr_state()),
        }
        return hashlib.sha256(canonical_json(what)).hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> tuple[Document, str | None] | None:
        """Return the document stored under `key` and its front matter's label, or None."""
        try:
            data = loads(self._path(key).read_bytes())
            if data["key"] != key:
                return None
            front = data["front_access"]
            return Document.from_dict(data["document"]), None if front is None else str(front)
        except (OSError, JSONDecodeError, KeyError, TypeError, ValueError):
            return None  # missing or damaged: parse again

    def put(self, key: str, document: Document, front_access: str | None) -> None:
        """Store `document` under `key`; a cache that cannot be written is only slower."""
        if self.full:
            return  # a full disk stays full for this read: no write would succeed
        record = {"key": key, "document": document.to_dict(), "front_access": front_access}
        folder = os.path.join(self.folder, key[:2])
        try:
            if folder not in self._made:
                os.makedirs(folder, exist_ok=True)
                self._made.add(folder)
            _replace(folder, f"{key}.json", compact_json(record))
        except OSError as exc:
            self.full = exc.errno in DISK_FULL

    def full_notice(self) -> str | None:
        """Return the line saying a write found the disk full, naming the folder, or None."""
        if not self.full:
            return None
        size = cache_size(self.folder) / (1024 * 1024)
        return (
            f"parse cache {self.folder}: the disk is full, so new parses were not kept; the "
            f"folder holds {size:.1f} MiB: delete it to free that space (it is rebuilt as needed)"
        )

    def prune(self, used: set[str]) -> int:
        """Remove entries not in `used` (the keys a whole read used), oldest first, until they
        take no more space than the used ones, and files a killed write left; return bytes freed.

        Bounded so, a cache shared by two indexes keeps both working sets, yet every entry a
        changed file left behind goes in time, and the cache stays near twice what a read needs.
        """
        kept, unused, freed = 0, [], 0
        for path, info in _entries(self.folder):
            if path.name.startswith("."):
                freed += _unlink_stale(path, info)
            elif path.stem in used:
                kept += info.st_size
            else:
                unused.append((info.st_mtime_ns, info.st_size, path))
        over = sum(size for _, size, _ in unused) - kept
        for _, size, path in sorted(unused):
            if over <= 0:
                break
            with contextlib.suppress(OSError):
                path.unlink()
                over, freed = over - size, freed + size
        return freed


DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})
"""The errors of a disk (or quota) with no room left."""

STALE_SECONDS = 3600
"""A temporary file this old was left by a write that was killed (a write takes milliseconds)."""


def _entries(folder: Path) -> list[tuple[Path, os.stat_result]]:
    """Return every file in the cache's key folders (two hex characters) with its stat."""
    found = []
    for sub in folder.glob("[0-9a-f][0-9a-f]"):
        for path in sub.iterdir():
            with contextlib.suppress(OSError):
                found.append((path, path.stat()))
    return found


def _unlink_stale(path: Path, info: os.stat_result) -> int:
    """Remove a temporary file left by a killed write (not one being written); return its size."""
    if time.time() - info.st_mtime < STALE_SECONDS:
        return 0
    with contextlib.suppress(OSError):
        path.unlink()
        return info.st_size
    return 0


def cache_size(folder: Path) -> int:
    """Return the bytes the cache's entries take (0 for a missing folder)."""
    return sum(info.st_size for _, info in _entries(folder)) if folder.is_dir() else 0


def _replace(folder: str, name: str, data: bytes) -> None:
    """Write data beside folder/name, then rename it over: a reader sees all of it or none.

    The temporary name holds the process ID: two commands sharing a cache never share one.
    """
    target = os.path.join(folder, name)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
