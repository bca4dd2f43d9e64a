"""Time the whole eval comparison: on the bundled corpus, and on a generated large corpus.

Usage (from the repository root)::

    .venv/bin/python bench/bench_eval.py                 # both
    .venv/bin/python bench/bench_eval.py --only bundled  # corpus/ with questions/questions.jsonl
    .venv/bin/python bench/bench_eval.py --only large --words 250000 --questions 500
    .venv/bin/python bench/bench_eval.py --only bundled --bundled-questions FILE

Targets (issue "eval"): the bundled comparison (4 chunkers x 3 budgets) in under 2 s wall after
start-up; 250,000 words with 500 questions in under 30 s. Start-up (interpreter and imports) is
excluded: the modules are imported, and PyMuPDF loaded, before the clock starts. Each figure is
the best of --repeat runs, with the parse time shown apart.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
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


def timed(corpus: Path, questions: Path, repeat: int) -> tuple[float, float, Any]:
    """Return the best wall time of the whole comparison, of parsing alone, and the report."""
    best = parse_best = float("inf")
    report = None
    for _ in range(repeat):
        start = time.perf_counter()
        parse_path(corpus)
        parse_best = min(parse_best, time.perf_counter() - start)
        start = time.perf_counter()
        report = run_eval(corpus, questions, EvalSettings())
        best = min(best, time.perf_counter() - start)
    return best, parse_best, report


def describe(label: str, target: float, seconds: float, parse: float, report: Any) -> str:
    """Return one result line."""
    chunks = ", ".join(f"{s.name} {s.chunks}" for s in report.summaries)
    verdict = "within" if seconds < target else "OVER"
    return (
        f"{label}: {seconds:.2f} s wall ({parse:.2f} s of it parsing), {verdict} the "
        f"{target:.0f} s target; {len(report.questions)} questions; chunks: {chunks}"
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

    if args.only in (None, "bundled"):
        questions = args.bundled_questions
        if not questions.is_file():
            sys.exit(f"{questions} is missing: write the question set first")
        seconds, parse, report = timed(ROOT / "corpus", questions, args.repeat)
        print(describe("bundled corpus, 4 chunkers x 3 budgets", 2, seconds, parse, report))
    if args.only in (None, "large"):
        with tempfile.TemporaryDirectory() as tmp:
            questions = write_large_corpus(Path(tmp) / "corpus", args.words, args.questions)
            seconds, parse, report = timed(Path(tmp) / "corpus", questions, args.repeat)
        label = f"generated {args.words:,} words, {args.questions} questions"
        print(describe(label, 30, seconds, parse, report))


if __name__ == "__main__":
    main()
