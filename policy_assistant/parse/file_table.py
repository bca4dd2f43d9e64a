"""The file table: what each corpus file's stat said when it was last read, kept in the cache.

A re-read of an unchanged corpus should cost a stat per file, not a read and a SHA-256 of
every byte. The table maps each source to the file's (size, mtime_ns, ctime_ns, inode) when
it was read, its bytes' SHA-256 and, when it was parsed or taken from the parse cache, what
the parse gave that ingest needs to keep its old copy (title, version, access, language,
whether it was labelled, whether it was empty) under the catalog fields it was read with.

Trust is git's: a file whose stat is exactly the recorded one is taken to hold the recorded
bytes. A file changed within the timestamp's granularity of its recording would look the
same, so a stat is only recorded once the file's mtime and ctime are RACY_NS old; a younger
file is read and hashed again next time. What a parse gave is trusted only while the parser
fingerprint and the OCR state are those it was recorded under.

One table per corpus root (the root's absolute path, hashed, names it) under the cache
folder's `files/`; it is written whole, atomically, after a read that changed it. A damaged
or foreign table reads as empty: every file is read again, nothing is wrong.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from policy_assistant.atomic import atomic_write_bytes
from policy_assistant.records import Document

TABLE_VERSION = 1
"""Bump when the table's form changes."""
RACY_NS = 2_000_000_000
"""How old (ns) a file's mtime and ctime must be for its stat to be trusted next time: more
than any file system's timestamp granularity (FAT's is 2 s)."""

Stat = tuple[int, int, int, int]
"""A file's size, mtime_ns, ctime_ns and inode."""


def stat_of(info: os.stat_result) -> Stat:
    """Return what the table compares of a stat."""
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


@dataclass(frozen=True, slots=True)
class DocMeta:
    """What a parse of one file gave, as far as ingest needs it to keep its indexed copy."""

    title: str
    """The document's title."""
    version: str
    """Its version label."""
    access: str
    """Its access label."""
    language: str
    """Its language code."""
    labelled: bool
    """Whether the catalog or front matter gave it an access label."""
    empty: bool
    """Whether it has no blocks."""

    @classmethod
    def of(cls, document: Document, labelled: bool) -> DocMeta:
        """Return what a parsed document says."""
        doc = document
        return cls(doc.title, doc.version, doc.access, doc.language, labelled, not doc.blocks)


Row = list[Any]
"""One file as the table stores it: [stat as a list or None, sha256, fields or None, meta as a
list or None]; kept as orjson gives it, so a table of 100,000 files costs no object per file."""


class FileTable:
    """The file table of one corpus root in one cache folder."""

    def __init__(self, cache_dir: Path, root: Path, parser: str) -> None:
        """Load the table of `root` (empty when missing or damaged); `parser` says what the
        recorded parses must have been made by (the parser fingerprint and OCR state)."""
        name = hashlib.sha256(os.fsencode(root.as_posix())).hexdigest()[:32]
        self.path = cache_dir / "files" / f"{name}.table"
        self.parser = parser
        self.rows, self.meta_valid = self._load()
        self.seen: dict[str, Row] = {}
        self.changed = False
        self.young = time.time_ns() - RACY_NS  # a stat changed after this is not trusted

    def _load(self) -> tuple[dict[str, Row], bool]:
        try:
            data = orjson.loads(self.path.read_bytes())
            if data["version"] != TABLE_VERSION or not isinstance(data["files"], dict):
                return {}, False
            return data["files"], data["parser"] == self.parser
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
            return {}, False

    def known(
        self, source: str, info: os.stat_result, fields: dict[str, str]
    ) -> tuple[str, DocMeta | None] | None:
        """Return the recorded SHA-256 of a file whose stat is the recorded one, and what its
        parse gave under these fields when recorded (else None); None for any other file."""
        row = self.rows.get(source)
        try:
            if row is None or row[0] != list(stat_of(info)):
                return None
            sha256 = str(row[1])
        except (IndexError, TypeError):
            return None  # a foreign row: read the file
        return sha256, self.meta_of(source, sha256, fields)

    def meta_of(self, source: str, sha256: str, fields: dict[str, str]) -> DocMeta | None:
        """Return what a parse of these bytes under these fields gave, when recorded."""
        row = self.rows.get(source)
        if not self.meta_valid or row is None:
            return None
        try:
            if row[1] != sha256 or row[2] != fields or row[3] is None:
                return None
            return DocMeta(*row[3])
        except (IndexError, TypeError):
            return None

    def keep(self, source: str) -> None:
        """Record a file known by its stat and kept: its row stays as it is."""
        self.seen[source] = self.rows[source]

    def note(
        self,
        source: str,
        info: os.stat_result | None,
        sha256: str,
        fields: dict[str, str] | None = None,
        meta: DocMeta | None = None,
    ) -> None:
        """Record one file as this read found it (meta: what its parse gave, if known)."""
        old = self.rows.get(source)
        young = info is None or max(info.st_mtime_ns, info.st_ctime_ns) > self.young
        stat = None if young or info is None else list(stat_of(info))
        if meta is None and old is not None and old[:2] == [stat, sha256] and self.meta_valid:
            self.seen[source] = old  # kept as it was recorded: the common case, made cheap
            return
        if meta is not None:
            row: Row = [stat, sha256, fields, list(_meta_fields(meta))]
        elif old is not None and self.meta_valid and len(old) == 4 and old[1] == sha256:
            row = [stat, sha256, old[2], old[3]]  # kept: what its parse gave still holds
        else:
            row = [stat, sha256, None, None]
        self.seen[source] = row
        if old != row or not self.meta_valid:
            self.changed = True

    def save(self, whole: bool) -> None:
        """Write the table if this read changed it; `whole`: the read saw every file of the
        root, so files it did not see are gone (else they are kept)."""
        kept = {} if whole else {s: r for s, r in self.rows.items() if s not in self.seen}
        if not self.changed and (not whole or len(self.seen) == len(self.rows)):
            return
        rows = {**kept, **self.seen}
        data = {
            "version": TABLE_VERSION,
            "parser": self.parser,
            "files": {s: rows[s] for s in sorted(rows)},
        }
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(self.path, orjson.dumps(data))
        except OSError:
            return  # a table that cannot be written only costs the next read its hashing


def _meta_fields(meta: DocMeta) -> tuple[Any, ...]:
    return (meta.title, meta.version, meta.access, meta.language, meta.labelled, meta.empty)
