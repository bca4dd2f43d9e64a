"""A context strategy's passages per question: in eval's JSON and shown by --explain."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.cli import APP, runner
from support.eval_corpus import QUESTIONS, write_eval_corpus, write_questions


def _eval(tmp_path: Path, *extra: str) -> str:
    corpus = write_eval_corpus(tmp_path / "corpus")
    questions = write_questions(tmp_path / "q.jsonl", QUESTIONS)
    args = ["eval", "--corpus", str(corpus), "--questions", str(questions), "-q"]
    result = runner.invoke(APP, [*args, *extra], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    return result.stdout


def _inside(part: dict[str, Any], relevant: dict[str, Any]) -> bool:
    start, end = relevant["evidence_span"]
    same = part["source"] == relevant["source"]
    return bool(same and part["start"] <= start and end <= part["end"])


def test_each_strategy_context_is_listed_with_where_it_lies_and_what_it_holds(
    tmp_path: Path,
) -> None:
    data = json.loads(_eval(tmp_path, "--json", "--chunker", "fixed", "--strategy", "window"))
    seen = 0
    for question in data["questions"]:
        window = question["chunkers"]["window"]["budgets"]
        assert all("context" not in b for b in question["chunkers"]["fixed"]["budgets"].values())
        for at in window.values():
            parts = at.get("context", [])
            assert len(parts) == at["packed"]
            assert sum(p["words"] for p in parts) == at["words"]
            for part in parts:
                whole = any(_inside(part, r) for r in question["relevant"])
                assert (part["quote"] == "whole") == whole
                seen += 1
            if len(question["relevant"]) == 1:
                assert at["complete"] == any(p["quote"] == "whole" for p in parts)
    assert seen > 0


def test_explain_shows_a_strategy_context_passage_by_passage(tmp_path: Path) -> None:
    text = _eval(tmp_path, "--explain", "sprinkler", "--strategy", "window", "--budget", "50,100")
    window = text[text.index("window: the context at each budget") :]
    assert "policies/warranty.md" in window and "whole" in window
    assert " passage" in window and " chunk" not in window


def test_the_page_carries_each_strategy_context(tmp_path: Path) -> None:
    page = tmp_path / "eval.html"
    _eval(tmp_path, "--strategy", "window", "--html", str(page))
    html = page.read_text(encoding="utf-8")
    opening = '<script type="application/json" id="data">'
    data = json.loads(html.split(opening)[1].split("</script>")[0])
    parts = [p for q in data["questions"] for at in q["chunkers"]["window"]["budgets"].values()
             for p in at.get("context", [])]  # fmt: skip
    fields = {"source", "start", "end", "words", "pages", "section", "quote"}
    assert parts and fields <= set(parts[0])
    assert "drawContext(outcome)" in html
