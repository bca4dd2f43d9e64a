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

from policy_assistant.atomic import atomic_write_bytes
from policy_assistant.jsonio import JSONDecodeError, compact_json, loads
from policy_assistant.parse.pdf.ocr import reads_with_ocr
from policy_assistant.records import Document

TABLE_VERSION = 2
"""Bump when the table's form changes (2: columns instead of a row per source)."""
RACY_NS = 2_000_000_000
"""How old (ns) a file's mtime and ctime must be for its stat to be trusted next time: more
than any file system's timestamp granularity (FAT's is 2 s)."""

Stat = tuple[int, int, int, int]
"""A file's size, mtime_ns, ctime_ns and inode."""


def _stat_of(info: os.stat_result) -> Stat:
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


Row = tuple[list[int] | None, str, dict[str, str] | None, list[Any] | None]
"""One file as the table records it: its stat (None while too young to trust), sha256, the
catalog fields it was parsed under and what its parse gave (both None when not known)."""

_NO_STAT = [-1, -1, -1, -1]
"""The stat column's value for a file whose stat is not trusted: no file has size -1."""


class _Columns:
    """The rows of a table as stored: one column per field, so 100,000 rows load in one
    orjson pass over flat lists (a dict of nested lists took five times as long)."""

    def __init__(self, data: dict[str, Any]) -> None:
        """Take the columns of a loaded table; ValueError/TypeError/KeyError if malformed."""
        self.sources: list[str] = data["sources"]
        self.stats: list[int] = data["stats"]
        self.sha256: str = data["sha256"]
        self.fields: list[dict[str, str]] = data["fields"]
        self.field_of: list[int] = data["field_of"]
        self.titles: list[str | None] = data["titles"]
        self.rests: list[list[Any]] = data["rests"]
        self.rest_of: list[int] = data["rest_of"]
        count = len(self.sources)
        sizes = (len(self.stats), len(self.sha256), len(self.field_of), len(self.titles))
        if sizes != (4 * count, 64 * count, count, count) or len(self.rest_of) != count:
            raise ValueError("columns of different lengths")
        self.index = {source: row for row, source in enumerate(self.sources)}

    @classmethod
    def empty(cls) -> _Columns:
        """Return the columns of a table with no row."""
        names = ("sources", "stats", "fields", "field_of", "titles", "rests", "rest_of")
        return cls({"sha256": "", **{name: [] for name in names}})

    def stat(self, row: int) -> list[int]:
        """Return a row's recorded stat (_NO_STAT when none)."""
        return self.stats[4 * row : 4 * row + 4]

    def sha(self, row: int) -> str:
        """Return a row's SHA-256."""
        return self.sha256[64 * row : 64 * row + 64]

    def meta(self, row: int) -> tuple[dict[str, str], list[Any]] | None:
        """Return a row's fields and recorded parse, when it has them."""
        code = self.rest_of[row]
        if code < 0 or self.field_of[row] < 0:
            return None
        return self.fields[self.field_of[row]], [self.titles[row], *self.rests[code]]

    def row(self, row: int) -> Row:
        """Return one row whole."""
        stat, known = self.stat(row), self.meta(row)
        fields, meta = known if known is not None else (None, None)
        return (None if stat == _NO_STAT else stat, self.sha(row), fields, meta)


class _Encoder:
    """The columns of a table being written: rows kept from the loaded columns are copied
    (100,000 of them when one file changed), new rows added; each distinct catalog fields and
    parse numbered once, in source order."""

    def __init__(self, old: _Columns) -> None:
        """Write rows, some of them copied from `old`."""
        self.old = old
        self.codes: tuple[dict[bytes, int], dict[bytes, int]] = ({}, {})
        self.renumbered: tuple[dict[int, int], dict[int, int]] = ({}, {})
        self.stats: list[int] = []
        self.sha: list[str] = []
        self.field_of: list[int] = []
        self.titles: list[str | None] = []
        self.rest_of: list[int] = []

    def kept(self, row: int) -> None:
        """Add a row of the loaded columns, as it is."""
        old = self.old
        self.stats.extend(old.stats[4 * row : 4 * row + 4])
        self.sha.append(old.sha(row))
        field, rest = old.field_of[row], old.rest_of[row]
        known = field >= 0 and rest >= 0
        self.field_of.append(self._again(0, old.fields, field) if known else -1)
        self.titles.append(old.titles[row] if known else None)
        self.rest_of.append(self._again(1, old.rests, rest) if known else -1)

    def add(self, row: Row) -> None:
        """Add a row recorded by this read."""
        stat, digest, given, meta = row
        self.stats.extend(stat if stat is not None else _NO_STAT)
        self.sha.append(digest)
        known = given is not None and bool(meta)
        self.field_of.append(_code(self.codes[0], given) if known else -1)
        self.titles.append(meta[0] if known and meta else None)
        self.rest_of.append(_code(self.codes[1], meta[1:]) if known and meta else -1)

    def _again(self, kind: int, values: list[Any], code: int) -> int:
        """Return the new number of a loaded column's distinct value."""
        memo = self.renumbered[kind]
        if code not in memo:
            memo[code] = _code(self.codes[kind], values[code])
        return memo[code]

    def columns(self, sources: list[str]) -> dict[str, Any]:
        """Return the columns, the rows having been added in the order of sources."""
        return {
            "sources": sources,
            "stats": self.stats,
            "sha256": "".join(self.sha),
            "fields": [loads(k) for k in self.codes[0]],
            "field_of": self.field_of,
            "titles": self.titles,
            "rests": [loads(k) for k in self.codes[1]],
            "rest_of": self.rest_of,
        }


def _code(codes: dict[bytes, int], value: Any) -> int:
    """Return the number of a distinct value, numbering a new one."""
    return codes.setdefault(compact_json(value), len(codes))


class FileTable:
    """The file table of one corpus root in one cache folder."""

    def __init__(self, cache_dir: Path, root: Path, parser: str, ocr: str = "") -> None:
        """Load the table of `root` (empty when missing or damaged); `parser` (the parser
        fingerprint) says what the recorded parses must have been made by, and `ocr` (the OCR
        state) what a PDF's must have been made with."""
        name = hashlib.sha256(os.fsencode(root.as_posix())).hexdigest()[:32]
        self.path = cache_dir / "files" / f"{name}.table"
        self.parser, self.ocr = parser, ocr
        self.recorded_ocr: str | None = None
        self.columns, self.meta_valid = self._load()
        self.seen: dict[str, Row | int] = {}  # an int: that row of the loaded columns, kept
        self.changed = False
        self.young = time.time_ns() - RACY_NS  # a stat changed after this is not trusted

    def _load(self) -> tuple[_Columns, bool]:
        try:
            data = loads(self.path.read_bytes())
            if data["version"] != TABLE_VERSION:
                return _Columns.empty(), False
            self.recorded_ocr = data.get("ocr")
            return _Columns(data), data["parser"] == self.parser
        except (OSError, JSONDecodeError, KeyError, TypeError, ValueError):
            return _Columns.empty(), False

    def __contains__(self, source: str) -> bool:
        """Whether the table has a row for source."""
        return source in self.columns.index

    def known(
        self, source: str, info: os.stat_result, fields: dict[str, str]
    ) -> tuple[str, DocMeta | None] | None:
        """Return the recorded SHA-256 of a file whose stat is the recorded one, and what its
        parse gave under these fields when recorded (else None); None for any other file."""
        columns = self.columns
        row = columns.index.get(source)
        if row is None:
            return None
        # a no-op asks this of every file: the four fields compared in place, no list built
        stats, at = columns.stats, 4 * row
        if (
            stats[at] != info.st_size
            or stats[at + 1] != info.st_mtime_ns
            or stats[at + 2] != info.st_ctime_ns
            or stats[at + 3] != info.st_ino
        ):
            return None
        return columns.sha(row), self._meta(row, fields)

    def meta_of(self, source: str, sha256: str, fields: dict[str, str]) -> DocMeta | None:
        """Return what a parse of these bytes under these fields gave, when recorded."""
        row = self.columns.index.get(source)
        if row is None or self.columns.sha(row) != sha256:
            return None
        return self._meta(row, fields)

    def trusted(self, source: str) -> bool:
        """Whether what the table records of a file's parse was made as a parse now would be:
        by this parser and, for a PDF, with this OCR state."""
        # a no-op asks this of every file: the OCR test only when the state changed
        return self.meta_valid and (self.ocr == self.recorded_ocr or not reads_with_ocr(source))

    def _meta(self, row: int, fields: dict[str, str]) -> DocMeta | None:
        """Return what the parse recorded in a row gave, if made under these fields."""
        known = self.columns.meta(row) if self.trusted(self.columns.sources[row]) else None
        if known is None or known[0] != fields:
            return None
        try:
            return DocMeta(*known[1])
        except TypeError:
            return None  # a foreign row: parse the file

    def keep(self, source: str) -> None:
        """Record a file known by its stat and kept: its row stays as it is."""
        self.seen[source] = self.columns.index[source]

    def note(
        self,
        source: str,
        info: os.stat_result | None,
        sha256: str,
        fields: dict[str, str] | None = None,
        meta: DocMeta | None = None,
    ) -> None:
        """Record one file as this read found it (meta: what its parse gave, if known)."""
        number = self.columns.index.get(source)
        old = self.columns.row(number) if number is not None else None
        young = info is None or max(info.st_mtime_ns, info.st_ctime_ns) > self.young
        stat = None if young or info is None else list(_stat_of(info))
        trusted = self.trusted(source)
        if meta is None and old is not None and old[:2] == (stat, sha256) and trusted:
            self.seen[source] = old  # kept as it was recorded: the common case, made cheap
            return
        if meta is not None:
            row: Row = (stat, sha256, fields, list(_meta_fields(meta)))
        elif old is not None and trusted and old[1] == sha256:
            row = (stat, sha256, old[2], old[3])  # kept: what its parse gave still holds
        else:
            row = (stat, sha256, None, None)
        self.seen[source] = row
        if old != row or not trusted:
            self.changed = True

    def _unseen(self, source: str, row: int) -> Row | int:
        """Return how a row this read did not see is written back: as it was while its parse
        is trusted, else without the parse (which the new stamp would vouch for)."""
        if self.trusted(source):
            return row
        stat, sha256, _, _ = self.columns.row(row)
        return (stat, sha256, None, None)

    def save(self, whole: bool) -> None:
        """Write the table if this read changed it; `whole`: the read saw every file of the
        root, so files it did not see are gone (else they are kept)."""
        columns = self.columns
        if not self.changed and (not whole or len(self.seen) == len(columns.sources)):
            return
        rows: dict[str, Row | int] = {}
        if not whole:  # files this read did not see keep their rows, a parse only if trusted
            rows = {s: self._unseen(s, n) for s, n in columns.index.items() if s not in self.seen}
        rows.update(self.seen)
        encoder, sources = _Encoder(columns), sorted(rows)
        for source in sources:
            row = rows[source]
            encoder.kept(row) if isinstance(row, int) else encoder.add(row)
        data = {"version": TABLE_VERSION, "parser": self.parser, "ocr": self.ocr}
        data |= encoder.columns(sources)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(self.path, compact_json(data))
        except OSError:
            return  # a table that cannot be written only costs the next read its hashing


def _meta_fields(meta: DocMeta) -> tuple[Any, ...]:
    return (meta.title, meta.version, meta.access, meta.language, meta.labelled, meta.empty)
