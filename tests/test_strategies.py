"""Strategies: the ones eval --strategy can name are in its help; variants rank on their own."""

from __future__ import annotations

import inspect
import re
from dataclasses import replace
from pathlib import Path

from policy_assistant.cli import eval_cmd
from policy_assistant.evaluate.bootstrap import Bootstrap
from policy_assistant.evaluate.questions import load_questions
from policy_assistant.evaluate.report import EvalReport
from policy_assistant.evaluate.strategies import NAMED_STRATEGIES, Strategy, with_strategies
from policy_assistant.index.context.feedback import Feedback
from policy_assistant.parse import parse_path


def test_the_strategy_help_lists_every_named_strategy() -> None:
    source = inspect.getsource(eval_cmd)
    listed = re.search(r'"\((units, [^)]*)\)\."', source)
    assert listed is not None
    assert listed.group(1).split(", ") == list(NAMED_STRATEGIES)


def test_a_strategy_with_bm25_settings_ranks_on_its_own_index(corpus_dir: Path) -> None:
    docs = parse_path(corpus_dir).documents
    qset = load_questions(corpus_dir.parent / "questions" / "questions.jsonl", docs)
    qset = replace(qset, questions=qset.questions[:30])
    report = EvalReport({"budgets": [100, 400], "k": 5}, qset.questions, (), (), ())
    context = NAMED_STRATEGIES["window"]
    chosen = [
        Strategy("plain", context),
        Strategy("same", context, bm25={"k1": 1.2, "b": 0.75}),  # the defaults, spelled out
        Strategy("flat", context, bm25={"b": 0.0}),
        Strategy("fed", context, feedback=Feedback(weight=1.0)),  # adds no term
    ]
    both = with_strategies(report, docs, qset, chosen, Bootstrap(len(qset.questions)))
    plain, same, flat, fed = (run.outcomes for run in both.runs)
    assert same == plain and fed == plain
    assert flat != plain  # no length normalization ranks other units first
    recorded = {s["name"]: s for s in both.settings["strategies"]}
    assert recorded["flat"]["bm25"] == {"b": 0.0} and "bm25" not in recorded["plain"]
    assert recorded["fed"]["feedback"]["weight"] == 1.0
