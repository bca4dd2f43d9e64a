"""A sweep's figures and paired differences, computed in one pass, equal the one-by-one ones."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.eval_corpus import QUESTIONS, write_eval_corpus, write_questions

from policy_assistant.evaluate import EvalSettings, run_eval
from policy_assistant.evaluate.bootstrap import Bootstrap
from policy_assistant.evaluate.report import per_question


def test_means_of_many_columns_are_each_columns_mean_and_interval() -> None:
    rng = np.random.default_rng(5)
    boot = Bootstrap(40, seed=3, resamples=500)
    columns = np.column_stack(
        [rng.integers(0, 2, 40), rng.random(40), rng.integers(0, 2, 40) - rng.integers(0, 2, 40)]
    ).astype(np.float64)
    batched = boot.means(columns)
    one_by_one = [boot.mean(columns[:, i].copy()) for i in range(columns.shape[1])]
    for got, want in zip(batched, one_by_one, strict=True):
        assert got.value == want.value
        assert got.low == pytest.approx(want.low, abs=1e-12)
        assert got.high == pytest.approx(want.high, abs=1e-12)
    assert boot.means(np.zeros((40, 0))) == []
    with pytest.raises(ValueError, match="expected 40 rows"):
        boot.means(np.zeros((39, 2)))


def test_every_paired_comparison_is_the_paired_bootstrap_of_its_two_rows(tmp_path: Path) -> None:
    corpus = write_eval_corpus(tmp_path / "corpus")
    questions = write_questions(tmp_path / "q.jsonl", QUESTIONS)
    variants = ("fixed:size=20", "fixed:size=40", "structure:max_words=60", "sentence")
    settings = EvalSettings(chunkers=variants, budgets=(40, 80))
    report = run_eval(corpus, questions, settings)
    boot = Bootstrap(len(report.questions), settings.seed, settings.resamples, settings.level)
    vectors = {run.name: per_question(run.outcomes, settings.budgets) for run in report.runs}
    metrics = len(vectors[variants[0]])
    assert len(report.comparisons) == 6 * metrics
    for c in report.comparisons:
        want = boot.difference(vectors[c.a][c.metric], vectors[c.b][c.metric])
        assert c.difference.value == pytest.approx(want.value, abs=1e-12)
        assert (c.difference.low, c.difference.high) == pytest.approx(
            (want.low, want.high), abs=1e-12
        )
    for run, summary in zip(report.runs, report.summaries, strict=True):
        assert summary.hit_at_k == boot.mean(vectors[run.name]["hit@k"])


@pytest.mark.parametrize("n", [1, 2, 7, 40, 41])
def test_resampled_medians_are_numpys_median_of_each_resample(n: int) -> None:
    rng = np.random.default_rng(n)
    boot = Bootstrap(n, seed=11, resamples=300)
    for values in (rng.integers(0, 5, n).astype(np.float64), rng.random(n) * 100):
        want = np.median(values[boot.indices], axis=1)
        assert np.array_equal(boot._resampled_medians(values), want)
