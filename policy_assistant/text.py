"""Word spans: the one definition of a word, used for sizes and budgets.

A word is a run of text between whitespace, except in the scripts written without spaces
(Chinese, Japanese), where one character is a word: whitespace runs there can be whole
paragraphs, which would hold no budget. A run of other characters touching such a character
ends at it, so `製品warranty規定` is five words. Text without such characters is counted as
whitespace runs alone, at the cost it always had.
"""

from __future__ import annotations

import re

WORDS_VERSION = 3
"""The definition's version, kept in the index manifest: an index whose stored word counts were
made with another is rebuilt by the next ingest. 1: whitespace runs; 2: a character of a script
written without spaces is a word; 3: and a word ends at a full-width stop (。！？) and the
brackets that close on it, where a Chinese or Japanese sentence ends without a space."""

_UNSPACED_RANGES = (
    (0x2E80, 0x2FDF),  # CJK and Kangxi radicals (a PDF's text layer may give ⽇ for 日)
    (0x3005, 0x3007),  # 々 〆 〇
    (0x3021, 0x3029),  # Hangzhou numerals
    (0x3031, 0x3035),  # kana repeat marks
    (0x3038, 0x303C),  # more numerals and iteration marks
    (0x3041, 0x309F),  # Hiragana, voicing marks included
    (0x30A1, 0x30FA),  # Katakana, without ゠ and the middle dot ・ (punctuation)
    (0x30FC, 0x30FF),  # ー and the iteration marks
    (0x3100, 0x312F),  # Bopomofo
    (0x31A0, 0x31BF),  # Bopomofo Extended
    (0x31F0, 0x31FF),  # Katakana Phonetic Extensions
    (0x3400, 0x4DBF),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
    (0xFF66, 0xFF9F),  # half-width Katakana, its voicing marks included
    (0x1AFF0, 0x1B16F),  # Kana Extended-A and -B, Kana Supplement, Small Kana Extension
    (0x20000, 0x3FFFF),  # the ideographic planes: Extensions B to J, Compatibility Supplement
)
"""Characters that are a word each: letters of the scripts written without spaces.

CJK punctuation (、。「」) and the full-width forms (ＡＢＣ１２３) are not among them: they count
as other characters do, a run of them one word. Full-width letters and digits are the words
of spaced scripts set wide (`ＰＷ－２０００` is one word, as `PW-2000` is), and punctuation
between two ideographs counts as one word, as a dash between spaces does: a count a little
high, never low, which is the side a budget errs on. Hangul is written with spaces and counts
by them. Thai, Lao, Khmer and Myanmar are written without spaces too, but there a character is
no word (words span several, with combining vowels), so they keep counting by whitespace."""

_MARKS = "\u3099\u309a\uff9e\uff9f\ufe00-\ufe0f\U000e0100-\U000e01ef"
"""Marks that belong to the character before: kana voicing marks and variation selectors. A cut
between words never parts them from it."""

FULL_STOPS = "。！？"
"""Full-width stops: a Chinese or Japanese sentence ends at one, with no space after it."""
STOP_CLOSERS = "」』）〕】”’"
"""Brackets and quotes that close on a full-width stop and end its sentence with it."""
_STOP_RUN = f"[{FULL_STOPS}]++[{STOP_CLOSERS}]*+"

_UNSPACED = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _UNSPACED_RANGES)
UNSPACED_WORD = rf"[{_UNSPACED}][{_MARKS}]*+|{_STOP_RUN}|[^\s{_UNSPACED}{FULL_STOPS}]++"
"""A word, as a regular expression, in text holding characters of a script without spaces:
such a character, a run of full-width stops with their closing brackets (a sentence may end
there without a space, so a word does), or a run of other characters."""

WORD_RE = re.compile(r"\S+")
"""A word of text without such characters: any run between whitespace; ' | ' between cells
counts as one."""
_UNSPACED_WORD_RE = re.compile(UNSPACED_WORD)
_UNSPACED_RE = re.compile(f"[{_UNSPACED}{FULL_STOPS}]")
_UNSPACED_CHAR_RE = re.compile(f"[{_UNSPACED}][{_MARKS}]*+")
_STOP_RUN_RE = re.compile(_STOP_RUN)
_WIDE_RE = re.compile(f"[{chr(_UNSPACED_RANGES[0][0])}-{chr(_UNSPACED_RANGES[-1][1])}]")
"""From the first such character to the last: one range, three times as fast to scan for."""


def has_unspaced(text: str, start: int = 0, end: int | None = None) -> bool:
    """Return whether text[start:end] holds a character of a script written without spaces
    or a full-width stop: where a word may end without a space."""
    # isascii reads a flag CPython keeps: English text costs no scan, accented text one quick one.
    if text.isascii():
        return False
    stop = len(text) if end is None else end
    wide = _WIDE_RE.search(text, start, stop)
    return wide is not None and _UNSPACED_RE.search(text, wide.start(), stop) is not None


def word_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Return the half-open [start, end) span of every word in text[start:end]."""
    stop = len(text) if end is None else end
    pattern = _UNSPACED_WORD_RE if has_unspaced(text, start, stop) else WORD_RE
    return [m.span() for m in pattern.finditer(text, start, stop)]


_CUT = re.compile(rf"\s|(?![{_MARKS}])[{_UNSPACED}]")
"""Where a long text may be cut without splitting a word: before a space or an unspaced
character that is no mark."""
_PIECE = 1 << 20
"""Characters counted at a time in a long text: a list of all its words took gigabytes."""


def count_words(text: str) -> int:
    """Return how many words text holds: len(word_spans(text)), in bounded memory."""
    if len(text) <= _PIECE:
        return _count(text)
    total, start = 0, 0
    while start < len(text):
        cut = _CUT.search(text, start + _PIECE)  # no word is split
        end = cut.start() if cut else len(text)
        total += _count(text[start:end])
        start = end
    return total


def _count(text: str) -> int:
    if not has_unspaced(text):
        return len(text.split())
    # Each unspaced character (with its marks) is a word, each run of full-width stops (with
    # their closers) another, and a space between the other runs.
    spaced, characters = _UNSPACED_CHAR_RE.subn(" ", text)
    spaced, stops = _STOP_RUN_RE.subn(" ", spaced)
    return characters + stops + len(spaced.split())


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_BIDI = frozenset([*range(0x202A, 0x202F), *range(0x2066, 0x206A)])
"""Bidirectional overrides, which can make a name read as another on a terminal."""


def printable(text: str) -> str:
    """Return `text` with control characters and undecodable bytes escaped, safe for a terminal.

    A backslash is left as it is, so escaping twice changes nothing: the library escapes the
    names it puts in messages and the command line escapes every line it prints.
    """
    out: list[str] = []
    for char in text:
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif 0xDC80 <= code <= 0xDCFF:  # a byte of a non-UTF-8 file name (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code <= 0xDFFF or code in _BIDI:
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """Return `1 chunk`, `2 chunks`: a count and its noun in the right number."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
