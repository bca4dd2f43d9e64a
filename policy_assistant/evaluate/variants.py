"""Variants: a chunker with settings, written `name:setting=value,...`, one row of the report.

`structure:max_words=100` is one variant; `structure,fixed` is two (a comma followed by a
registered chunker's name starts a new variant), and so is `structure:max_words=100,fixed:size=50`.
A variant given without settings keeps the chunker's bare name as its row name, so a default run
names its rows as it always did; one with settings is named by them, in the chunker's order.
Besides our chunkers, a variant may name a peer (evaluate/peers.py: `langchain-recursive`,
`llamaindex-sentence`, `chonkie-recursive`), whose library is imported only when it is made.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from policy_assistant.chunk import CHUNKERS, MODEL_CHUNKERS, Chunker, make_chunker
from policy_assistant.errors import UsageError
from policy_assistant.evaluate.peers import PEERS, PeerChunker

SETTING_MARK = ":"
"""Separates a chunker's name from its settings."""


@dataclass(frozen=True)
class Variant:
    """One chunker with the settings its spec names."""

    chunker: str
    """The chunker's registry name."""
    settings: tuple[tuple[str, int], ...] = ()
    """Settings given in the spec, in the chunker's setting order."""

    @property
    def name(self) -> str:
        """The row name: the chunker's name, then its settings, `structure:max_words=100`."""
        if not self.settings:
            return self.chunker
        given = ",".join(f"{key}={value}" for key, value in self.settings)
        return f"{self.chunker}{SETTING_MARK}{given}"

    @property
    def takes(self) -> tuple[str, ...]:
        """The settings the variant's chunker takes."""
        return _chunker_class(self.chunker).setting_names

    def make(self, defaults: dict[str, int]) -> Chunker:
        """Return the chunker: the spec's settings over the run-wide ones it takes."""
        options = {key: value for key, value in defaults.items() if key in self.takes}
        given = {**options, **dict(self.settings)}
        peer = PEERS.get(self.chunker)
        return make_chunker(self.chunker, **given) if peer is None else peer(**given)


def _chunker_class(name: str) -> type[Chunker]:
    """Return the class of one of our chunkers or of a peer, by name."""
    return CHUNKERS.get(name) or MODEL_CHUNKERS.get(name) or PEERS[name]


def _known_names() -> dict[str, type[Chunker]]:
    """Return every chunker a variant may name: ours (those needing a model last), the peers."""
    return {**CHUNKERS, **MODEL_CHUNKERS, **PEERS}


def report_spec(chunker: Chunker) -> dict[str, Any]:
    """Return a chunker's spec as the report records it (a peer's with its unplaced count)."""
    return chunker.report_spec() if isinstance(chunker, PeerChunker) else chunker.spec()


def parse_variants(specs: Iterable[str]) -> tuple[Variant, ...]:
    """Return the variants of `--chunker` values; UsageError names what is not understood."""
    variants: list[Variant] = []
    for spec in specs:
        for piece in _split_spec(spec):
            variants.append(parse_variant(piece))
    names = [v.name for v in variants]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"--chunker: variant {twice[0]!r} is named twice")
    return tuple(variants)


def _split_spec(spec: str) -> list[str]:
    """Split one `--chunker` value where a comma is followed by a registered chunker's name."""
    pieces: list[list[str]] = []
    for item in (part.strip() for part in spec.split(",")):
        if not item:
            continue
        head = item.split(SETTING_MARK, 1)[0].strip()
        if head in _known_names() or not pieces or "=" not in item or SETTING_MARK in item:
            pieces.append([item])
        else:
            pieces[-1].append(item)
    return [",".join(p) for p in pieces]


def parse_variant(spec: str) -> Variant:
    """Return one variant from `name` or `name:setting=value,...`."""
    name, _, rest = spec.partition(SETTING_MARK)
    name = name.strip()
    cls = _known_names().get(name)
    if cls is None:
        known = ", ".join(_known_names())
        raise UsageError(f"--chunker: unknown chunker {name!r}; choose from {known}")
    given: dict[str, int] = {}
    for item in (part.strip() for part in rest.split(",") if part.strip()):
        key, equals, value = (x.strip() for x in item.partition("="))
        if not equals:
            raise UsageError(f"--chunker {spec!r}: expected setting=value, got {item!r}")
        if key not in cls.setting_names:
            takes = ", ".join(cls.setting_names)
            raise UsageError(f"--chunker {spec!r}: {name} takes {takes}, not {key!r}")
        if key in given:
            raise UsageError(f"--chunker {spec!r}: {key} is given twice")
        try:
            given[key] = int(value)
        except ValueError:
            raise UsageError(
                f"--chunker {spec!r}: {key} takes a whole number, got {value!r}"
            ) from None
    settings = tuple((key, given[key]) for key in cls.setting_names if key in given)
    return Variant(name, settings)
