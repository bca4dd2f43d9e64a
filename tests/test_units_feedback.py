"""Pseudo-relevance feedback (RM3): the second search adds the best units' terms to the query."""

from __future__ import annotations

import pytest

from policy_assistant.index.context.feedback import Feedback
from policy_assistant.index.context.unit_rank import SegmentedUnits
from policy_assistant.index.store.units import units_of
from policy_assistant.index.tokenize import tokenize
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import Document, DocumentMeta


def guide() -> Document:
    """Hose care: the query's words sit beside 'reel'; a second section speaks of reels only."""
    builder = DocumentBuilder()
    builder.heading("Hose", 1, ())
    builder.add("paragraph", "Coil the garden hose after use. Hang the reel indoors.", ())
    builder.heading("Storage", 1, ())
    builder.add("paragraph", "A reel keeps it round. Grease the reel axle yearly.", ())
    builder.heading("Paint", 1, ())
    builder.add("paragraph", "Paint the fence in spring. Let the paint dry a day.", ())
    return builder.build("guides/hose.md", "0" * 64, DocumentMeta(access="public"), "Garden")


@pytest.fixture(scope="module")
def index() -> SegmentedUnits:
    return units_of([guide()])


def test_feedback_keeps_the_query_terms_at_their_counts_and_adds_the_best_units_terms(
    index: SegmentedUnits,
) -> None:
    terms = tokenize("garden hose hose")
    units, hits, _ = index.ranked("garden hose hose", 5)
    expanded = Feedback(units=1, terms=10, window=1).expand(units, terms, hits)
    assert expanded[tokenize("hose")[0]] >= 2.0 and expanded[tokenize("garden")[0]] >= 1.0
    added = set(expanded) - set(terms)
    assert added and tokenize("reel")[0] in added  # the hit's neighbour sentence
    assert not added & set(tokenize("paint fence spring"))  # never read as feedback


def test_feedback_weight_one_changes_nothing_and_below_one_finds_the_neighbour_section(
    index: SegmentedUnits,
) -> None:
    query = "coil the garden hose"
    units, plain, _ = index.ranked(query, 10)
    assert units.col("unit_section")[[r for r, _ in plain]].max() == 0  # Hose only
    assert index.with_options(feedback=Feedback(weight=1.0)).ranked(query, 10)[1] == plain
    fed = index.with_options(feedback=Feedback(units=2, terms=10, weight=0.5)).ranked(query, 10)[1]
    sections = {int(units.col("unit_section")[r]) for r, _ in fed}
    assert 1 in sections  # the Storage section, reached through "reel"
