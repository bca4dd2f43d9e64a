"""Compare chunkers fairly: equal context budgets, a question set with evidence, a CI gate.

The pieces, one concern each: `questions` (the file format, loading and validation),
`locate` (quotes and sections as character spans), `metrics` (pure functions), `score` (one
question's ranking), `bootstrap` (intervals), `report` (aggregation and JSON form),
`baseline` (the gate), `retrieval` (BM25 per chunker), `run` (the orchestration) and
`plot` (the optional figure).
"""

from policy_assistant.evaluate.baseline import (
    Fall,
    GateResult,
    compare_to_baseline,
    default_tolerance,
    gate_exit_code,
    load_baseline,
)
from policy_assistant.evaluate.bootstrap import Bootstrap, Interval
from policy_assistant.evaluate.metrics import (
    complete,
    evidence_coverage,
    hit,
    hit_at_k,
    pack_to_budget,
    recall,
)
from policy_assistant.evaluate.plot import plot_report
from policy_assistant.evaluate.questions import Passage, Question, QuestionSet, load_questions
from policy_assistant.evaluate.report import ChunkerSummary, Comparison, EvalReport
from policy_assistant.evaluate.run import (
    DEFAULT_BUDGETS,
    DEFAULT_K,
    DEFAULT_QUESTIONS,
    EvalSettings,
    evaluate,
    run_eval,
)
from policy_assistant.parse import DEFAULT_CORPUS

__all__ = [
    "DEFAULT_BUDGETS",
    "DEFAULT_CORPUS",
    "DEFAULT_K",
    "DEFAULT_QUESTIONS",
    "Bootstrap",
    "ChunkerSummary",
    "Comparison",
    "EvalReport",
    "EvalSettings",
    "Fall",
    "GateResult",
    "Interval",
    "Passage",
    "Question",
    "QuestionSet",
    "compare_to_baseline",
    "complete",
    "default_tolerance",
    "evaluate",
    "evidence_coverage",
    "gate_exit_code",
    "hit",
    "hit_at_k",
    "load_baseline",
    "load_questions",
    "pack_to_budget",
    "plot_report",
    "recall",
    "run_eval",
]
