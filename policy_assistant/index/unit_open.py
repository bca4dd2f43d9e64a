"""Reading one unit segment unit_segment.py wrote: arrays memory-mapped, texts read by document.

Opening parses only segment.json; documents, paths and texts are read when a search needs
them. A deleted document takes its units, sections and document row out of every field
(FieldView.deleted), so a segment's liveness is one bool per document.
"""

from __future__ import annotations

import mmap
import zlib
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from policy_assistant.errors import IndexError_
from policy_assistant.index.bm25 import _TermTable
from policy_assistant.index.bm25_files import load_array, read_terms
from policy_assistant.index.unit_segment import (
    FIELD_ARRAYS,
    FIELDS,
    UNIT_SEGMENT_FORMAT,
    UnitSegmentInfo,
)
from policy_assistant.index.units import DocInfo, UnitSet
from policy_assistant.records import Block, Document

Mask = npt.NDArray[np.bool_]
_COLUMNS = (
    "unit_start", "unit_end", "unit_words", "unit_kind", "unit_block", "unit_section",
    "unit_doc", "unit_header", "block_first", "section_first", "section_doc", "doc_first",
    "cum_words", "doc_sections", "doc_blocks", "doc_access",
)  # fmt: skip


class FieldView:
    """One BM25 field of a unit segment: what segment_search.Postings reads."""

    def __init__(self, folder: Path, rows_of_doc: Any, dead_docs: Mask | None) -> None:
        arrays = {name: load_array(folder / f"{name}.npy", "r") for name in FIELD_ARRAYS}
        self._terms = _TermTable(read_terms(folder / "terms.txt", True), arrays["term_offsets"])
        self.ptr, self.rows, self.tf, self.dl = (arrays[n] for n in ("ptr", "rows", "tf", "dl"))
        if int(self.ptr[-1]) != len(self.rows) or len(self.rows) != len(self.tf):
            raise IndexError_(f"{folder.parent.name}/{folder.name}: its files disagree")
        self._rows_of_doc, self._dead_docs = rows_of_doc, dead_docs

    @cached_property
    def deleted(self) -> Mask | None:
        """Bool per row: its document was deleted (None: none was)."""
        if self._dead_docs is None:
            return None
        mask: Mask = np.repeat(self._dead_docs, np.diff(self._rows_of_doc))
        return mask

    def postings(self, term: str) -> tuple[Any, Any]:
        """Return the term's local rows (ascending) and their term frequencies."""
        found = self._terms.find(term)
        if found < 0:
            return np.empty(0, np.int32), np.empty(0, np.uint8)
        start, stop = int(self.ptr[found]), int(self.ptr[found + 1])
        return self.rows[start:stop], self.tf[start:stop]

    def term_list(self) -> list[bytes]:
        """Return every term of the field as UTF-8 bytes, in order (for okapi's mean idf)."""
        return bytes(self._terms.data).split(b"\n")[:-1]

    def close(self) -> None:
        """Release the term list's memory map."""
        if isinstance(self._terms.data, mmap.mmap):
            self._terms.data.close()


class UnitSegment:
    """An open unit segment: columns, four fields, documents and texts on demand."""

    def __init__(self, folder: Path, info: UnitSegmentInfo, dead_docs: Mask | None) -> None:
        self.folder, self.info, self.dead_docs = folder, info, dead_docs
        try:
            meta = orjson.loads((folder / "segment.json").read_bytes())
            if not isinstance(meta, dict) or meta.get("format") != UNIT_SEGMENT_FORMAT:
                raise IndexError_(f"{folder.name} is not a unit segment in format 1")
            self.columns = {name: load_array(folder / f"{name}.npy", "r") for name in _COLUMNS}
            self._offsets = load_array(folder / "text_offsets.npy", "r")
            self._texts = read_terms(folder / "texts.bin", True)
            by_doc = {
                "body": self.columns["doc_first"],
                "sections": self.columns["doc_sections"],
                "passages": self.columns["doc_sections"],
                "documents": np.arange(info.rows + 1),
            }
            self.fields = {n: FieldView(folder / n, by_doc[n], dead_docs) for n in FIELDS}
        except OSError as exc:
            where = Path(exc.filename).name if exc.filename else folder.name
            raise IndexError_(f"{folder.name}/{where}: {exc.strerror or exc}") from exc
        except (ValueError, KeyError, TypeError) as exc:
            raise IndexError_(f"{folder.name}: {exc}") from exc
        self._check()

    def _check(self) -> None:
        """Raise IndexError_ unless the columns agree with the counts."""
        docs, cols = self.info.rows, self.columns
        ok = len(cols["doc_first"]) == docs + 1 == len(cols["doc_sections"]) == len(self._offsets)
        ok &= len(cols["unit_start"]) == self.info.fields["body"].rows == int(cols["doc_first"][-1])
        ok &= len(cols["section_doc"]) == self.info.fields["passages"].rows
        ok &= self.dead_docs is None or self.dead_docs.shape == (docs,)
        if not ok:
            raise IndexError_(f"{self.folder.name}: its files disagree")

    def doc_range(self, column: str, doc: int) -> slice:
        """Return a document's rows of units (doc_first), blocks or sections."""
        first = self.columns[column]
        return slice(int(first[doc]), int(first[doc + 1]))

    @property
    def sections(self) -> int:
        """Sections it holds, deleted ones included."""
        return len(self.columns["section_doc"])

    @cached_property
    def docs(self) -> tuple[DocInfo, ...]:
        """Its documents' citation fields, by source."""
        lines = (self.folder / "docs.jsonl").read_bytes().splitlines()
        return tuple(DocInfo.from_dict(orjson.loads(line)) for line in lines)

    @cached_property
    def paths(self) -> tuple[tuple[str, ...], ...]:
        """Each section's heading path."""
        return tuple(tuple(p) for p in orjson.loads((self.folder / "paths.json").read_bytes()))

    @cached_property
    def section_access(self) -> npt.NDArray[np.uint8]:
        """Each section's access code (its document's)."""
        codes: npt.NDArray[np.uint8] = np.asarray(self.columns["doc_access"])[
            np.asarray(self.columns["section_doc"])
        ]
        return codes

    def text(self, doc: int) -> str:
        """Return one document's normalized text."""
        start, end = int(self._offsets[doc]), int(self._offsets[doc + 1])
        try:
            return zlib.decompress(self._texts[start:end]).decode("utf-8")
        except (zlib.error, UnicodeDecodeError) as exc:
            raise IndexError_(f"{self.folder.name}/texts.bin document {doc}: {exc}") from exc

    def live_documents(self) -> list[Document]:
        """Return its documents not deleted, rebuilt from their blocks and texts, by source."""
        lines = (self.folder / "blocks.jsonl").read_bytes().splitlines()
        out = []
        for row, (info, line) in enumerate(zip(self.docs, lines, strict=True)):
            if self.dead_docs is None or not self.dead_docs[row]:
                out.append(_document(info, orjson.loads(line), self.text(row)))
        return out

    def close(self) -> None:
        """Release the memory maps that can be closed."""
        for view in self.fields.values():
            view.close()
        if isinstance(self._texts, mmap.mmap):
            self._texts.close()


def _document(info: DocInfo, data: dict[str, Any], text: str) -> Document:
    """Return a stored document: its citation fields, blocks and text."""
    blocks = tuple(
        Block(kind, text[start:end], start, end, tuple(pages), tuple(section), level)
        for kind, start, end, pages, section, level in data["blocks"]
    )
    return Document(
        info.source, info.title, info.version, info.access, info.language,
        data["sha256"], text, info.pages, blocks,
    )  # fmt: skip


def doc_units(segments: Sequence[UnitSegment], picks: Sequence[tuple[int, int]]) -> UnitSet:
    """Return the UnitSet of the documents picks names as (segment, document), in that order,
    rows renumbered from 0: what the context assembler reads of the hits' documents."""
    parts: dict[str, list[Any]] = {name: [] for name in _SET_COLUMNS}
    docs: list[DocInfo] = []
    texts: list[str] = []
    paths: list[tuple[str, ...]] = []
    base = {"unit": 0, "block": 0, "section": 0}
    for doc_row, (seg, doc) in enumerate(picks):
        segment = segments[seg]
        units, blocks, sections = (
            segment.doc_range(name, doc) for name in ("doc_first", "doc_blocks", "doc_sections")
        )
        shift = base["unit"] - units.start

        def col(name: str, rows: slice) -> Any:
            return np.asarray(segment.columns[name][rows], np.int64)  # noqa: B023

        for name in ("unit_start", "unit_end", "unit_words", "unit_kind"):
            parts[name].append(col(name, units))
        parts["unit_block"].append(col("unit_block", units) - blocks.start + base["block"])
        section_of = col("unit_section", units) - sections.start + base["section"]
        parts["unit_section"].append(section_of)
        parts["unit_doc"].append(np.full(units.stop - units.start, doc_row, np.int64))
        header = col("unit_header", units)
        parts["unit_header"].append(np.where(header >= 0, header + shift, -1))
        parts["block_first"].append(col("block_first", blocks) + shift)
        parts["section_first"].append(col("section_first", sections) + shift)
        parts["section_doc"].append(np.full(sections.stop - sections.start, doc_row, np.int64))
        parts["doc_first"].append(np.array([base["unit"]], np.int64))
        docs.append(segment.docs[doc])
        texts.append(segment.text(doc))
        paths.extend(segment.paths[sections])
        base = {
            "unit": base["unit"] + units.stop - units.start,
            "block": base["block"] + blocks.stop - blocks.start,
            "section": base["section"] + sections.stop - sections.start,
        }
    return _unit_set(parts, docs, texts, paths, base["unit"])


_SET_COLUMNS = (
    "unit_start", "unit_end", "unit_words", "unit_kind", "unit_block", "unit_section",
    "unit_doc", "unit_header", "block_first", "section_first", "section_doc", "doc_first",
)  # fmt: skip


def _unit_set(
    parts: dict[str, list[Any]], docs: list[DocInfo], texts: list[str],
    paths: list[tuple[str, ...]], total: int,
) -> UnitSet:  # fmt: skip
    """Return the UnitSet of the gathered columns (the *_first ones end with the unit count)."""
    cols = {
        name: np.concatenate(values) if values else np.zeros(0, np.int64)
        for name, values in parts.items()
    }
    for name in ("block_first", "section_first", "doc_first"):
        cols[name] = np.append(cols[name], total).astype(np.int64)
    cols["cum_words"] = np.concatenate([[0], np.cumsum(cols["unit_words"])]).astype(np.int64)
    return UnitSet(tuple(docs), texts, tuple(paths), cols)
