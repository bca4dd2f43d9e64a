"""`search --budget --ranker`: contexts assembled from units ranked by dense or hybrid.

A unit segment's vectors() and the index's query encoder are replaced by fakes (vectors from
the words a unit holds), so the ranking, access and assembly paths are what is tested, with
no model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.pipeline import STRUCTURE
from support.segment_texts import segment_texts
from typer.testing import CliRunner

from policy_assistant.cli import app
from policy_assistant.index.chunks.search import Index
from policy_assistant.index.context.unit_open import UnitSegment
from policy_assistant.ingest.pipeline import ingest
from policy_assistant.parse import read_records

FILES = {
    "returns.md": (
        "---\naccess: public\n---\n# Returns\n\n"
        "You get your money back within thirty days.\n\nParking is free at the store.\n"
    ),
    "pay.md": "---\naccess: staff\n---\n# Pay\n\nAdvances come back to staff as a cash refund.\n",
}
MEANINGS = {"money back": 0, "refund": 0, "parking": 1, "salary": 2}
"""What a fake vector marks: a unit holding the phrase points along that axis."""
QUERIES = {"reimbursement": 0, "parking": 1}


def meaning(text: str) -> np.ndarray:
    vector = np.full(4, 0.05, np.float32)
    for phrase, axis in MEANINGS.items():
        if phrase in text.lower():
            vector[axis] += 1.0 + (0.5 if "cash" in text else 0.0)  # staff's is the best match
    return vector / np.linalg.norm(vector)


class FakeEncoder:
    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.full((len(texts), 4), 0.05, np.float32)
        for i, text in enumerate(texts):
            out[i, QUERIES[text]] = 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def unit_vectors(segment: UnitSegment) -> np.ndarray:
    return np.stack([meaning(t) for t in segment_texts(segment)])


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    corpus = tmp_path / "c"
    corpus.mkdir()
    for name, text in FILES.items():
        (corpus / name).write_text(text)
    ingest(corpus, tmp_path / "i", STRUCTURE, options=read_records.CorpusOptions(workers=1))
    return tmp_path / "i"


@pytest.fixture
def with_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(UnitSegment, "vectors", unit_vectors, raising=False)
    monkeypatch.setattr(Index, "has_vectors", lambda self: True)
    monkeypatch.setattr(Index, "load_encoder", lambda self: FakeEncoder())


def context(folder: Path, query: str, *args: str) -> Any:
    done = CliRunner().invoke(
        app, ["search", query, "--index", str(folder), "--budget", "40", "--json", *args]
    )
    return done


def texts(done: Any) -> list[str]:
    assert done.exit_code == 0, done.output
    return [json.loads(line)["text"] for line in done.stdout.splitlines() if line.strip()]


def test_without_unit_vectors_a_vector_ranker_is_a_one_line_usage_error(folder: Path) -> None:
    done = context(folder, "reimbursement", "--ranker", "dense")
    assert done.exit_code == 2
    assert "ingest --embed MODEL" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_dense_finds_a_paraphrase_bm25_cannot(folder: Path, with_vectors: None) -> None:
    assert texts(context(folder, "reimbursement", "--ranker", "bm25")) == []
    found = texts(context(folder, "reimbursement", "--ranker", "dense"))
    assert found and "money back" in found[0]


def test_hybrid_keeps_the_word_match_and_lets_a_dense_only_unit_in(
    folder: Path, with_vectors: None
) -> None:
    found = " ".join(texts(context(folder, "parking", "--ranker", "hybrid")))
    assert "Parking is free" in found
    again = " ".join(texts(context(folder, "reimbursement", "--ranker", "hybrid")))
    assert "money back" in again  # no word in common: on its dense score alone


def test_a_public_context_never_holds_a_staff_unit_whatever_its_vector(
    folder: Path, with_vectors: None
) -> None:
    for ranker in ("dense", "hybrid"):
        public = " ".join(texts(context(folder, "reimbursement", "--ranker", ranker)))
        assert "cash refund" not in public
        staff = texts(context(folder, "reimbursement", "--ranker", ranker, "--access", "staff"))
        assert any("cash refund" in text for text in staff)  # for a caller who may see it


def test_no_ranker_named_ranks_units_as_search_does(folder: Path, with_vectors: None) -> None:
    found = texts(context(folder, "reimbursement"))
    assert found and "money back" in found[0]  # hybrid: no word in common, found by meaning


@pytest.mark.parametrize(
    ("named", "weight"),
    [((), None), (("--ranker", "hybrid"), None), (("--ranker", "hybrid:3"), 3.0)],
)
def test_a_context_fuses_units_with_the_units_own_hybrid_settings(
    folder: Path, with_vectors: None, monkeypatch: pytest.MonkeyPatch, named: tuple[str, ...],
    weight: float | None,
) -> None:  # fmt: skip
    from dataclasses import replace

    from policy_assistant.index.context import unit_rank
    from policy_assistant.index.settings import HYBRID_UNITS

    seen = []
    real = unit_rank.ranked_by_vectors

    def spy(*args: Any) -> Any:
        seen.append(args[-1])
        return real(*args)

    monkeypatch.setattr(unit_rank, "ranked_by_vectors", spy)
    assert texts(context(folder, "reimbursement", *named))
    # The units' own fusion (not the chunks'), or the dense weight named.
    assert seen == [HYBRID_UNITS if weight is None else replace(HYBRID_UNITS, weight=weight)]


def test_eval_fuses_a_strategys_units_as_search_budget_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from policy_assistant.evaluate import strategies
    from policy_assistant.index.settings import HYBRID_UNITS

    class Units:
        def with_options(self, weights: Any) -> Units:
            return self

    seen = []
    monkeypatch.setattr(strategies, "score_strategy", lambda *a: seen.append(a[5]))
    window = strategies.named_strategies(["window"])
    strategies.strategy_runs(Units(), ["q"], window, 5, [100], "hybrid", None)  # type: ignore[arg-type]
    assert seen == [HYBRID_UNITS]


def test_vector_rankers_order_hits_by_their_own_score_not_bm25_term_gains() -> None:
    from policy_assistant.index.context.assembler import DEFAULT_CONTEXT, ranked_settings
    from policy_assistant.index.settings import BM25_RANKER, HYBRID_RANKER, ranker_settings

    assert DEFAULT_CONTEXT.maxp > 0  # MaxP adds BM25 term weights: a BM25-scale quantity
    assert ranked_settings(DEFAULT_CONTEXT, None) == DEFAULT_CONTEXT
    assert ranked_settings(DEFAULT_CONTEXT, BM25_RANKER) == DEFAULT_CONTEXT
    for ranker in (HYBRID_RANKER, ranker_settings("dense")):
        assert ranked_settings(DEFAULT_CONTEXT, ranker).maxp == 0.0
