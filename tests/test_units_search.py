"""Unit search scores the best sections' units only: it must rank as scoring every unit does.

The reference scores every field of every row with the BM25 formula (support.zipf) over the
texts the unit segments index (unit_segment.FIELD_TEXTS)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import orjson
import pytest
from support.zipf import ReferenceLucene

from policy_assistant.index.chunks.bm25_build import count_postings
from policy_assistant.index.chunks.bm25_files import TermTable
from policy_assistant.index.context import unit_rank
from policy_assistant.index.context.unit_rank import SegmentedUnits
from policy_assistant.index.context.unit_segment import FIELD_TEXTS, FIELD_WEIGHTS
from policy_assistant.index.context.units import UnitSet, build_units
from policy_assistant.index.store.units import units_of
from policy_assistant.index.tokenize import tokenize
from policy_assistant.parse import parse_path
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import ACCESS_LABELS, Document, DocumentMeta


class Dense:
    """The four fields of some documents' units as dense BM25 indexes, and their weights."""

    def __init__(self, docs: list[Document], weights: dict[str, float] | None = None) -> None:
        self.units: UnitSet = build_units(sorted(docs, key=lambda d: d.source))
        self.weights = weights or FIELD_WEIGHTS
        self.fields = {
            name: ReferenceLucene([tokenize(text) for text in texts(self.units)])
            for name, texts in FIELD_TEXTS.items()
        }
        codes = np.array([ACCESS_LABELS.index(d.access) for d in self.units.docs])
        self.access = codes[self.units.col("unit_doc")]

    def section_fields(self, terms: list[str]) -> np.ndarray:
        """Every section's weighted passage, heading-path and identity fields."""
        part = self.weights.get("passage", 0.0) * self.fields["passages"].scores(terms)
        part += self.weights.get("section", 0.0) * self.fields["sections"].scores(terms)
        docs = self.fields["documents"].scores(terms)
        part += self.weights.get("document", 0.0) * docs[self.units.col("section_doc")]
        return part


@pytest.fixture(scope="module")
def corpus_docs(corpus_dir: Path) -> tuple[Dense, SegmentedUnits]:
    docs = parse_path(corpus_dir).documents
    return Dense(docs), units_of(docs)


def every_unit_scored(dense: Dense, query: str, n: int, access: str) -> list[tuple[int, float]]:
    """The reference: every unit's own BM25 plus its section's fields, the best n."""
    terms = tokenize(query)
    part = dense.section_fields(terms)
    body = dense.fields["body"].scores(terms)
    total = body + part[dense.units.col("unit_section")]
    allowed = dense.access <= ACCESS_LABELS.index(access)
    rows = np.flatnonzero((body > 0) & allowed)
    order = np.lexsort((rows, -total[rows]))[:n]
    return [(int(rows[i]), float(total[rows[i]])) for i in order]


def assert_same_ranking(
    found: list[tuple[int, float]], expected: list[tuple[int, float]], query: str
) -> None:
    """The same rows in the same order, scores equal to the formula's up to rounding."""
    assert [r for r, _ in found] == [r for r, _ in expected], query
    assert np.allclose([s for _, s in found], [s for _, s in expected], rtol=1e-12), query


def questions(corpus_dir: Path) -> list[tuple[str, str]]:
    path = corpus_dir.parent / "questions" / "questions.jsonl"
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    return [(q["question"], q["audience"]) for q in lines]


@pytest.mark.slow
def test_unit_search_ranks_as_scoring_every_unit_on_the_bundled_questions(
    corpus_docs: tuple[Dense, SegmentedUnits], corpus_dir: Path
) -> None:
    dense, index = corpus_docs
    asked = questions(corpus_dir)
    assert len(asked) >= 100
    for query, audience in asked:
        found = index.ranked(query, 50, audience)[1]
        assert_same_ranking(found, every_unit_scored(dense, query, 50, audience), query)


def test_with_few_sections_chosen_only_their_units_are_ranked(
    corpus_docs: tuple[Dense, SegmentedUnits], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, index = corpus_docs

    def sections(query: str) -> set[int]:
        units, hits, _ = index.ranked(query, 20, "staff")
        return {int(units.col("unit_section")[r]) for r, _ in hits}

    query = "sprinkler warranty months"
    assert len(sections(query)) > 1
    monkeypatch.setattr(unit_rank, "SECTIONS", 1)
    monkeypatch.setattr(unit_rank, "SECTIONS_PER_HIT", 0)
    assert len(sections(query)) == 1


def generated_documents(count: int, seed: int) -> list[Document]:
    """Documents of Zipf-drawn made-up words, some staff-only, with headings, lists, tables."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}x" for i in range(400)]
    cdf = np.cumsum(1 / np.arange(1, len(words) + 1))
    cdf /= cdf[-1]

    def text(size: int) -> str:
        return " ".join(words[i] for i in np.searchsorted(cdf, rng.random(size)).tolist())

    docs = []
    for n in range(count):
        builder = DocumentBuilder()
        for s in range(int(rng.integers(1, 5))):
            builder.heading(f"Part {text(2)}", 1 + s % 2, ())
            for _ in range(int(rng.integers(1, 4))):
                builder.add(
                    "paragraph", ". ".join(text(int(rng.integers(4, 12))) for _ in range(3)), ()
                )
            builder.add("list_item", text(6), ())
            builder.add("table", f"Name | Value\n{text(3)} | {text(2)}", ())
        access = "staff" if n % 4 == 0 else "public"
        meta = DocumentMeta(access=access, title=f"Manual {text(2)}", version="1")
        docs.append(builder.build(f"g/{n:03d}.md", "0" * 64, meta, f"manual {n}"))
    return docs


@pytest.mark.parametrize(
    "weights",
    [
        None,
        {"section": 0.3, "document": 0.3, "passage": 0.0},
        {"section": 0.0, "document": 1.0, "passage": 1.0},
        {"section": 2.0, "document": 0.0, "passage": 0.5},
    ],
)
def test_unit_search_equals_a_dense_reference_on_generated_documents(
    weights: dict[str, float] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = generated_documents(60, 12)
    dense, index = Dense(docs, weights), units_of(docs)
    if weights is not None:
        index = index.with_options(weights)
    # Few sections searched, so the choice of sections is what is tested, not all of them.
    monkeypatch.setattr(unit_rank, "SECTIONS", 8)
    assert len(dense.units.paths) > 4 * 2 * 5 * 2
    rng = np.random.default_rng(7)
    for _ in range(60):
        query = " ".join(f"w{int(i)}x" for i in rng.zipf(1.3, int(rng.integers(1, 7))) if i < 400)
        for access in ACCESS_LABELS:
            for n in (5, 30):
                found = index.ranked(query, n, access)[1]
                expected = restricted_reference(dense, query, n, access, unit_rank.SECTIONS)
                assert_same_ranking(found, expected, query)


def restricted_reference(
    dense: Dense, query: str, n: int, access: str, sections: int
) -> list[tuple[int, float]]:
    """Dense everywhere: the best `sections` sections by their fields (ties: the first), then
    the best n units of those whose own text matches (ties: the first)."""
    terms = tokenize(query)
    passage = dense.fields["passages"].scores(terms)
    part = dense.section_fields(terms)
    key = part if dense.weights.get("passage", 0.0) else part + passage
    level = ACCESS_LABELS.index(access)
    codes = np.array([ACCESS_LABELS.index(d.access) for d in dense.units.docs])
    section_access = codes[dense.units.col("section_doc")]
    eligible = np.flatnonzero((passage > 0) & (section_access <= level))
    order = eligible[np.lexsort((eligible, -key[eligible]))]
    chosen = order[: max(sections, unit_rank.SECTIONS_PER_HIT * n)]
    body = dense.fields["body"].scores(terms)
    in_chosen = np.isin(dense.units.col("unit_section"), chosen)
    total = body + part[dense.units.col("unit_section")]
    rows = np.flatnonzero((body > 0) & in_chosen)
    ranked = rows[np.lexsort((rows, -total[rows]))][:n]
    return [(int(r), float(total[r])) for r in ranked]


def test_the_term_table_finds_every_term_and_nothing_else() -> None:
    texts = ["ärger zebra", "apple apples b", "mañana 保修期 z9", "zebra a1"]
    data, arrays = count_postings(texts, workers=0)
    table = TermTable(data, arrays["term_offsets"])
    terms = bytes(table.data).split(b"\n")[:-1]
    assert len(terms) == table._count > 5
    for i, term in enumerate(terms):
        assert table.find(term.decode("utf-8")) == i
    for missing in ("", "0", "aaa", "zzzz", "zebr", "zebraa", terms[0].decode() + "!"):
        assert table.find(missing) == -1, missing
