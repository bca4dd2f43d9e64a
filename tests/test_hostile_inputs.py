"""Bombs and hostile inputs of every format: each is one error line (or a clean parse), in
bounded memory (RLIMIT_AS) and time, and the rest of a small corpus is still indexed.

Each case runs `policy-assistant ingest` in a subprocess limited to MEMORY bytes of address
space and SECONDS of wall-clock time, on a corpus of the hostile file and two good ones.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from support import hostile_files as make

MEMORY = 1024**3
"""Address space of the ingest process (RLIMIT_AS)."""
SECONDS = 30.0
"""Wall-clock bound on one ingest."""
GOOD = {
    "good/a.md": "# Sprinklers\n\nOscillating sprinklers carry an 18 month warranty.\n",
    "good/b.txt": "Composting\n==========\n\nTurn the heap every fortnight.\n",
}


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def ingest_with(
    tmp_path: Path, name: str, data: bytes
) -> tuple[subprocess.CompletedProcess[str], float]:
    corpus, index = tmp_path / "c", tmp_path / "i"
    for source, text in GOOD.items():
        (corpus / source).parent.mkdir(parents=True, exist_ok=True)
        (corpus / source).write_text(text)
    (corpus / name).parent.mkdir(parents=True, exist_ok=True)
    (corpus / name).write_bytes(data)
    command = [sys.executable, "-m", "policy_assistant", "ingest", str(corpus)]
    command += ["--index", str(index), "--quiet", "--default-access", "public", "--workers", "1"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=SECONDS,
        env=env,
        preexec_fn=_limit_memory,
        check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return done, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def indexed(tmp_path: Path) -> set[str]:
    command = [sys.executable, "-m", "policy_assistant", "ls", "--index", str(tmp_path / "i")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([*command, "--json"], capture_output=True, text=True, env=env, check=True)
    return {json.loads(line)["source"] for line in done.stdout.splitlines() if line.strip()}


def check_one(tmp_path: Path, name: str, data: bytes, expect: str | None) -> None:
    """Ingest the corpus; the hostile file gives at most one line, the good files are indexed."""
    done, cpu = ingest_with(tmp_path, name, data)
    assert done.returncode in (0, 1), done.stderr
    about = [line for line in done.stderr.splitlines() if name in line]
    assert len(about) <= 1, about
    if expect is not None:
        assert about and expect in about[0], done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    assert set(GOOD) <= indexed(tmp_path), done.stderr
    assert cpu < SECONDS


CASES: dict[str, tuple[str, Callable[[], bytes], str | None]] = {
    "docx-600MB-empty-paragraphs": (
        "bomb.docx",
        lambda: make.docx_empty_paragraphs(600),
        "refused",
    ),
    "docx-200k-paragraphs": ("long.docx", lambda: make.docx_paragraphs(200_000), None),
    "pptx-50k-shapes": ("shapes.pptx", lambda: make.pptx_slide_shapes(50_000), "refused"),
    "pptx-600MB-slide": ("bomb.pptx", lambda: make.pptx_inflating(600), "refused"),
    "pptx-1000-slides": ("deck.pptx", lambda: make.pptx_slides(1_000), None),
    "html-100k-headings": ("headings.html", lambda: make.html_headings(100_000), None),
    "html-5MB-table": ("table.html", lambda: make.html_table(11_000, 50), None),
    "html-3M-tags": ("tags.html", lambda: make.html_wide_row(3_000_000), "refused"),
    "html-deep": ("deep.html", lambda: make.html_deep(100_000), None),
    "html-nested-tables": ("tables.html", lambda: make.html_nested_tables(5_000), None),
    "md-deep-quotes": ("quotes.md", lambda: b"> " * 50_000 + b"deep\n", None),
    "md-deep-lists": (
        "lists.md",
        lambda: "\n".join("  " * i + "- x" for i in range(3_000)).encode(),
        None,
    ),
    "txt-50MB-one-line": ("line.txt", lambda: b"word " * 10_000_000, None),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_file_is_bounded_and_the_rest_is_indexed(tmp_path: Path, case: str) -> None:
    name, build, expect = CASES[case]
    check_one(tmp_path, name, build(), expect)


@pytest.mark.slow
def test_a_pdf_of_thousands_of_empty_pages_is_bounded(tmp_path: Path) -> None:
    pymupdf = pytest.importorskip("pymupdf")
    document = pymupdf.open()
    for _ in range(5_000):
        document.new_page()
    check_one(tmp_path, "empty.pdf", document.tobytes(garbage=0), None)


@pytest.mark.slow
def test_hostile_catalog_patterns_are_bounded(tmp_path: Path) -> None:
    (tmp_path / "c").mkdir()
    keys = ['"' + "**/" * 200 + 'z.md"', '"' + "*a" * 50 + '*b.md"']
    (tmp_path / "c" / "catalog.toml").write_text(
        "".join(f'[{key}]\naccess = "staff"\n' for key in keys[:2])
    )
    deep = "/".join(["d"] * 60) + "/" + "a" * 200 + ".md"
    check_one(tmp_path, deep, b"# Deep\n\ntext\n", None)
