"""A reader keeps answering search and context while a writer swaps generations under it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from policy_assistant.chunk import make_chunker
from policy_assistant.index import open_index
from policy_assistant.ingest.pipeline import ingest

ROOT = Path(__file__).resolve().parent.parent
SWAPS = 8


def write_corpus(corpus: Path, round_: int) -> None:
    (corpus / "staff").mkdir(parents=True, exist_ok=True)
    for name in ("a", "b", "c"):
        body = f"Mowers carry a warranty of {round_} years, {name}. Hoses do not."
        (corpus / f"{name}.md").write_text(f"---\naccess: public\n---\n# {name}\n\n{body}\n")
    (corpus / "staff" / "s.md").write_text("---\naccess: staff\n---\n# S\n\nCode 4471.\n")


WRITER = """
    import sys
    from pathlib import Path
    from policy_assistant.chunk import make_chunker
    from policy_assistant.ingest.pipeline import ingest
    from policy_assistant.parse import CorpusOptions
    from test_reader_swaps import write_corpus
    corpus, index_dir, swaps = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    for round_ in range(1, swaps + 1):
        write_corpus(corpus, round_)
        summary = ingest(corpus, index_dir, make_chunker("structure"),
                         options=CorpusOptions(workers=1))
        assert summary.written
        print(round_, flush=True)
"""


@pytest.mark.slow
def test_a_reader_answers_search_and_context_across_swaps(tmp_path: Path) -> None:
    corpus, index_dir = tmp_path / "c", tmp_path / "i"
    write_corpus(corpus, 0)
    ingest(corpus, index_dir, make_chunker("structure"))
    old = open_index(index_dir)  # opened before any swap, context not yet asked
    assert old.search("mowers", 3)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    command = [sys.executable, "-c", textwrap.dedent(WRITER), str(corpus), str(index_dir)]
    writer = subprocess.Popen([*command, str(SWAPS)], stdout=subprocess.PIPE, text=True, env=env)
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "1"  # one swap done: old's generation is gone
    failures, calls = [], 0
    try:
        while writer.poll() is None or calls < 20:
            for index in (old, open_index(index_dir)):
                try:
                    assert index.search("mowers warranty", 3)
                    assert index.context("mowers warranty", 60)
                except Exception as exc:  # every failure is what this test counts
                    failures.append(f"{type(exc).__name__}: {exc}")
                calls += 1
                if index is not old:
                    index.close()
    finally:
        assert writer.wait(300) == 0
        old.close()
    assert calls > 2 * SWAPS and not failures, (calls, failures[:3], len(failures))
