"""Time the whole eval comparison: on the bundled corpus, and on a generated large corpus.

Usage (from the repository root)::

    .venv/bin/python bench/bench_eval.py                 # both
    .venv/bin/python bench/bench_eval.py --only bundled  # corpus/ with questions/questions.jsonl
    .venv/bin/python bench/bench_eval.py --only large --words 250000 --questions 500
    .venv/bin/python bench/bench_eval.py --only bundled --bundled-questions FILE

Targets (issue "eval"): the bundled comparison (4 chunkers x 3 budgets) in under 2 s wall after
start-up; 250,000 words with 500 questions in under 30 s. Issue 9: a second eval on an unchanged
corpus (warm: parse cache filled) well under the first (cold).

Each corpus is measured two ways, cold beside warm:

- the library call, run_eval, in this process: "cold" is the first call, before this process
  has parsed anything; "warm" is the best of the next --repeat calls. Start-up (interpreter and
  imports, PyMuPDF included) is kept off the clock. Parsing alone (parse_path) is timed after,
  best of --repeat, and shown apart.
- the command, `policy-assistant eval --corpus C --questions Q`, in a fresh process twice: the
  first run in a new empty working folder (cold: no build/ and no cache anywhere under it), the
  second in the same folder (warm: whatever the first left there, listed). Wall time, start-up
  included.

The bench runs from a temporary working folder, so a cache the code keeps under build/ (or the
default index folder) starts empty; a cache kept outside the working folder would not, and the
"cache files" line would then read 0 for the command.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policy_assistant.evaluate import EvalSettings, run_eval
from policy_assistant.parse import parse_path

ROOT = Path(__file__).resolve().parent.parent
SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
SECTION_WORDS = 350
"""Words of prose per generated section, roughly."""


class Generator:
    """Deterministic pseudo-prose: Zipf-like word frequencies, sentences, tables, sections."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        vocabulary = {self._word() for _ in range(12000)}
        self.vocabulary = sorted(vocabulary)
        self.rng.shuffle(self.vocabulary)
        self.weights = [1.0 / (rank + 1) for rank in range(len(self.vocabulary))]

    def _word(self) -> str:
        return "".join(self.rng.choice(SYLLABLES) for _ in range(self.rng.randint(2, 4)))

    def words(self, n: int) -> list[str]:
        """Return n words drawn by frequency."""
        return self.rng.choices(self.vocabulary, self.weights, k=n)

    def sentence(self) -> str:
        """Return one sentence of 8 to 24 words."""
        words = self.words(self.rng.randint(8, 24))
        return " ".join(words).capitalize() + "."

    def section(self, number: int) -> tuple[str, list[str]]:
        """Return a section's heading and its sentences (a table in one section of five)."""
        heading = f"{number}. {' '.join(self.words(3)).capitalize()}"
        sentences: list[str] = []
        while sum(len(s.split()) for s in sentences) < SECTION_WORDS:
            sentences.append(self.sentence())
        if number % 5 == 0:
            sentences.extend(f"{' '.join(self.words(2))} | {n} units" for n in range(1, 9))
        return heading, sentences


def section_markdown(heading: str, sentences: list[str]) -> str:
    """Return a section as Markdown: paragraphs of four sentences, table rows as a table."""
    prose = [s for s in sentences if " | " not in s]
    rows = [s for s in sentences if " | " in s]
    parts = [f"## {heading}"]
    parts += [" ".join(prose[i : i + 4]) for i in range(0, len(prose), 4)]
    if rows:
        parts.append("| item | quantity |\n|---|---|\n" + "\n".join(f"| {r} |" for r in rows))
    return "\n\n".join(parts)


def write_large_corpus(root: Path, words: int, questions: int, seed: int = 7) -> Path:
    """Write a Markdown corpus of about `words` words and a questions file; return its path."""
    gen = Generator(seed)
    sections_per_doc = 6
    docs = max(1, words // (SECTION_WORDS * sections_per_doc))
    catalog: list[str] = []
    cited: list[tuple[str, str, str, list[str]]] = []
    for d in range(docs):
        access = "staff" if d % 4 == 3 else "public"
        source = f"{access}/doc-{d:04d}.md"
        sections = [gen.section(n) for n in range(1, sections_per_doc + 1)]
        body = "\n\n".join(section_markdown(h, s) for h, s in sections)
        path = root / source
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Document {d}\n\n{body}\n", encoding="utf-8")
        catalog.append(f'["{source}"]\naccess = "{access}"\n')
        cited.extend((source, access, h, s) for h, s in sections)
    (root / "catalog.toml").write_text("\n".join(catalog), encoding="utf-8")
    lines = [json.dumps(question(gen, i, cited)) for i in range(questions)]
    out = root.parent / "questions.jsonl"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def question(gen: Generator, i: int, cited: list[tuple[str, str, str, list[str]]]) -> Any:
    """Return one question: a sentence (or table row) of a random section as its evidence."""
    source, access, heading, sentences = gen.rng.choice(cited)
    evidence = gen.rng.choice(sentences)
    terms = [w for w in evidence.rstrip(".").split() if w != "|"]
    asked = gen.rng.sample(terms, min(len(terms), 5)) + gen.words(2)
    return {
        "id": f"g{i:04d}",
        "question": " ".join(asked) + "?",
        "audience": "staff" if access == "staff" or i % 5 == 0 else "public",
        "relevant": [{"source": source, "section": heading, "evidence": evidence}],
    }


@dataclass(frozen=True)
class Timing:
    """Cold and warm wall seconds of one corpus's comparison."""

    cold: float
    """The first run_eval call in this process."""
    warm: float
    """The best of the calls after it."""
    parse: float
    """parse_path alone, best of the repeats."""
    command_cold: float
    """The first `policy-assistant eval` in an empty working folder, start-up included."""
    command_warm: float
    """The second, in the same folder."""
    cache_files: int
    """Files the first command left in the working folder."""


def library_times(corpus: Path, questions: Path, repeat: int) -> tuple[float, float, float, Any]:
    """Return the first run_eval's seconds, the best of the next `repeat`, parsing's, the report."""
    start = time.perf_counter()
    report = run_eval(corpus, questions, EvalSettings())
    cold = time.perf_counter() - start
    warm = parse = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        report = run_eval(corpus, questions, EvalSettings())
        warm = min(warm, time.perf_counter() - start)
    for _ in range(repeat):
        start = time.perf_counter()
        parse_path(corpus)
        parse = min(parse, time.perf_counter() - start)
    return cold, warm, parse, report


def command_times(corpus: Path, questions: Path) -> tuple[float, float, int]:
    """Run the eval command twice in one new working folder; return both walls and new files."""
    script = str(Path(sys.executable).parent / "policy-assistant")
    command = [script, "eval", "--corpus", str(corpus), "--questions", str(questions)]
    walls = []
    with tempfile.TemporaryDirectory(prefix="bench-eval-cwd-") as cwd:
        for _ in range(2):
            start = time.perf_counter()
            done = subprocess.run(command, cwd=cwd, capture_output=True, check=False)
            walls.append(time.perf_counter() - start)
            if done.returncode != 0:
                sys.exit(f"policy-assistant eval exited {done.returncode}: {done.stderr[-300:]!r}")
            if len(walls) == 1:
                files = sum(1 for p in Path(cwd).rglob("*") if p.is_file())
    return walls[0], walls[1], files


def measure(corpus: Path, questions: Path, repeat: int) -> tuple[Timing, Any]:
    """Return the cold and warm figures of one corpus, and the last report."""
    cold, warm, parse, report = library_times(corpus, questions, repeat)
    command_cold, command_warm, files = command_times(corpus, questions)
    return Timing(cold, warm, parse, command_cold, command_warm, files), report


def describe(label: str, target: float, timing: Timing, report: Any) -> str:
    """Return the result lines of one corpus."""
    chunks = ", ".join(f"{s.name} {s.chunks}" for s in report.summaries)
    verdict = "within" if timing.warm < target else "OVER"
    return (
        f"{label}: {len(report.questions)} questions; chunks: {chunks}\n"
        f"  library, after start-up: cold {timing.cold:.2f} s, warm {timing.warm:.2f} s "
        f"({verdict} the {target:.0f} s target); parsing alone {timing.parse:.2f} s\n"
        f"  command, start-up included: cold {timing.command_cold:.2f} s, warm "
        f"{timing.command_warm:.2f} s; cache files left by the first run: {timing.cache_files}"
    )


def main() -> None:
    """Run the benchmarks asked for and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("bundled", "large"))
    parser.add_argument("--words", type=int, default=250_000)
    parser.add_argument("--questions", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--bundled-questions", type=Path, default=ROOT / "questions" / "questions.jsonl"
    )
    args = parser.parse_args()
    import pymupdf  # noqa: F401  start-up cost, kept off the clock

    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} over the last minute")

    if args.only in (None, "bundled"):
        questions = args.bundled_questions.resolve()
        if not questions.is_file():
            sys.exit(f"{questions} is missing: write the question set first")
        with working_folder():
            timing, report = measure(ROOT / "corpus", questions, args.repeat)
        print(describe("bundled corpus, 4 chunkers x 3 budgets", 2, timing, report), flush=True)
    if args.only in (None, "large"):
        with tempfile.TemporaryDirectory() as tmp, working_folder():
            questions = write_large_corpus(Path(tmp) / "corpus", args.words, args.questions)
            timing, report = measure(Path(tmp) / "corpus", questions, args.repeat)
        label = f"generated {args.words:,} words, {args.questions} questions"
        print(describe(label, 30, timing, report))


@contextlib.contextmanager
def working_folder() -> Iterator[None]:
    """Run the block in a new empty working folder, so a cache kept under build/ starts empty."""
    with tempfile.TemporaryDirectory(prefix="bench-eval-") as work:
        os.chdir(work)
        try:
            yield
        finally:
            os.chdir(ROOT)


if __name__ == "__main__":
    main()
