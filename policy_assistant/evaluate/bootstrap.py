"""Percentile bootstrap over questions, with one fixed-seed set of resamples shared by all.

Every figure and every difference is computed on the same resamples of the questions, so
two chunkers are compared question by question (a paired bootstrap), and the same seed
gives the same intervals on every run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

DEFAULT_SEED = 20250101
"""Seed of numpy.random.default_rng for the resamples."""
DEFAULT_RESAMPLES = 2000
"""How many resamples of the questions each interval is read from."""
DEFAULT_LEVEL = 0.95
"""Confidence level of the intervals."""


@dataclass(frozen=True, slots=True)
class Interval:
    """A figure with its bootstrap interval."""

    value: float
    """The figure measured on all the questions."""
    low: float
    """Lower end of the interval."""
    high: float
    """Upper end of the interval."""

    def contains(self, x: float) -> bool:
        """Return whether x lies inside the interval, ends included."""
        return self.low <= x <= self.high

    def to_dict(self, digits: int = 6) -> dict[str, float]:
        """Return the JSON form, rounded so the bytes are the same on every machine."""
        # Hand-written: rounded figures, and the reports' key names (ci_low, ci_high).
        return {
            "value": round(self.value, digits),
            "ci_low": round(self.low, digits),
            "ci_high": round(self.high, digits),
        }


class Bootstrap:
    """Resamples of n questions, drawn once from a seeded generator."""

    def __init__(
        self,
        n: int,
        seed: int = DEFAULT_SEED,
        resamples: int = DEFAULT_RESAMPLES,
        level: float = DEFAULT_LEVEL,
    ) -> None:
        if n < 1 or resamples < 1 or not 0 < level < 1:
            raise ValueError("need at least one question, one resample and 0 < level < 1")
        rng = np.random.default_rng(seed)
        self.n = n
        self.level = level
        self.indices: NDArray[np.intp] = rng.integers(0, n, size=(resamples, n), dtype=np.intp)
        flat = (np.arange(resamples)[:, None] * n + self.indices).ravel()
        counts = np.bincount(flat, minlength=resamples * n).reshape(resamples, n)
        # Means of every resample at once: one product instead of a gather per figure. Counts
        # stay whole numbers so a sum of 0/1 values is exact before the one division.
        self.counts: NDArray[np.float64] = counts.astype(np.float64)
        # Row per question, for the medians' running counts: whole numbers, rows reordered.
        self._draws: NDArray[np.int32] = np.ascontiguousarray(counts.T, dtype=np.int32)

    def _bounds(self, samples: NDArray[np.float64]) -> tuple[float, float]:
        tail = (1.0 - self.level) / 2.0
        low, high = np.quantile(samples, [tail, 1.0 - tail])
        return float(low), float(high)

    def _check(self, values: NDArray[np.float64]) -> NDArray[np.float64]:
        if values.shape != (self.n,):
            raise ValueError(f"expected {self.n} per-question values, got shape {values.shape}")
        return values

    def mean(self, values: NDArray[np.float64]) -> Interval:
        """Return the mean over questions with its interval."""
        values = self._check(np.asarray(values, dtype=np.float64))
        return Interval(float(values.mean()), *self._bounds(self.counts @ values / self.n))

    def means(self, columns: NDArray[np.float64]) -> list[Interval]:
        """Return the mean of each column (a row per question) with its interval, all at once.

        The same figures as `mean` column by column, but one matrix product over the resamples
        instead of one per figure: a sweep's hundreds of figures and paired differences cost
        about what one does.
        """
        columns = np.asarray(columns, dtype=np.float64)
        if columns.ndim != 2 or columns.shape[0] != self.n:
            raise ValueError(f"expected {self.n} rows of per-question values, got {columns.shape}")
        if columns.shape[1] == 0:
            return []
        samples = self.counts @ columns / self.n
        tail = (1.0 - self.level) / 2.0
        lows, highs = np.quantile(samples, [tail, 1.0 - tail], axis=0)
        values = [
            float(np.ascontiguousarray(columns[:, i]).mean()) for i in range(columns.shape[1])
        ]
        return [
            Interval(value, float(low), float(high))
            for value, low, high in zip(values, lows, highs, strict=True)
        ]

    def median(self, values: NDArray[np.float64]) -> Interval:
        """Return the median over questions with its interval."""
        values = self._check(np.asarray(values, dtype=np.float64))
        return Interval(float(np.median(values)), *self._bounds(self._resampled_medians(values)))

    def _resampled_medians(self, values: NDArray[np.float64]) -> NDArray[np.float64]:
        """Return each resample's median, as np.median of it gives, without sorting each one.

        The values are sorted once; a resample's k-th smallest is then the first sorted value
        whose running count of draws passes k, read off the counts matrix.
        """
        order = np.argsort(values, kind="stable")
        ordered = values[order]
        running = np.cumsum(self._draws[order], axis=0, dtype=np.int32)
        middle = (self.n - 1) // 2
        low: NDArray[np.float64] = ordered[np.argmax(running > middle, axis=0)]
        if self.n % 2:
            return low
        high: NDArray[np.float64] = ordered[np.argmax(running > middle + 1, axis=0)]
        return (low + high) / 2.0

    def difference(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> Interval:
        """Return mean(a) - mean(b) with the interval of the paired difference."""
        return self.mean(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))
