"""The index folder: the only writer, and the reader search uses.

An index folder (default build/index) holds:

    CURRENT                  one line naming the live generation, e.g. gen-3f9a0c1d2b4e5f60
    .lock                    fcntl.flock'ed by the one writer
    gen-<hash>/              a complete, immutable generation:
        chunks.jsonl         one chunk per line (orjson, sorted keys), by source then position
        chunk_offsets.npy    int64 byte offset of each line, then the file size
        chunk_access.npy     uint8 per row: index of its label in the manifest's access_labels
        bm25/                the BM25 index (bm25.py)
        manifest.json        written last: settings, and per document its entry

Why a CURRENT file: renaming a directory over a non-empty one is not atomic on POSIX, but
os.replace of a file is. A writer fills `.tmp-<pid>/`, fsyncs it, renames it to
`gen-<hash of its chunks and manifest>` (with "-b" when that very name is live: rewriting
the same content repairs a damaged folder without touching the live one) and only then
replaces CURRENT; older generations are renamed to `.trash-*` and deleted after that. A
process killed at any moment leaves CURRENT naming a complete generation, old or new; the
next writer removes the leftovers.
The index folder stays a real directory (not a symlink), so the lock file can live in it.
Readers take no lock: they follow CURRENT once and keep their files open, and retry if a
writer retired the generation before they opened it.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from policy_assistant import __version__
from policy_assistant.bm25 import BM25_DEFAULTS as BM25_DEFAULTS  # re-exported for callers
from policy_assistant.bm25 import BM25Index
from policy_assistant.errors import IndexError_, UsageError
from policy_assistant.records import ACCESS_LABELS, Chunk, Document
from policy_assistant.tokenize import TOKENIZER_SETTINGS, tokenize, word_terms

FORMAT_VERSION = 1
"""Version of the index folder layout; an index in any other is stale."""
DEFAULT_INDEX_DIR = Path("build/index")
INDEX_ENV = "POLICY_ASSISTANT_INDEX"
"""Environment variable naming the index folder when --index is not given."""
LOCK_TIMEOUT = 10.0
"""Seconds a second writer waits for the lock before giving up."""

Progress = Callable[[int], None]

_GENERATION = re.compile(r"gen-[0-9a-f]{16}(-b)?")
_OURS = re.compile(r"gen-[0-9a-f]{16}(-b)?|\.tmp-\d+|\.trash-.+|\.CURRENT\.tmp")
_JSON = orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2
_HELD: dict[Path, int] = {}


class IndexBusyError(IndexError_):
    """Another process kept the index's write lock for longer than the timeout."""


@dataclass(frozen=True, slots=True)
class DocumentEntry:
    """What the manifest keeps about one document, to tell whether it changed."""

    source: str
    """Corpus-relative POSIX path."""
    sha256: str
    """Hex SHA-256 of the file's bytes when it was indexed."""
    version: str
    """Version label."""
    access: str
    """Access label."""
    language: str
    """ISO 639-1 language code."""
    chunk_ids: tuple[str, ...]
    """IDs of the document's chunks, by position."""
    catalog: dict[str, Any] = field(default_factory=dict)
    """The document's catalog entry as it was when indexed ({} when it had none)."""

    @classmethod
    def from_document(
        cls, document: Document, chunk_ids: Sequence[str], catalog: dict[str, Any] | None = None
    ) -> DocumentEntry:
        """Return the entry for a parsed document, the IDs of its chunks and its catalog entry."""
        doc, ids = document, tuple(chunk_ids)
        return cls(
            doc.source, doc.sha256, doc.version, doc.access, doc.language, ids, catalog or {}
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {**asdict(self), "chunk_ids": list(self.chunk_ids)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DocumentEntry:
        """Rebuild an entry from its JSON form."""
        return cls(**{**data, "chunk_ids": tuple(data["chunk_ids"])})


@dataclass(frozen=True, slots=True)
class Manifest:
    """Everything needed to tell whether an index is current, and what it holds."""

    format_version: int
    """FORMAT_VERSION of the writer."""
    tool_version: str
    """policy_assistant.__version__ of the writer."""
    chunker: dict[str, Any]
    """The chunker's name and settings."""
    tokenizer: dict[str, Any]
    """TOKENIZER_SETTINGS the chunks were indexed with."""
    bm25: dict[str, Any]
    """BM25 variant and parameters (BM25Index.params())."""
    documents: tuple[DocumentEntry, ...]
    """One entry per document, by source; their chunks are the index rows, in this order."""
    access_labels: tuple[str, ...] = ACCESS_LABELS
    """Access labels, least restricted first; chunk_access.npy holds indexes into it."""

    @classmethod
    def create(
        cls, chunker: dict[str, Any], bm25: dict[str, Any], documents: Sequence[DocumentEntry]
    ) -> Manifest:
        """Return a manifest for this tool version and tokenizer, documents sorted by source."""
        ordered = tuple(sorted(documents, key=lambda d: d.source))
        tokenizer = dict(TOKENIZER_SETTINGS)
        return cls(FORMAT_VERSION, __version__, dict(chunker), tokenizer, dict(bm25), ordered)

    @property
    def chunk_ids(self) -> list[str]:
        """Every chunk ID, in row order."""
        return [chunk_id for doc in self.documents for chunk_id in doc.chunk_ids]

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        documents = [d.to_dict() for d in self.documents]
        return {**asdict(self), "documents": documents, "access_labels": list(self.access_labels)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Manifest:
        """Rebuild a manifest from its JSON form."""
        documents = tuple(DocumentEntry.from_dict(d) for d in data["documents"])
        labels = tuple(data["access_labels"])
        return cls(**{**data, "documents": documents, "access_labels": labels})


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result."""

    rank: int
    """Position in the results, from 1."""
    score: float
    """BM25 score."""
    chunk: Chunk
    """The chunk found."""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form."""
        return {"rank": self.rank, "score": self.score, "chunk": self.chunk.to_dict()}


def resolve_index_dir(option: Path | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """Return the index folder: the --index option, else $POLICY_ASSISTANT_INDEX, else default."""
    if option is not None:
        return option
    value = (os.environ if environ is None else environ).get(INDEX_ENV)
    return Path(value) if value else DEFAULT_INDEX_DIR


def ingest_hint(index_dir: Path) -> str:
    """Return what to run to (re)build index_dir."""
    extra = "" if index_dir == DEFAULT_INDEX_DIR else f" --index {index_dir}"
    return f"run `policy-assistant ingest corpus/{extra}`"


def sort_chunks(chunks: Sequence[Chunk]) -> list[Chunk]:
    """Return chunks in index row order: by source, then position."""
    return sorted(chunks, key=lambda c: (c.source, c.position))


def build_bm25(
    chunks: Sequence[Chunk],
    variant: str = BM25_DEFAULTS["variant"],
    k1: float = BM25_DEFAULTS["k1"],
    b: float = BM25_DEFAULTS["b"],
    progress: Progress | None = None,
) -> BM25Index:
    """Return the BM25 index of the chunks' texts under tokenize(), one row per chunk."""
    texts = (chunk.text for chunk in chunks)
    return BM25Index.build(texts, variant, k1, b, word_terms=word_terms, progress=progress)


@contextmanager
def index_lock(index_dir: Path, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the index's write lock, waiting up to timeout seconds for another writer.

    Re-entrant within a process, so a pipeline can hold it from reading the old index to
    writing the new one and still call write_index.
    """
    key = index_dir.resolve()
    if key in _HELD:
        _HELD[key] += 1
        try:
            yield
        finally:
            _HELD[key] -= 1
        return
    index_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(index_dir / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:  # closing the descriptor releases the lock, also when the process dies
        _acquire(fd, index_dir, timeout)
        _HELD[key] = 1
        try:
            yield
        finally:
            del _HELD[key]
    finally:
        os.close(fd)


def _acquire(fd: int, index_dir: Path, timeout: float) -> None:
    """flock fd, polling until timeout; then record our pid for the next waiter's message."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() >= deadline:
                holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
                who = f" (process {holder})" if holder.isdigit() else ""
                raise IndexBusyError(
                    f"{index_dir} is being written by another ingest{who}; waited "
                    f"{timeout:g} s: try again when it finishes"
                ) from None
            time.sleep(0.05)
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)


def write_index(
    index_dir: Path,
    chunks: Sequence[Chunk],
    manifest: Manifest,
    bm25: BM25Index,
    lock_timeout: float = LOCK_TIMEOUT,
    progress: Progress | None = None,
) -> Path:
    """Write a new generation, make it current and delete the others; return its folder.

    chunks must be in row order (sort_chunks) and agree with manifest.documents and bm25,
    row for row. Takes the lock, waiting up to lock_timeout; progress gets chunks written.
    """
    _check_consistent(chunks, manifest, bm25)
    with index_lock(index_dir, lock_timeout):
        tmp = index_dir / f".tmp-{os.getpid()}"
        _remove(tmp)
        tmp.mkdir()
        try:
            name = _write_generation(tmp, chunks, manifest, bm25, progress)
        except BaseException:
            _remove(tmp)
            raise
        if _read_current(index_dir) == name:
            # The same content is live, but its files may have been damaged since: write
            # anyway, into the other slot, since the live folder cannot be replaced in place.
            name += "-b"
        _publish(index_dir, tmp, name)
        _clean(index_dir, keep=name)
        return index_dir / name


def _check_consistent(chunks: Sequence[Chunk], manifest: Manifest, bm25: BM25Index) -> None:
    """Raise ValueError unless chunks, manifest and BM25 rows agree."""
    if any(a >= b for a, b in pairwise((c.source, c.position) for c in chunks)):
        raise ValueError("chunks must be sorted by source then position (see sort_chunks)")
    if [c.id for c in chunks] != manifest.chunk_ids:
        raise ValueError("manifest chunk IDs do not match the chunks, row for row")
    if bm25.num_docs != len(chunks):
        raise ValueError(f"BM25 index has {bm25.num_docs} rows for {len(chunks)} chunks")
    if bm25.params() != manifest.bm25:
        raise ValueError(f"manifest BM25 settings {manifest.bm25} != index {bm25.params()}")
    if unknown := {c.access for c in chunks} - set(manifest.access_labels):
        raise ValueError(f"unknown access labels {sorted(unknown)}")


def _write_generation(
    tmp: Path, chunks: Sequence[Chunk], manifest: Manifest, bm25: BM25Index, progress: Any
) -> str:
    """Fill tmp with a whole generation, manifest last, flushed to disk; return its name."""
    codes = {label: i for i, label in enumerate(manifest.access_labels)}
    offsets = np.zeros(len(chunks) + 1, dtype=np.int64)
    digest = hashlib.sha256()
    with (tmp / "chunks.jsonl").open("wb") as out:
        for row, chunk in enumerate(chunks, 1):
            line = orjson.dumps(chunk.to_dict(), option=orjson.OPT_SORT_KEYS) + b"\n"
            out.write(line)
            digest.update(line)
            offsets[row] = offsets[row - 1] + len(line)
            if progress is not None and row % 10_000 == 0:
                progress(row)
    np.save(tmp / "chunk_offsets.npy", offsets)
    np.save(tmp / "chunk_access.npy", np.array([codes[c.access] for c in chunks], np.uint8))
    bm25.save(tmp / "bm25")
    manifest_json = orjson.dumps(manifest.to_dict(), option=_JSON) + b"\n"
    (tmp / "manifest.json").write_bytes(manifest_json)
    for root, _, files in os.walk(tmp):
        for name in files:
            _fsync(Path(root) / name)
        _fsync(Path(root))
    digest.update(manifest_json)
    return f"gen-{digest.hexdigest()[:16]}"


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _publish(index_dir: Path, tmp: Path, name: str) -> None:
    """Rename tmp to name (not the live generation) and point CURRENT at it."""
    target = index_dir / name
    if target.exists():  # left behind by a killed writer; replace it whole
        _retire(target)
    tmp.rename(target)
    pointer = index_dir / ".CURRENT.tmp"
    pointer.write_text(name + "\n", encoding="utf-8")
    _fsync(pointer)
    os.replace(pointer, index_dir / "CURRENT")
    _fsync(index_dir)


def _clean(index_dir: Path, keep: str) -> None:
    """Delete our other generations and every leftover; foreign files stay."""
    for entry in sorted(index_dir.iterdir()):
        if entry.name != keep and _OURS.fullmatch(entry.name):
            _retire(entry) if _GENERATION.fullmatch(entry.name) else _remove(entry)


def _retire(generation: Path) -> None:
    """Delete a generation, renaming it first, so a gen-* folder is always whole."""
    trash = generation.with_name(f".trash-{generation.name}")
    _remove(trash)
    generation.rename(trash)
    _remove(trash)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _damaged(index_dir: Path, problem: object) -> IndexError_:
    return IndexError_(f"damaged index at {index_dir}: {problem}: {ingest_hint(index_dir)}")


def _read_current(index_dir: Path) -> str | None:
    """Return the generation CURRENT names, or None when there is no CURRENT."""
    try:
        return (index_dir / "CURRENT").read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise _damaged(index_dir, exc) from exc


def _generation(index_dir: Path) -> Path:
    """Return the live generation's folder, or raise IndexError_ saying what to run."""
    name = _read_current(index_dir)
    if name is None:
        raise IndexError_(f"no index at {index_dir}: {ingest_hint(index_dir)}")
    if not _GENERATION.fullmatch(name) or not (index_dir / name).is_dir():
        raise _damaged(index_dir, f"CURRENT names {name!r}")
    return index_dir / name


def _read_manifest(index_dir: Path, generation: Path) -> Manifest:
    """Parse a generation's manifest; raise IndexError_ if stale or damaged."""
    try:
        data = orjson.loads((generation / "manifest.json").read_bytes())
        found = data.get("format_version")
        if found != FORMAT_VERSION:
            raise IndexError_(
                f"index at {index_dir} is in format {found}, this version reads format "
                f"{FORMAT_VERSION}: {ingest_hint(index_dir)}"
            )
        return Manifest.from_dict(data)
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
        raise _damaged(index_dir, f"manifest.json: {exc}") from exc


def load_manifest(index_dir: Path) -> Manifest:
    """Return the live generation's manifest (for a pipeline deciding what to reuse)."""
    return _read_manifest(index_dir, _generation(index_dir))


def load_chunks(index_dir: Path) -> list[Chunk]:
    """Return every chunk of the live generation, in row order, whatever its tokenizer."""
    with open_index(index_dir, check_tokenizer=False) as index:
        return index.chunks()


class LoadedIndex:
    """An open generation: manifest, BM25 arrays (memory-mapped), chunks read on demand."""

    def __init__(self, index_dir: Path, generation: Path, manifest: Manifest) -> None:
        self.index_dir = index_dir
        self.manifest = manifest
        try:
            self.bm25 = BM25Index.load(generation / "bm25")
        except IndexError_ as exc:
            raise _damaged(index_dir, exc) from exc
        self._offsets: npt.NDArray[np.int64] = _load_array(generation / "chunk_offsets.npy")
        self._access: npt.NDArray[np.uint8] = _load_array(generation / "chunk_access.npy")
        self._fd = os.open(generation / "chunks.jsonl", os.O_RDONLY)
        self._masks: dict[str, npt.NDArray[np.bool_]] = {}
        rows, size = len(self._access), os.fstat(self._fd).st_size
        agree = self._offsets.shape == (rows + 1,) and int(self._offsets[-1]) == size
        agree &= rows == self.bm25.num_docs == len(manifest.chunk_ids)
        if not agree or self.bm25.params() != manifest.bm25:
            self.close()
            raise _damaged(index_dir, "its files disagree")

    def __len__(self) -> int:
        return len(self._access)

    def __enter__(self) -> LoadedIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the chunks file."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def chunk(self, row: int) -> Chunk:
        """Return the chunk at row, reading only its line."""
        start, end = int(self._offsets[row]), int(self._offsets[row + 1])
        return Chunk.from_dict(orjson.loads(os.pread(self._fd, end - start, start)))

    def chunks(self) -> list[Chunk]:
        """Return every chunk, in row order."""
        data = os.pread(self._fd, int(self._offsets[-1]), 0)
        return [Chunk.from_dict(orjson.loads(line)) for line in data.splitlines()]

    def allowed(self, access: str | None) -> npt.NDArray[np.bool_] | None:
        """Return the mask of rows a reader with this access level may see (None: all)."""
        if access is None:
            return None
        labels = self.manifest.access_labels
        if access not in labels:
            raise UsageError(f"unknown access level {access!r}; expected one of {list(labels)}")
        if access not in self._masks:
            self._masks[access] = np.asarray(self._access) <= labels.index(access)
        return self._masks[access]

    def search(self, query: str, k: int = 10, access: str | None = None) -> list[SearchHit]:
        """Return the top k chunks for query that access may see, best first.

        Labels are ordered least restricted first: "public" sees public chunks only, "staff"
        sees public and staff ones; None applies no filter.
        """
        pairs = self.bm25.search(tokenize(query), k, self.allowed(access))
        return [SearchHit(i, score, self.chunk(row)) for i, (row, score) in enumerate(pairs, 1)]


def _load_array(path: Path) -> Any:
    return np.load(path, mmap_mode="r", allow_pickle=False)


def open_index(index_dir: Path, check_tokenizer: bool = True) -> LoadedIndex:
    """Open the live generation for search; raise IndexError_ if missing, stale or damaged.

    An index built with other tokenizer settings is stale for search (check_tokenizer);
    its chunks can still be read.
    """
    while True:
        generation = _generation(index_dir)
        try:
            manifest = _read_manifest(index_dir, generation)
            if check_tokenizer and manifest.tokenizer != TOKENIZER_SETTINGS:
                hint = ingest_hint(index_dir)
                raise IndexError_(f"index at {index_dir} was built with another tokenizer: {hint}")
            try:
                return LoadedIndex(index_dir, generation, manifest)
            except (OSError, ValueError) as exc:
                raise _damaged(index_dir, exc) from exc
        except IndexError_:
            if _read_current(index_dir) == generation.name:
                raise  # not a writer swapping generations under us
