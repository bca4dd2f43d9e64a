"""Passages ranked as wholes: a region holding the query's terms together beats a lone hit."""

from __future__ import annotations

import itertools
from dataclasses import replace

from support.unit_docs import care_guide

from policy_assistant.index.context.assembler import ContextSettings, context_for
from policy_assistant.index.context.passage_rank import (
    PassageSettings,
    candidates,
    choose,
    page_range,
    rank_hits,
)
from policy_assistant.index.context.passages import Span, span_words
from policy_assistant.index.context.units import build_units
from policy_assistant.index.store.units import units_of
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import Document, DocumentMeta

PASSAGES = ContextSettings("passages")


def paged_manual() -> Document:
    """One section over two PDF pages, three sentences on each."""
    builder = DocumentBuilder()
    builder.begin_page(1)
    builder.add("paragraph", "Page one opens. The pump hums. The valve sticks.", (1,))
    builder.begin_page(2)
    builder.add("paragraph", "Page two opens. The hose leaks. The tap drips.", (2,))
    return builder.build("manual.pdf", "0" * 64, DocumentMeta(access="public"), "Manual")


def pump_guide() -> Document:
    """A lone unit repeating "pump", and a section where "pump" and "filter" sit side by side."""
    builder = DocumentBuilder()
    builder.heading("Pumps", 1, ())
    builder.add("paragraph", "Check the pump pump pump seal. Oil it yearly. Keep it dry.", ())
    builder.heading("Filters", 1, ())
    builder.add("paragraph", "The pump sits low. Its filter clogs in spring. Rinse it well.", ())
    return builder.build("guides/care.md", "0" * 64, DocumentMeta(access="public"), "Care")


def test_the_passage_holding_both_terms_wins_where_the_best_unit_holds_one() -> None:
    index = units_of([pump_guide()])
    units, hits, _ = index.ranked("pump filter", 10)
    assert units.unit_text(hits[1][0]) == "Its filter clogs in spring."  # the best non-heading
    window = context_for(index, "pump filter", 12, None, ContextSettings("window", maxp=0))
    assert [p.text.split("\n\n")[-1] for p in window] == ["Its filter clogs in spring."]
    passages = context_for(index, "pump filter", 12, None, PASSAGES)
    assert passages[0].text.endswith("The pump sits low. Its filter clogs in spring.")
    assert sum(p.words for p in passages) <= 12


def test_every_passage_fits_and_no_two_overlap() -> None:
    index = units_of([care_guide()])
    for budget in (5, 12, 30, 400):
        passages = context_for(index, "sprinkler frost valve", budget, None, PASSAGES)
        assert sum(p.words for p in passages) <= budget
        spans = sorted((p.start, p.end) for p in passages)
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))
    assert context_for(index, "sprinkler frost valve", 400, None, PASSAGES)


def test_a_page_is_a_candidate_only_in_a_document_with_pages() -> None:
    units = build_units([paged_manual()])
    texts = [units.unit_text(r) for r in range(len(units))]
    hose = texts.index("The hose leaks.")
    [(first, last)] = page_range(units, hose)
    assert texts[first : last + 1] == ["Page two opens.", "The hose leaks.", "The tap drips."]
    assert page_range(build_units([care_guide()]), 1) == []
    whole = PassageSettings(blocks=False, sections=False, pages=True)
    runs = {(s.first, s.last) for s in candidates(units, [hose], 0, whole)}
    assert runs == {(hose, hose), (first, last)}
    without = {(s.first, s.last) for s in candidates(units, [hose], 0, replace(whole, pages=False))}
    assert without == {(hose, hose)}


def test_windows_slide_around_the_hit_within_its_section() -> None:
    units = build_units([care_guide()])
    texts = [units.unit_text(r) for r in range(len(units))]
    hit = texts.index("Frost cracks the valve body.")
    only = PassageSettings(blocks=False, sections=False, pages=False)
    runs = {(s.first, s.last) for s in candidates(units, [hit], 1, only)}
    lo, hi = units.section_range(int(units.col("unit_section")[hit]))
    assert runs == {(max(lo, hit - 2), hit), (hit - 1, hit + 1), (hit, min(hi, hit + 2))}
    assert all(lo <= a <= hit <= b <= hi for a, b in runs)


def test_choose_joins_a_touching_span_and_skips_one_it_holds() -> None:
    units = build_units([care_guide()])
    doc = 0
    best, touching, inside = Span(doc, 1, 2, 3.0), Span(doc, 3, 3, 2.0), Span(doc, 2, 2, 1.0)
    chosen = choose(units, [inside, touching, best], 400)
    assert [(s.first, s.last, s.score) for s in chosen] == [(1, 3, 3.0)]
    tight = span_words(units, best)
    assert [(s.first, s.last) for s in choose(units, [best, touching], tight)] == [(1, 2)]


def test_rank_hits_adds_more_to_a_hit_whose_passage_holds_both_terms() -> None:
    index = units_of([pump_guide()])
    units, hits, weights = index.ranked("pump filter", 10)
    same = rank_hits(units, hits, weights, 400, 1, PassageSettings(mix=0.0))
    assert sorted(same) == sorted(hits)
    lifted = dict(rank_hits(units, hits, weights, 400, 1, PassageSettings(mix=1.0)))
    gain = {units.unit_text(row): lifted[row] - score for row, score in hits}
    assert gain["The pump sits low."] > gain["Check the pump pump pump seal."] > 0
