"""Seeded fuzzing of ingest: damaged PDFs and hostile Markdown beside good documents.

Every round builds a corpus of good files (unmodified bundled documents) and bad ones
(mutated copies of the bundled PDFs, hostile Markdown), ingests it through the library call,
and checks: no exception escapes but a DocumentError per bad file, every good file is
indexed and searchable, the round finishes under its bound. The seed is fixed, so a failure
is reproduced by running the test again; FUZZ_SEED in the environment tries other seeds.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from policy_assistant.chunk import make_chunker
from policy_assistant.errors import DocumentError
from policy_assistant.index import open_index
from policy_assistant.ingest.pipeline import ingest

pytestmark = pytest.mark.slow  # fuzz tests: make test-slow, make check and CI run them

SEED = int(os.environ.get("FUZZ_SEED", "20261201"))
ROUNDS = 4
"""Corpora ingested; each holds every kind of hostile Markdown and four damaged PDFs."""
ROUND_SECONDS = 20.0
"""Bound on one round's ingest (1-3 s on the project's shared machine)."""
GOOD = ("guides/lawn-mower-lm-46.pdf", "policies/returns-policy.md", "guides/composting.md")
"""Bundled documents copied unchanged into every corpus, with a word each must be found by."""
GOOD_QUERIES = {
    "guides/lawn-mower-lm-46.pdf": "mower blade",
    "policies/returns-policy.md": "refund receipt",
    "guides/composting.md": "compost",
}


def _flip_bytes(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 64)):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def _truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data))]


def _zero_run(data: bytes, rng: random.Random) -> bytes:
    start = rng.randrange(len(data))
    size = rng.randint(1, 4096)
    return data[:start] + bytes(min(size, len(data) - start)) + data[start + size :]


def _splice(data: bytes, rng: random.Random) -> bytes:
    """Copy one stretch of the file over another: objects and streams cut mid-way."""
    a, b = sorted(rng.randrange(len(data)) for _ in range(2))
    at = rng.randrange(len(data))
    return data[:at] + data[a:b] + data[at + (b - a) :]


PDF_MUTATIONS: list[Callable[[bytes, random.Random], bytes]] = [
    _flip_bytes,
    _truncate,
    _zero_run,
    _splice,
]


def hostile_markdown(rng: random.Random) -> dict[str, bytes]:
    """Return Markdown that has broken parsers: one file per kind, sized by rng."""
    word = "x" * rng.randint(1, 9)
    depth = rng.randint(2_000, 6_000)
    return {
        "huge-line.md": b"# Huge\n\n" + (word + " ").encode() * rng.randint(50_000, 150_000),
        "huge-word.md": b"# Word\n\n" + b"y" * rng.randint(1_000_000, 3_000_000) + b"\n",
        "deep-quotes.md": b"> " * depth + b"deep\n",
        "deep-lists.md": "\n".join("  " * i + "- item" for i in range(depth // 4)).encode(),
        "deep-brackets.md": b"[" * depth + b"x" + b"]" * depth + b"(u)\n",
        "emphasis.md": b"*a _b " * rng.randint(2_000, 8_000) + b"\n",
        "nul-bytes.md": b"# Nul\n\nbefore\x00after\x00\x00 text\n" * rng.randint(1, 500),
        "invalid-utf8.md": b"# Bad\n\n\xff\xfe text \xc3\x28 \xed\xa0\x80 end\n",
        "random-bytes.md": rng.randbytes(rng.randint(1, 20_000)),
        "front-matter.md": b"---\naccess: [staff\ntitle: {\n---\n# T\n\nbody\n",
        "only-headings.md": b"".join(b"#" * rng.randint(1, 6) + b" h\n" for _ in range(3_000)),
        "table-bomb.md": (b"|" + b" a |" * 500 + b"\n") * 2 + (b"|" + b"---|" * 500 + b"\n"),
    }


def build_corpus(root: Path, corpus_dir: Path, rng: random.Random) -> set[str]:
    """Fill root with the good files and this round's bad ones; return the bad sources."""
    for source in GOOD:
        (root / source).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(corpus_dir / source, root / source)
    catalog = "".join(f'["{s}"]\naccess = "public"\n' for s in GOOD)
    (root / "catalog.toml").write_text(catalog)
    bad = root / "bad"
    bad.mkdir()
    pdfs = sorted(corpus_dir.rglob("*.pdf"))
    for i, mutate in enumerate(PDF_MUTATIONS):
        original = rng.choice(pdfs).read_bytes()
        (bad / f"mutated-{i}-{mutate.__name__.strip('_')}.pdf").write_bytes(mutate(original, rng))
    for name, data in hostile_markdown(rng).items():
        (bad / name).write_bytes(data)
    return {f"bad/{p.name}" for p in bad.iterdir()}


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise TimeoutError in the main thread if the block runs past seconds."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"ingest ran past its bound of {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_hostile_files_fail_one_by_one_and_good_files_are_indexed(
    tmp_path: Path, corpus_dir: Path, round_: int
) -> None:
    rng = random.Random(SEED * 1000 + round_)
    root, index_dir = tmp_path / "corpus", tmp_path / "index"
    bad = build_corpus(root, corpus_dir, rng)
    start = time.monotonic()
    with time_limit(ROUND_SECONDS):
        summary = ingest(root, index_dir, make_chunker("structure"))
    assert time.monotonic() - start < ROUND_SECONDS
    for failure in summary.failures:
        assert isinstance(failure, DocumentError)
        assert failure.source in bad, failure
        assert "\n" not in str(failure) and str(failure).startswith(failure.source)
    failed = {f.source for f in summary.failures}
    assert len(failed) == len(summary.failures)  # one line per bad file, not one per problem
    assert {"bad/invalid-utf8.md", "bad/front-matter.md"} <= failed  # always bad, so tested
    assert set(GOOD) <= set(summary.added)
    with open_index(index_dir, verify=True) as index:
        for source, query in GOOD_QUERIES.items():
            found = {hit.chunk.source for hit in index.search(query, k=20, access="staff")}
            assert source in found, (source, query)
