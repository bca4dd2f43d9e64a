"""nDCG@10, MRR@10 and Recall@100: hand-computed values, and ir_measures (pytrec_eval) itself."""

from __future__ import annotations

import math
import random

import ir_measures
import pytest
from ir_measures import RR, R, nDCG

from policy_assistant.evaluate.ir_measures import (
    fold_to_documents,
    measure_query,
    ndcg_at,
    recall_at,
    reciprocal_rank_at,
)

TOLERANCE = 1e-9


def test_graded_ranking_by_hand() -> None:
    judged = {"d1": 2, "d2": 1, "d3": 0, "d4": 1}
    ranking = ["d3", "d1", "d5", "d2"]  # d4 is relevant and never retrieved
    # DCG: grade / log2(rank + 1) at ranks 2 (d1, grade 2) and 4 (d2, grade 1).
    dcg = 2 / math.log2(3) + 1 / math.log2(5)
    # Ideal: grades 2, 1, 1 at ranks 1, 2, 3.
    ideal = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at(ranking, judged) == pytest.approx(dcg / ideal, abs=TOLERANCE)
    assert abs(dcg / ideal - 0.54059) < 1e-5  # (1.26186 + 0.43068) / (2 + 0.63093 + 0.5)
    assert reciprocal_rank_at(ranking, judged) == pytest.approx(1 / 2, abs=TOLERANCE)
    assert recall_at(ranking, judged) == pytest.approx(2 / 3, abs=TOLERANCE)


def test_the_cutoffs_count_ranks_10_and_100_and_no_further() -> None:
    filler = [f"x{i}" for i in range(10)]
    at_11 = [*filler, "hit"]
    assert measure_query(at_11, {"hit": 1}) == {"nDCG@10": 0.0, "MRR@10": 0.0, "Recall@100": 1.0}
    at_10 = [*filler[:9], "hit"]
    assert ndcg_at(at_10, {"hit": 1}) == pytest.approx(1 / math.log2(11), abs=TOLERANCE)
    assert reciprocal_rank_at(at_10, {"hit": 1}) == pytest.approx(1 / 10, abs=TOLERANCE)
    deep = [f"x{i}" for i in range(100)]
    assert recall_at([*deep, "hit"], {"hit": 1, "other": 1}) == 0.0
    assert recall_at([*deep[:99], "hit"], {"hit": 1, "other": 1}) == pytest.approx(0.5)


def test_a_query_without_a_relevant_document_scores_zero() -> None:
    # trec_eval's convention: judged only as not relevant, the query is kept and scores 0.
    assert measure_query(["d1", "d2"], {"d1": 0}) == {
        "nDCG@10": 0.0,
        "MRR@10": 0.0,
        "Recall@100": 0.0,
    }
    assert measure_query([], {"d1": 3}) == {"nDCG@10": 0.0, "MRR@10": 0.0, "Recall@100": 0.0}


def test_a_negative_grade_gains_nothing() -> None:
    # trec_eval counts a negative grade as not relevant: no gain, no penalty.
    assert ndcg_at(["bad", "good"], {"bad": -1, "good": 1}) == pytest.approx(
        (1 / math.log2(3)) / 1, abs=TOLERANCE
    )


def test_documents_are_ranked_by_their_best_chunk() -> None:
    assert fold_to_documents(["b", "a", "b", "c", "a"]) == ["b", "a", "c"]
    assert fold_to_documents(["b", "a", "b", "c"], depth=2) == ["b", "a"]


def random_case(rng: random.Random) -> tuple[dict[str, dict[str, int]], dict[str, list[str]]]:
    """Return qrels and rankings of 40 queries over 300 documents, grades -1 to 3."""
    docs = [f"d{i}" for i in range(300)]
    qrels: dict[str, dict[str, int]] = {}
    runs: dict[str, list[str]] = {}
    for q in range(40):
        judged = rng.sample(docs, rng.randint(1, 30))
        qrels[f"q{q}"] = {d: rng.choice([-1, 0, 0, 1, 1, 2, 3]) for d in judged}
        pool = judged[: rng.randint(0, len(judged))] + rng.sample(docs, 120)
        runs[f"q{q}"] = list(dict.fromkeys(rng.sample(pool, min(len(pool), 130))))
    runs["q0"] = []  # a query the system returns nothing for
    return qrels, runs


def test_every_measure_equals_ir_measures_on_random_rankings() -> None:
    qrels, runs = random_case(random.Random(13))
    # Strictly falling scores, so trec_eval's re-sort by score keeps our order.
    scored = {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in runs.items()}
    reference = {
        (m.query_id, str(m.measure)): m.value
        for m in ir_measures.iter_calc([nDCG @ 10, RR @ 10, R @ 100], qrels, scored)
    }
    names = {"nDCG@10": "nDCG@10", "MRR@10": "RR@10", "Recall@100": "R@100"}
    for query, ranking in runs.items():
        ours = measure_query(ranking, qrels[query])
        for ours_name, theirs in names.items():
            expected = reference.get((query, theirs), 0.0)
            assert ours[ours_name] == pytest.approx(expected, abs=TOLERANCE), (query, theirs)
    assert sum(1 for key in reference if key[1] == "nDCG@10") == len(runs)
