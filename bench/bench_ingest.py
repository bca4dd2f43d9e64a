"""Time `ingest`: cold and warm, one document changed, and one worker against two.

Usage (from the repository root)::

    .venv/bin/python bench/bench_ingest.py                # all of it
    .venv/bin/python bench/bench_ingest.py --documents 2000
    .venv/bin/python bench/bench_ingest.py --cores-only --markdown 2000 --pdf-copies 10

What it shows: a warm ingest (nothing changed) parses nothing and writes nothing, and a change to
one document out of 10,000 parses that one only (counted as the files the call adds to the parse
cache, one per file parsed, whichever process parsed it). Times are wall seconds
of the library call, interpreter start-up excluded, plus one end-to-end run of the installed
command for the bundled corpus.

The cores section (bench_cores.py) times cold ingests of one generated corpus with `workers=1`
and `workers=2`, alternately, and prints each pair's ratio beside the load average, then the
pool's own CPU cost on that corpus (its parses looked up, not done).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_cores import bench_cores, bench_discovery, bench_overhead, bench_threshold

from policy_assistant.chunk import make_chunker
from policy_assistant.ingest.pipeline import PARSE_CACHE_NAME, IngestSummary, ingest

ROOT = Path(__file__).resolve().parent.parent
VOCABULARY = """
    warranty refund receipt mower sprinkler hose nozzle battery charger compost seed lawn
    greenhouse frame panel delivery zone courier assembly fee voucher loyalty points store
    manager till cash float drawer supervisor approval recall supplier batch label pallet
"""
WORDS = VOCABULARY.split()


def cache_files(index: Path) -> int:
    """Return how many parses the parse cache beside index holds (one file each)."""
    return sum(1 for _ in (index.parent / PARSE_CACHE_NAME).glob("??/*.json"))


def timed(corpus: Path, index: Path) -> tuple[float, IngestSummary, int]:
    """Run one ingest with the default chunker; return wall seconds, the summary and how many
    files it parsed."""
    before = cache_files(index)
    start = time.perf_counter()
    summary = ingest(corpus, index, make_chunker("structure"))
    return time.perf_counter() - start, summary, cache_files(index) - before


def write_documents(root: Path, count: int, seed: int) -> None:
    """Write `count` Markdown documents of about 150 words, labelled public in front matter."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        paragraphs = [" ".join(rng.choices(WORDS, k=50)) + "." for _ in range(3)]
        body = "\n\n".join(paragraphs)
        text = f"---\naccess: public\nversion: '1'\n---\n# Document {i}\n\n## Terms\n\n{body}\n"
        (root / f"doc-{i:05d}.md").write_text(text, encoding="utf-8")


def row(label: str, seconds: float, summary: IngestSummary, parsed: int) -> str:
    """Return one line of the results table."""
    return (
        f"{label:<40} {seconds:8.3f} s  parsed {parsed:>6}  added {len(summary.added):>6}  "
        f"changed {len(summary.changed):>3}  unchanged {len(summary.unchanged):>6}  "
        f"written {'yes' if summary.written else 'no'}"
    )


def bench_bundled(scratch: Path) -> list[str]:
    """Cold and warm ingest of corpus/, in-process and through the command."""
    index = scratch / "bundled-index"
    lines = []
    for label in ("bundled corpus, cold", "bundled corpus, warm (nothing changed)"):
        seconds, summary, parsed = timed(ROOT / "corpus", index)
        lines.append(row(label, seconds, summary, parsed))
    command = [str(Path(sys.executable).parent / "policy-assistant"), "ingest", "corpus", "-q"]
    for label, target in (
        ("command, cold", scratch / "cli-index"),
        ("command, warm", scratch / "cli-index"),
    ):
        start = time.perf_counter()
        subprocess.run(
            [*command, "--index", str(target)], cwd=ROOT, check=True, capture_output=True
        )
        name = f"bundled corpus, {label} (with start-up)"
        lines.append(f"{name:<40} {time.perf_counter() - start:8.3f} s")
    return lines


def bench_generated(scratch: Path, count: int) -> list[str]:
    """Cold, warm, and one-changed ingest of `count` generated documents."""
    corpus, index = scratch / "generated", scratch / "generated-index"
    write_documents(corpus, count, seed=1)
    lines = []
    for label in (f"{count} documents, cold", f"{count} documents, warm (nothing changed)"):
        seconds, summary, parsed = timed(corpus, index)
        lines.append(row(label, seconds, summary, parsed))
    changed = corpus / f"doc-{count // 2:05d}.md"
    changed.write_text(
        changed.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8"
    )
    seconds, summary, parsed = timed(corpus, index)
    lines.append(row(f"{count} documents, one changed", seconds, summary, parsed))
    return lines


def main() -> None:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--cores-only", action="store_true", help="only one worker against two")
    parser.add_argument("--markdown", type=int, default=2000, help="cores: Markdown files")
    parser.add_argument("--pdf-copies", type=int, default=10, help="cores: bundled PDFs, times")
    parser.add_argument("--repeats", type=int, default=3, help="cores: pairs of runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        lines = []
        if not args.cores_only:
            lines += bench_bundled(scratch) + bench_generated(scratch, args.documents)
        lines += bench_discovery(scratch)
        lines += bench_threshold(scratch, write_documents, (4, 16, 32, 64, 128))
        lines += bench_cores(scratch, args.markdown, args.pdf_copies, args.repeats, write_documents)
        lines += bench_overhead(scratch / "cores-corpus")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
