"""The chunkings a page offers: each method at three sizes, made by the real chunkers.

The sizes are the chunker's own defaults scaled by SCALES, so they follow the defaults if those
change. Only the size-like settings are scaled (SCALED); the others keep their defaults.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from policy_assistant.chunk import CHUNKERS, Chunker, make_chunker
from policy_assistant.records import Chunk, Document

SCALES = (0.5, 1.0, 2.0)
"""The three sizes of every method: half the default, the default and twice the default."""

SCALED = {
    "fixed": ("size",),
    "overlapping": ("size", "overlap"),
    "structure": ("max_words",),
    "sentence": ("max_words",),
}
"""The settings of each method that a size scales."""

LABELS = {"size": "size", "overlap": "overlap", "max_words": "max words"}
"""How a setting is named on a size control."""


@dataclass(frozen=True, slots=True)
class Variant:
    """One chunking of one document, as offered by a page's controls."""

    method: str
    """The chunker's name."""
    spec: dict[str, Any]
    """The chunker's spec: name and every setting."""
    chunks: tuple[Chunk, ...]
    """The chunks it made (or read from an index), in order."""
    origin: str = "chunker"
    """'chunker' when made here, 'index' when read from an index."""

    @property
    def label(self) -> str:
        """Return the control's label: 'size 50 · overlap 12', with '(index)' when read."""
        scaled = SCALED.get(self.method, ())
        shown = [k for k in scaled if k in self.spec] or [k for k in self.spec if k != "name"]
        text = " · ".join(f"{LABELS.get(k, k.replace('_', ' '))} {self.spec[k]}" for k in shown)
        return f"{text} (index)" if self.origin == "index" else text


def preset_settings(method: str) -> list[dict[str, int]]:
    """Return the settings of the three sizes of `method`, smallest first."""
    defaults = CHUNKERS[method]().settings()
    sizes = []
    for scale in SCALES:
        settings = dict(defaults)
        for name in SCALED.get(method, ()):
            settings[name] = max(int(defaults[name] * scale), 0 if name == "overlap" else 1)
        sizes.append(settings)
    return sizes


def chunk_variant(doc: Document, chunker: Chunker) -> Variant:
    """Return the chunks `chunker` makes of `doc`, as a variant."""
    return Variant(chunker.name, chunker.spec(), tuple(chunker.chunk(doc)))


def preset_variants(doc: Document, extra: list[Variant] | None = None) -> list[Variant]:
    """Return every method at its three sizes, plus `extra` variants not already among them."""
    variants = [
        chunk_variant(doc, make_chunker(method, **settings))
        for method in CHUNKERS
        for settings in preset_settings(method)
    ]
    for variant in extra or []:
        same = next((v for v in variants if v.spec == variant.spec), None)
        if same is None or variant.origin != same.origin:
            variants.append(variant)
    return variants
