"""Would a static embedding lift the default context strategy? BM25 fused with WordLlama.

    pip install wordllama   # not a dependency of ours: this measures whether it should be
    python bench/hybrid_dense.py --set build/external/fhs:questions/external/fhs.jsonl ...

WordLlama (MIT) ships its 256-dimension `l2_supercat` weights and tokenizer inside its wheel,
so it runs with no download: the one embedding model here that installs from the package
registry alone (the others fetch weights at run time). Each unit's text, after its section's
last heading, is embedded; a query's units are then ranked by

    fused = BM25 / (the query's best BM25) + lambda * cosine(query, unit)

over every unit the access level may see (lambda 0 is the default strategy, unchanged), and
the context is assembled from that ranking as `window` assembles it. Prints, per lambda,
complete@B and hit@B over every set pooled, the misses at 400 by reason, and how many
questions share no stemmed term with their quote (no word-matching ranker finds those).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from eval_context import usable_questions

from policy_assistant.evaluate.strategies import NAMED_STRATEGIES, Strategy, strategy_runs
from policy_assistant.index.context.unit_open import segment_units
from policy_assistant.index.context.unit_rank import SegmentedUnits
from policy_assistant.index.context.units import UnitSet
from policy_assistant.index.store.units import units_of
from policy_assistant.index.tokenize import tokenize
from policy_assistant.parse import parse_path

BUDGETS = (50, 100, 200, 400)
POOL = 400
"""BM25 hits fused per query (the assembler takes the first `candidates` of the fusion)."""


def load_model(cache: Path) -> Any:
    """Return WordLlama's bundled model, with no download.

    Its loader looks for the bundled tokenizer under `tokenizer/` while the wheel holds it in
    `tokenizers/`, so the file is copied to a cache folder where the loader finds it.
    """
    import wordllama
    from wordllama import WordLlama

    bundled = Path(wordllama.__file__).parent / "tokenizers"
    (cache / "tokenizers").mkdir(parents=True, exist_ok=True)
    for file in bundled.glob("*.json"):
        shutil.copy(file, cache / "tokenizers" / file.name)
    return WordLlama.load(cache_dir=cache, disable_download=True)


def unit_texts(units: UnitSet) -> list[str]:
    """Return each unit's text after its section's last heading."""
    sections = units.col("unit_section")
    texts = []
    for row in range(len(units)):
        path = units.paths[int(sections[row])]
        texts.append((f"{path[-1]}: " if path else "") + units.unit_text(row))
    return texts


class Fused:
    """SegmentedUnits._ranked replaced by the fusion, for one set's units (one segment) and one
    query at a time."""

    def __init__(self, model: Any) -> None:
        self.model, self.lam = model, 0.0
        self.units = np.zeros((0, 0), np.float32)
        self.query = np.zeros(0, np.float32)
        self.plain = SegmentedUnits._ranked

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return unit-length embeddings of texts."""
        return np.asarray(self.model.embed(texts, norm=True, batch_size=512), np.float32)

    def ranked(self, index: SegmentedUnits, terms: Any, n: int, level: int) -> Any:
        """Return BM25's hits fused with cosine similarity, and BM25's term weights."""
        units, hits, weights = self.plain(index, terms, max(n, POOL), level)
        if not self.lam:
            return units, hits[:n], weights
        segment = index.segments[0]
        units = segment_units(segment)  # every unit, rows of the one segment
        fused = self.lam * (self.units @ self.query)
        top = max((score for _, score in hits), default=1.0)
        for row, score in hits:
            fused[row] += score / top
        fused[segment.section_access[units.col("unit_section")] > level] = -np.inf
        order = np.lexsort((np.arange(len(fused)), -fused))[:n]
        return units, [(int(r), float(fused[r] * top)) for r in order], weights


def main() -> None:
    """Measure each lambda over the sets given and print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", action="append", required=True, metavar="CORPUS:QUESTIONS")
    parser.add_argument("--lambdas", default="0,0.15,0.3,0.6,1,3")
    args = parser.parse_args()
    lambdas = [float(x) for x in args.lambdas.split(",")]
    with tempfile.TemporaryDirectory() as cache:
        fused = Fused(load_model(Path(cache)))
        SegmentedUnits._ranked = lambda self, t, n, lv: fused.ranked(self, t, n, lv)  # type: ignore
        measure(fused, args.set, lambdas)


def measure(fused: Fused, sets: list[str], lambdas: list[float]) -> None:
    """Run the default strategy under every lambda on every set; print the pooled figures."""
    strategy = Strategy("window", NAMED_STRATEGIES["window"])
    counts = {lam: np.zeros((2, len(BUDGETS))) for lam in lambdas}
    misses: dict[float, Counter[str]] = {lam: Counter() for lam in lambdas}
    total = disjoint = 0
    for item in sets:
        corpus, _, questions = item.partition(":")
        docs = parse_path(Path(corpus)).documents
        qset = usable_questions(Path(questions), docs)
        index = units_of(docs)
        fused.units = fused.embed(unit_texts(segment_units(index.segments[0])))
        total += len(qset.questions)
        for q in qset.questions:
            quote = set(tokenize(" ".join(p.evidence for p in q.relevant)))
            disjoint += not set(tokenize(q.question)) & quote
            fused.query = fused.embed([q.question])[0]
            for lam in lambdas:
                fused.lam = lam
                outcome = strategy_runs(index, [q], [strategy], 5, BUDGETS)[0].outcomes[0]
                for i, b in enumerate(outcome.budgets):
                    counts[lam][:, i] += (b.complete, b.hit)
                misses[lam][outcome.budgets[-1].miss or "complete"] += 1
    print(f"{total} questions; {disjoint} share no stemmed term with their quote")
    for lam in lambdas:
        c, h = counts[lam] / total * 100
        cells = " ".join(f"c@{b}={c[i]:.1f} h@{b}={h[i]:.1f}" for i, b in enumerate(BUDGETS))
        print(f"lambda={lam:<5} {cells}  at 400: {dict(sorted(misses[lam].items()))}")


if __name__ == "__main__":
    main()
