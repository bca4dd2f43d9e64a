"""Reading one unit segment unit_segment.py wrote: arrays memory-mapped, texts read by document.

Opening parses only segment.json; documents, paths and texts are read when a search needs
them. A deleted document takes its units, sections and document row out of every field
(FieldView.deleted), so a segment's liveness is one bool per document.
"""

from __future__ import annotations

import mmap
import zlib
from collections.abc import Callable, Sequence
from functools import cached_property, partial
from pathlib import Path
from typing import Any, TypeVar, overload

import numpy as np
import numpy.typing as npt

from policy_assistant.errors import BadIndex
from policy_assistant.index.chunks.bm25_files import Postings, load_array, open_segment, read_terms
from policy_assistant.index.chunks.bm25_types import Ints
from policy_assistant.index.chunks.vector_file import VECTORS_FILE, load_vectors
from policy_assistant.index.context.passages import PREFIX_WORDS
from policy_assistant.index.context.unit_segment import (
    FIELD_ARRAYS,
    FIELDS,
    LINES,
    UNIT_SEGMENT_FORMAT,
    UnitSegmentInfo,
)
from policy_assistant.index.context.units import DocInfo, UnitSet, starts_of
from policy_assistant.jsonio import loads
from policy_assistant.records import Block, Document

Mask = npt.NDArray[np.bool_]
T = TypeVar("T")
_COLUMNS = (
    "unit_start", "unit_end", "unit_words", "unit_kind", "unit_block", "unit_section",
    "unit_doc", "unit_header", "block_first", "section_first", "section_doc", "doc_first",
    "cum_words", "doc_sections", "doc_blocks", "doc_access", PREFIX_WORDS,
)  # fmt: skip


class FieldView(Postings):
    """One BM25 field of a unit segment: what unit_terms plans, weighs and sums."""

    def __init__(self, folder: Path, rows_of_doc: Any, dead_docs: Mask | None) -> None:
        arrays = {name: load_array(folder / f"{name}.npy", "r") for name in FIELD_ARRAYS}
        super().__init__(read_terms(folder / "terms.txt"), arrays)
        self.front, self.front_ptr = arrays["front"], arrays["front_ptr"]
        if int(self.ptr[-1]) != len(self.rows) or len(self.rows) != len(self.tf):
            raise BadIndex(f"{folder.parent.name}/{folder.name}: its files disagree")
        self._rows_of_doc, self._dead_docs = rows_of_doc, dead_docs

    @cached_property
    def deleted(self) -> Mask | None:
        """Bool per row: its document was deleted (None: none was)."""
        if self._dead_docs is None:
            return None
        mask: Mask = np.repeat(self._dead_docs, np.diff(self._rows_of_doc))
        return mask

    @cached_property
    def _dead_bounds(self) -> Ints:
        """The first row and the end of each deleted document's rows, one after the other."""
        first = np.asarray(self._rows_of_doc, np.int64)
        docs = np.flatnonzero(np.asarray(self._dead_docs))  # read only when some are deleted
        return np.column_stack([first[docs], first[docs + 1]]).ravel()

    def live_count(self, rows: Any) -> int:
        """Return how many of a term's postings (its rows) are live: a bisection per deleted
        document's run of rows, not a look at every posting."""
        if self._dead_docs is None:
            return len(rows)
        at = np.searchsorted(rows, self._dead_bounds.astype(rows.dtype)).reshape(-1, 2)
        return len(rows) - int((at[:, 1] - at[:, 0]).sum())


class UnitSegment:
    """An open unit segment: columns, four fields, documents and texts on demand."""

    def __init__(self, folder: Path, info: UnitSegmentInfo, dead_docs: Mask | None) -> None:
        self.folder, self.info, self.dead_docs = folder, info, dead_docs
        with open_segment(folder, UNIT_SEGMENT_FORMAT, "unit segment") as meta:
            self.columns = {name: load_array(folder / f"{name}.npy", "r") for name in _COLUMNS}
            self._offsets = load_array(folder / "text_offsets.npy", "r")
            self._frames = load_array(folder / "text_frames.npy", "r")
            self.frame_chars = int(meta["frame_chars"])
            self._texts = read_terms(folder / "texts.bin")
            self._lines = _Lines(folder)
            self._doc_cache: dict[int, DocInfo] = {}
            by_doc = {
                "body": self.columns["doc_first"],
                "sections": self.columns["doc_sections"],
                "passages": self.columns["doc_sections"],
                "documents": np.arange(info.rows + 1),
            }
            self.fields = {n: FieldView(folder / n, by_doc[n], dead_docs) for n in FIELDS}
        self._check()

    def vectors(self) -> npt.NDArray[np.float32] | None:
        """Return each unit's (body row's) unit-length vector as float32, or None when the
        index holds no vectors; read once, then kept."""
        if "_vectors" not in self.__dict__:
            found = self.folder / VECTORS_FILE
            rows = self.info.fields["body"].rows
            self.__dict__["_vectors"] = load_vectors(self.folder, rows) if found.is_file() else None
        vectors: npt.NDArray[np.float32] | None = self.__dict__["_vectors"]
        return vectors

    def _check(self) -> None:
        """Raise BadIndex unless the columns agree with the counts."""
        docs, cols = self.info.rows, self.columns
        ok = len(cols["doc_first"]) == docs + 1 == len(cols["doc_sections"]) == len(self._frames)
        ok &= len(self._offsets) == int(self._frames[-1]) + 1
        ok &= len(cols["unit_start"]) == self.info.fields["body"].rows == int(cols["doc_first"][-1])
        ok &= len(cols["section_doc"]) == self.info.fields["passages"].rows
        ok &= self.dead_docs is None or self.dead_docs.shape == (docs,)
        if not ok:
            raise BadIndex(f"{self.folder.name}: its files disagree")

    def doc_range(self, column: str, doc: int) -> slice:
        """Return a document's rows of units (doc_first), blocks or sections."""
        first = self.columns[column]
        return slice(int(first[doc]), int(first[doc + 1]))

    @property
    def sections(self) -> int:
        """Sections it holds, deleted ones included."""
        return len(self.columns["section_doc"])

    def doc(self, row: int) -> DocInfo:
        """Return one document's citation fields, reading its line only."""
        found = self._doc_cache.get(row)
        if found is None:
            found = self._doc_cache[row] = DocInfo.from_dict(self._lines.read("doc", row)[0])
        return found

    def path(self, row: int) -> tuple[str, ...]:
        """Return one section's heading path, reading its line only."""
        return tuple(self._lines.read("path", row)[0])

    def text(self, doc: int) -> str:
        """Return one document's normalized text."""
        first, end = int(self._frames[doc]), int(self._frames[doc + 1])
        return "".join(self.frame(doc, at) for at in range(end - first))

    def frame(self, doc: int, at: int) -> str:
        """Return the at-th frame of a document's text (frame_chars characters; "" past its
        end)."""
        frame = int(self._frames[doc]) + at
        if frame >= int(self._frames[doc + 1]):
            return ""
        start, end = int(self._offsets[frame]), int(self._offsets[frame + 1])
        try:
            return zlib.decompress(self._texts[start:end]).decode("utf-8")
        except (zlib.error, UnicodeDecodeError) as exc:
            raise BadIndex(f"{self.folder.name}/texts.bin document {doc}: {exc}") from exc

    def live_documents(self) -> list[Document]:
        """Return its documents not deleted, rebuilt from their blocks and texts, by source."""
        lines = (self.folder / "blocks.jsonl").read_bytes().splitlines()
        docs = self._lines.read("doc", 0, self.info.rows)  # every line at once: search reads doc
        out = []
        for row, (info, line) in enumerate(zip(docs, lines, strict=True)):
            if self.dead_docs is None or not self.dead_docs[row]:
                out.append(_document(DocInfo.from_dict(info), loads(line), self.text(row)))
        return out

    def close(self) -> None:
        """Release the memory maps that can be closed."""
        for view in self.fields.values():
            view.close()
        if isinstance(self._texts, mmap.mmap):
            self._texts.close()
        self._lines.close()


class _Lines:
    """docs.jsonl and paths.jsonl, memory-mapped, read a few lines at a time by offset."""

    def __init__(self, folder: Path) -> None:
        self.data = {name: read_terms(folder / file) for name, file in LINES.items()}
        self.offsets = {n: load_array(folder / f"{n}_offsets.npy", "r") for n in LINES}

    def read(self, name: str, start: int, stop: int | None = None) -> list[Any]:
        """Return the parsed lines start..stop (stop: start + 1) of one file."""
        offsets = self.offsets[name]
        end = start + 1 if stop is None else stop
        chunk = bytes(self.data[name][int(offsets[start]) : int(offsets[end])])
        parsed: list[Any] = loads(b"[" + b",".join(chunk.splitlines()) + b"]")
        return parsed

    def close(self) -> None:
        """Release the memory maps."""
        for data in self.data.values():
            if isinstance(data, mmap.mmap):
                data.close()


class SegmentSources:
    """A unit segment's document sources, sorted, each read from its line when asked: what
    a writer bisects to find a replaced document, without opening the segment's arrays."""

    def __init__(self, folder: Path, rows: int) -> None:
        """Read the sources of the unit segment in folder, which holds rows documents."""
        try:
            self._lines = _Lines(folder)
        except OSError as exc:
            raise BadIndex(f"{folder.name}: {exc.strerror or exc}") from exc
        self.sources = _Lazy(rows, lambda i: str(self._lines.read("doc", i)[0]["source"]))

    def close(self) -> None:
        """Release the memory maps."""
        self._lines.close()


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
    layout = {kind: _layout(segments, picks, kind) for kind in _RANGE_COLUMNS}
    bases = {kind: found[0] for kind, found in layout.items()}
    shift = {kind: found[1] for kind, found in layout.items()}
    cols: dict[str, Any] = {}
    for name, kind in _GATHERED.items():
        cols[name] = _gather(segments, name, layout[kind][2], int(bases[kind][-1]))
    pick = {k: np.repeat(np.arange(len(picks)), np.diff(bases[k])) for k in _RANGE_COLUMNS}
    units = pick["doc_first"]
    cols["unit_block"] += shift["doc_blocks"][units]
    cols["unit_section"] += shift["doc_sections"][units]
    header = cols["unit_header"]
    cols["unit_header"] = np.where(header >= 0, header + shift["doc_first"][units], -1)
    for name, kind in (("block_first", "doc_blocks"), ("section_first", "doc_sections")):
        cols[name] = np.append(cols[name] + shift["doc_first"][pick[kind]], bases["doc_first"][-1])
    cols["unit_doc"], cols["section_doc"] = units, pick["doc_sections"]
    cols["doc_first"] = bases["doc_first"]
    cols["cum_words"] = starts_of(cols["unit_words"])
    docs = tuple(segments[s].doc(d) for s, d in picks)
    texts = _Lazy(len(picks), lambda i: DocText(segments[picks[i][0]], picks[i][1]))
    paths = _Lazy(int(bases["doc_sections"][-1]),
                 partial(_picked_path, segments, picks, bases["doc_sections"]))  # fmt: skip
    return UnitSet(docs, texts, paths, cols)


def _picked_path(
    segments: Sequence[UnitSegment], picks: Sequence[tuple[int, int]], bases: Ints, i: int
) -> tuple[str, ...]:
    """Return the heading path of section i of the picks' sections laid end to end."""
    pick = int(np.searchsorted(bases, i, side="right")) - 1
    segment, doc = segments[picks[pick][0]], picks[pick][1]
    return segment.path(segment.doc_range("doc_sections", doc).start + i - int(bases[pick]))


def segment_units(segment: UnitSegment) -> UnitSet:
    """Return one segment's units as a UnitSet, rows local to it, nothing copied: its columns
    memory-mapped, its documents, paths and texts read when first asked for (what the
    context assembler reads when every hit is in this segment). Build one per query: it
    keeps what it reads."""
    docs = _Lazy(segment.info.rows, segment.doc)
    texts = _Lazy(segment.info.rows, lambda i: DocText(segment, i))
    paths = _Lazy(segment.sections, segment.path)
    return UnitSet(docs, texts, paths, dict(segment.columns))


_RANGE_COLUMNS = ("doc_first", "doc_blocks", "doc_sections")
"""The per-document columns that give each document's rows of units, blocks and sections."""
_GATHERED = {
    **{name: "doc_first" for name in ("unit_start", "unit_end", "unit_words", "unit_kind")},
    **{name: "doc_first" for name in ("unit_block", "unit_section", "unit_header")},
    "block_first": "doc_blocks",
    "section_first": "doc_sections",
    PREFIX_WORDS: "doc_sections",
}
"""The columns a UnitSet copies from its documents' segments, by the rows they run over."""


def runs(starts: Ints, stops: Ints) -> Ints:
    """Return the rows start..stop of every run, one after the other."""
    sizes = stops - starts
    return np.repeat(starts - np.cumsum(sizes) + sizes, sizes) + np.arange(int(sizes.sum()))


def _layout(
    segments: Sequence[UnitSegment], picks: Sequence[tuple[int, int]], column: str
) -> tuple[Ints, Ints, list[tuple[int, Ints, Ints]]]:
    """Return where the picks' rows of units, blocks or sections (by column) start laid end
    to end (then their total), how far each pick's rows move there, and per segment of the
    picks where its picks' rows go in a gathered column and which of its rows they are
    (computed once for every column over the same rows)."""
    spans = [segments[s].doc_range(column, d) for s, d in picks]
    starts = np.array([r.start for r in spans], np.int64)
    stops = np.array([r.stop for r in spans], np.int64)
    at, seg = starts_of(stops - starts), np.array([s for s, _ in picks], np.int64)
    takes = []
    for i in np.unique(seg).tolist():
        mine = np.flatnonzero(seg == i)
        takes.append((i, runs(at[mine], at[mine + 1]), runs(starts[mine], stops[mine])))
    return at, at[:-1] - starts, takes


def _gather(
    segments: Sequence[UnitSegment], name: str, takes: list[tuple[int, Ints, Ints]], size: int
) -> Ints:
    """Return one column's rows of every pick, in pick order, as int64 (one take a segment)."""
    out = np.zeros(size, np.int64)
    for i, places, rows in takes:
        out[places] = segments[i].columns[name][rows]
    return out


class _Lazy(Sequence[T]):
    """Items made one at a time when first asked for, then kept: the hit documents' texts
    and citation fields, a segment's sources (read as bisection asks)."""

    def __init__(self, size: int, make: Callable[[int], T]) -> None:
        self._size, self._make = size, make
        self._kept: dict[int, T] = {}

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[T]: ...
    def __getitem__(self, i: int | slice) -> T | Sequence[T]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if not 0 <= i < len(self):
            raise IndexError(i)
        if i not in self._kept:
            self._kept[i] = self._make(i)
        return self._kept[i]


class DocText:
    """A stored document's text, read a frame at a time as slices ask for them."""

    def __init__(self, segment: UnitSegment, doc: int) -> None:
        self._segment, self._doc = segment, doc
        self._frames: dict[int, str] = {}

    def __getitem__(self, span: slice) -> str:
        """Return text[start:stop] (both given, no step), decompressing only its frames."""
        start, stop = span.start, span.stop
        if not isinstance(start, int) or not isinstance(stop, int) or span.step is not None:
            raise TypeError("a stored text is sliced by a start and a stop only")
        if stop <= start:
            return ""
        size = self._segment.frame_chars
        first, last = start // size, (stop - 1) // size
        for at in range(first, last + 1):
            if at not in self._frames:
                self._frames[at] = self._segment.frame(self._doc, at)
        text = "".join(self._frames[at] for at in range(first, last + 1))
        return text[start - first * size : stop - first * size]
