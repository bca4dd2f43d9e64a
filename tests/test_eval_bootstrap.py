from __future__ import annotations

import numpy as np
import pytest

from policy_assistant.evaluate.bootstrap import Bootstrap, Interval


def shares(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2, n).astype(float)


def test_the_same_seed_gives_the_same_intervals() -> None:
    values = shares(60, 1)
    first = Bootstrap(60, seed=7).mean(values)
    again = Bootstrap(60, seed=7).mean(values)
    assert first == again
    assert Bootstrap(60, seed=8).mean(values) != first


def test_the_interval_surrounds_the_mean_and_narrows_with_more_questions() -> None:
    small = Bootstrap(60).mean(shares(60, 2))
    large = Bootstrap(600).mean(shares(600, 2))
    for figure in (small, large):
        assert figure.low < figure.value < figure.high
    assert large.high - large.low < small.high - small.low
    # A share over 60 questions moves in steps of 1/60; its 95% interval spans several.
    assert small.high - small.low > 4 / 60


def test_constant_values_give_a_point_interval() -> None:
    assert Bootstrap(10).mean(np.ones(10)) == Interval(1.0, 1.0, 1.0)
    assert Bootstrap(10).median(np.full(10, 120.0)) == Interval(120.0, 120.0, 120.0)


def test_the_mean_of_resamples_matches_gathering_by_index() -> None:
    boot = Bootstrap(25, seed=3, resamples=50)
    values = np.arange(25, dtype=float)
    gathered = values[boot.indices].mean(axis=1)
    assert np.allclose(boot.counts @ values / 25, gathered)


def test_a_paired_difference_sees_what_separate_intervals_hide() -> None:
    # b is a plus one question's worth of noise: the intervals overlap, the pairs do not.
    a = shares(60, 4)
    b = a.copy()
    b[np.flatnonzero(a == 0)[:6]] = 1.0
    boot = Bootstrap(60)
    diff = boot.difference(b, a)
    assert diff.value == pytest.approx(6 / 60)
    assert diff.low > 0
    assert boot.mean(a).high > boot.mean(b).low
    same = boot.difference(a, a)
    assert same == Interval(0.0, 0.0, 0.0) and same.contains(0.0)


def test_wrong_shapes_and_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="expected 5 per-question values"):
        Bootstrap(5).mean(np.ones(4))
    with pytest.raises(ValueError, match="at least one question"):
        Bootstrap(0)
