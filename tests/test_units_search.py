"""Unit search scores the best sections' units only: it must rank as scoring every unit does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import orjson
import pytest

from policy_assistant.index import unit_search
from policy_assistant.index.bm25 import BM25Index
from policy_assistant.index.tokenize import tokenize, word_terms
from policy_assistant.index.unit_search import UnitIndex
from policy_assistant.index.units import build_units
from policy_assistant.parse import parse_path
from policy_assistant.records import ACCESS_LABELS


@pytest.fixture(scope="module")
def corpus_index(corpus_dir: Path) -> UnitIndex:
    return UnitIndex.build(build_units(parse_path(corpus_dir).documents))


def every_unit_scored(index: UnitIndex, query: str, n: int, access: str) -> list[tuple[int, float]]:
    """The reference: every unit's own BM25 plus its section's fields, the best n."""
    terms = tokenize(query)
    passage = index.passages.scores(terms)
    part = index.section_scores(terms, passage)
    body = index.body.scores(terms)
    total = body + part[index.units.col("unit_section")]
    allowed = index.units.access_codes() <= ACCESS_LABELS.index(access)
    rows = np.flatnonzero((body > 0) & allowed)
    order = np.lexsort((rows, -total[rows]))[:n]
    return [(int(rows[i]), float(total[rows[i]])) for i in order]


def questions(corpus_dir: Path) -> list[tuple[str, str]]:
    path = corpus_dir.parent / "questions" / "questions.jsonl"
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    return [(q["question"], q["audience"]) for q in lines]


def test_unit_search_ranks_as_scoring_every_unit_on_the_bundled_questions(
    corpus_index: UnitIndex, corpus_dir: Path
) -> None:
    asked = questions(corpus_dir)
    assert len(asked) >= 100
    for query, audience in asked:
        found = corpus_index.search(query, 50, audience)
        expected = every_unit_scored(corpus_index, query, 50, audience)
        assert [r for r, _ in found] == [r for r, _ in expected], query
        assert np.allclose([s for _, s in found], [s for _, s in expected], rtol=1e-12)


def test_with_few_sections_chosen_only_their_units_are_ranked(
    corpus_index: UnitIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    def sections(hits: list[tuple[int, float]]) -> set[int]:
        return {int(corpus_index.units.col("unit_section")[r]) for r, _ in hits}

    query = "sprinkler warranty months"
    assert len(sections(corpus_index.search(query, 20, "staff"))) > 1
    monkeypatch.setattr(unit_search, "SECTIONS", 1)
    monkeypatch.setattr(unit_search, "SECTIONS_PER_HIT", 0)
    assert len(sections(corpus_index.search(query, 20, "staff"))) == 1


def test_range_scores_equal_the_dense_scores_of_those_rows() -> None:
    texts = [f"deck oil {'twice ' * (i % 3)}year {i % 5}" for i in range(40)]
    index = BM25Index.build(texts, word_terms=word_terms, workers=0)
    terms = tokenize("deck twice year 3")
    dense = index.scores(terms)
    starts, stops = np.array([0, 7, 30], np.int64), np.array([5, 8, 40], np.int64)
    rows, matrix = index.range_scores(terms, starts, stops)
    inside = np.concatenate([np.arange(a, b) for a, b in zip(starts, stops, strict=True)])
    touched = inside[dense[inside] > 0]
    assert rows.tolist() == touched.tolist()
    assert matrix.sum(axis=0).tolist() == dense[touched].tolist()  # the same floats
    # One row per term: each is that term's own score at the rows.
    alone = {t: index.scores([t])[touched] for t in set(terms)}
    assert sorted(map(tuple, matrix.tolist())) == sorted(tuple(v.tolist()) for v in alone.values())
    empty = index.range_scores(tokenize("nothing"), starts, stops)
    assert len(empty[0]) == 0 and empty[1].shape == (0, 0)
