"""The eval page in a real browser: the table, the chart, and a question's evidence and misses."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from support.browser import Tab
from support.inspect_helpers import eval_run

from policy_assistant.evaluate.page import render_eval_html
from policy_assistant.parse import parse_path

READ_FIGURES = """() => Object.fromEntries([...document.querySelectorAll('#figures tbody tr')]
  .map((row) => row.dataset.chunker)
  .filter((name, i, all) => all.indexOf(name) === i)
  .map((name) => [name, Object.fromEntries([...document.querySelectorAll(
      `#figures tr[data-chunker="${name}"] td[data-figure]`)]
    .map((cell) => [cell.dataset.figure, cell.firstChild.textContent])) ]))"""


@pytest.fixture(scope="module")
def report_page(
    corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict[str, Any], Path]:
    report, chunks = eval_run(corpus_dir)
    target = tmp_path_factory.mktemp("eval") / "eval.html"
    target.write_text(render_eval_html(report, chunks), encoding="utf-8")
    return report, target


def open_page(tab: Tab, path: Path) -> Any:
    tab.page.goto(path.as_uri())
    tab.page.wait_for_selector("body[data-ready=true]")
    return tab.page


def first_cut(report: dict[str, Any]) -> tuple[int, str, str]:
    """Return the first question, chunker and budget where a quote is cut in retrieved pieces."""
    for index, question in enumerate(report["questions"]):
        for name, outcome in question["chunkers"].items():
            retrieved = {r["chunk"] for r in outcome["retrieved"]}
            for budget, at in outcome["budgets"].items():
                pieces = {c for p in at["passages"] if p["status"] == "cut" for c in p["chunks"]}
                if at["miss"] == "cut" and len(question["relevant"]) == 1 and pieces <= retrieved:
                    return index, name, budget
    raise AssertionError("the bundled questions have no cut quote retrieved in pieces")


def test_the_table_and_chart_show_the_report(tab: Tab, report_page: tuple[dict, Path]) -> None:
    report, path = report_page
    page = open_page(tab, path)
    shown = page.evaluate(READ_FIGURES)
    assert list(shown) == list(report["chunkers"])
    for name, summary in report["chunkers"].items():
        assert shown[name]["hit@k"] == f"{summary['hit@k']['value']:.3f}"
        for budget, figures in summary["budgets"].items():
            assert shown[name][f"complete@{budget}"] == f"{figures['complete']['value']:.3f}"
    for figure in ("hit", "complete"):
        lines = page.locator(f"#chart-{figure} polyline.line")
        assert lines.count() == len(report["chunkers"])
        points = page.locator(f"#chart-{figure} .pt")
        assert points.count() == len(report["chunkers"]) * len(report["settings"]["budgets"])
        assert page.locator(f"#chart-{figure}").bounding_box()["width"] > 300
    assert tab.errors == []
    assert all(url.startswith("file://") for url in tab.requests)


def test_a_cut_quote_is_explained_and_highlighted_in_its_pieces(
    tab: Tab, report_page: tuple[dict, Path], corpus_dir: Path
) -> None:
    report, path = report_page
    page = open_page(tab, path)
    index, name, budget = first_cut(report)
    question = report["questions"][index]
    details = page.locator(f'details.question[data-index="{index}"]')
    details.locator("summary").click()
    run = details.locator(f'.run[data-chunker="{name}"]')
    verdict = run.locator(f'.verdicts li[data-budget="{budget}"]')
    assert verdict.get_attribute("data-miss") == "cut"
    at = question["chunkers"][name]["budgets"][budget]
    pieces = [c for p in at["passages"] if p["status"] == "cut" for c in p["chunks"]]
    text = verdict.text_content()
    assert text.startswith(f"B = {budget}: cut: no chunk holds the quote whole")
    assert all(piece in text for piece in pieces)
    retrieved = question["chunkers"][name]["retrieved"]
    assert run.locator("ol.results > li").count() == len(retrieved)
    # The highlighted parts of the retrieved pieces, in order, are the quote itself.
    (passage,) = question["relevant"]
    doc = parse_path(corpus_dir / passage["source"]).documents[0]
    start, end = passage["evidence_span"]
    shown = [
        run.locator(f'ol.results > li[data-chunk="{piece}"] mark').first.text_content()
        for piece in pieces
    ]
    assert " ".join(shown).split() == doc.text[start:end].split()


def test_the_filter_lists_only_questions_with_a_miss(
    tab: Tab, report_page: tuple[dict, Path]
) -> None:
    report, path = report_page
    page = open_page(tab, path)
    page.get_by_role("radio", name=re.compile("with a miss")).click()
    visible = page.locator("details.question:visible").count()
    missed = sum(
        any(at["miss"] for o in q["chunkers"].values() for at in o["budgets"].values())
        for q in report["questions"]
    )
    assert visible == missed < len(report["questions"])


def test_a_strategy_lists_the_passages_of_its_context(
    tab: Tab, corpus_dir: Path, tmp_path: Path
) -> None:
    from policy_assistant.evaluate import EvalSettings, run_eval

    questions = corpus_dir.parent / "questions" / "questions.jsonl"
    settings = EvalSettings(chunkers=("fixed",), strategies=("window",))
    report = run_eval(corpus_dir, questions, settings, None).to_dict()
    path = tmp_path / "eval.html"
    path.write_text(render_eval_html(report, {}), encoding="utf-8")
    page = open_page(tab, path)
    windows = [q["chunkers"]["window"]["budgets"] for q in report["questions"]]
    index = next(i for i, w in enumerate(windows) if any(at["complete"] for at in w.values()))
    budgets = windows[index]
    details = page.locator(f'details.question[data-index="{index}"]')
    details.locator("summary").click()
    items = details.locator('.run[data-chunker="window"] ol.results > li')
    parts = [(b, p) for b, at in budgets.items() for p in at["context"]]
    items.first.wait_for()  # the body is drawn when the question opens, after the click
    assert items.count() == len(parts) > 0
    for i, (budget, part) in enumerate(parts):
        text = items.nth(i).text_content()
        assert f"B = {budget} #" in text and part["source"] in text
        assert f"characters {part['start']}–{part['end']}" in text
        assert ("holds the quote" in text) == (part["quote"] == "whole")
    assert tab.errors == []
