"""Cold ingest on one worker against two: one generated corpus, run alternately, with the load.

The corpus: `markdown` generated Markdown files (bench_ingest.write_documents) and the bundled
corpus's PDFs copied `pdf_copies` times. One ingest of all of it comes first, untimed: it fills
the page cache and imports every parser, for both sides alike. Then each pair runs workers=1,
then workers=2, each into a new folder with its own new parse cache, so both parse every file.

Per run: wall seconds, CPU seconds of the ingest in this process and in its workers
(children, counted once reaped; deleting the run's folders afterwards is not counted), the
wall and CPU seconds after the last file's parse arrived (the index build: one process
whatever the worker count, the part of the run more workers cannot shorten), and the
one-minute load average just before the run starts (on a shared machine the other processes'
share of the cores is what that number shows). Per pair: the ratio of the wall times, one
worker over two, and two estimates from CPU alone of what two idle cores would give: one
worker's CPU over the larger of the parent's CPU and half of all the CPU (a bound), and over
the CPU after the last parse plus half of the rest (Amdahl: that part runs alone). Run by
bench_ingest.py (`--cores-only` for this part alone).
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from unittest import mock

from policy_assistant.chunk import make_chunker
from policy_assistant.ingest.pipeline import ingest
from policy_assistant.parse import CorpusOptions, discover, read_corpus, reading
from policy_assistant.parse import corpus as corpus_reader
from policy_assistant.parse.catalog import Catalog
from policy_assistant.parse.read_records import AfterParse, Parsed

ROOT = Path(__file__).resolve().parent.parent


def write_corpus(
    root: Path, markdown: int, pdf_copies: int, write_documents: Callable[[Path, int, int], None]
) -> int:
    """Write the generated corpus; return how many files it holds."""
    write_documents(root / "markdown", markdown, 2)
    pdfs = sorted((ROOT / "corpus").rglob("*.pdf"))
    for copy in range(pdf_copies):
        for pdf in pdfs:
            target = root / f"pdf-{copy:02d}" / pdf.relative_to(ROOT / "corpus")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(pdf, target)
    return markdown + pdf_copies * len(pdfs)


def cpu_seconds() -> tuple[float, float]:
    """Return user and system CPU seconds of this process, and of its reaped children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


Run = tuple[float, float, float, float, float, float]
"""One cold ingest: load before, wall seconds, CPU seconds of this process and of its
workers, and wall and CPU seconds of this process after the last file's parse arrived."""


def cold_ingest(corpus: Path, folder: Path, workers: int) -> Run:
    """Ingest the corpus cold; return what Run holds."""
    load = os.getloadavg()[0]
    (own, children), start = cpu_seconds(), time.perf_counter()
    arrived = [start, time.process_time()]

    def progress(done: int, total: int, source: str) -> None:
        arrived[:] = time.perf_counter(), time.process_time()

    options = CorpusOptions(default_access="public", workers=workers)
    ingest(corpus, folder / "index", make_chunker("structure"), options=options, progress=progress)
    end, end_cpu = time.perf_counter(), time.process_time()
    own_after, children_after = cpu_seconds()
    shutil.rmtree(folder)
    after = end - arrived[0], end_cpu - arrived[1]
    return load, end - start, own_after - own, children_after - children, *after


def bench_cores(
    scratch: Path,
    markdown: int,
    pdf_copies: int,
    repeats: int,
    write_documents: Callable[[Path, int, int], None],
) -> list[str]:
    """Time cold ingests with one worker and with two, alternately; return the table's lines."""
    corpus = scratch / "cores-corpus"
    files = write_corpus(corpus, markdown, pdf_copies, write_documents)
    cold_ingest(corpus, scratch / "cores-warm-up", 2)
    lines = [
        f"cold ingest of {files} files ({markdown} Markdown, {files - markdown} PDF), "
        f"{os.cpu_count()} cores, workers 1 against 2:"
    ]
    ratios = []
    for pair in range(repeats):
        runs = {}
        for workers in (1, 2):
            runs[workers] = load, wall, own, children, after, after_cpu = cold_ingest(
                corpus, scratch / f"cores-{workers}", workers
            )
            lines.append(
                f"  pair {pair + 1}, workers {workers}: {wall:7.2f} s wall  CPU {own:6.2f} s "
                f"here + {children:6.2f} s in workers; after the last parse {after:5.2f} s "
                f"wall, {after_cpu:5.2f} s CPU  load before {load:.2f}"
            )
        ratios.append(runs[1][1] / runs[2][1])
        # What two idle cores would allow: the parent's own CPU, or half of all the CPU.
        serial_cpu, parent, total = runs[1][2], runs[2][2], runs[2][2] + runs[2][3]
        bound = serial_cpu / max(parent, total / 2)
        # Amdahl: the build after the last parse runs alone; the rest shares the two cores.
        alone = runs[2][5]
        estimate = serial_cpu / max(parent, alone + (total - alone) / 2)
        lines.append(
            f"  pair {pair + 1}: one worker / two = {ratios[-1]:.2f}x wall; "
            f"on two idle cores at most {bound:.2f}x (one worker's CPU over the larger of "
            f"the parent's CPU and half of all CPU), about {estimate:.2f}x counting the "
            f"CPU after the last parse as run alone"
        )
    lines.append(
        f"ratios {', '.join(f'{r:.2f}' for r in ratios)}; median {statistics.median(ratios):.2f}x"
    )
    return lines


def bench_overhead(corpus: Path, repeats: int = 3) -> list[str]:
    """Time the pool's own cost: every file read with its parse looked up, not done.

    parse_file is replaced by a lookup of the results one read parsed beforehand (workers,
    forked, inherit the lookup), so a read with workers=2 costs what one with workers=1
    does plus what the pool itself costs: sending the files, returning and rebuilding the
    results, the futures. No parse cache: its file writes cost the same either way.
    """
    chunk, options = make_chunker("structure").chunk, CorpusOptions(default_access="public")
    first = read_corpus(corpus, replace(options, workers=1), after_parse=chunk)
    ready = {d.source: Parsed(d, True, first.chunked[d.source]) for d in first.documents}

    def looked_up(data: bytes, source: str, catalog: Catalog, after: AfterParse | None) -> Parsed:
        return ready[source]

    # read_corpus hands the reader its module's parse_file, a name the package does not
    # export: patched where it is looked up, as a test would, and put back on the way out.
    with mock.patch.object(corpus_reader, "parse_file", looked_up):
        return _overhead_runs(corpus, options, chunk, len(ready), repeats)


def _overhead_runs(
    corpus: Path, options: CorpusOptions, chunk: AfterParse, files: int, repeats: int
) -> list[str]:
    """Return the lines of bench_overhead: per run, workers=1 against workers=2."""
    lines = [f"the pool's own CPU, {files} files with their parse looked up, seconds:"]
    for run in range(repeats):
        cpu = {}
        for workers in (1, 2):
            (own, children), load = cpu_seconds(), os.getloadavg()[0]
            read = read_corpus(corpus, replace(options, workers=workers), after_parse=chunk)
            own_after, children_after = cpu_seconds()
            assert len(read.documents) == files
            cpu[workers] = own_after - own, children_after - children
        (one, _), (parent, workers_cpu) = cpu[1], cpu[2]
        lines.append(
            f"  run {run + 1}: workers 1 {one:.3f}; workers 2 {parent:.3f} here + "
            f"{workers_cpu:.3f} in workers: the pool costs {parent + workers_cpu - one:.3f}  "
            f"load {load:.2f}"
        )
    return lines


def bench_threshold(
    scratch: Path, write_documents: Callable[[Path, int, int], None], sizes: tuple[int, ...]
) -> list[str]:
    """Time reading n small Markdown files in-process and with a pool from the first file.

    Where the pool starts to win is what POOL_AFTER_FILES and POOL_AFTER_BYTES are set from.
    Each figure is the best of three reads (no parse cache), after one untimed warm-up read.
    """
    limits = reading.POOL_AFTER_FILES, reading.POOL_AFTER_BYTES
    lines = ["reading n small Markdown files (about 1 KiB each), best of 3, seconds:"]
    try:
        for n in sizes:
            corpus = scratch / f"threshold-{n}"
            write_documents(corpus, n, 3)
            best = {}
            for label, workers, start in (("in-process", 1, limits), ("pool", 2, (0, 0))):
                reading.POOL_AFTER_FILES, reading.POOL_AFTER_BYTES = start
                options = CorpusOptions(workers=workers)
                read_corpus(corpus, options)
                times = []
                for _ in range(3):
                    began = time.perf_counter()
                    read_corpus(corpus, options)
                    times.append(time.perf_counter() - began)
                best[label] = min(times)
            load = os.getloadavg()[0]
            lines.append(
                f"  n {n:>4}: in-process {best['in-process']:.3f}  pool of 2 {best['pool']:.3f}  "
                f"load {load:.2f}"
            )
    finally:
        reading.POOL_AFTER_FILES, reading.POOL_AFTER_BYTES = limits
    return lines


def bench_discovery(scratch: Path, files: int = 100_000) -> list[str]:
    """Time discovery of `files` empty Markdown files, 1,000 a folder: best of 3, CPU seconds."""
    tree = scratch / "discovery"
    for number in range(files):
        folder = tree / f"f{number // 1000:03d}"
        if number % 1000 == 0:
            folder.mkdir(parents=True)
        (folder / f"doc-{number % 1000:04d}.md").touch()
    times = []
    for _ in range(3):
        cpu, began = time.process_time(), time.perf_counter()
        found = discover(tree)
        times.append((time.process_time() - cpu, time.perf_counter() - began))
    assert len(found.files) == files
    cpu, wall = min(times)
    return [f"discovery of {files} files: {cpu:.3f} s CPU, {wall:.3f} s wall (best of 3)"]
