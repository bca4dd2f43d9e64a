"""The units of a generation on disk: `gen-*/units/`, written beside the chunks.

    units/
      documents.jsonl   one document per line, sorted by source: its citation fields, sha256
                        and blocks as [kind, start, end, pages, section, level] (text left out:
                        it is texts.jsonl's slice), so ingest can rebuild units of unchanged
                        documents without parsing them again
      texts.jsonl       one JSON string per line: each document's normalized text
      text_offsets.npy  byte offset of each texts.jsonl line, then the file size
      paths.json        each section's heading path
      <column>.npy      the unit, block, section and document columns (units.py)
      weights.json      the field weights the context search uses
      body/ sections/ documents/ passages/   the four BM25 indexes (unit_search.py)

Every file is a pure function of the documents and settings (sorted keys, no clocks), so the
same input writes the same bytes; the writer puts the folder in the generation before it is
published, so units and chunks always come from the same ingest.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload

import numpy as np
import orjson

from policy_assistant.errors import IndexError_
from policy_assistant.index.bm25 import BM25Index
from policy_assistant.index.unit_search import UnitIndex
from policy_assistant.index.units import DocInfo, UnitSet, build_units
from policy_assistant.records import Block, Document

UNITS_DIR = "units"
"""The units folder's name inside a generation."""
_FIELDS = ("body", "sections", "documents", "passages")
_JSON = orjson.OPT_SORT_KEYS


def save_units(index: UnitIndex, documents: Sequence[Document], folder: Path) -> bytes:
    """Write the unit index and its documents' blocks into folder; return a digest of it all."""
    folder.mkdir(parents=True)
    docs = sorted(documents, key=lambda d: d.source)
    lines = [orjson.dumps(_doc_line(d), option=_JSON) + b"\n" for d in docs]
    (folder / "documents.jsonl").write_bytes(b"".join(lines))
    texts = [orjson.dumps(d.text) + b"\n" for d in docs]
    (folder / "texts.jsonl").write_bytes(b"".join(texts))
    offsets = np.concatenate([[0], np.cumsum([len(t) for t in texts])]).astype(np.int64)
    np.save(folder / "text_offsets.npy", offsets)
    (folder / "paths.json").write_bytes(orjson.dumps([list(p) for p in index.units.paths]))
    for name, column in sorted(index.units.columns.items()):
        np.save(folder / f"{name}.npy", np.ascontiguousarray(column, dtype=np.int64))
    (folder / "weights.json").write_bytes(orjson.dumps(index.weights, option=_JSON))
    for name in _FIELDS:
        getattr(index, name).save(folder / name)
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.digest()


def _doc_line(doc: Document) -> dict[str, Any]:
    blocks = [[b.kind, b.start, b.end, list(b.pages), list(b.section), b.level] for b in doc.blocks]
    return {**DocInfo.of(doc).to_dict(), "sha256": doc.sha256, "blocks": blocks}


class _Texts(Sequence[str]):
    """Each document's text, read from texts.jsonl on demand (the last few kept)."""

    def __init__(self, folder: Path) -> None:
        self._offsets = np.load(folder / "text_offsets.npy", allow_pickle=False)
        self._fd = os.open(folder / "texts.jsonl", os.O_RDONLY)
        self._cache: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._offsets) - 1

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...
    def __getitem__(self, i: int | slice) -> str | Sequence[str]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        text = self._cache.get(i)
        if text is None:
            start, end = int(self._offsets[i]), int(self._offsets[i + 1])
            text = orjson.loads(os.pread(self._fd, end - start, start))
            if len(self._cache) >= 8:
                self._cache.clear()
            self._cache[i] = text
        return text

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(len(self)))

    def close(self) -> None:
        """Close the texts file."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def load_units(folder: Path) -> UnitIndex:
    """Open the unit index save_units wrote; raise IndexError_ when it is missing or damaged."""
    if not folder.is_dir():
        raise IndexError_(f"{folder.parent.name} holds no units (built by an older version)")
    try:
        lines = (folder / "documents.jsonl").read_bytes().splitlines()
        docs = tuple(DocInfo.from_dict(orjson.loads(line)) for line in lines)
        paths = tuple(tuple(p) for p in orjson.loads((folder / "paths.json").read_bytes()))
        # Plain array views of the maps: numpy's memmap subclass costs on every fancy index.
        columns = {
            p.stem: np.asarray(np.load(p, mmap_mode="r", allow_pickle=False))
            for p in sorted(folder.glob("*.npy"))
            if p.stem != "text_offsets"
        }
        weights = orjson.loads((folder / "weights.json").read_bytes())
        fields = {name: BM25Index.load(folder / name) for name in _FIELDS}
        units = UnitSet(docs, _Texts(folder), paths, columns)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise IndexError_(f"units of {folder.parent.name}: {exc}") from exc
    return UnitIndex(
        units, fields["body"], fields["sections"], fields["documents"], fields["passages"],
        weights, units.access_codes(),
    )  # fmt: skip


def load_documents(folder: Path) -> dict[str, Document]:
    """Return the stored documents by source (blocks and text; nothing the parser dropped)."""
    texts = _Texts(folder)
    try:
        lines = (folder / "documents.jsonl").read_bytes().splitlines()
        out = {}
        for row, line in enumerate(lines):
            data = orjson.loads(line)
            text = texts[row]
            blocks = tuple(
                Block(kind, text[start:end], start, end, tuple(pages), tuple(section), level)
                for kind, start, end, pages, section, level in data["blocks"]
            )
            info = DocInfo.from_dict(data)
            out[info.source] = Document(
                info.source, info.title, info.version, info.access, info.language,
                data["sha256"], text, info.pages, blocks,
            )  # fmt: skip
        return out
    finally:
        texts.close()


def write_units(documents: Sequence[Document], folder: Path, bm25: dict[str, Any]) -> bytes:
    """Build the unit index of documents with the chunks' BM25 settings and save it in folder."""
    params = {k: v for k, v in bm25.items() if k in ("variant", "k1", "b", "epsilon")}
    return save_units(UnitIndex.build(build_units(documents), **params), documents, folder)


def close_units(index: UnitIndex) -> None:
    """Close the files a loaded unit index holds open."""
    texts = index.units.texts
    if isinstance(texts, _Texts):
        texts.close()
