"""Sentence splitting: a fast, regex-based splitter for English and French prose.

A candidate boundary is sentence-ending punctuation (. ! ? …), then any closing quotes or
brackets, then whitespace; in Chinese and Japanese, a full-width 。！？ and any closing
brackets, with or without whitespace. The candidate is turned down when the next word starts
in lower case (the sentence goes on), when a Japanese quotation closes on it and a quoting
particle follows (「行きます。」と言った), when the word before the full stop is a known
abbreviation ("e.g.", "approx.", "M.", "No. 5"), an initial ("J. Smith") or a list marker
opening the sentence ("1. Register"). Decimals and model numbers ("2.5 kW", "PW-2000.3") never
split: no whitespace follows their dots. Table rows and code lines are units of their own,
whatever they hold.
"""

from __future__ import annotations

import re
from itertools import pairwise

from policy_assistant.records import Block
from policy_assistant.text import FULL_STOPS, STOP_CLOSERS, has_unspaced, word_spans

ABBREVIATIONS = frozenset(
    {
        # English
        "approx", "ca", "cf", "co", "corp", "dept", "dr", "e.g", "eg", "esp", "est", "excl",
        "i.e", "ie", "inc", "incl", "jr", "ltd", "mr", "mrs", "ms", "prof", "sr", "st", "vs",
        "viz", "resp", "appx",
        # French
        "c.-à-d", "env", "mlle", "mm", "mme", "p.ex", "réf", "tél", "éd", "av", "apr", "ex",
    }
)  # fmt: skip
"""Words that end in a full stop without ending the sentence, lower case, without the stop."""

NUMBER_ABBREVIATIONS = frozenset(
    {
        "no", "nos", "nr", "p", "pp", "fig", "figs", "art", "sec", "ch", "chap", "vol", "ref",
        "tel", "max", "min", "op", "para", "n°", "nº", "tab",
    }
)  # fmt: skip
"""Words that end in a full stop without ending the sentence when a number follows: "No. 5"."""

# French sets a space before a closing guillemet: « Taillez. » Ensuite...
_BOUNDARY_RE = re.compile(r"(?<=[.!?…])(?:[\"'”’»)\]]|\s+»)*(\s+)")
# Chinese and Japanese end a sentence with a full-width stop and need no space after it.
_UNSPACED_BOUNDARY_RE = re.compile(
    _BOUNDARY_RE.pattern + rf"|(?<=[{FULL_STOPS}])(?![{FULL_STOPS}])[{STOP_CLOSERS}]*+(\s*)"
)
SENTENCES_VERSION = 2
"""Version of these rules, kept in the manifest: chunks and units cut by another are rebuilt
(1: before; 2: a Japanese quotation followed by と or って goes on)."""

_QUOTE_CLOSERS = "」』"
_QUOTING = "とっ"
"""Particles that follow a Japanese quotation inside a sentence: と, って."""
_LINE_RE = re.compile(r"[^\n]*\S[^\n]*")
_WORD_BEFORE_RE = re.compile(r"\S+$")
_DOTTED_RE = re.compile(r"(?:[^\W\d_]{1,3}[.-]+)+[^\W\d_]{1,3}")
_OPENERS = "([{\"'«“‘"
_MARKER_RE = re.compile(r"\d{1,3}|[ivx]{1,4}")
"""List markers ("12.", "iv.") that may open a sentence without ending it."""

LONG_SENTENCE_WORDS = 60
"""A "sentence" longer than this is no sentence a reader meant (a chat log or a list without
punctuation): a retrieval unit holds at most this many words, and Markdown keeps such a
paragraph's lines."""

LINE_KINDS = frozenset({"table", "code"})
"""Block kinds split into lines, not sentences."""


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Return the half-open span of every sentence in text[start:end], trimmed of whitespace."""
    stop = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    pos = _skip_space(text, start, stop)
    boundaries = _UNSPACED_BOUNDARY_RE if has_unspaced(text, start, stop) else _BOUNDARY_RE
    for match in boundaries.finditer(text, pos, stop):
        sentence_end, next_start = match.span(1 if match.group(1) is not None else 2)
        if next_start >= stop or not _is_boundary(text, pos, match.start(), next_start):
            continue
        spans.append((pos, sentence_end))
        pos = next_start
    last = _trim_end(text, pos, stop)
    if last > pos:
        spans.append((pos, last))
    return spans


def line_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Return the span of every non-blank line in text[start:end], trimmed of whitespace."""
    stop = len(text) if end is None else end
    spans = []
    for match in _LINE_RE.finditer(text, start, stop):
        first = _skip_space(text, match.start(), match.end())
        spans.append((first, _trim_end(text, first, match.end())))
    return spans


def bounded_spans(
    text: str, spans: list[tuple[int, int]], limit: int, piece: int
) -> list[tuple[int, int]]:
    """Return spans with each one over `limit` words cut into pieces of at most `piece`."""
    out: list[tuple[int, int]] = []
    for start, end in spans:
        words = word_spans(text, start, end)
        if len(words) <= limit:
            out.append((start, end))
        else:
            out.extend((words[lo][0], words[hi - 1][1]) for lo, hi in _packed(text, words, piece))
    return out


def _packed(text: str, words: list[tuple[int, int]], piece: int) -> list[tuple[int, int]]:
    """Return runs [lo, hi) of words, each at most `piece` long: whole lines packed greedily
    (a chat log, a list without bullets, hard-wrapped prose), a longer line cut between
    words into near-equal runs."""
    runs: list[tuple[int, int]] = []
    growing = False  # whether the last run is whole lines, which the next line may join
    for lo, hi in _lines(text, words):
        if hi - lo > piece:
            parts = -(-(hi - lo) // piece)
            runs.extend(pairwise([lo + (hi - lo) * k // parts for k in range(parts + 1)]))
            growing = False
        elif growing and hi - runs[-1][0] <= piece:
            runs[-1] = (runs[-1][0], hi)
        else:
            runs.append((lo, hi))
            growing = True
    return runs


def _lines(text: str, words: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Return the runs [lo, hi) of words that share a line."""
    breaks = [i for i in range(1, len(words)) if "\n" in text[words[i - 1][1] : words[i][0]]]
    return list(pairwise([0, *breaks, len(words)]))


def unit_spans(text: str, block: Block) -> list[tuple[int, int]]:
    """Return the spans, in the document's text, of the block's sentences or lines."""
    if block.kind in LINE_KINDS:
        return line_spans(text, block.start, block.end)
    return sentence_spans(text, block.start, block.end)


def _is_boundary(text: str, sentence_start: int, punct_end: int, next_start: int) -> bool:
    following = text[next_start]
    if following.islower():
        return False
    if following in _QUOTING and text[next_start - 1] in _QUOTE_CLOSERS:
        return False
    if text[punct_end - 1] != ".":
        return True
    match = _WORD_BEFORE_RE.search(text, max(sentence_start, punct_end - 24), punct_end)
    if match is None:
        return True
    word = match.group().lstrip(_OPENERS).lower()
    stem = word.rstrip(".")
    if stem in ABBREVIATIONS or _DOTTED_RE.fullmatch(stem):
        return False
    if stem in NUMBER_ABBREVIATIONS and following.isdigit():
        return False
    if len(stem) == 1 and stem.isalpha():
        return False  # an initial: "J. Smith"
    # "1. Register the product": a list marker opening the sentence does not end it.
    return not (match.start() == sentence_start and _MARKER_RE.fullmatch(stem))


def _skip_space(text: str, pos: int, stop: int) -> int:
    while pos < stop and text[pos].isspace():
        pos += 1
    return pos


def _trim_end(text: str, start: int, stop: int) -> int:
    while stop > start and text[stop - 1].isspace():
        stop -= 1
    return stop
