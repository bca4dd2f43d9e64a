"""Token lists with a Zipf vocabulary, and queries over it, for the BM25 tests."""

from __future__ import annotations

import numpy as np

VOCAB = 3000


def zipf_corpus(rows: int = 2500, seed: int = 1) -> list[list[str]]:
    """Token lists with a Zipf vocabulary and lengths 0-150, some rows empty."""
    rng = np.random.default_rng(seed)
    p = 1 / np.arange(1, VOCAB + 1) ** 1.05
    p /= p.sum()
    lengths = rng.integers(0, 150, rows)
    lengths[::97] = 0
    return [[f"w{t}" for t in rng.choice(VOCAB, size=n, p=p)] for n in lengths]


def zipf_queries(count: int = 40, seed: int = 2) -> list[list[str]]:
    """Queries of 1-8 terms, common and rare, some repeated or unknown."""
    rng = np.random.default_rng(seed)
    p = 1 / np.arange(1, VOCAB + 1) ** 0.7
    p /= p.sum()
    out = []
    for i in range(count):
        terms = [f"w{t}" for t in rng.choice(VOCAB, size=rng.integers(1, 9), p=p)]
        if i % 5 == 0:
            terms += [terms[0], "never-seen"]
        out.append(terms)
    return out
