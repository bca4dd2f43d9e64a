"""One read's per-file steps: read, reuse, cache, parse here or in forked workers, finish.

The first files are parsed in this process; once POOL_AFTER_FILES files or POOL_AFTER_BYTES
bytes have been, and more than one file is left, the rest go to worker processes
(parse/pool.py), one per core unless CorpusOptions.workers says otherwise.
Every outcome is finished in source order by this process alone: it alone reads the parse
cache and builds the result, so a pooled read gives what a serial one does. A worker stores
the parses it made in the cache itself: a key fixes its value, so the files are the same.
"""

from __future__ import annotations

import gc
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from policy_assistant.collector import READ_THRESHOLDS
from policy_assistant.errors import DocumentError
from policy_assistant.ids import file_sha256
from policy_assistant.parse.cache import ParseCache
from policy_assistant.parse.catalog import Catalog
from policy_assistant.parse.discover import Discovery
from policy_assistant.parse.dispatch import relabel
from policy_assistant.parse.file_table import DocMeta, FileTable
from policy_assistant.parse.files import read_regular
from policy_assistant.parse.language import use_model_folder
from policy_assistant.parse.pdf import ocr as pdf_ocr
from policy_assistant.parse.pdf.ocr import ocr_state
from policy_assistant.parse.read_records import (
    AfterParse,
    CorpusFile,
    CorpusOptions,
    CorpusRead,
    Parsed,
    Reuse,
    Reused,
    document_warnings,
)
from policy_assistant.parse.wire import Wire, from_wire, to_wire

if TYPE_CHECKING:
    from concurrent.futures import Future

    from policy_assistant.procs.engine import Engine
    from policy_assistant.procs.pool import Batches, ForkPool
    from policy_assistant.procs.ray_pool import RayPool, SortedBatches

ParseFile = Callable[[bytes, str, Catalog, AfterParse | None], Parsed]
"""How one file's bytes are parsed (dispatch.parse_file)."""

POOL_AFTER_FILES = 32
"""Files parsed in this process before the rest go to worker processes (when several)."""
POOL_AFTER_BYTES = 256 * 1024
"""Bytes parsed in this process before the rest go to worker processes. Forking two workers
took 54 ms, about what 50 KiB of Markdown takes to parse; these limits keep a few small files
in-process (bench/bench_cores.py: bench_threshold; re-measure on a quiet machine)."""


@dataclass(frozen=True)
class _Outcome:
    """One file's turn, as the parent finishes it: kept, from the cache, or parsed."""

    file: CorpusFile
    """The file as read."""
    parsed: Parsed | None = None
    """What the parse (or the cache) gave; None when the caller's reuse hook kept the file."""
    kept: Reused | None = None
    """What the reuse hook said, when it kept the file."""
    fresh: bool = False
    """Whether it was parsed in this read (not kept, not from the cache)."""
    key: str = ""
    """The cache key to store a fresh parse under ("" without a cache)."""
    size: int = 0
    """Bytes of the file held while a worker parses it (0 when nothing is sent)."""
    by_stat: bool = False
    """Whether it was kept as the file table knew it by its stat (its row then stands)."""
    stored: bool = False
    """Whether the worker that parsed it stored the parse in the cache itself."""


_KEPT = {labelled: Parsed(None, labelled, None) for labelled in (False, True)}
"""What a kept file's outcome holds, by whether it is labelled (shared: 100,000 kept a read)."""

Step = _Outcome | DocumentError
"""One file's outcome: what was read (and parsed), or why it could not be read."""

Item = tuple[bytes, str, str]
"""What a worker is sent per file: its bytes, its source and its cache key."""
Started = tuple[Step, "Future[Parsed] | None"]
"""A file's step and, when a worker parses it, the future of its parse."""


def _held(step: Step) -> int:
    """Return the bytes a step holds until its parse arrives."""
    return 0 if isinstance(step, DocumentError) else step.size


def _stat(file: str) -> os.stat_result | None:
    """Return a regular file's stat (following links, as the read does), else None."""
    try:
        info = os.stat(file)
    except OSError:
        return None
    return info if stat.S_ISREG(info.st_mode) else None


def _step_source(step: Step) -> str:
    """Return the source a step is about."""
    return step.source if isinstance(step, DocumentError) else step.file.source


_worker_state: tuple[ParseFile, Catalog, AfterParse | None, ParseCache | None] | None = None
"""In a worker process: the parser, catalog, after_parse and parse cache of the read it serves
(set by _keep)."""


def _keep(
    parse: ParseFile,
    catalog: Catalog,
    after_parse: AfterParse | None,
    ocr: bool,
    cache: Path | None,
) -> None:
    """In a new worker: keep the read's parser, catalog, hook and cache, and the OCR switch."""
    global _worker_state
    _worker_state = (parse, catalog, after_parse, ParseCache(cache) if cache is not None else None)
    pdf_ocr.set_enabled(ocr)  # inherited through fork already; set so no start method differs


def _keep_on_ray(models: Path | None, *state: Any) -> None:
    """In a Ray worker (not forked: nothing inherited): keep what _keep keeps, map the
    language model kept in the parse cache's folder rather than unpack it again, and collect
    garbage as seldom as a forked worker does (it inherits the reader's fewer_collections)."""
    gc.set_threshold(*READ_THRESHOLDS)  # the worker runs nothing but this read's batches
    use_model_folder(models)
    _keep(*state)


def _parse_in_worker(data: bytes, source: str) -> Parsed:
    """In a worker: parse one file with the state _keep kept."""
    assert _worker_state is not None, "a worker task ran before its pool's setup"
    parse, catalog, after_parse, _ = _worker_state
    return parse(data, source, catalog, after_parse)


def _parse_batch(files: list[tuple[bytes, str, str]]) -> list[Wire]:
    """In a worker: parse a batch of files, each as _parse_in_worker does, store each parse
    under its cache key (when given), and return them in wire form.

    The worker stores what it parsed so that serializing documents and creating the cache's
    files, which took most of the parent's time in a cold read, run on every core.
    """
    assert _worker_state is not None, "a worker task ran before its pool's setup"
    cache, wires = _worker_state[3], []
    for data, source, key in files:
        parsed = _parse_in_worker(data, source)
        if cache is not None and key and parsed.document is not None:
            cache.put(key, parsed.document, parsed.front_access)
        wires.append(to_wire(parsed))
    return wires


class Reader:
    """One read's per-file steps: read, reuse, cache, parse here or in a worker, then finish."""

    def __init__(
        self,
        options: CorpusOptions,
        cache: ParseCache | None,
        reuse: Reuse | None,
        result: CorpusRead,
        after_parse: AfterParse | None,
        parse: ParseFile,
        table: FileTable | None = None,
    ) -> None:
        """Read into `result` with these settings, parsing each file with `parse` (and
        knowing unchanged files by their stat, with a file table)."""
        self.options, self.cache, self.reuse, self.table = options, cache, reuse, table
        self.result, self.after_parse, self.parse = result, after_parse, parse
        self.parsed_files, self.parsed_bytes = 0, 0
        self.ocr = ocr_state()  # once a read: it searches PATH for Tesseract

    def outcomes(
        self, found: Discovery, stack: ExitStack, arrived: Callable[[str], None]
    ) -> Iterator[Step]:
        """Yield each file's outcome in source order; parsing moves to workers past the limits."""
        files = list(zip(found.sources, found.files, strict=True))
        for number, (source, file) in enumerate(files):
            if self._pool_pays(len(files) - number):
                yield from self._pooled(files[number:], stack, arrived)
                return
            if self._kept_by_stat(source, file):
                arrived(source)
                continue
            step, _ = self._start(source, file, None)
            arrived(source)
            yield step

    def _pool_pays(self, left: int) -> bool:
        """Whether enough was parsed here to show that workers will pay for their start."""
        engine = self.options.engine
        if engine is not None and engine.ray:
            return left >= 1  # every file to parse goes to the cluster
        if left < 2 or (self.options.workers or 2) < 2:
            return False
        return self.parsed_files >= POOL_AFTER_FILES or self.parsed_bytes >= POOL_AFTER_BYTES

    def _pooled(
        self, files: list[tuple[str, str]], stack: ExitStack, arrived: Callable[[str], None]
    ) -> Iterator[Step]:
        """Yield the outcomes of `files`, parsed in forked workers, in source order."""
        # multiprocessing costs start-up: imported only when a pool is used
        from policy_assistant.procs import pool as workers

        engine = self.options.engine
        ray = engine is not None and engine.ray
        pool: ForkPool | RayPool | None
        batches: Batches[Item, Parsed] | None
        if engine is not None and ray:
            count, pool, batches, started = self._on_ray(engine, files, stack, arrived)
        else:
            count, pool, batches, started = self._forked(files, stack, arrived)
        work = (  # the steps done here (read failures, reuses, cache hits) with a done future
            (step, cast("Future[Parsed | None]", future or workers.done(None)), _held(step))
            for step, future in started
        )
        # Ray batches go by their own rule (SortedBatches), never because the reader waits.
        flush = batches.flush if batches is not None and not ray else None
        size = batches.items if batches is not None else workers.BATCH_ITEMS
        in_turn = workers.in_order(work, count, lambda s: arrived(_step_source(s)), flush, size)
        for step, future in in_turn:
            if isinstance(step, _Outcome) and pool is not None and workers.died(future):
                yield self._again(step, pool)
                continue
            parsed = future.result()
            yield replace(step, parsed=parsed) if parsed and isinstance(step, _Outcome) else step

    def _state(self, cache: bool = True) -> tuple[object, ...]:
        """Return what a worker's setup (_keep) is given: parser, catalog, hook, OCR, cache."""
        folder = self.cache.folder if self.cache is not None and cache else None
        return self.parse, self.result.catalog, self.after_parse, pdf_ocr.ENABLED, folder

    def _forked(
        self, files: list[tuple[str, str]], stack: ExitStack, arrived: Callable[[str], None]
    ) -> tuple[int, ForkPool | None, Batches[Item, Parsed] | None, Iterator[Started]]:
        """Return the worker count, the fork pool (None: parse here), its batches and the
        files' steps."""
        from policy_assistant.procs import pool as workers

        count = workers.check_workers(self.options.workers)
        pool = None
        if workers.can_fork(count):
            pool = stack.enter_context(workers.ForkPool(count, _keep, *self._state()))
        batches = workers.Batches(pool, _parse_batch, from_wire) if pool is not None else None
        steps = (
            self._start(source, file, batches) for source, file in self._unkept(files, arrived)
        )
        return count, pool, batches, steps

    def _on_ray(
        self,
        engine: Engine,
        files: list[tuple[str, str]],
        stack: ExitStack,
        arrived: Callable[[str], None],
    ) -> tuple[int, RayPool, SortedBatches[Item, Parsed], Iterator[Started]]:
        """Return the read-ahead size, the Ray pool, its batches and the files' steps.

        A Ray cluster this read starts runs on this machine, so its workers store their parses
        in the cache as forked ones do; on a joined cluster the cache folder may not be there,
        so this process stores them.
        """
        from policy_assistant.procs import pool as workers
        from policy_assistant.procs.engine import RAY_QUEUE_WORKERS
        from policy_assistant.procs.ray_pool import RayPool, SortedBatches

        here = engine.address is None
        count = workers.check_workers(self.options.workers) if here else RAY_QUEUE_WORKERS
        count = self.options.workers or count
        models = self.options.cache_dir if here else None
        state = self._state(cache=here)
        pool = stack.enter_context(RayPool(engine, count, _keep_on_ray, models, *state))
        batches: SortedBatches[Item, Parsed] = SortedBatches(pool, _parse_batch, from_wire, engine)
        batches.stored = here
        steps = (
            self._start(source, file, batches) for source, file in self._unkept(files, arrived)
        )
        return count, pool, batches, batches.spanned(steps)

    def _again(self, step: _Outcome, pool: ForkPool | RayPool) -> Step:
        """Parse a file again in a worker of its own: its worker died, maybe for another file.

        Several files are in flight when a worker dies, so each is parsed again alone; the one
        that kills that worker too is the failure (a crash in a native library, or a kill).
        """
        source = step.file.source
        try:
            data = read_regular(step.file.path, source, self.options.max_file_size)
        except DocumentError as exc:
            return exc
        if file_sha256(data) != step.file.sha256:
            return DocumentError(source, "changed while the corpus was read; read it again")
        parsed = pool.alone(_parse_in_worker, data, source)
        if parsed is None:
            return DocumentError(
                source, "the parser crashed its process; the other files were read"
            )
        return replace(step, parsed=parsed, stored=False)

    def _start(self, source: str, file: str, batches: Batches[Item, Parsed] | None) -> Started:
        """Read one file and reuse it, take it from the cache, or parse it (here or in a
        worker, through `batches`)."""
        fields = self.result.catalog.fields_for(source)
        try:
            corpus_file, data = self._open(source, file, fields)
            known = self._known(corpus_file, data is None)
            if known is not None:
                return known, None
            if data is None:  # known by its stat, needed after all: read it now
                data = read_regular(file, source, self.options.max_file_size)
                corpus_file = replace(corpus_file, sha256=file_sha256(data), meta=None)
        except DocumentError as exc:
            return exc, None
        key = self._key(corpus_file)
        self.parsed_files, self.parsed_bytes = self.parsed_files + 1, self.parsed_bytes + len(data)
        if batches is not None:
            future = batches.add((data, source, key), len(data))
            stored = batches.stored
            return _Outcome(corpus_file, fresh=True, key=key, size=len(data), stored=stored), future
        parsed = self.parse(data, source, self.result.catalog, self.after_parse)
        return _Outcome(corpus_file, parsed, fresh=True, key=key), None

    def _unkept(
        self, files: list[tuple[str, str]], arrived: Callable[[str], None]
    ) -> Iterator[tuple[str, str]]:
        """Yield the files _kept_by_stat does not keep; count each one it keeps as done."""
        for source, file in files:
            if self._kept_by_stat(source, file):
                arrived(source)
            else:
                yield source, file

    def _kept_by_stat(self, source: str, file: str) -> bool:
        """Keep a file the file table knows by its stat and the reuse hook keeps, and say
        so: a re-read's common case (100,000 files in a no-op), done without an outcome.

        A file whose keeping warns (empty, unlabelled) takes the full path, which warns.
        """
        table, reuse = self.table, self.reuse
        if table is None or reuse is None or source not in table:
            return False
        corpus_file = self._by_stat(source, file, self.result.catalog.fields_for(source))[1]
        meta = corpus_file.meta if corpus_file is not None else None
        if corpus_file is None or meta is None or meta.empty or not meta.labelled:
            return False
        if reuse(corpus_file) is None:
            return False
        table.keep(source)
        self.result.reused.append(corpus_file)
        return True

    def _key(self, file: CorpusFile) -> str:
        """Return the file's parse cache key ("" without a cache)."""
        if self.cache is None:
            return ""
        return ParseCache.key(file.source, file.sha256, file.fields, self.ocr)

    def _known(self, file: CorpusFile, by_stat: bool) -> _Outcome | None:
        """Return the outcome of a file the reuse hook keeps or the parse cache holds."""
        meta = file.meta
        kept = self.reuse(file) if self.reuse is not None and meta is not None else None
        if kept is not None and meta is not None:
            return _Outcome(file, _KEPT[meta.labelled], kept, by_stat=by_stat)
        hit = self.cache.get(self._key(file)) if self.cache is not None else None
        if hit is None:
            return None
        document, front = hit
        labelled = relabel(document, file.fields, front)  # labels are applied after the cache
        if labelled is None:
            return None
        return _Outcome(file, Parsed(labelled[0], labelled[1], None, front_access=front))

    def _open(
        self, source: str, file: str, fields: dict[str, str]
    ) -> tuple[CorpusFile, bytes | None]:
        """Return the file as known: by its stat when the file table vouches for its bytes
        (then no bytes), else read and hashed."""
        info, known = self._by_stat(source, file, fields)
        if known is not None:
            return known, None
        data = read_regular(file, source, self.options.max_file_size)
        sha256 = file_sha256(data)
        table = self.table
        meta = table.meta_of(source, sha256, fields) if table is not None else None
        return CorpusFile(source, file, sha256, fields, meta, info), data

    def _by_stat(
        self, source: str, file: str, fields: dict[str, str]
    ) -> tuple[os.stat_result | None, CorpusFile | None]:
        """Return the file's stat (None without a file table) and the file as the table knows
        it by that stat, without its bytes (None when it does not vouch for them)."""
        table = self.table
        info = _stat(file) if table is not None else None
        if table is None or info is None or info.st_size > self.options.max_file_size:
            return info, None
        known = table.known(source, info, fields)
        return info, CorpusFile(source, file, known[0], fields, known[1], info) if known else None

    def _note(self, file: CorpusFile, parsed: Parsed | None) -> None:
        """Record the file in the file table: its stat, bytes and what its parse gave."""
        assert self.table is not None
        document = parsed.document if parsed is not None else None
        meta = DocMeta.of(document, parsed.labelled) if document and parsed else None
        fields = file.fields if meta else None
        self.table.note(file.source, file.info, file.sha256, fields, meta)

    def finish(self, step: Step) -> None:
        """Take one file's outcome into the result, in source order; a failure is raised."""
        if isinstance(step, DocumentError):
            raise step
        result, parsed, source = self.result, step.parsed, step.file.source
        assert parsed is not None, "an outcome finished before its parse arrived"
        if self.table is not None and step.by_stat:
            self.table.keep(source)  # known by its stat and kept: its row stands
        elif self.table is not None:
            self._note(step.file, None if step.kept else parsed)
        if step.kept is not None:
            result.reused.append(step.file)
            if step.kept.empty or not parsed.labelled:  # the rest, 100,000 a no-op, say nothing
                result.warnings.extend(document_warnings(source, parsed.labelled, step.kept.empty))
            return
        if parsed.document is None:
            raise DocumentError(source, parsed.problem or "could not be parsed")
        if step.fresh:
            result.parsed += 1
            if self.cache is not None and not step.stored:
                self.cache.put(step.key, parsed.document, parsed.front_access)
        if parsed.chunks is not None:
            result.chunked[source] = parsed.chunks
        result.documents.append(parsed.document)
        empty = not parsed.document.blocks
        result.warnings.extend(document_warnings(source, parsed.labelled, empty))
