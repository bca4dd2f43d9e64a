from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.inspect_helpers import eval_run

from policy_assistant.evaluate.page import referenced, render_eval_html
from policy_assistant.inspect.svg_chart import Series, _y, line_chart

DATA_RE = re.compile(r'<script type="application/json" id="data">(.*?)</script>', re.DOTALL)


@pytest.fixture(scope="module")
def run(corpus_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    return eval_run(corpus_dir)


def test_the_table_shows_every_figure_of_the_report(run: tuple[dict, dict]) -> None:
    report, chunks = run
    page = render_eval_html(report, chunks)
    shown = re.findall(r'<tr data-chunker="(\w+)">(.*?)</tr>', page)
    for name, summary in report["chunkers"].items():
        cells = dict(
            re.findall(
                r'data-figure="([^"]+)" data-value="([^"]+)"',
                "".join(row for chunker, row in shown if chunker == name),
            )
        )
        assert float(cells["hit@k"]) == summary["hit@k"]["value"]
        for budget, figures in summary["budgets"].items():
            for figure in ("hit", "recall", "complete", "evidence"):
                assert float(cells[f"{figure}@{budget}"]) == figures[figure]["value"]


def test_the_best_of_each_figure_is_marked(run: tuple[dict, dict]) -> None:
    report, chunks = run
    page = render_eval_html(report, chunks)
    best = re.findall(r'class="n best"[^>]*data-figure="([^"]+)" data-value="([^"]+)"', page)
    assert best
    for figure, value in best:
        if figure == "hit@k":
            values = [s["hit@k"]["value"] for s in report["chunkers"].values()]
        else:
            name, budget = figure.split("@")
            values = [s["budgets"][budget][name]["value"] for s in report["chunkers"].values()]
        assert float(value) == max(values)


def test_the_chart_draws_one_line_per_chunker_at_its_values(run: tuple[dict, dict]) -> None:
    report, chunks = run
    page = render_eval_html(report, chunks)
    budgets = [str(b) for b in report["settings"]["budgets"]]
    for figure in ("hit", "complete"):
        svg = re.search(rf'<svg [^>]*id="chart-{figure}".*?</svg>', page, re.DOTALL)
        assert svg is not None
        lines = re.findall(
            r'<g class="series" data-series="(\w+)">.*?<polyline points="([^"]+)"', svg.group()
        )
        assert [name for name, _ in lines] == list(report["chunkers"])
        for name, points in lines:
            ys = [float(p.split(",")[1]) for p in points.split()]
            expected = [
                _y(report["chunkers"][name]["budgets"][b][figure]["value"]) for b in budgets
            ]
            assert ys == pytest.approx(expected, abs=0.06)


def test_the_page_is_self_contained_and_embeds_only_the_chunks_it_names(
    run: tuple[dict, dict],
) -> None:
    report, chunks = run
    page = render_eval_html(report, chunks)
    assert "default-src 'none'" in page
    assert not re.search(r"(src|href)=|<link|@import|url\(|https?://", page)
    match = DATA_RE.search(page)
    assert match is not None
    data = json.loads(match.group(1))
    assert set(data["chunks"]) == referenced(report) & set(chunks)
    assert len(data["chunks"]) < len(chunks)
    some = next(iter(data["chunks"]))
    assert data["chunks"][some]["prefix"] + data["chunks"][some]["body"] == chunks[some].text
    assert page.count('<details class="question"') == len(report["questions"])


def test_without_chunk_texts_the_page_says_so(run: tuple[dict, dict]) -> None:
    report, _ = run
    page = render_eval_html(report)
    assert "Chunk texts were not given to the page" in page
    match = DATA_RE.search(page)
    assert match is not None and json.loads(match.group(1))["chunks"] == {}


def test_a_chart_describes_itself_for_screen_readers() -> None:
    svg = line_chart(
        "x",
        "hit@B",
        [100, 200],
        [Series("fixed", (0.5, 0.75), (0.4, 0.7), (0.6, 0.8))],
        ("budget", "hit@B"),
    )
    assert 'role="img"' in svg
    assert '<desc id="chart-x-desc">hit@B: fixed 0.50 at 100, 0.75 at 200</desc>' in svg
    assert svg.count("<title>") == 2  # one per point, for the hover


def test_the_page_names_the_budget_unit_the_report_counts(run: tuple[dict, dict]) -> None:
    report, chunks = run
    assert "context budget in words," in render_eval_html(report, chunks)
    tokens = {**report, "settings": {**report["settings"], "budget_unit": {"name": "tokens"}}}
    page = render_eval_html(tokens, chunks)
    assert "context budget in cl100k_base tokens," in page
    assert '"unit":"cl100k_base tokens"' in page
