"""MaxP ordering: a hit whose window holds the query's other terms goes before one that does not."""

from __future__ import annotations

from dataclasses import replace

import pytest
from support.unit_docs import care_guide

from policy_assistant.index.context.assembler import (
    ContextSettings,
    assemble,
    order_hits,
    window_gains,
)
from policy_assistant.index.context.units import build_units
from policy_assistant.index.store.units import units_of
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import DocumentMeta


def test_a_window_gains_the_best_weight_of_each_term_its_hit_lacks() -> None:
    index = units_of([care_guide()])
    units, _, weights = index.ranked("sprinkler frost", 10)
    texts = [units.unit_text(r) for r in range(len(units))]
    winter, frost = (
        texts.index("Drain the sprinkler in autumn."),
        texts.index("Frost cracks the valve body."),
    )
    summer = texts.index("The sprinkler sprinkler runs at dawn.")
    gains = window_gains(units, weights, [(winter, 1.0), (summer, 2.0)], 1)
    alone = index.ranked("frost", 10)[2]  # the term's own weight at each unit
    assert alone.rows.tolist() == [frost]
    assert gains[0] == pytest.approx(alone.matrix[0, 0], rel=1e-12) and gains[1] == 0.0
    # The window stays in its section: the next section's units add nothing.
    assert window_gains(units, weights, [(summer, 2.0)], 5).tolist() == [0.0]


def test_maxp_puts_the_hit_with_a_frost_neighbour_first() -> None:
    index = units_of([care_guide()])
    plain = ContextSettings("window", window=1)
    units, hits, weights = index.ranked("sprinkler", 10)
    assert units.unit_text(hits[0][0]) == "The sprinkler sprinkler runs at dawn."
    assert order_hits(units, weights, hits, 400, replace(plain, maxp=10.0)) == hits  # one term
    units, hits, weights = index.ranked("sprinkler frost", 10)
    assert order_hits(units, weights, hits, 400, plain) == hits
    lifted = order_hits(units, weights, hits, 400, replace(plain, maxp=10.0))
    assert units.unit_text(lifted[0][0]) == "Drain the sprinkler in autumn."
    assert sorted(lifted) != sorted(hits)  # the scores carry the gain


def test_only_the_first_wide_hits_get_the_full_window() -> None:
    builder = DocumentBuilder()
    builder.heading("Frost", 1, ())
    builder.add("paragraph", " ".join(f"Frost rule {i} applies here." for i in range(12)), ())
    doc = builder.build("guides/care.md", "0" * 64, DocumentMeta(access="public"), "Care")
    units = build_units([doc])
    first = next(r for r in range(len(units)) if units.unit_text(r).startswith("Frost rule 0"))
    hits = [(first + 2, 2.0), (first + 8, 1.0)]

    def spans(settings: ContextSettings) -> list[str]:
        passages = assemble(units, hits, 400, settings)
        return sorted(doc.text[p.start : p.end] for p in passages)

    wide = ContextSettings("window", window=2)
    assert spans(wide) == [
        " ".join(f"Frost rule {i} applies here." for i in range(0, 5)),
        " ".join(f"Frost rule {i} applies here." for i in range(6, 11)),
    ]
    assert spans(replace(wide, wide_hits=1)) == [
        " ".join(f"Frost rule {i} applies here." for i in range(0, 5)),
        " ".join(f"Frost rule {i} applies here." for i in range(7, 10)),
    ]
