"""Scale: ours against tantivy in the same run, at 10k / 100k / 1M generated chunks.

Each size is a generated Markdown corpus of 10 chunks per file (`--chunker fixed --size 60`
over 600 words of Zipf-distributed pseudo-words; one file in five staff-only). Ours runs as
the user runs it: the `policy-assistant` CLI in a fresh process. Tantivy (pip `tantivy`) is fed
our tokenizer's terms for each of our chunks (whitespace analyzer, so tokenization is ours
for both) and stores each chunk's text, source and position, as our index stores records.
Each figure is wall time, CPU (user + system, children included) and peak RSS of one process:

- cold ingest (ours) and cold build (tantivy, the build script's own process);
- one changed file re-ingested: ours `ingest` of the corpus with one file's words changed;
  tantivy: delete of that document's chunks by source, add of its new chunks, commit, timed
  inside the script (Python start-up and opening the index left out, in its favour);
- a no-op ingest (ours; tantivy has no such step);
- rounds of `ingest --watch` (ours, after the runs above, in a process of its own with the
  file system observer running, as the command runs): one file changed a round, each round
  timed from being handed the changed source to the new generation being live, as tantivy's
  update is timed from being handed the document; the first round, which imports the parser,
  is reported apart, and so is the time from the write to the round's end (events, 0.1 s of
  settling, the round);
- one CLI `search` (ours) against a script that opens the index, queries, prints 5 (tantivy),
  each of the three queries three times, ours and tantivy's in turn;
- warm queries: one process opens the index folder (ours: open_index, Index.search, k=5,
  staff; tantivy: its searcher, the 5 hits' stored documents read) and runs each query
  WARM_REPEATS times after one untimed run; the figure is the median over every run, with the
  machine's load average (os.getloadavg) beside the ratio, as the machine is shared;
- the index folder's size (hard links counted once; our parse cache, kept beside the
  index folder, is not part of it).

Run from the repository root: `python bench/bench_scale.py --sizes 10000,100000` (or `make
bench-scale`); `--sizes 1000000` takes minutes and several GB of disk. `--keep DIR` keeps the
corpora and indexes.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

CHUNKS_PER_FILE = 10
WORDS_PER_CHUNK = 60
VOCABULARY = 60_000
QUERY_RANKS = [(5, 80), (12, 300, 4000), (2, 9, 40, 700)]
"""Zipf ranks of the query words: common, middling and rare words together."""
SEARCH_REPEATS = 3
"""Times each query's process is run, ours and tantivy's in turn: a single cold process's
wall time varies by a third on a shared machine, so the figure is a median of nine."""
WARM_REPEATS = 15
"""Times each query runs in one warm process (after one untimed run), ours and tantivy's."""
QUERY_WORD = "qbababa"
"""The most common word: `search --verify` (every file's checksum) is timed with it."""


@dataclass(frozen=True)
class Run:
    """What one process cost."""

    wall: float
    """Seconds, start to exit."""
    cpu: float
    """User + system seconds, waited-for children included."""
    rss_mb: float
    """Peak resident set of the process (its largest child's if larger), MB."""
    stdout: str
    """What it printed."""


GNU_TIME = Path("/usr/bin/time")
"""Debian's `time` package: its child starts from its small memory, not from ours (a child
forked from this process would inherit our peak RSS in ru_maxrss, which survives exec)."""


def run(command: list[str]) -> Run:
    """Run a command and return what it cost: its own and its children's usage."""
    with tempfile.NamedTemporaryFile() as usage, tempfile.TemporaryFile() as out:
        timed = [str(GNU_TIME), "-f", "%e %U %S %M", "-o", usage.name, *command]
        start = time.perf_counter()
        done = subprocess.run(timed, stdout=out, stderr=subprocess.PIPE, check=False)
        wall = time.perf_counter() - start
        if done.returncode != 0:
            problem = done.stderr.decode(errors="replace")[-2000:]
            raise SystemExit(f"{command[:4]} failed ({done.returncode}): {problem}")
        _, user, system, rss_kb = Path(usage.name).read_text().split()[-4:]
        out.seek(0)
        return Run(wall, float(user) + float(system), int(rss_kb) / 1024, out.read().decode())


SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
WORDS = [
    "q" + "".join(SYLLABLES[(rank // len(SYLLABLES) ** p) % len(SYLLABLES)] for p in range(3))
    for rank in range(VOCABULARY)
]
"""Pseudo-words of letters only (our tokenizer would split letters from digits), one per
rank; the leading q keeps them clear of English stop words."""


def words_of(rng: np.random.Generator, count: int) -> list[str]:
    """Return count pseudo-words, ranks drawn from a Zipf law (s = 1.1) over VOCABULARY."""
    ranks = np.minimum(rng.zipf(1.1, count), VOCABULARY) - 1
    return [WORDS[r] for r in ranks.tolist()]


def document(i: int, seed: int) -> str:
    """Return file i's Markdown: a 2-word heading and 598 words, 600 in all (10 chunks)."""
    rng = np.random.default_rng([i, seed])
    access = "staff" if i % 5 == 4 else "public"
    body = words_of(rng, CHUNKS_PER_FILE * WORDS_PER_CHUNK - 2)
    paragraphs = [" ".join(body[j : j + 100]) for j in range(0, len(body), 100)]
    return f"---\naccess: {access}\n---\n# Doc {i}\n\n" + "\n\n".join(paragraphs) + "\n"


def generate(corpus: Path, files: int) -> None:
    """Write the corpus: files Markdown files in folders of 1,000."""
    for i in range(files):
        path = corpus / f"part{i // 1000:03d}" / f"doc{i:06d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(document(i, 0), encoding="utf-8")


def folder_mb(folder: Path) -> float:
    """Return the size of the files under folder, each inode once, in MB."""
    seen: dict[int, int] = {}
    for path in folder.rglob("*"):
        if path.is_file():
            stat = path.stat()
            seen[stat.st_ino] = stat.st_size
    return sum(seen.values()) / 1e6


def ours(*args: str) -> list[str]:
    """Return the command line of our CLI with args."""
    return [sys.executable, "-m", "policy_assistant", *args]


def export_tokens(index: Path, out: Path) -> None:
    """Write source, position, our terms and the text of every chunk of our index (JSON lines)."""
    from policy_assistant.index import load_chunks
    from policy_assistant.index.tokenize import tokenize

    with out.open("w", encoding="utf-8") as handle:
        for chunk in load_chunks(index):
            row = [chunk.source, chunk.position, " ".join(tokenize(chunk.text)), chunk.text]
            handle.write(json.dumps(row) + "\n")


WATCH_ROUNDS = 5
"""Rounds of `ingest --watch` timed, each one file changed; the first is reported apart."""


def watch_script(corpus: Path, index: Path) -> list[str]:
    """Return the command line of this script's `ingest --watch` side."""
    return [sys.executable, __file__, "--watch", str(corpus), str(index)]


def watch_main(corpus: Path, index: Path) -> None:
    """Time rounds of a watch as `ingest --watch` runs them, its observer running; print the
    round times (handed the changed source, as tantivy's update is handed the document) and
    the times from each write to the round's end (events, settling and the round)."""
    from policy_assistant.chunk import make_chunker
    from policy_assistant.ingest.events import Changes, start_observer
    from policy_assistant.ingest.watch import Watch

    watch = Watch(corpus, index, make_chunker("fixed", size=WORDS_PER_CHUNK))
    watch.ingest()
    changes = Changes(corpus, (index,))
    observer, _ = start_observer(changes)
    rounds, ends = [], []
    files = sum(1 for _ in corpus.glob("part*/doc*.md"))
    try:
        for n in range(WATCH_ROUNDS):
            written = time.perf_counter()
            _, path = change_one_file(
                corpus, files, which=2 + n, seed=_unused_seed(corpus, files, n)
            )
            sources = changes.take()
            start = time.perf_counter()
            done = watch.round(sources)
            end = time.perf_counter()
            assert done.changed and done.written, f"{path}: the round wrote nothing"
            rounds.append(end - start)
            ends.append(end - written)
    finally:
        observer.stop()
        observer.join()
    print(json.dumps({"rounds": rounds, "ends": ends}))


def _unused_seed(corpus: Path, files: int, n: int) -> int:
    """Return a seed that gives round n's file other words than it holds (a kept corpus may
    have been watched before)."""
    i = files // 2 + 2 + n
    held = (corpus / f"part{i // 1000:03d}" / f"doc{i:06d}.md").read_text(encoding="utf-8")
    seed = 10 + n
    while document(i, seed) == held:
        seed += WATCH_ROUNDS
    return seed


def tantivy_script(action: str, *args: str) -> list[str]:
    """Return the command line of this script's tantivy side."""
    return [sys.executable, __file__, "--tantivy", action, *args]


def _tantivy_schema() -> Any:
    """Return the schema of the tantivy side's index."""
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("body", stored=False, tokenizer_name="whitespace", index_option="freq")
    builder.add_text_field("source", stored=True, tokenizer_name="raw")
    builder.add_unsigned_field("position", stored=True)
    builder.add_text_field("text", stored=True, index_option="basic", tokenizer_name="raw")
    return builder.build()


def _tantivy_docs(path: Path) -> Iterator[Any]:
    """Yield a tantivy document per line of a data file written for the tantivy side."""
    import tantivy

    with path.open(encoding="utf-8") as handle:
        for line in handle:
            source, position, terms, text = json.loads(line)
            yield tantivy.Document(body=[terms], source=[source], position=[position], text=[text])


def tantivy_main(action: str, args: list[str]) -> None:
    """The tantivy side, run in its own process: build, update or search."""
    import tantivy

    folder = Path(args[0])
    if action == "build":
        folder.mkdir(parents=True)
        index = tantivy.Index(_tantivy_schema(), path=str(folder))
        writer = index.writer(heap_size=256_000_000)
        for doc in _tantivy_docs(Path(args[1])):
            writer.add_document(doc)
        writer.commit()
        writer.wait_merging_threads()
    elif action == "update":
        index = tantivy.Index.open(str(folder))
        writer = index.writer(heap_size=64_000_000)
        start = time.perf_counter()
        writer.delete_documents("source", args[2])
        for doc in _tantivy_docs(Path(args[1])):
            writer.add_document(doc)
        writer.commit()
        writer.wait_merging_threads()
        print(f"{time.perf_counter() - start:.4f}")
    elif action == "warm":
        print(json.dumps(warm_tantivy(folder)))
    else:
        index = tantivy.Index.open(str(folder))
        searcher = index.searcher()
        should = tantivy.Occur.Should
        query = tantivy.Query.boolean_query(
            [(should, tantivy.Query.term_query(index.schema, "body", t)) for t in args[1:]]
        )
        for score, address in searcher.search(query, 5).hits:
            doc = searcher.doc(address)
            print(f"{score:.3f} {doc['source'][0]} {doc['position'][0]} {doc['text'][0][:60]}")


def warm_queries() -> list[str]:
    """Return the queries of the warm runs: those the CLI search is timed with."""
    return [" ".join(WORDS[r] for r in ranks) for ranks in QUERY_RANKS]


def timed_runs(search: Any) -> list[float]:
    """Return the seconds of WARM_REPEATS runs of each warm query, after one untimed run."""
    times = []
    for query in warm_queries():
        search(query)
        for _ in range(WARM_REPEATS):
            start = time.perf_counter()
            search(query)
            times.append(time.perf_counter() - start)
    return times


def warm_ours(index_dir: Path) -> list[float]:
    """Time our warm queries: open_index once, then Index.search (k=5, staff)."""
    from policy_assistant.index import open_index

    with open_index(index_dir) as index:
        return timed_runs(lambda q: index.search(q, 5, "staff"))


def warm_tantivy(folder: Path) -> list[float]:
    """Time tantivy's warm queries: one searcher, the 5 hits' stored documents read."""
    import tantivy

    from policy_assistant.index.tokenize import tokenize

    index = tantivy.Index.open(str(folder))
    searcher, schema, should = index.searcher(), index.schema, tantivy.Occur.Should

    def search(query: str) -> list[Any]:
        terms = [(should, tantivy.Query.term_query(schema, "body", t)) for t in tokenize(query)]
        hits = searcher.search(tantivy.Query.boolean_query(terms), 5).hits
        return [searcher.doc(address) for _, address in hits]

    return timed_runs(search)


def bench_warm(index: Path, tan: Path) -> dict[str, float]:
    """Return the warm query medians of ours and tantivy, each in a process of its own."""
    mine = json.loads(run([sys.executable, __file__, "--warm", str(index)]).stdout)
    theirs = json.loads(run(tantivy_script("warm", str(tan))).stdout)
    load = os.getloadavg()
    return {"warm_ms": float(np.median(mine)) * 1e3, "tantivy_warm_ms": float(np.median(theirs))
            * 1e3, "load1": load[0], "load5": load[1]}  # fmt: skip


def report_warm(f: dict[str, float]) -> None:
    """Print the warm query figures with the load they ran under."""
    print(
        f"warm query (median of {len(QUERY_RANKS) * WARM_REPEATS}): ours {f['warm_ms']:.2f} ms,"
        f" tantivy {f['tantivy_warm_ms']:.2f} ms: {f['warm_ms'] / f['tantivy_warm_ms']:.2f}x "
        f"(load average {f['load1']:.2f} / {f['load5']:.2f} over 1 / 5 min)"
    )


def change_one_file(corpus: Path, files: int, which: int = 0, seed: int = 1) -> tuple[str, Path]:
    """Rewrite one file with other words; return its source and the file."""
    i = files // 2 + which
    path = corpus / f"part{i // 1000:03d}" / f"doc{i:06d}.md"
    path.write_text(document(i, seed), encoding="utf-8")
    return path.relative_to(corpus).as_posix(), path


def bench_size(chunks: int, root: Path) -> dict[str, float]:
    """Measure one size; return the figures by name."""
    from policy_assistant.index import open_index
    from policy_assistant.index.tokenize import tokenize

    files = chunks // CHUNKS_PER_FILE
    corpus, index, tan = root / "corpus", root / "index", root / "tantivy"
    generate(corpus, files)
    figures: dict[str, float] = {}
    setting = ["--chunker", "fixed", "--size", str(WORDS_PER_CHUNK), "-q"]
    cold = run(ours("ingest", str(corpus), "--index", str(index), *setting))
    figures |= {"cold_wall": cold.wall, "cold_cpu": cold.cpu, "cold_rss": cold.rss_mb}
    export_tokens(index, root / "tokens.jsonl")
    built = run(tantivy_script("build", str(tan), str(root / "tokens.jsonl")))
    figures |= {"tantivy_build_wall": built.wall, "tantivy_build_cpu": built.cpu}
    noop = run(ours("ingest", str(corpus), "--index", str(index), "-q"))
    figures |= {"noop_wall": noop.wall, "noop_cpu": noop.cpu, "noop_rss": noop.rss_mb}
    source, _ = change_one_file(corpus, files)
    changed = run(ours("ingest", str(corpus), "--index", str(index), "-q"))
    figures |= {"change_wall": changed.wall, "change_cpu": changed.cpu}
    figures["change_rss"] = changed.rss_mb
    one = root / "one.jsonl"
    with open_index(index) as opened, one.open("w") as out:
        for c in opened.chunks():
            if c.source == source:
                row = [c.source, c.position, " ".join(tokenize(c.text)), c.text]
                out.write(json.dumps(row) + "\n")
    update = run(tantivy_script("update", str(tan), str(one), source))
    figures["tantivy_update_inner"] = float(update.stdout.strip())
    figures["tantivy_update_wall"] = update.wall
    figures |= bench_without_units(corpus, root / "index-bare", files, setting)
    walls, rss, twalls, trss = [], [], [], []
    queries = [" ".join(WORDS[r] for r in ranks) for ranks in QUERY_RANKS] * SEARCH_REPEATS
    for query in queries:  # ours and tantivy's in turn, each query SEARCH_REPEATS times
        mine = run(ours("search", query, "--index", str(index), "-k", "5", "--access", "staff"))
        walls.append(mine.wall)
        rss.append(mine.rss_mb)
        theirs = run(tantivy_script("search", str(tan), *tokenize(query)))
        twalls.append(theirs.wall)
        trss.append(theirs.rss_mb)
    figures |= {"search_wall": float(np.median(walls)), "search_rss": max(rss)}
    figures |= {"tantivy_search_wall": float(np.median(twalls)), "tantivy_search_rss": max(trss)}
    figures |= bench_warm(index, tan)
    verify = run(ours("search", QUERY_WORD, "--index", str(index), "--verify"))
    figures |= {"verify_wall": verify.wall, "verify_cpu": verify.cpu}
    figures |= {"index_mb": folder_mb(index), "tantivy_mb": folder_mb(tan)}
    watched = json.loads(run(watch_script(corpus, index)).stdout)
    figures["watch_first_round"], figures["watch_first_end"] = (
        watched["rounds"][0],
        watched["ends"][0],
    )
    figures["watch_round"] = float(np.median(watched["rounds"][1:]))
    figures["watch_slowest"] = max(watched["rounds"][1:])
    figures["watch_end"] = float(np.median(watched["ends"][1:]))
    return figures


def bench_without_units(
    corpus: Path, index: Path, files: int, setting: list[str]
) -> dict[str, float]:
    """The same no-op and one-changed-file ingests of an index without retrieval units
    (`--no-units`), built from the parse cache the cold ingest filled (the same folder)."""
    bare = ["--index", str(index), "--no-units", "-q"]
    cold = run(ours("ingest", str(corpus), *bare, *setting))
    noop = run(ours("ingest", str(corpus), *bare))
    change_one_file(corpus, files, which=1)
    changed = run(ours("ingest", str(corpus), *bare))
    return {
        "bare_cold_wall": cold.wall,
        "bare_noop_wall": noop.wall,
        "bare_noop_cpu": noop.cpu,
        "bare_noop_rss": noop.rss_mb,
        "bare_change_wall": changed.wall,
        "bare_change_cpu": changed.cpu,
        "bare_change_rss": changed.rss_mb,
    }


def generated_chunks(files: int, seed: int, only: int | None = None) -> list[Any]:
    """Return the chunks the fixed chunker makes of the generated files (or of file `only`),
    built directly: the index stage alone, with no parsing."""
    from policy_assistant.ids import content_id
    from policy_assistant.records import Chunk

    out = []
    for i in range(files) if only is None else [only]:
        words = document(i, seed).split("\n# ", 1)[1].split()
        source = f"part{i // 1000:03d}/doc{i:06d}.md"
        for position in range(CHUNKS_PER_FILE):
            text = " ".join(words[position * WORDS_PER_CHUNK : (position + 1) * WORDS_PER_CHUNK])
            out.append(
                Chunk(
                    id=content_id([source, seed, position, text]),
                    source=source,
                    title=source,
                    version="v1",
                    access="staff" if i % 5 == 4 else "public",
                    language="en",
                    chunker={"name": "fixed", "size": WORDS_PER_CHUNK},
                    position=position,
                    start=0,
                    end=len(text),
                    pages=(),
                    sections=(),
                    text=text,
                    words=WORDS_PER_CHUNK,
                )
            )
    return out


def bench_index_stage(chunks: int, root: Path) -> dict[str, float]:
    """The index stage alone, in this process: cold build_index, then one file changed
    (ingest's call: every entry, the changed file's chunks, and the live manifest it read the
    entries from, so they are read once, as ingest reads them), against tantivy's update."""
    from policy_assistant.index import build_index, open_index
    from policy_assistant.index.store.build import IndexSettings
    from policy_assistant.index.store.manifest import DocumentEntry
    from policy_assistant.index.store.reader import load_entries
    from policy_assistant.index.tokenize import tokenize

    files = chunks // CHUNKS_PER_FILE
    index, tan = root / "index", root / "tantivy"
    every = generated_chunks(files, 0)
    settings = IndexSettings(dict(every[0].chunker))
    start, cpu = time.perf_counter(), time.process_time()
    build_index(every, index, settings)
    figures = {"stage_cold_wall": time.perf_counter() - start}
    figures["stage_cold_cpu"] = time.process_time() - cpu
    with (root / "tokens.jsonl").open("w", encoding="utf-8") as out:
        for c in every:
            out.write(json.dumps([c.source, c.position, " ".join(tokenize(c.text)), c.text]) + "\n")
    del every  # tantivy's build runs beside this process: free the chunks first
    built = run(tantivy_script("build", str(tan), str(root / "tokens.jsonl")))
    figures["tantivy_build_wall"] = built.wall
    changed = generated_chunks(files, 1, only=files // 2)
    start, cpu = time.perf_counter(), time.process_time()
    with open_index(index) as opened:
        entries = {e.source: e for e in load_entries(index, opened.manifest)}
    entries[changed[0].source] = DocumentEntry.from_chunks(changed)
    kept = list(entries.values())
    result = build_index(changed, index, settings, entries=kept, live=opened.manifest)
    figures["stage_change_wall"] = time.perf_counter() - start
    figures["stage_change_cpu"] = time.process_time() - cpu
    assert result.changed == [changed[0].source] and result.written
    one = root / "one.jsonl"
    with one.open("w", encoding="utf-8") as out:
        for c in changed:
            out.write(json.dumps([c.source, c.position, " ".join(tokenize(c.text)), c.text]) + "\n")
    update = run(tantivy_script("update", str(tan), str(one), changed[0].source))
    figures["tantivy_update_inner"] = float(update.stdout.strip())
    figures |= bench_warm(index, tan)
    return figures | {"index_mb": folder_mb(index), "tantivy_mb": folder_mb(tan)}


def report_stage(chunks: int, f: dict[str, float]) -> None:
    """Print the index stage's figures."""
    ratio = f["stage_change_wall"] / f["tantivy_update_inner"]
    print(f"== index stage alone, {chunks:,} chunks")
    print(
        f"cold build_index: {f['stage_cold_wall']:.1f} s wall, {f['stage_cold_cpu']:.1f} s CPU;"
        f" tantivy build (our tokens) {f['tantivy_build_wall']:.1f} s wall"
    )
    print(
        f"one changed file: {f['stage_change_wall']:.3f} s wall, {f['stage_change_cpu']:.3f} s"
        f" CPU; tantivy delete+add+commit {f['tantivy_update_inner']:.3f} s: {ratio:.1f}x; "
        f"{f['stage_change_wall'] / f['stage_cold_wall']:.2%} of the cold build"
    )
    report_warm(f)
    print(f"index folder: {f['index_mb']:.1f} MB; tantivy {f['tantivy_mb']:.1f} MB")


def report(chunks: int, f: dict[str, float]) -> None:
    """Print one size's figures with the floors of issue 15."""
    change_ratio = f["change_wall"] / f["tantivy_update_inner"]
    share = f["change_wall"] / f["cold_wall"]
    print(f"== {chunks:,} chunks ({chunks // CHUNKS_PER_FILE:,} files)")
    print(
        f"cold ingest: {f['cold_wall']:.1f} s wall, {f['cold_cpu']:.1f} s CPU, "
        f"{f['cold_rss']:.0f} MB; tantivy build {f['tantivy_build_wall']:.1f} s wall"
    )
    print(
        f"one changed file: {f['change_wall']:.2f} s wall, {f['change_cpu']:.2f} s CPU, "
        f"{f['change_rss']:.0f} MB; tantivy delete+add+commit {f['tantivy_update_inner']:.3f} s "
        f"({f['tantivy_update_wall']:.2f} s with start-up): {change_ratio:.1f}x (floor 10x), "
        f"{share:.1%} of our cold ingest (floor 2% at 1M)"
    )
    print(
        f"no-op ingest: {f['noop_wall']:.2f} s wall, {f['noop_cpu']:.2f} s CPU, "
        f"{f['noop_rss']:.0f} MB (floors at 100,000 files: 3 s, 500 MB)"
    )
    bare_ratio = f["bare_change_wall"] / f["tantivy_update_inner"]
    print(
        f"without units (--no-units; its cold ingest from the parse cache "
        f"{f['bare_cold_wall']:.1f} s): one changed file {f['bare_change_wall']:.2f} s wall, "
        f"{f['bare_change_cpu']:.2f} s CPU, {f['bare_change_rss']:.0f} MB: {bare_ratio:.1f}x "
        f"tantivy, {f['bare_change_wall'] / f['cold_wall']:.2%} of the cold ingest; no-op "
        f"{f['bare_noop_wall']:.2f} s wall, {f['bare_noop_cpu']:.2f} s CPU, "
        f"{f['bare_noop_rss']:.0f} MB"
    )
    print(
        f"ingest --watch, one changed file a round: {f['watch_round']:.3f} s (median of "
        f"{WATCH_ROUNDS - 1}, the slowest {f['watch_slowest']:.3f} s; the first "
        f"{f['watch_first_round']:.3f} s): "
        f"{f['watch_round'] / f['tantivy_update_inner']:.1f}x tantivy (floor 10x); "
        f"{f['watch_end']:.3f} s from the write to the round's end"
    )
    print(
        f"CLI search (median of {len(QUERY_RANKS) * SEARCH_REPEATS}): "
        f"{f['search_wall']:.3f} s wall, "
        f"{f['search_rss']:.0f} MB; tantivy script {f['tantivy_search_wall']:.3f} s, "
        f"{f['tantivy_search_rss']:.0f} MB: {f['search_wall'] / f['tantivy_search_wall']:.2f}x "
        f"(floors 2x, 100 MB)"
    )
    report_warm(f)
    print(
        f"index folder: {f['index_mb']:.1f} MB; tantivy with stored text "
        f"{f['tantivy_mb']:.1f} MB: {f['index_mb'] / f['tantivy_mb']:.2f}x (floor 1.5x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="chunk counts, comma-separated")
    parser.add_argument("--keep", type=Path, help="keep corpora and indexes under this folder")
    parser.add_argument(
        "--index-only", action="store_true", help="the index stage alone, in process, no parsing"
    )
    parser.add_argument("--tantivy", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--watch", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--warm", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.tantivy:
        tantivy_main(args.tantivy[0], args.tantivy[1:])
        return
    if args.watch:
        watch_main(*args.watch)
        return
    if args.warm:
        print(json.dumps(warm_ours(args.warm)))
        return
    if importlib.util.find_spec("tantivy") is None:  # say so now, not after a cold ingest
        sys.exit("bench_scale.py compares against tantivy: run `make bench-scale` (it installs "
                 "the bench extra) or `pip install tantivy`")  # fmt: skip
    for size in (int(s) for s in args.sizes.split(",")):
        root = Path(tempfile.mkdtemp(prefix=f"scale-{size}-", dir=args.keep))
        try:
            if args.index_only:
                figures = bench_index_stage(size, root)
                report_stage(size, figures)
            else:
                figures = bench_size(size, root)
                report(size, figures)
            print(json.dumps({"chunks": size, **{k: round(v, 4) for k, v in figures.items()}}))
            sys.stdout.flush()
        finally:
            if args.keep is None:
                shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
