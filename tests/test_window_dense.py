"""The "window-dense" strategy: a hit's window embedded whole at query time orders the hits.

The encoder is a fake that points a text along the axes of the phrases it holds, so which
window wins is known without a model.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.pipeline import STRUCTURE
from support.segment_texts import segment_texts
from support.unit_docs import care_guide
from typer.testing import CliRunner

from policy_assistant.cli import app
from policy_assistant.errors import UsageError
from policy_assistant.evaluate.strategies import NAMED_STRATEGIES
from policy_assistant.index.chunks.search import Index
from policy_assistant.index.context.assembler import DEFAULT_CONTEXT, ContextSettings, order_hits
from policy_assistant.index.context.unit_open import UnitSegment
from policy_assistant.index.context.units import build_units
from policy_assistant.index.store import vectors
from policy_assistant.index.store.vectors import (
    WindowScorer,
    unit_texts,
    window_scorer,
    window_texts,
)
from policy_assistant.ingest.pipeline import ingest
from policy_assistant.parse import read_records

AXES = ("frost", "dawn", "sprinkler", "parking")
"""What a fake vector marks: a text holding the word points along that axis."""


def pointing(text: str) -> np.ndarray:
    """Return a unit vector along the axes of the words text holds."""
    vector = np.full(len(AXES), 0.05, np.float32)
    for axis, word in enumerate(AXES):
        vector[axis] += text.lower().count(word)
    return vector / np.linalg.norm(vector)


class Encoder:
    """A fake encoder that records every text it is sent."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.texts += texts
        return np.stack([pointing(t) for t in texts])


def test_a_window_text_is_the_units_own_text_at_the_embedding_width() -> None:
    units = build_units([care_guide()])
    rows = list(range(len(units)))
    assert window_texts(units, rows, vectors.UNIT_NEIGHBOURS) == unit_texts(units)
    (row,) = [r for r in rows if units.unit_text(r) == "Frost cracks the valve body."]
    (wide,) = window_texts(units, [row], 2)
    # Two either side, in its section only: the heading, both sentences around it, no Summer.
    body = "Winter Drain the sprinkler in autumn. Frost cracks the valve body. Store it dry."
    assert wide.endswith(body)
    assert "Mow" not in wide


def test_the_scorer_embeds_each_window_once_and_returns_its_cosine() -> None:
    units, encoder = build_units([care_guide()]), Encoder()
    query = pointing("frost")
    scorer = WindowScorer(encoder, query)
    rows = list(range(len(units)))
    first = scorer(units, rows, 1)
    assert len(encoder.texts) == len(rows)
    again = scorer(units, [rows[2], rows[0]], 1)
    assert len(encoder.texts) == len(rows)  # already embedded: nothing sent again
    assert again == [first[2], first[0]]
    texts = window_texts(units, rows, 1)
    assert first == pytest.approx([float(pointing(t) @ query) for t in texts])
    scorer(units, rows[:1], 2)
    assert len(encoder.texts) == len(rows) + 1  # another width is another window


def test_window_dense_orders_hits_by_score_plus_weighted_cosine() -> None:
    hits = [(10, 1.0), (11, 0.9), (12, 0.5)]
    cosines = {10: 0.1, 11: 0.3, 12: 0.9}
    seen = []

    def windows(units: Any, rows: list[int], width: int) -> list[float]:
        seen.append(width)
        return [cosines[r] for r in rows]

    dense = ContextSettings(maxp=0.0, dense_windows=1.0)
    ordered = order_hits(None, None, hits, 200, dense, windows)  # type: ignore[arg-type]
    assert [row for row, _ in ordered] == [12, 11, 10]  # 1.4, 1.2, 1.1
    assert ordered[0][1] == pytest.approx(1.4)
    assert seen == [dense.window]  # the width the context's windows take at this budget
    order_hits(None, None, hits, 100, dense, windows)  # type: ignore[arg-type]
    assert seen[-1] == 1  # below narrow_below a window holds one unit either side
    plain = ContextSettings(maxp=0.0)
    assert order_hits(None, None, hits, 200, plain, windows) == hits  # type: ignore[arg-type]
    assert order_hits(None, None, hits, 200, dense, None) == hits  # type: ignore[arg-type]


def test_window_dense_is_window_but_for_the_dense_weight() -> None:
    named = NAMED_STRATEGIES["window-dense"]
    assert named.dense_windows > 0
    assert ContextSettings(**{**_fields(named), "dense_windows": 0.0}) == DEFAULT_CONTEXT
    weight, frost = named.dense_windows, pointing("frost")
    assert window_scorer(weight, Encoder(), None) is None  # BM25: no query vector
    assert window_scorer(DEFAULT_CONTEXT.dense_windows, Encoder(), frost) is None
    assert isinstance(window_scorer(weight, Encoder(), frost), WindowScorer)


@pytest.mark.parametrize("weight", [-1.0, math.nan])
def test_a_negative_or_nan_dense_weight_is_a_usage_error(weight: float) -> None:
    with pytest.raises(UsageError, match="dense_windows"):
        ContextSettings(dense_windows=weight).check()


def _fields(settings: ContextSettings) -> dict[str, Any]:
    return {name: getattr(settings, name) for name in ContextSettings.__slots__}  # type: ignore[attr-defined]


FILES = {
    "care.md": (
        "---\naccess: public\n---\n# Care\n\nDrain the pipes in autumn. The valve cracks when "
        "it freezes. Keep it indoors.\n\nThe sprinkler runs at dawn. It wakes the birds. "
        "Water the beds deeply.\n"
    ),
    "staff.md": "---\naccess: staff\n---\n# Depot\n\nThe sprinkler in the depot is staff only.\n",
}


def unit_vectors(segment: UnitSegment) -> np.ndarray:
    return np.stack([pointing(t) for t in segment_texts(segment)])


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Encoder]:
    corpus = tmp_path / "c"
    corpus.mkdir()
    for name, text in FILES.items():
        (corpus / name).write_text(text)
    ingest(corpus, tmp_path / "i", STRUCTURE, options=read_records.CorpusOptions(workers=1))
    encoder = Encoder()
    monkeypatch.setattr(UnitSegment, "vectors", unit_vectors, raising=False)
    monkeypatch.setattr(Index, "has_vectors", lambda self: True)
    monkeypatch.setattr(Index, "load_encoder", lambda self: encoder)
    return tmp_path / "i", encoder


def search(folder: Path, *args: str) -> list[str]:
    done = CliRunner().invoke(
        app, ["search", "sprinkler", "--index", str(folder), "--budget", "40", "--json", *args]
    )
    assert done.exit_code == 0, done.output
    return [json.loads(line)["text"] for line in done.stdout.splitlines() if line.strip()]


def test_search_budget_embeds_hit_windows_only_for_window_dense(
    index: tuple[Path, Encoder],
) -> None:
    folder, encoder = index
    assert search(folder, "--strategy", "window")
    assert encoder.texts == ["sprinkler"]  # the query alone
    found = search(folder, "--strategy", "window-dense")
    assert found and "sprinkler runs at dawn" in found[0]
    windows = encoder.texts[2:]
    assert windows and all("\n\n" in text for text in windows)  # title, then the window
    # Access holds: the staff unit is neither embedded nor shown for a public caller.
    assert not any("depot" in text for text in windows) and "depot" not in " ".join(found)
    staff = search(folder, "--strategy", "window-dense", "--access", "staff")
    assert any("depot" in text for text in staff)


def test_search_budget_window_dense_under_bm25_is_a_one_line_usage_error(
    index: tuple[Path, Encoder],
) -> None:
    folder, _ = index
    done = CliRunner().invoke(
        app,
        ["search", "sprinkler", "--index", str(folder), "--budget", "40", "--strategy",
         "window-dense", "--ranker", "bm25"],
    )  # fmt: skip
    assert done.exit_code == 2
    assert "window-dense" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_eval_leaves_out_window_dense_under_bm25_and_says_why() -> None:
    from types import SimpleNamespace

    from policy_assistant.evaluate.strategies import NEEDS_VECTORS, unit_strategy_runs

    settings = SimpleNamespace(rankers=("bm25",), k=5, budgets=(100,))
    runs, skipped = unit_strategy_runs([care_guide()], [], ["window-dense"], settings)
    assert runs == [] and skipped == [f"left out window-dense: {NEEDS_VECTORS}"]
    runs, skipped = unit_strategy_runs([care_guide()], [], ["window", "window-dense"], settings)
    assert [r.name for r in runs] == ["window"] and len(skipped) == 1


def test_eval_naming_only_window_dense_under_bm25_stops_before_the_work(corpus_dir: Path) -> None:
    done = CliRunner().invoke(
        app, ["eval", "--corpus", str(corpus_dir), "--strategy", "window-dense"]
    )
    assert done.exit_code == 2
    assert "needs --retriever dense or hybrid" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and done.stdout == ""
