"""questions/external/rdata_text.py, the decoder heldout-austen's text comes from: R serializations
built here byte by byte (standard library only), read back as R writes them."""

from __future__ import annotations

import gzip
import struct
import sys
import zlib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "questions" / "external"))

import rdata_text

UTF8 = 1 << 3 << 12
"""A CHARSXP's flag for a string marked UTF-8 (bit 3 of its levels, which start at bit 12)."""
HAS_ATTRIBUTES, HAS_TAG = 1 << 9, 1 << 10


def ints(*values: int) -> bytes:
    """Big-endian 4-byte ints, as XDR writes them."""
    return struct.pack(f">{len(values)}i", *values)


def header(version: int = 3) -> bytes:
    """The serialization's start: format, version ints (R 4.2.1 wrote it, R 3.5.0 reads it)."""
    start = b"X\n" + ints(version, 0x040201, 0x030500)
    return start + ints(5) + b"UTF-8" if version == 3 else start


def charsxp(text: str | None) -> bytes:
    """One CHARSXP: NA as length -1, else its UTF-8 bytes (marked UTF-8 when not ASCII)."""
    if text is None:
        return ints(9, -1)
    raw = text.encode("utf-8")
    return ints(9 | (0 if text.isascii() else UTF8), len(raw)) + raw


def strsxp(*texts: str | None, flags: int = 0) -> bytes:
    """A character vector."""
    return ints(16 | flags, len(texts)) + b"".join(charsxp(text) for text in texts)


def names(*texts: str) -> bytes:
    """An attribute pairlist holding only `names`, then the NULL that ends it."""
    return ints(2 | HAS_TAG) + ints(1) + charsxp("names") + strsxp(*texts) + ints(254)


def test_a_character_vector_with_an_na_and_a_non_ascii_string() -> None:
    data = header() + strsxp("Chapter 1", "", None, "Anne \u2014 caf\u00e9")
    value = rdata_text.unserialize(data)
    assert value.type == rdata_text.STRSXP
    assert value.values == ["Chapter 1", "", None, "Anne \u2014 caf\u00e9"]


def test_format_2_and_a_named_list_with_a_reference_to_a_symbol() -> None:
    # list(a = 1:2, b = c(NA, 7L)), whose names attribute is read after the elements.
    body = ints(19 | HAS_ATTRIBUTES, 2) + ints(13, 2, 1, 2) + ints(13, 2, -(2**31), 7)
    value = rdata_text.unserialize(header(2) + body + names("a", "b"))
    assert value.names() == ["a", "b"]
    assert [v.values for v in value.values] == [[1, 2], [None, 7]]
    # A symbol read once is referred to afterwards by its index in the reference table.
    twice = ints(2 | HAS_TAG) + ints(1) + charsxp("x") + strsxp("first")
    twice += ints(2 | HAS_TAG) + ints(255 | (1 << 8)) + strsxp("second") + ints(254)
    pairs = rdata_text.unserialize(header() + twice)
    assert pairs.attributes["tags"] == ["x", "x"]


def test_unsupported_types_and_other_formats_stop_with_an_error() -> None:
    with pytest.raises(ValueError, match="type 3"):
        rdata_text.unserialize(header() + ints(3))
    with pytest.raises(ValueError, match="XDR"):
        rdata_text.unserialize(b"A\n" + header()[2:] + strsxp("x"))


def lazy_load_database(folder: Path, objects: dict[str, bytes]) -> Path:
    """Write folder/Rdata.rdb and Rdata.rdx as makeLazyLoadDB does (zlib objects, gzip index)."""
    rdb, entries = b"", []
    for data in objects.values():
        blob = struct.pack(">I", len(data)) + zlib.compress(data)
        entries.append(ints(13, 2, len(rdb), len(blob)))
        rdb += blob
    variables = ints(19 | HAS_ATTRIBUTES, len(entries)) + b"".join(entries) + names(*objects)
    index = ints(19 | HAS_ATTRIBUTES, 3) + variables + ints(19, 0) + ints(10, 1, 1)
    index += names("variables", "references", "compressed")
    (folder / "Rdata.rdb").write_bytes(rdb)
    (folder / "Rdata.rdx").write_bytes(gzip.compress(header() + index))
    return folder / "Rdata"


def test_main_writes_the_named_vector_as_lines_and_refuses_na(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = lazy_load_database(
        tmp_path,
        {
            "other": header() + strsxp("not this one"),
            "novel": header() + strsxp("Persuasion", "", "\u00c9mile said--"),
            "gaps": header() + strsxp("a", None),
        },
    )
    assert rdata_text.read_index(tmp_path / "Rdata.rdx")["other"][0] == 0
    out = tmp_path / "novel.txt"
    assert rdata_text.main([str(database), "novel", str(out)]) == 0
    assert out.read_bytes() == "Persuasion\n\n\u00c9mile said--\n".encode()
    assert rdata_text.main([str(database)]) == 0
    assert capsys.readouterr().out.split() == ["gaps", "novel", "other"]
    assert rdata_text.main([str(database), "gaps", str(tmp_path / "gaps.txt")]) == 1
    assert not (tmp_path / "gaps.txt").exists()
    with pytest.raises(KeyError, match="missing"):
        rdata_text.read_object(database, "missing")


def test_each_compression_an_rdb_object_may_have() -> None:
    import bz2
    import lzma

    data = header() + strsxp("x")
    size = struct.pack(">I", len(data))
    for blob in (
        size + zlib.compress(data),
        size + b"Z" + lzma.compress(data),
        size + b"2" + bz2.compress(data),
        size + b"1" + zlib.compress(data),
        size + b"0" + data,
    ):
        assert rdata_text.decompress(blob) == data
    with pytest.raises(ValueError, match="header says"):
        rdata_text.decompress(struct.pack(">I", 1) + zlib.compress(data))
