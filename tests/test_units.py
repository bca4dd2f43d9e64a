"""Retrieval units: exact spans that cut nothing, their parents, and their ranking."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest

from policy_assistant.index.context.unit_rank import SegmentedUnits
from policy_assistant.index.context.units import UNIT_KINDS, UnitSet, build_units, unit_index_text
from policy_assistant.index.settings import UNIT_PIECE_WORDS
from policy_assistant.index.store.units import units_of
from policy_assistant.parse import parse_path
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import Document, DocumentMeta
from policy_assistant.text import count_words


def make_doc(
    source: str = "guides/deck.md", access: str = "public", title: str = "Deck"
) -> Document:
    """A document with a heading, prose, a list, a table and code."""
    builder = DocumentBuilder()
    builder.begin_page(1)
    builder.heading("Care guide", 1, (1,))
    builder.add("paragraph", "Wash the deck. Dry it well. Oil it twice a year.", (1,))
    builder.add("list_item", "Use a soft brush on the boards.", (1,))
    builder.begin_page(2)
    builder.heading("Products", 2, (2,))
    builder.add("table", "Product | Use\nDeck oil | Twice a year\nCleaner | Spring", (2,))
    builder.add("code", "oil --coats 2\nwait 24h", (2,))
    meta = DocumentMeta(access=access, title=title)
    return builder.build(source, "0" * 64, meta, source.rsplit("/", 1)[-1])


@pytest.fixture(scope="module")
def corpus_units(corpus_dir: Path) -> tuple[list[Document], UnitSet]:
    docs = parse_path(corpus_dir).documents
    return docs, build_units(docs)


def unit_spans(units: UnitSet) -> list[tuple[int, int, int, str]]:
    cols = units.columns
    return [
        (int(cols["unit_doc"][r]), int(cols["unit_start"][r]), int(cols["unit_end"][r]),
         UNIT_KINDS[int(cols["unit_kind"][r])])
        for r in range(len(units))
    ]  # fmt: skip


def test_units_of_a_small_document_are_its_sentences_items_rows_and_lines() -> None:
    doc = make_doc()
    units = build_units([doc])
    texts = [(kind, doc.text[s:e]) for _, s, e, kind in unit_spans(units)]
    assert texts == [
        ("heading", "Care guide"),
        ("sentence", "Wash the deck."),
        ("sentence", "Dry it well."),
        ("sentence", "Oil it twice a year."),
        ("item", "Use a soft brush on the boards."),
        ("heading", "Products"),
        ("row", "Product | Use"),
        ("row", "Deck oil | Twice a year"),
        ("row", "Cleaner | Spring"),
        ("line", "oil --coats 2"),
        ("line", "wait 24h"),
    ]
    # A table row is indexed behind its table's header row; the header row alone.
    assert unit_index_text(units, 7) == "Product | Use\nDeck oil | Twice a year"
    assert unit_index_text(units, 6) == "Product | Use"
    assert units.paths == (("Care guide",), ("Care guide", "Products"))
    assert units.section_range(1) == (5, 10)
    assert units.block_range(int(units.col("unit_block")[8])) == (6, 8)


def test_corpus_units_cover_every_block_exactly_and_in_order(
    corpus_units: tuple[list[Document], UnitSet],
) -> None:
    docs, units = corpus_units
    by_doc: dict[int, list[tuple[int, int]]] = {}
    for doc_row, start, end, _ in unit_spans(units):
        by_doc.setdefault(doc_row, []).append((start, end))
    ordered = sorted(docs, key=lambda d: d.source)
    for row, doc in enumerate(ordered):
        spans = by_doc.get(row, [])
        assert all(a[1] <= b[0] for a, b in pairwise(spans)), doc.source
        covered = "".join(doc.text[s:e] for s, e in spans)
        blocks = "".join(b.text for b in doc.blocks)
        # Every non-blank character of every block is in exactly one unit.
        assert "".join(covered.split()) == "".join(blocks.split()), doc.source
        for s, e in spans:
            assert doc.text[s:e] == doc.text[s:e].strip() != ""


def test_parents_are_contiguous_ranges_and_words_add_up(
    corpus_units: tuple[list[Document], UnitSet],
) -> None:
    docs, units = corpus_units
    cols = units.columns
    for section in range(len(units.paths)):
        first, last = units.section_range(section)
        assert set(cols["unit_section"][first : last + 1].tolist()) <= {section}
    total = sum(count_words(units.unit_text(r)) for r in range(len(units)))
    assert units.words(0, len(units) - 1) == total
    assert len(units.docs) == len(docs)
    sections = cols["unit_section"]
    assert all(sections[:-1] <= sections[1:])


def search(
    index: SegmentedUnits, query: str, n: int, access: str | None = None
) -> tuple[UnitSet, list[tuple[int, float]]]:
    """Return the units and hits of one ranking."""
    units, hits, _ = index.ranked(query, n, access)
    return units, hits


def test_unit_search_finds_the_warranty_row_and_fails_closed(
    corpus_units: tuple[list[Document], UnitSet],
) -> None:
    docs, _ = corpus_units
    index = units_of(docs)
    units, hits = search(index, "is my sprinkler still under warranty after 14 months", 10)
    assert any("Sprinklers and irrigation |" in units.unit_text(r) for r, _ in hits[:3])
    staff_query = "refund above the till limit"
    _, public = search(index, staff_query, 200)
    _, staff = search(index, staff_query, 200, "staff")
    access = {d.source: d.access for d in units.docs}
    source_of = [units.docs[int(d)].source for d in units.col("unit_doc")]
    assert all(access[source_of[r]] == "public" for r, _ in public)
    assert any(access[source_of[r]] == "staff" for r, _ in staff)


def test_field_weights_lift_the_document_the_query_names() -> None:
    docs = [
        make_doc("guides/a.md", title="Teak deck"),
        make_doc("guides/b.md", title="Pine deck"),
    ]
    fields = units_of(docs)
    plain = fields.with_options({"section": 0.0, "document": 0.0, "passage": 0.0})
    query = "pine deck oil twice a year"
    _, tied = search(plain, query, 2)
    assert tied[0][1] == tied[1][1]  # the two bodies are the same words
    units, found = search(fields, query, 1)
    assert units.docs[int(units.col("unit_doc")[found[0][0]])].source == "guides/b.md"


def test_a_block_without_sentence_punctuation_is_cut_into_units_a_budget_holds() -> None:
    # A chat log of 300 lines, one paragraph: one sentence to the splitter.
    lines = [f"[10:{i % 60:02d}] <ann> message {i} about the nightly build" for i in range(300)]
    builder = DocumentBuilder()
    builder.add("paragraph", "\n".join(lines))
    doc = builder.build("chat.txt", "0" * 64, DocumentMeta(access="public"), "chat.txt")
    units = build_units([doc])
    words = [count_words(units.unit_text(r)) for r in range(len(units))]
    assert max(words) <= UNIT_PIECE_WORDS and sum(words) == count_words(doc.text)
    # Each unit is whole lines: no message is cut.
    assert all(line in lines for r in range(len(units)) for line in units.unit_text(r).split("\n"))
