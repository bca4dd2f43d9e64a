"""Write one character vector of an R lazy-load database as a UTF-8 text file.

Usage (from the repository root):

    python3 questions/external/rdata_text.py DATABASE NAME OUT.txt
    python3 questions/external/rdata_text.py DATABASE          # list the names it holds

DATABASE is the database's path without its extension (`.../data/Rdata` for `Rdata.rdb` and
`Rdata.rdx`), as R's `lazyLoad` takes it. The named object must be a character vector; each
element becomes one line of OUT.txt (lines joined by "\\n", the file ending with "\\n"). An R
package with `LazyData: true` keeps its data sets this way: janeaustenr keeps each novel as a
character vector, one element per printed line, "" for a blank line.

The two files, as R writes them (`makeLazyLoadDB`, `serialize`):

- `.rdx`, the index: a serialized R list (an `.rds` file: the serialization gzip-, bzip2- or
  xz-compressed as a whole) whose `variables` element maps each object's name to its
  (offset, length) in the `.rdb`.
- `.rdb`, the objects: at each offset, a 4-byte big-endian length of the uncompressed data, then
  the compressed data: zlib directly, or, for R's other compression settings, a type byte ('Z'
  xz, '2' bzip2, '1' zlib, '0' none) and the data.

Decompressed, each object is an R serialization in the XDR format: "X\\n", three big-endian ints
(format version, writer's and minimal reader's R version), for format 3 the native encoding's
name, then the object as nested SEXPs, each starting with a flags int (low byte the type).
Only what data sets of text and their index need is read: character, logical, integer, double
and list vectors, pairlists (attributes), symbols and references to symbols; anything else
stops with an error rather than being guessed at. Standard library only.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import struct
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SYMSXP, LISTSXP, CHARSXP = 1, 2, 9
LGLSXP, INTSXP, REALSXP, STRSXP, VECSXP = 10, 13, 14, 16, 19
REFSXP, NILVALUE_SXP = 255, 254
NA_INTEGER = -(2**31)
"""R's NA for integers and logicals (and a CHARSXP's length when the string is NA)."""


@dataclass
class RObject:
    """A decoded vector or pairlist: its values and its attributes (names, class, ...)."""

    type: int
    values: list[Any]
    attributes: dict[str, Any] = field(default_factory=dict)

    def names(self) -> list[str | None] | None:
        """Return the `names` attribute's strings, or None when there is none."""
        names = self.attributes.get("names")
        return names.values if isinstance(names, RObject) else None


class Reader:
    """Read one XDR (big-endian) R serialization, object by object."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.refs: list[Any] = []

    def take(self, size: int) -> bytes:
        """Return the next size bytes."""
        if self.pos + size > len(self.data):
            raise ValueError("R serialization ends early")
        chunk = self.data[self.pos : self.pos + size]
        self.pos += size
        return chunk

    def integer(self) -> int:
        """Read a 4-byte big-endian signed int."""
        value: int = struct.unpack(">i", self.take(4))[0]
        return value

    def length(self) -> int:
        """Read a vector length (-1 then two ints for a length of 2^31 or more)."""
        size = self.integer()
        if size == -1:
            upper, lower = self.integer(), self.integer()
            size = (upper << 32) + (lower & 0xFFFFFFFF)
        return size

    def header(self) -> None:
        """Read the format line and version ints (and the encoding name of format 3)."""
        if self.take(2) != b"X\n":
            raise ValueError("not an R serialization in XDR format")
        version = self.integer()
        self.integer(), self.integer()  # the writer's R version, the oldest R that reads it
        if version == 3:
            self.take(self.integer())  # the native encoding's name, such as "UTF-8"
        elif version != 2:
            raise ValueError(f"R serialization format {version} is not supported")

    def item(self) -> Any:
        """Read one SEXP: an RObject, a str (a CHARSXP or symbol), or None (R's NULL or NA)."""
        flags = self.integer()
        kind = flags & 0xFF
        has_attributes = bool(flags & (1 << 9))
        has_tag = bool(flags & (1 << 10))
        if kind == NILVALUE_SXP:
            return None
        if kind == REFSXP:
            index = flags >> 8 or self.integer()
            return self.refs[index - 1]
        if kind == CHARSXP:
            return self.string(flags)
        if kind == SYMSXP:
            name = self.item()
            self.refs.append(name)
            return name
        if kind == LISTSXP:
            return self.pairlist(has_attributes, has_tag)
        if kind in (LGLSXP, INTSXP):
            size = self.length()
            ints = struct.unpack(f">{size}i", self.take(4 * size))
            values: list[Any] = [None if v == NA_INTEGER else v for v in ints]
        elif kind == REALSXP:
            size = self.length()
            values = list(struct.unpack(f">{size}d", self.take(8 * size)))
        elif kind in (STRSXP, VECSXP):
            values = [self.item() for _ in range(self.length())]
        else:
            raise ValueError(f"R object type {kind} is not supported")
        result = RObject(kind, values)
        if has_attributes:
            attributes = self.item()
            tags = attributes.attributes["tags"]
            result.attributes = dict(zip(tags, attributes.values, strict=True))
        return result

    def string(self, flags: int) -> str | None:
        """Read a CHARSXP's bytes: None for NA, else decoded as its flags say."""
        size = self.integer()
        if size == -1:
            return None
        raw = self.take(size)
        latin1 = bool((flags >> 12) & (1 << 2))
        return raw.decode("latin-1" if latin1 else "utf-8")

    def pairlist(self, has_attributes: bool, has_tag: bool) -> RObject:
        """Read a pairlist (as attributes are stored): its values, its tags as 'tags'."""
        values: list[Any] = []
        tags: list[Any] = []
        while True:
            if has_attributes:
                self.item()  # a node's own attributes: not needed here
            tags.append(self.item() if has_tag else None)
            values.append(self.item())
            flags = self.integer()
            if flags & 0xFF == NILVALUE_SXP:
                return RObject(LISTSXP, values, {"tags": tags})
            if flags & 0xFF != LISTSXP:
                raise ValueError("a pairlist ends in something other than NULL")
            has_attributes = bool(flags & (1 << 9))
            has_tag = bool(flags & (1 << 10))


def unserialize(data: bytes) -> Any:
    """Decode a whole (uncompressed) XDR R serialization."""
    reader = Reader(data)
    reader.header()
    return reader.item()


def read_index(path: Path) -> dict[str, tuple[int, int]]:
    """Read an `.rdx` file: each object's name and its (offset, length) in the `.rdb`."""
    raw = path.read_bytes()
    if raw.startswith(b"\x1f\x8b"):
        raw = gzip.decompress(raw)
    elif raw.startswith(b"BZh"):
        raw = bz2.decompress(raw)
    elif raw.startswith(b"\xfd7zXZ"):
        raw = lzma.decompress(raw)
    index = unserialize(raw)
    variables = index.values[index.names().index("variables")]
    return {
        name: (int(entry.values[0]), int(entry.values[1]))
        for name, entry in zip(variables.names(), variables.values, strict=True)
    }


def decompress(blob: bytes) -> bytes:
    """Undo an `.rdb` object's compression (a 4-byte length, then zlib, or a type byte first).

    A zlib stream starts with 0x78 ('x'), so it is never taken for a type byte.
    """
    size = struct.unpack(">I", blob[:4])[0]
    body = blob[4:]
    kind = body[:1]
    if kind == b"Z":
        data = lzma.decompress(body[1:])
    elif kind == b"2":
        data = bz2.decompress(body[1:])
    elif kind == b"1":
        data = zlib.decompress(body[1:])
    elif kind == b"0":
        data = body[1:]
    else:
        data = zlib.decompress(body)
    if len(data) != size:
        raise ValueError(f"object decompresses to {len(data)} bytes, its header says {size}")
    return data


def read_object(database: Path, name: str) -> Any:
    """Read the object called name from the lazy-load database DATABASE(.rdb, .rdx)."""
    index = read_index(database.with_name(database.name + ".rdx"))
    if name not in index:
        raise KeyError(f"{name!r} is not in the database (it holds: {', '.join(sorted(index))})")
    offset, length = index[name]
    with open(database.with_name(database.name + ".rdb"), "rb") as rdb:
        rdb.seek(offset)
        blob = rdb.read(length)
    return unserialize(decompress(blob))


def character_vector(database: Path, name: str) -> list[str | None]:
    """Return the named character vector's strings (None for NA)."""
    value = read_object(database, name)
    if not isinstance(value, RObject) or value.type != STRSXP:
        raise ValueError(f"{name!r} is not a character vector")
    return value.values


def main(argv: list[str]) -> int:
    """List a database's objects, or write one character vector as lines of text."""
    if len(argv) == 1:
        index = read_index(Path(argv[0] + ".rdx"))
        print("\n".join(sorted(index)))
        return 0
    if len(argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    lines = character_vector(Path(argv[0]), argv[1])
    if None in lines:
        print(f"rdata_text.py: {argv[1]} holds NA, which is not a line of text", file=sys.stderr)
        return 1
    text = "".join(f"{line}\n" for line in lines)
    Path(argv[2]).write_bytes(text.encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
