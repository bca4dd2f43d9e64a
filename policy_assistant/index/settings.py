"""The index stage's defaults, importable without numpy (the CLI reads them for --help)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, cast

from policy_assistant.codec import from_json_dict, to_json_dict
from policy_assistant.records import ACCESS_LABELS
from policy_assistant.sentences import LONG_SENTENCE_WORDS

VARIANTS = ("lucene", "okapi")
"""BM25 scoring variants: Elasticsearch's, and rank-bm25's BM25Okapi."""
Variant = Literal["lucene", "okapi"]
"""A BM25 variant's name (one of VARIANTS)."""
OKAPI_EPSILON = 0.25
"""rank-bm25's floor for negative idf, as a fraction of the mean idf."""


@dataclass(frozen=True, slots=True)
class BM25Settings:
    """How BM25 scores: its variant and parameters, checked when the record is made."""

    variant: Variant = "lucene"
    """lucene (Elasticsearch's) or okapi (rank-bm25's BM25Okapi)."""
    k1: float = 1.2
    """Term frequency saturation, >= 0."""
    b: float = 0.75
    """Length normalization, in [0, 1]."""
    epsilon: float = OKAPI_EPSILON
    """okapi's floor for negative idf, as a fraction of the mean idf (lucene ignores it)."""

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown BM25 variant {self.variant!r}; expected one of {VARIANTS}")
        for name in ("k1", "b", "epsilon"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"BM25 {name} must be a number, got {value!r}")
            # Floats always, so an int given (k1=2) is written as 2.0, as the files always had it.
            object.__setattr__(self, name, float(value))
        if not self.k1 >= 0 or not 0 <= self.b <= 1:
            raise ValueError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={self.k1}, b={self.b}")

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form (manifest, units.json, reports): epsilon for okapi only."""
        data = to_json_dict(self)
        # Beyond the codec: lucene never scores with epsilon, and its files never held it.
        if self.variant == "lucene":
            del data["epsilon"]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BM25Settings:
        """Rebuild from the JSON form (a missing key takes its default); ValueError if bad."""
        return from_json_dict(cls, data)

    def with_changes(self, changes: Mapping[str, Any]) -> BM25Settings:
        """Return these settings with some fields changed (a strategy's k1 or b); ValueError
        for a field BM25Settings does not have."""
        unknown = sorted(set(changes) - {"variant", "k1", "b", "epsilon"})
        if unknown:
            raise ValueError(f"unknown BM25 settings {unknown}; expected variant, k1, b, epsilon")
        return replace(self, **changes)

    def describe(self) -> str:
        """Say the settings as a person reads them: `okapi k1=1.5 b=0.75`."""
        extra = f" epsilon={self.epsilon}" if self.epsilon != OKAPI_EPSILON else ""
        return f"{self.variant} k1={self.k1} b={self.b}{extra}"


BM25_DEFAULTS = BM25Settings()
"""Default scoring: Elasticsearch's BM25."""
UNIT_PIECE_WORDS = 40
"""The most words of each piece that a sentence or code line over LONG_SENTENCE_WORDS (the
longest retrieval unit, a table row excepted) is cut into: whole lines packed where the text
has line breaks, else near-equal runs of words. Small enough for a piece and its title to fit
a 50-word budget (measured with bench/eval_context.py at 20, 30 and 40: 20 and 40 tie on the
worst set, 30 is one question lower; 40 is a little higher over every set)."""
SECTION_PART_WORDS = 600
"""The most words of blocks a section scores as one passage: a longer section (a headingless
novel, speech or log is one section) is scored in consecutive parts of whole blocks, each at
most this long (a longer block alone), so that a scene or a topic scores as a whole, not the
whole document. Measured with bench/eval_context.py at 150, 300, 600 and 1,000 words on ten
sets: 600 gains most on the worst sets (two novels: complete@400 +10 and +14 points), and
costs release notes and the GPL, where neighbouring paragraphs are unrelated, 2 to 5 points.
A block longer than this (a log or a text without blank lines, read as one paragraph) is parted
between its units: UNIT_SETTINGS["part_blocks"]."""
UNIT_SETTINGS: dict[str, Any] = {
    "max_words": LONG_SENTENCE_WORDS,
    "piece_words": UNIT_PIECE_WORDS,
    "part_words": SECTION_PART_WORDS,
    "part_blocks": True,
}
"""How text is cut into retrieval units, kept in the manifest: an index cut otherwise is
rebuilt by the next ingest."""

DEFAULT_K = 5
"""Results a search returns when the caller does not say."""
DEFAULT_ACCESS = ACCESS_LABELS[0]
"""What a caller that names no access level sees: the least restricted label (fail closed)."""

RANKERS = ("bm25", "dense", "hybrid")
"""How chunks are ranked: BM25 alone, vectors alone, or the two fused."""
Ranker = Literal["bm25", "dense", "hybrid"]
"""A ranker's name (one of RANKERS)."""
FUSIONS = ("weighted", "rrf")
"""How hybrid fuses its two lists: a weighted sum of normalised scores, or reciprocal ranks."""
Fusion = Literal["weighted", "rrf"]
"""A fusion's name (one of FUSIONS)."""
NORMS = ("max", "minmax")
"""How a weighted fusion scales each list: by its best score, or from its worst to its best."""
Norm = Literal["max", "minmax"]
"""A normalisation's name (one of NORMS)."""
FUSION_DEPTH = 100
"""Results each list contributes to a hybrid ranking when k is smaller."""
RRF_K = 60
"""Reciprocal-rank fusion's constant (Cormack et al. 2009): 1 / (RRF_K + rank)."""


@dataclass(frozen=True, slots=True)
class RankerSettings:
    """Which ranker runs and, for hybrid, how its BM25 and dense lists are fused."""

    ranker: Ranker = "bm25"
    """bm25, dense (exact inner product of unit vectors) or hybrid (both, fused)."""
    fusion: Fusion = "weighted"
    """hybrid's fusion: weighted (normalised scores summed) or rrf (reciprocal ranks summed)."""
    weight: float = 1.0
    """The dense list's weight; the BM25 list weighs 1."""
    norm: Norm = "minmax"
    """How a weighted fusion scales each list before summing (rrf ignores it)."""
    depth: int = FUSION_DEPTH
    """Each list contributes its top max(k, depth) to the candidates hybrid fuses."""
    rrf_k: int = RRF_K
    """rrf's constant, added to each rank (weighted ignores it)."""

    def __post_init__(self) -> None:
        for name, allowed in (("ranker", RANKERS), ("fusion", FUSIONS), ("norm", NORMS)):
            if (value := getattr(self, name)) not in allowed:
                raise ValueError(f"unknown {name} {value!r}; expected one of {allowed}")
        if isinstance(self.weight, bool) or not isinstance(self.weight, int | float):
            raise ValueError(f"the dense weight must be a number, got {self.weight!r}")
        object.__setattr__(self, "weight", float(self.weight))
        if not self.weight >= 0:
            raise ValueError(f"the dense weight must be >= 0, got {self.weight}")
        for name in ("depth", "rrf_k"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON form (reports, a bench's settings)."""
        return to_json_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RankerSettings:
        """Rebuild from the JSON form (a missing key takes its default); ValueError if bad."""
        return from_json_dict(cls, data)

    @property
    def uses_vectors(self) -> bool:
        """Whether this ranker needs the index's vectors and a query encoder."""
        return self.ranker != "bm25"

    def describe(self) -> str:
        """Say the settings as a person reads them: `hybrid weighted minmax weight=1.0`."""
        if self.ranker != "hybrid":
            return self.ranker
        if self.fusion == "rrf":
            return f"hybrid rrf k={self.rrf_k} depth={self.depth}"
        return f"hybrid weighted {self.norm} weight={self.weight} depth={self.depth}"


BM25_RANKER = RankerSettings()
"""BM25 alone: what an index without vectors ranks by."""
HYBRID_RANKER = RankerSettings("hybrid", "weighted", weight=0.5, norm="minmax")
"""hybrid's fusion when none is named: of those bench/bench_rankers.py measured (rrf, and
both scalings at dense weights 0.25 to 3), the one whose worst question set scored best."""
HYBRID_UNITS = RankerSettings("hybrid", "weighted", weight=1.0, norm="max")
"""hybrid's fusion for retrieval units (a context, search --budget) when none is named. Of the
fusions bench/context_fusion.py measured on the default strategy, over the manuals and the
texts unlike them (novels, a chat log, speeches), the one whose worst question set held the
most evidence whole (complete@B summed over B = 100, 200, 400; a tie broken by the mean over
sets), each unit embedded with its neighbours (store/vectors.py): each list scaled by its best
score, the dense one weighing as much as BM25's. A heavier dense list serves speeches and chat
and fails novels."""


RANKER_SPECS = "bm25, dense, hybrid or hybrid:WEIGHT"
"""What a ranker spec (search --ranker, eval --retriever) may be."""


def parse_ranker(spec: str, units: bool = False) -> RankerSettings:
    """Return the settings a ranker spec names: bm25, dense, hybrid (its defaults for units
    when units, else for chunks) or hybrid:W, those with the dense list weighted W >= 0;
    ValueError, saying what is wrong, if it names none."""
    name, colon, weight = spec.partition(":")
    if name not in RANKERS or (colon and name != "hybrid"):
        raise ValueError(f"choose from {RANKER_SPECS}, got {spec!r}")
    chosen = ranker_settings(cast(Ranker, name), units)
    if not colon:
        return chosen
    try:
        value = float(weight)
    except ValueError:
        value = math.nan
    # A fusion weighs one list against the other: no spec is worth an infinite or NaN score.
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{spec!r}: hybrid's dense weight must be a number >= 0")
    return replace(chosen, weight=value)


def ranker_settings(ranker: Ranker | RankerSettings, units: bool = False) -> RankerSettings:
    """Return a ranker's settings: a name takes that ranker's defaults (for retrieval units
    when units, else for chunks); ValueError if unknown."""
    if isinstance(ranker, RankerSettings):
        return ranker
    if ranker == "hybrid":
        return HYBRID_UNITS if units else HYBRID_RANKER
    return RankerSettings(ranker)
