"""The parse cache: reading and evaluating the bundled corpus cold (empty cache) and warm.

Prints, best of --repeat runs each: `read_corpus` with no cache, with an empty cache (parse and
write every entry) and with a full one (parse nothing), and `run_eval` (all chunkers, default
budgets) cold and warm. Counts of parsed files are asserted, so a warm figure is never a run
that parsed after all.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from policy_assistant.evaluate import EvalSettings, run_eval
from policy_assistant.parse import CorpusOptions, CorpusRead, read_corpus

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
QUESTIONS = ROOT / "questions" / "questions.jsonl"
T = TypeVar("T")


def best(repeat: int, before: Callable[[], None], run: Callable[[], T]) -> tuple[float, T]:
    """Return the fastest wall time of `run` over `repeat` runs, each after `before`."""
    fastest, result = float("inf"), None
    for _ in range(repeat):
        before()
        start = time.perf_counter()
        result = run()
        fastest = min(fastest, time.perf_counter() - start)
    assert result is not None
    return fastest, result


def main() -> None:
    """Run the measurements and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        cache = Path(scratch) / "cache"
        options = CorpusOptions(cache_dir=cache)

        def empty() -> None:
            shutil.rmtree(cache, ignore_errors=True)

        def read() -> CorpusRead:
            return read_corpus(CORPUS, options)

        plain, none_read = best(args.repeat, lambda: None, lambda: read_corpus(CORPUS))
        cold, cold_read = best(args.repeat, empty, read)
        warm, warm_read = best(args.repeat, lambda: None, read)
        assert none_read.parsed == cold_read.parsed == len(cold_read.documents)
        assert warm_read.parsed == 0
        count = len(warm_read.documents)
        print(f"read_corpus, {count} documents: no cache {plain:.3f} s, ", end="")
        print(f"cold {cold:.3f} s, warm {warm:.3f} s (0 parsed)")

        def evaluate() -> object:
            return run_eval(CORPUS, QUESTIONS, EvalSettings(), options=options)

        eval_cold, _ = best(args.repeat, empty, evaluate)
        eval_warm, _ = best(args.repeat, lambda: None, evaluate)
        print(f"run_eval, 4 chunkers x 3 budgets: cold {eval_cold:.2f} s, warm {eval_warm:.2f} s")


if __name__ == "__main__":
    main()
