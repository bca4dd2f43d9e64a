"""Token lists with a Zipf vocabulary, queries over it, and the reference scorer the BM25 tests
compare against."""

from __future__ import annotations

import math
from collections import Counter

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


def naive_lucene(
    corpus: list[list[str]], query: list[str], k1: float = 1.2, b: float = 0.75
) -> list[float]:
    """Elasticsearch's BM25 of every row, from the formula (ReferenceLucene)."""
    scores: list[float] = ReferenceLucene(corpus, k1, b).scores(query).tolist()
    return scores


class ReferenceLucene:
    """Elasticsearch's BM25 over token lists, every row scored, written from the formula
    alone: the truth the rankers' pruned, on-disk scores are checked against."""

    def __init__(self, rows: list[list[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.lengths = np.array([len(row) for row in rows], np.float64)
        counted = self.lengths[self.lengths > 0]
        self.n, self.avgdl = len(counted), float(counted.mean()) if len(counted) else 1.0
        self.postings: dict[str, dict[int, int]] = {}
        for i, row in enumerate(rows):
            for term, tf in Counter(row).items():
                self.postings.setdefault(term, {})[i] = tf

    def scores(self, query: list[str]) -> np.ndarray:
        """Return every row's score, each query term once per repeat."""
        out = np.zeros(len(self.lengths))
        for term in query:
            found = self.postings.get(term, {})
            df = len(found)
            idf = math.log(1 + (self.n - df + 0.5) / (df + 0.5))
            for row, tf in found.items():
                norm = self.k1 * (1 - self.b + self.b * self.lengths[row] / self.avgdl)
                out[row] += idf * tf * (self.k1 + 1) / (tf + norm)
        return out
