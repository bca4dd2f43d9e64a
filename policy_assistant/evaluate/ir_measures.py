"""Document-level IR measures, as the `ir_measures` package (and trec_eval under it) defines them.

For one query with a ranking of documents d_1, d_2, ... (best first, no repeats) and judgments
rel(d) from the qrels (a document not judged has rel 0):

- **nDCG@10** (`ndcg_cut_10`): `DCG@10 / IDCG@10`, with `DCG@10 = Σ_{i ≤ 10} max(rel(d_i), 0) /
  log2(i + 1)`: the gain is the relevance grade itself (not 2^rel - 1), and IDCG@10 is the same
  sum over the qrels' grades sorted from the highest, cut at 10. 0 when IDCG is 0.
- **MRR@10** (`RR@10`, `recip_rank` cut at 10): `1 / i` for the first i ≤ 10 with rel(d_i) > 0,
  else 0; averaged over queries it is the mean reciprocal rank.
- **Recall@100** (`recall_100`): `|{i ≤ 100 : rel(d_i) > 0}| / |{d : rel(d) > 0}|`. 0 when the
  qrels hold no document with rel > 0.

Which queries count follows trec_eval with `-c`, which is what BEIR's own evaluation sees: every
query that has judgments in the qrels is evaluated, a query the system returns nothing for
scores 0 on every measure rather than being left out, and a query whose judgments are all 0 (no
relevant document) is kept and scores 0 on all three (trec_eval's convention; pytrec_eval gives
the same). Queries without judgments are not evaluated.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

NDCG_CUTOFF = 10
"""Depth of nDCG@10."""
RR_CUTOFF = 10
"""Depth of MRR@10."""
RECALL_CUTOFF = 100
"""Depth of Recall@100."""
MEASURES = ("nDCG@10", "MRR@10", "Recall@100")
"""The measures, by the names ir_measures gives them (RR@10 is shown as MRR@10), in order."""
DEPTH = max(NDCG_CUTOFF, RR_CUTOFF, RECALL_CUTOFF)
"""Documents a ranking needs for every measure."""

Judgments = Mapping[str, int]
"""One query's qrels: document ID -> relevance grade."""


def dcg(grades: Iterable[int]) -> float:
    """Return the discounted cumulative gain of grades in rank order: Σ rel_i / log2(i + 1)."""
    return sum(max(g, 0) / math.log2(i + 1) for i, g in enumerate(grades, 1))


def ndcg_at(ranking: Sequence[str], judged: Judgments, k: int = NDCG_CUTOFF) -> float:
    """Return nDCG@k of a ranking: gain = grade, log2 discount, ideal from the qrels."""
    ideal = dcg(sorted((g for g in judged.values() if g > 0), reverse=True)[:k])
    if ideal <= 0:
        return 0.0
    return dcg(judged.get(doc, 0) for doc in ranking[:k]) / ideal


def reciprocal_rank_at(ranking: Sequence[str], judged: Judgments, k: int = RR_CUTOFF) -> float:
    """Return 1 / rank of the first document with grade > 0 within the top k, else 0."""
    for rank, doc in enumerate(ranking[:k], 1):
        if judged.get(doc, 0) > 0:
            return 1.0 / rank
    return 0.0


def recall_at(ranking: Sequence[str], judged: Judgments, k: int = RECALL_CUTOFF) -> float:
    """Return the share of the qrels' relevant documents (grade > 0) in the top k, else 0."""
    relevant = {doc for doc, grade in judged.items() if grade > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranking[:k])) / len(relevant)


def measure_query(ranking: Sequence[str], judged: Judgments) -> dict[str, float]:
    """Return every measure of MEASURES for one query's document ranking."""
    return {
        "nDCG@10": ndcg_at(ranking, judged),
        "MRR@10": reciprocal_rank_at(ranking, judged),
        "Recall@100": recall_at(ranking, judged),
    }


def fold_to_documents(sources: Iterable[str], depth: int = DEPTH) -> list[str]:
    """Return the documents of a chunk ranking in the order of their best-ranked chunk."""
    seen: dict[str, None] = {}
    for source in sources:
        if source not in seen:
            seen[source] = None
            if len(seen) == depth:
                break
    return list(seen)
