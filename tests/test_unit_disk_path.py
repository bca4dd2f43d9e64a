"""The unit search from disk: MaxScore over the passage field, framed texts, segment views.

Each shortcut must give the floats and contexts of the plain computation and of a cold build
(one segment of the same documents); each test checks the shortcut was taken, so it cannot
pass by falling back.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import orjson
import pytest

from policy_assistant.errors import BadIndex
from policy_assistant.index.context import (
    unit_open,
    unit_rank,
    unit_segment,
    unit_terms,
)
from policy_assistant.index.context.assembler import DEFAULT_CONTEXT, ContextSettings, context_for
from policy_assistant.index.settings import BM25_DEFAULTS
from policy_assistant.index.store import units as unit_store
from policy_assistant.index.tokenize import tokenize
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import Document, DocumentMeta

WORDS = [f"w{i:03d}" for i in range(300)]
"""Drawn with Zipf weights: a few common words in most sections, many rare ones."""


def documents(count: int, seed: int, prefix: str = "d") -> list[Document]:
    """Return generated documents of Zipf-distributed words, some staff-only."""
    rng = random.Random(seed)
    weights = [1.0 / (i + 1) for i in range(len(WORDS))]

    def sentence() -> str:
        return " ".join(rng.choices(WORDS, weights, k=rng.randint(4, 14))).capitalize() + "."

    docs = []
    for n in range(count):
        builder = DocumentBuilder()
        builder.heading(f"Guide {n}", 1, ())
        for s in range(rng.randint(1, 4)):
            builder.heading(f"Part {s} {rng.choice(WORDS)}", 2, ())
            builder.add("paragraph", " ".join(sentence() for _ in range(rng.randint(1, 5))), ())
        access = "staff" if rng.random() < 0.25 else "public"
        meta = DocumentMeta(access=access, title=f"Guide {n}", version="1")
        docs.append(builder.build(f"{prefix}{n:04d}.md", "0" * 64, meta, f"guide-{n}"))
    return docs


def queries(seed: int, count: int = 60) -> list[str]:
    """Return queries of 2-6 words: common and rare ones together."""
    rng = random.Random(seed)
    weights = [1.0 / (i + 1) ** 0.5 for i in range(len(WORDS))]
    return [" ".join(rng.choices(WORDS, weights, k=rng.randint(2, 6))) for _ in range(count)]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Document], Path]:
    """Return documents and a units folder holding them in two segments, one deleted row."""
    docs = documents(400, 1)
    folder = tmp_path_factory.mktemp("u")
    unit_store.write_units(docs[:300], folder / "a", BM25_DEFAULTS)
    # The second write deletes one document of the first segment and adds the rest.
    unit_store.update_units(folder / "a", folder / "b", [docs[7].source], docs[300:],
                            BM25_DEFAULTS)  # fmt: skip
    live = [d for d in docs if d.source != docs[7].source]
    return live, folder / "b"


@pytest.mark.slow
def test_maxscore_sections_rank_as_scoring_every_posting(
    stored: tuple[list[Document], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    docs, folder = stored
    monkeypatch.setattr(unit_rank, "SECTIONS", 20)  # fewer sections than match: pruning pays
    taken = []
    real = unit_terms.top_rows

    def spy(*args: object) -> object:
        found = real(*args)  # type: ignore[arg-type]
        taken.append(found is not None)
        return found

    monkeypatch.setattr(unit_rank, "top_rows", spy)
    index = unit_store.load_units(folder)
    try:
        asked = [(q, a) for q in queries(2) for a in ("public", "staff")]
        pruned = [(named(found), found[1]) for found in (index.ranked(q, 10, a) for q, a in asked)]
        monkeypatch.setattr(unit_terms, "MAX_CANDIDATES", -1)  # never prune
        dense = [(named(found), found[1]) for found in (index.ranked(q, 10, a) for q, a in asked)]
    finally:
        index.close()
    assert sum(taken[: len(pruned)]) > len(pruned) // 2, "pruning was seldom taken"
    assert not any(taken[len(pruned) :])
    assert [hits for _, hits in pruned] == [hits for _, hits in dense]
    memory = unit_store.units_of(docs)
    cold = [named(memory.ranked(q, 10, a)) for q in queries(2) for a in ("public", "staff")]
    assert [cited for cited, _ in pruned] == cold


@pytest.mark.parametrize("share", [1 << 30, 0])  # sorted postings, then every row summed
def test_sparse_field_scores_are_the_dense_ones(
    stored: tuple[list[Document], Path], monkeypatch: pytest.MonkeyPatch, share: int
) -> None:
    monkeypatch.setattr(unit_terms, "SPARSE_SHARE", share)
    index = unit_store.load_units(folder := stored[1])
    try:
        bases = index._bases["sections"]
        for name in ("sections", "passages"):
            views, stats = index._views[name], index.stats[name]
            for query in queries(3, 20):
                counts = {t: 1.0 for t in tokenize(query)}
                plan = unit_terms.plan_field(views, stats, counts)
                dense = unit_terms.field_scores(views, stats, plan, bases)
                rows, scores = unit_terms.sparse_scores(views, stats, plan, bases)
                assert rows.tolist() == np.flatnonzero(dense).tolist(), (folder, query)
                assert scores.tolist() == dense[rows].tolist()
    finally:
        index.close()


def named(ranked: tuple) -> list[tuple[str, int, float]]:  # type: ignore[type-arg]
    """Return ranked hits as (source, unit start, score): the same in any row numbering."""
    units, hits, _ = ranked
    doc, start = units.col("unit_doc"), units.col("unit_start")
    return [(units.docs[int(doc[r])].source, int(start[r]), s) for r, s in hits]


def test_contexts_from_disk_equal_a_cold_build(
    stored: tuple[list[Document], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    docs, folder = stored
    monkeypatch.setattr(unit_segment, "FRAME_CHARS", 64)  # passages span frames
    small = folder.parent / "small"
    unit_store.write_units(docs, small, BM25_DEFAULTS)
    views = []
    real = unit_open.segment_units
    monkeypatch.setattr(unit_rank, "segment_units", lambda s: views.append(1) or real(s))
    memory = unit_store.units_of(docs)
    settings = [DEFAULT_CONTEXT, ContextSettings("automerge"), ContextSettings("units")]
    for where in (folder, small):
        index = unit_store.load_units(where)
        try:
            for query in queries(3, 30):
                for budget, s in zip((40, 120, 400), settings, strict=True):
                    want = context_for(memory, query, budget, "staff", s)
                    assert context_for(index, query, budget, "staff", s) == want
        finally:
            index.close()
    assert views, "no context was read through a segment's own view"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_framed_text_slices_as_the_text_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    monkeypatch.setattr(unit_segment, "FRAME_CHARS", 5)
    docs = documents(3, seed)
    unit_store.write_units(docs, tmp_path / "u", BM25_DEFAULTS)
    index = unit_store.load_units(tmp_path / "u")
    try:
        segment = index.segments[0]
        rng = random.Random(seed)
        for row, doc in enumerate(docs):
            assert segment.text(row) == doc.text
            text = unit_open.DocText(segment, row)
            for _ in range(200):
                start = rng.randint(0, len(doc.text))
                stop = rng.randint(start, len(doc.text) + 3)
                assert text[start:stop] == doc.text[start:stop]
            with pytest.raises(TypeError):
                text[1:]
    finally:
        index.close()


def test_units_of_the_previous_format_are_refused_with_what_to_do(tmp_path: Path) -> None:
    unit_store.write_units(documents(2, 1), tmp_path / "u", BM25_DEFAULTS)
    path = tmp_path / "u" / unit_store.UNITS_FILE
    data = orjson.loads(path.read_bytes())
    previous = unit_store.UNITS_FORMAT - 1
    path.write_bytes(orjson.dumps({**data, "format": previous}))
    expected = rf"units\.json is in format {previous}, this version reads format {previous + 1}"
    with pytest.raises(BadIndex, match=expected):
        unit_store.load_units(tmp_path / "u")


def test_a_segment_without_text_frames_is_refused(tmp_path: Path) -> None:
    unit_store.write_units(documents(2, 1), tmp_path / "u", BM25_DEFAULTS)
    (segment,) = (p for p in (tmp_path / "u").iterdir() if p.name.startswith("useg-"))
    np.save(segment / "text_frames.npy", np.zeros(1, np.int64))
    with pytest.raises(BadIndex, match="disagree"):
        unit_store.load_units(tmp_path / "u")


@pytest.mark.parametrize(
    "weights",
    [
        {"section": 0.0, "document": 0.0, "passage": 1.0},
        {"section": 0.3, "document": 0.0, "passage": 1.0},
        {"section": 0.0, "document": 0.3, "passage": 0.5},
        {"section": 0.3, "document": 0.3, "passage": 0.0},
    ],
)
def test_other_field_weights_rank_from_disk_as_in_memory(
    stored: tuple[list[Document], Path], weights: dict[str, float]
) -> None:
    docs, folder = stored
    loaded = unit_store.load_units(folder)
    try:
        index = unit_rank.SegmentedUnits(loaded.segments, loaded.stats, weights)
        memory = unit_store.units_of(docs).with_options(weights)
        for query in queries(4, 25):
            assert named(index.ranked(query, 10, "staff")) == named(
                memory.ranked(query, 10, "staff")
            )
    finally:
        loaded.close()
