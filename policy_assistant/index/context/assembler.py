"""The context assembler: unit hits grown into whole passages that fit a word budget.

Strategies (STRATEGIES):

- "units": each hit unit alone, in rank order: small units rank well and hold little.
- "window": each hit with up to `window` units either side, clipped to its section, in rank
  order; a window that does not fit shrinks, a hit that does not fit even alone is skipped.
  With `wide_hits`, only the first hits get the full window and the rest one unit either
  side, so more hits fit; with `maxp`, hits are first re-ordered by what their window adds
  (each query term counted at its best unit of the window, as MaxP passage re-scoring does).
  DEFAULT_CONTEXT is what Index.context assembles.
- "automerge": hits are grouped by section and the groups ranked by their hits' scores summed
  with decay (the best hit counts whole, the next `decay` of its score, the next decay^2, ...),
  so a dense cluster of hits in one section wins over a lone hit elsewhere. Each group grows
  from its best hit towards, in turn, the span of its hits, its block and its whole section,
  taking a whole level when it fits and otherwise growing unit by unit towards the
  neighbour with the higher score (the following one on a tie) until the next unit would not
  fit. One passage may take at most `share` of the budget still free (at least its best
  hit), so later groups keep room.
- "passages": candidate passages around the hits (windows, block, section, PDF page) scored
  each as one text and the best taken (passage_rank.py).

In every strategy a passage is a run of whole units (never a cut sentence or table row) behind
its title and heading path, counted in the budget; passages of one document that overlap or
touch are merged into one, with one prefix; a hit already inside a passage adds its score to
that passage; and a hit that does not fit is skipped, not the end of the context, so the
context is empty only when no hit fits at all. Passages are then ordered by score.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from policy_assistant.errors import UsageError
from policy_assistant.index.chunks.bm25_types import Floats
from policy_assistant.index.context.passage_rank import (
    PassageSettings,
    passage_context,
    rank_hits,
)
from policy_assistant.index.context.passages import (
    ContextPassage,
    Span,
    is_bare_lead_in,
    passage_prefix_words,
    span_words,
    to_passage,
    without_lead_in,
)
from policy_assistant.index.context.unit_rank import SegmentedUnits, TermWeights
from policy_assistant.index.context.units import HEADING, UnitSet
from policy_assistant.index.settings import RankerSettings

STRATEGIES = ("units", "window", "automerge", "passages")
"""Context strategies over units; "chunks" (packing whole chunks) is the index's search."""
DEFAULT_STRATEGY = "window"
"""The strategy measured best on the external question sets (bench/RESULTS.md, eval_context)."""


@dataclass(frozen=True, slots=True)
class ContextSettings:
    """How a context is assembled."""

    strategy: str = DEFAULT_STRATEGY
    """One of STRATEGIES."""
    window: int = 2
    """Units either side of a hit ("window")."""
    narrow_below: int = 150
    """Below this budget a window holds one unit either side, not `window` (0: never)."""
    candidates: int = 50
    """Unit hits considered."""
    share: float = 0.75
    """Most of the free budget one passage may grow to ("automerge")."""
    decay: float = 0.5
    """Weight of each further hit of a group relative to the one before ("automerge")."""
    headings: bool = False
    """Whether a heading unit may be a hit; its words also score as the section's fields."""
    header_rows: bool = True
    """Whether a passage starting below a table's header row repeats the header row."""
    wide_hits: int = 0
    """"window": only the first this many hits get `window` units either side, the rest one
    (0: every hit gets `window`)."""
    narrow: int = 1
    """"window" with wide_hits: units either side of each hit after the first wide_hits."""
    maxp: float = 0.0
    """"window": order hits by their score plus this times their window's gain (each query
    term at its best unit of the window, window_gains); 0: by their own score."""
    passages: PassageSettings = field(default_factory=PassageSettings)
    """"passages": how candidate passages are scored (passage_rank.py)."""
    dense_windows: float = 0.0
    """"window" with units ranked by dense or hybrid: order hits by their score plus this
    times the query's cosine to their window embedded whole at query time (WindowScorer);
    0: by their own score. BM25 has no query vector: Index.context refuses it there."""

    def check(self) -> None:
        """Raise UsageError when the settings cannot be run."""
        if self.strategy not in STRATEGIES:
            raise UsageError(f"unknown strategy {self.strategy!r}; choose from {STRATEGIES}")
        if min(self.window, self.narrow) < 0 or self.candidates < 1 or not 0 < self.share <= 1:
            raise UsageError(
                "context needs window >= 0, narrow >= 0, candidates >= 1 and 0 < share <= 1"
            )
        if not self.dense_windows >= 0:
            raise UsageError(f"dense_windows must be >= 0, got {self.dense_windows}")


def assemble(
    units: UnitSet, hits: Sequence[tuple[int, float]], budget: int, settings: ContextSettings
) -> list[ContextPassage]:
    """Return the context for ranked unit hits, at most `budget` words, best passage first."""
    settings.check()
    if units.header_rows != settings.header_rows:
        units = replace(units, header_rows=settings.header_rows)
    if not settings.headings and hits:
        kinds = units.col("unit_kind")[[row for row, _ in hits]].tolist()
        # Headings only when nothing else matched: never an empty context while a hit fits.
        hits = [hit for hit, kind in zip(hits, kinds, strict=True) if kind != HEADING] or list(hits)
    builder = _Context(units, budget)
    if settings.strategy == "automerge":
        for group in _groups(units, hits, settings.decay):
            builder.grow_group(group, settings.share)
    elif hits:
        window = _window_for(settings, budget)
        narrow = min(window, settings.narrow) if settings.wide_hits else window
        # Each hit's document, section and words read at once, as Python ints.
        rows = [row for row, _ in hits]
        docs, sections, words = (units.col(name)[rows].tolist() for name in _HIT_COLUMNS)
        for i, (row, score) in enumerate(hits):
            width = window if i < settings.wide_hits else narrow
            builder.add_window((row, score, docs[i], sections[i], words[i]), width)
    spans = sorted(builder.spans, key=lambda s: (-s.score, s.doc, s.first))
    # A lead-in line alone says nothing its list does not: such a passage is left out.
    spans = [without_lead_in(units, s) for s in spans if not is_bare_lead_in(units, s)]
    return [to_passage(units, span, rank) for rank, span in enumerate(spans, 1)]


DEFAULT_CONTEXT = ContextSettings(maxp=0.35, wide_hits=2)
"""What Index.context and search --budget assemble: windows of +-2 units (+-1 below 150 words)
for the first two hits and +-1 for the rest, hits ordered with MaxP at 0.35 (bench/RESULTS.md)."""


def _window_for(settings: ContextSettings, budget: int) -> int:
    """Return the units either side of a hit a window takes at this budget."""
    window = settings.window if settings.strategy in ("window", "passages") else 0
    return 1 if window and budget < settings.narrow_below else window


WindowScores = Callable[[UnitSet, Sequence[int], int], list[float]]
"""The query's cosine to each row's window of n units either side (store/vectors.WindowScorer)."""


def order_hits(
    units: UnitSet, weights: TermWeights, hits: Sequence[tuple[int, float]], budget: int,
    settings: ContextSettings, windows: WindowScores | None = None,
) -> list[tuple[int, float]]:  # fmt: skip
    """Return the hits in the order a context takes them: with maxp, each re-scored by what
    its window adds, with dense_windows (and windows) by its window's cosine to the query
    (ties keep the search's order); otherwise as searched."""
    window = _window_for(settings, budget)
    if settings.dense_windows and windows is not None and window and hits:
        cosines = windows(units, [row for row, _ in hits], window)
        weight = settings.dense_windows
        pairs = zip(hits, cosines, strict=True)
        return sorted(((row, s + weight * c) for (row, s), c in pairs), key=lambda hit: -hit[1])
    if not settings.maxp or not window or not hits:
        return list(hits)
    gains = window_gains(units, weights, hits, window).tolist()
    scored = [(row, score + settings.maxp * g) for (row, score), g in zip(hits, gains, strict=True)]
    return sorted(scored, key=lambda hit: -hit[1])  # stable: ties keep the search's order


Ranked = tuple[UnitSet, list[tuple[int, float]], TermWeights]
"""A unit ranking: units, up to n (row, score) hits in them, best first, and term weights."""


def ranked_units(
    index: SegmentedUnits, query: str, access: str | None, settings: ContextSettings,
    at_least: int = 0, ranker: RankerSettings | None = None, vector: Any = None,
) -> Ranked:  # fmt: skip
    """Return the unit ranking a context is assembled from: settings.candidates hits (or
    at_least, when more) for query as access may see them, by ranker (None: BM25; dense and
    hybrid need the query's vector). Index.context and eval both rank here."""
    return index.ranked(query, max(settings.candidates, at_least), access, ranker, vector)


def assemble_ranked(
    ranked: Ranked, budget: int, settings: ContextSettings, windows: WindowScores | None = None
) -> list[ContextPassage]:
    """Return the context of a unit ranking at one budget: its first settings.candidates
    hits in the order a context takes them (windows: as order_hits), assembled."""
    units, hits, weights = ranked
    top = hits[: settings.candidates]
    if settings.strategy != "passages":
        ordered = order_hits(units, weights, top, budget, settings, windows)
        return assemble(units, ordered, budget, settings)
    # "passages": the best candidates whole, or (with mix) the windows of the hits re-scored
    # by their best candidate (passage_rank.py).
    window, scoring = _window_for(settings, budget), settings.passages
    if not scoring.mix:
        units = replace(units, header_rows=settings.header_rows)
        return passage_context(units, top, weights, budget, window, scoring)
    plain = replace(settings, strategy="window")
    top = order_hits(units, weights, top, budget, plain)
    return assemble(units, rank_hits(units, top, weights, budget, window, scoring), budget, plain)


def ranked_settings(settings: ContextSettings, ranker: RankerSettings | None) -> ContextSettings:
    """Return the settings a context is assembled with when units are ranked by ranker: MaxP
    adds BM25 term weights to each hit's score, which only a BM25 score is on the scale of
    (a fused or cosine score is below 1.5), so vector rankers order hits by their own score."""
    if ranker is None or ranker.ranker == "bm25" or not settings.maxp:
        return settings
    return replace(settings, maxp=0.0)


def context_for(
    index: SegmentedUnits, query: str, budget: int, access: str | None = None,
    settings: ContextSettings | None = None, ranker: RankerSettings | None = None,
    vector: Any = None, windows: WindowScores | None = None,
) -> list[ContextPassage]:  # fmt: skip
    """Rank units for query as access may see them and assemble the context (index.context;
    windows as order_hits)."""
    settings = ranked_settings(settings or DEFAULT_CONTEXT, ranker)
    settings.check()
    if budget < 1:
        raise UsageError(f"the budget must be at least 1 word, got {budget}")
    ranked = ranked_units(index, query, access, settings, 0, ranker, vector)
    return assemble_ranked(ranked, budget, settings, windows)


def window_gains(
    units: UnitSet, weights: TermWeights, hits: Sequence[tuple[int, float]], window: int
) -> Floats:
    """Return, per hit, what its window adds: each query term counted at its best unit within
    `window` units of the hit in its section, less what it counts at the hit (MaxP, >= 0)."""
    cols = units.columns
    rows = np.array([row for row, _ in hits], np.int64)
    section = cols["unit_section"][rows]
    near = rows[:, None] + np.arange(-window, window + 1)[None, :]
    first = cols["section_first"]
    inside = (near >= first[section][:, None]) & (near < first[section + 1][:, None])
    if not len(weights.rows):
        return np.zeros(len(rows))
    # Units the search scored hold the terms; any other unit of the window holds none.
    at = np.minimum(np.searchsorted(weights.rows, near), len(weights.rows) - 1)
    scored = inside & (weights.rows[at] == near)
    taken: Any = weights.matrix[:, at] * scored  # weights are >= 0
    own = weights.matrix[:, at[:, window]] * scored[:, window]
    gains: Floats = taken.max(axis=2).sum(axis=0) - own.sum(axis=0)
    return gains


_HIT_COLUMNS = ("unit_doc", "unit_section", "unit_words")
_Hit = tuple[int, float, int, int, int]
"""A unit hit with what placing its window reads: row, score, and its _HIT_COLUMNS."""


@dataclass(frozen=True, slots=True)
class _Group:
    """The hits of one section."""

    section: int
    score: float
    hits: tuple[tuple[int, float], ...]
    """(row, score), best first."""


def _groups(units: UnitSet, hits: Sequence[tuple[int, float]], decay: float) -> list[_Group]:
    """Return the hits grouped by section, the best group first (ties: the earlier hit)."""
    by_section: dict[int, list[tuple[int, float]]] = {}
    section_of = units.col("unit_section")
    for row, score in hits:
        by_section.setdefault(int(section_of[row]), []).append((row, score))
    groups = [
        _Group(s, sum(score * decay**i for i, (_, score) in enumerate(found)), tuple(found))
        for s, found in by_section.items()
    ]
    return sorted(groups, key=lambda g: -g.score)  # stable: dict order is first-hit order


class _Context:
    """The spans chosen so far and the budget left."""

    def __init__(self, units: UnitSet, budget: int) -> None:
        self.units = units
        self.budget = budget
        self.spans: list[Span] = []
        self._used = 0
        self._doc = units.col("unit_doc")

    def free(self) -> int:
        """Return the words still free."""
        return self.budget - self._used

    def _credit(self, row: int, score: float, doc: int | None = None) -> bool:
        """Add a hit already in a passage to that passage's score; return whether it was."""
        doc = int(self._doc[row]) if doc is None else doc
        for i, s in enumerate(self.spans):
            if s.doc == doc and s.first <= row <= s.last:
                self.spans[i] = Span(s.doc, s.first, s.last, s.score + score)
                return True
        return False

    def _fits(self, first: int, last: int, limit: int) -> bool:
        return span_words(self.units, Span(0, first, last, 0.0)) <= limit

    def add(self, first: int, last: int, score: float) -> None:
        """Add a span and merge it with the spans of its document it overlaps or touches."""
        doc = int(self._doc[first])
        merged = Span(doc, first, last, score)
        keep = []
        for s in self.spans:
            if s.doc == doc and s.first <= merged.last + 1 and merged.first <= s.last + 1:
                first, last = min(s.first, merged.first), max(s.last, merged.last)
                merged = Span(doc, first, last, s.score + merged.score)
                self._used -= span_words(self.units, s)
            else:
                keep.append(s)
        self.spans = [*keep, merged]
        self._used += span_words(self.units, merged)

    def add_window(self, hit: _Hit, window: int) -> None:
        """Add a hit with up to `window` units either side in its section, shrunk to fit."""
        row, score, doc, section, words = hit
        if self._credit(row, score, doc):
            return
        free = self.free()
        # Every window holds the hit and at least the prefix of a passage opening at the hit
        # (one opening on the heading above names the parent, but its body holds the heading):
        # once that is too much, none fits (the hit's words alone tell once the budget fills).
        if words > free or words + passage_prefix_words(self.units, row) > free:
            return
        lo, hi = self.units.section_range(section)
        for w in range(window, -1, -1):
            first, last = max(lo, row - w), min(hi, row + w)
            if is_bare_lead_in(self.units, Span(doc, first, last, 0.0)):
                last = min(hi, row + 1)  # a lead-in hit comes with its list's first line
            if self._fits(first, last, free):
                self.add(first, last, score)
                return

    def grow_group(self, group: _Group, share: float) -> None:
        """Grow a section's best hit towards its hits, its block and its section."""
        if self._credit(group.hits[0][0], group.score):
            return
        free = self.free()
        fitting = [row for row, _ in group.hits if self._fits(row, row, free)]
        if not fitting:
            return
        best = fitting[0]  # the best hit that fits alone; a longer one is skipped
        limit = max(int(share * free), span_words(self.units, Span(0, best, best, 0.0)))
        low, high = min(fitting), max(fitting)
        block = self.units.block_range(int(self.units.col("unit_block")[best]))
        section = self.units.section_range(group.section)
        first = last = best
        for lo, hi in [(low, high), (min(block[0], low), max(block[1], high)), section]:
            if not self._fits(lo, hi, limit):
                first, last = self._step(first, last, lo, hi, limit, dict(group.hits))
                break
            first, last = lo, hi
        self.add(first, last, group.score)

    def _step(
        self, first: int, last: int, lo: int, hi: int, limit: int, scores: dict[int, float]
    ) -> tuple[int, int]:
        """Grow [first, last] one unit at a time within [lo, hi] while it fits in limit."""
        while True:
            options = []
            if last < hi:
                options.append((scores.get(last + 1, 0.0), 1, first, last + 1))
            if first > lo:
                options.append((scores.get(first - 1, 0.0), 0, first - 1, last))
            options.sort(reverse=True)
            for _, _, a, b in options:
                if self._fits(a, b, limit):
                    first, last = a, b
                    break
            else:
                return first, last
