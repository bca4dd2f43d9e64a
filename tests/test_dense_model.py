"""Dense and hybrid ranking with the real model: a paraphrase BM25 cannot find comes first.

Needs the pinned all-MiniLM-L6-v2 folder (`python scripts/fetch_model.py`) and the dense
extra; without them these tests skip and say which is missing.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from support.chunk_factory import bare_chunk

from policy_assistant.index import memory_index

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "build" / "models" / "all-MiniLM-L6-v2"
MISSING = [m for m in ("onnxruntime", "tokenizers") if not importlib.util.find_spec(m)]
pytestmark = pytest.mark.skipif(
    not (MODEL / "config.json").is_file() or bool(MISSING),
    reason=f"no model folder at {MODEL.relative_to(ROOT)}: run `python scripts/fetch_model.py`"
    if not (MODEL / "config.json").is_file()
    else f"{', '.join(MISSING)} not installed: pip install -e '.[dense]'",
)

TEXTS = [
    ("Staff can do their jobs from home for as many as three days weekly.", "public"),
    ("Travel expenses must be submitted within 30 days of the trip.", "public"),
    ("Passwords must be at least 14 characters long.", "public"),
    ("Remote working: employees may work remotely on approval.", "staff"),
    ("The canteen opens at noon and closes at two.", "public"),
]
QUERY = "Am I allowed to telecommute?"


@pytest.fixture(scope="module")
def index():  # type: ignore[no-untyped-def]
    from policy_assistant.embed.encoder import Encoder
    from policy_assistant.embed.model import resolve_model

    encoder = Encoder(resolve_model(MODEL))
    chunks = [bare_chunk(f"d{i}.md", 0, t, a, {"name": "t"}) for i, (t, a) in enumerate(TEXTS)]
    return memory_index(chunks, vectors=encoder.encode([t for t, _ in TEXTS]), encoder=encoder)


def test_a_paraphrase_bm25_misses_ranks_first_by_dense_and_hybrid(index):
    assert 0 not in [h.row for h in index.search(QUERY, 5, "public", ranker="bm25")]
    for ranker in ("dense", "hybrid"):
        hits = index.search(QUERY, 3, "public", ranker=ranker)
        assert hits[0].row == 0, ranker
        assert all(h.chunk.access == "public" for h in hits)
    assert 3 in [h.row for h in index.search(QUERY, 2, "staff", ranker="dense")]
