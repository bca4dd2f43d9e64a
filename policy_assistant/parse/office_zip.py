"""Bounds on an Office file (.docx, .pptx) before its library reads it: no zip bomb.

python-docx and python-pptx inflate every part of the package into memory and parse its XML
into a tree, so a 1 MB file of repeated empty paragraphs took gigabytes. The package is
checked first: its parts' inflated sizes (as declared; Python's zipfile never inflates a
part past its declared size) and the XML tags of its XML parts, counted as they inflate,
which bounds the tree. A file past a bound is one DocumentError naming the limit.
"""

from __future__ import annotations

import io
import zipfile

from policy_assistant.errors import DocumentError

MAX_INFLATED_BYTES = 256 * 1024 * 1024
"""Bytes all the parts of a package may inflate to."""
MAX_XML_BYTES = 128 * 1024 * 1024
"""Bytes the XML parts of a package may inflate to (they are parsed into trees)."""
MAX_XML_TAGS = 3_000_000
"""XML tags (opening and closing) in all the XML parts of a package: a bound on the trees."""
MAX_PARTS = 10_000
"""Parts in one package."""
_XML = (".xml", ".rels", ".vml")


def check_package(data: bytes, source: str) -> None:
    """Raise DocumentError if the Office package in `data` would inflate past the bounds.

    A file that is not a zip archive passes: the library's own error then says what it is.
    """
    try:
        package = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError):
        return
    with package:
        parts = package.infolist()
        if len(parts) > MAX_PARTS:
            raise DocumentError(source, f"refused: {len(parts):,} parts (limit {MAX_PARTS:,})")
        declared = sum(part.file_size for part in parts)
        xml = [part for part in parts if part.filename.lower().endswith(_XML)]
        _bound(source, "its parts inflate to", declared, MAX_INFLATED_BYTES)
        _bound(source, "its XML inflates to", sum(p.file_size for p in xml), MAX_XML_BYTES)
        tags = 0
        for part in xml:
            tags += _tags(package, part)
            if tags > MAX_XML_TAGS:
                raise DocumentError(source, f"refused: over {MAX_XML_TAGS:,} XML tags ({_BOMB})")


_BOMB = "a zip bomb, or a document too large to read"


def _bound(source: str, what: str, size: int, limit: int) -> None:
    """Raise DocumentError if `size` bytes are past `limit`."""
    if size > limit:
        megabytes = f"{size / 2**20:,.0f} MiB (limit {limit / 2**20:,.0f} MiB)"
        raise DocumentError(source, f"refused: {what} {megabytes}: {_BOMB}")


def _tags(package: zipfile.ZipFile, part: zipfile.ZipInfo) -> int:
    """Return the `<` in one part as it inflates (0 for a part that cannot be read)."""
    count = 0
    try:
        with package.open(part) as stream:
            while chunk := stream.read(1 << 20):
                count += chunk.count(b"<")
                if count > MAX_XML_TAGS:
                    break
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, EOFError):
        return 0  # damaged: the library says so
    return count
