"""The one tokenizer: indexing, search and eval all turn text into terms here.

The pipeline, in order:

1. NFKD, case folding (`str.casefold`, so "ß" matches "ss") and removal of combining marks,
   so "Employé" and "employe" are the same term and ligatures such as "ﬁ" split; then NFC,
   so kana keep their voicing marks ("が" is not "か"; half-width "ｶﾞ" is "ガ") and Hangul
   syllables are whole again.
2. Words are runs of letters and digits. Runs joined by "-", "_", "." or "/" with no space
   (`PW-2200`, `e-mail`, `v1.2`) form one compound, and a run that mixes letters and digits
   (`pw2200`) is a compound too. A compound gives its parts (split at the connectors and at
   every letter/digit boundary) plus, when it holds a letter, the parts joined with nothing
   between them. So `PW-2200`, `pw2200`, `PW2200` and `PW 2200` all yield "pw" and "2200",
   and all but the last also yield "pw2200": each query matches the chunk, and the exact
   spelling scores higher. Apostrophes separate words ("don't" gives "don" and "t", both
   stopwords).
3. Chinese, Japanese and Korean have no spaces between words (Korean has them between
   phrases), so a run of Han, kana or Hangul characters gives its overlapping character
   bigrams ("保修期" gives "保修", "修期"), as Lucene's CJKAnalyzer does; a lone character is a
   term of its own. The runs are cut out of a compound first: "PW-2200型号" gives the model
   number's terms and "型号".
4. English stopwords (the list below) are dropped; the joined form of a compound is kept.
5. Snowball English stemming (PyStemmer), memoized per word; never applied to CJK bigrams.

Every chunk and query goes through this one English pipeline, whatever its language (the
query's is unknown at search time; docs/retrieval.md): the same surface word always gives the
same term. French stopwords are kept as terms; BM25's IDF gives them little weight.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from itertools import chain
from typing import Any

import Stemmer

from policy_assistant.ids import content_id

_STOPWORD_TEXT = """
    a about above after again against all also am among an and any are as at
    be because been before being below between both but by
    can could did do does doing down during each either few for from further
    had has have having he her here hers herself him himself his how
    i if in into is it its itself just me more most my myself
    neither no nor not now of off on once only onto or other others our ours ourselves
    out over own same she should so some such than that the their theirs them
    themselves then there these they this those though through thus to too
    under until up upon very was we were what when where whether which while who
    whom whose why will with within without would yet you your yours yourself yourselves
    s t d ll m re ve don doesn didn isn aren wasn weren hasn haven hadn wouldn
    shouldn couldn mustn needn
"""
STOPWORDS: frozenset[str] = frozenset(_STOPWORD_TEXT.split())
"""Common English function words, plus the fragments contractions split into."""

MEMO_LIMIT = 300_000
"""Most distinct words the analysis memo holds before it starts over (~60 MB)."""

_STEMMER = Stemmer.Stemmer("english", 0)  # our memo replaces PyStemmer's own cache

TOKENIZER_SETTINGS: dict[str, Any] = {
    "name": "policy-assistant",
    "version": 2,
    "lowercase": True,
    "fold_accents": True,
    "normalization": "NFKD+casefold+NFC",
    "compounds": "parts+joined",
    "stopwords": "english",
    "stopwords_id": content_id(sorted(STOPWORDS)),
    "stemmer": "english",
    "stemmer_library": f"PyStemmer {Stemmer.version()}",
    "languages": "one english pipeline for every language",
    "cjk": "character bigrams of han, kana and hangul runs",
}
"""What the manifest records; an index built with other settings is stale."""

_COMPOUND_RE = re.compile(r"[^\W_]+(?:[-./_][^\W_]+)*")
_PART_RE = re.compile(r"\d+|[^\W\d_]+")
_HYPHENS = {0x2010: "-", 0x2011: "-", 0x00AD: None}
# Kana voicing marks are combining marks that change the letter, not accents: kept.
_KANA_MARKS = {0x3099: 0x3099, 0x309A: 0x309A}
_CJK = (
    "\u1100-\u11ff\u3040-\u309f\u30a0-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff\uf900-\ufaff"
    "\U00020000-\U0003134f"
)
_CJK_RUN = re.compile(f"([{_CJK}]+)")


class _FoldTable(dict[int, Any]):
    """str.translate table: drop combining marks, unify hyphens; filled lazily per character."""

    def __missing__(self, code: int) -> Any:
        value = None if unicodedata.category(chr(code)) == "Mn" else code
        self[code] = value
        return value


_FOLD = _FoldTable({**_HYPHENS, **_KANA_MARKS})


def fold(text: str) -> str:
    """Return text case-folded, compatibility-decomposed and without accents."""
    if text.isascii():
        return text.lower()
    # Case folding after NFKD: compatibility forms such as "𝕊" only then have a case.
    folded = unicodedata.normalize("NFKD", text).casefold().translate(_FOLD)
    # NFC puts kana voicing marks and Hangul jamo back together; accents are gone by now.
    return unicodedata.normalize("NFC", folded)


def _compound_terms(compound: str, terms: list[str]) -> None:
    """Append the terms of one folded compound (or plain word) to terms."""
    parts = _PART_RE.findall(compound)
    if len(parts) == 1:
        if compound not in STOPWORDS:
            terms.append(_STEMMER.stemWord(compound))
        return
    terms.extend(_STEMMER.stemWord(p) for p in parts if p not in STOPWORDS)
    joined = "".join(parts)
    if not joined.isdigit():
        terms.append(_STEMMER.stemWord(joined))


def _analyze(word: str) -> tuple[str, ...]:
    """Return the terms of one whitespace-delimited word, punctuation and all."""
    terms: list[str] = []
    for i, piece in enumerate(_CJK_RUN.split(fold(word))):
        if i % 2:  # a CJK run: its overlapping bigrams (a lone character: itself)
            terms.extend(piece[j : j + 2] for j in range(max(len(piece) - 1, 1)))
        else:
            for compound in _COMPOUND_RE.findall(piece):
                _compound_terms(compound, terms)
    return tuple(terms)


class _Memo(dict[str, tuple[str, ...]]):
    """Word -> terms, computed on first sight; most words recur, so this is the fast path."""

    def __missing__(self, word: str) -> tuple[str, ...]:
        if len(self) >= MEMO_LIMIT:
            self.clear()
        terms = self[word] = _analyze(word)
        return terms

    def __reduce__(self) -> str:
        return "_MEMO"  # pickled by name: worker processes use their own memo


_MEMO = _Memo()

word_terms: Callable[[str], tuple[str, ...]] = _MEMO.__getitem__
"""Return the terms of one whitespace-free word; tokenize(text) joins them over text.split().

A C-level method, cheap to call per word, and picklable (by name) for worker processes."""


def tokenize(text: str) -> list[str]:
    """Return the index terms of text, in order, repeats kept."""
    # Compounds never span whitespace, so each whitespace-delimited word can be analyzed
    # alone and memoized: str.split and dict lookups run in C, the regex only on new words.
    return list(chain.from_iterable(map(word_terms, text.split())))
