"""Words across line ends: hyphens, URLs, dashes and CJK joins, using the document's vocabulary.

A hyphen at a line end is either the layout's (the word was broken: "equip-" "ment") or
the author's (a compound broken at its hyphen: "dual-" "encoder"). The document itself
often tells which: when the joined form occurs elsewhere in it and the hyphenated form
does not, the hyphen was the layout's; when the hyphenated form occurs, or both parts
are words the document uses on their own ("forest" and "dwelling"), the author's. Only
when the document says nothing do the rules of `join_wrapped` decide.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""C0 and C1 control characters, less tab and newline: never text, always damage."""
_TOKEN_EDGE = re.compile(r"^[^\w]+|[^\w]+$")
_URL = re.compile(r"[(<\[\"']?\d{0,3}(?:[a-z][a-z0-9+.-]*://|www\.)\S*$", re.IGNORECASE)
"""A URL at the end of a line, down to its bare scheme or "www." (cut straight after it),
with a footnote's number the text layer glues to its front ("2https://...")."""
_PATH = re.compile(r"[(<\[\"']?(?:~|\.{1,2})?/(?:[\w.+~-]+/)+$")
"""A file path cut after one of its slashes: "/usr/share/doc/" before "r-base/NEWS"."""
_WORD_END = re.compile(r"\w[\w-]*$|$")
"""The word (inner hyphens kept) at the end of a token, after any punctuation before it."""
_URL_GOES_ON = re.compile(r"[/\-_.?=&#%~:]$")
_URL_PIECE = re.compile(r"^[\w.~%-]*[/=&?#][^\s]*")
_DASHES = "\u2013\u2014"
_CJK = re.compile(
    "[\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u31a0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]"
)
"""Han, kana, bopomofo, CJK punctuation and full-width forms: written without spaces.
Hangul is left out: Korean puts spaces between words, and lines break at them."""


def remove_controls(text: str) -> str:
    """Remove control characters (U+0000-U+001F but tab and newline, U+007F-U+009F)."""
    return _CONTROL.sub("", text) if _CONTROL.search(text) else text


class Vocabulary:
    """The words of one document, case-folded, with inner hyphens kept: what it spells.

    The texts are kept as given and split into words on the first look-up only: most
    documents never ask (no line ends with a hyphen), and a document that does holds
    far fewer distinct tokens than tokens.
    """

    def __init__(self, texts: Iterable[str] = ()) -> None:
        self._texts: list[str] = list(texts)
        self._words: set[str] | None = None
        self._whole: set[str] = set()
        self._alone: set[str] = set()

    def add(self, text: str) -> None:
        """Add the words of one line of text."""
        if self._words is None:
            self._texts.append(text)
        else:
            tokens = text.split()
            self._words.update(_spelled(tokens))
            self._whole.update(_whole_words(tokens))
            self._alone.update(_alone_words([text]))

    def _built(self) -> set[str]:
        if self._words is None:
            tokens = set(" ".join(self._texts).split())
            self._words, self._whole = _spelled(tokens), _whole_words(tokens)
            self._alone = _alone_words(self._texts)
            self._texts = []
        return self._words

    def occurs_alone(self, word: str) -> bool:
        """Whether the document uses word on its own, not as a piece cut at a line end."""
        self._built()
        return word.casefold() in self._alone

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.casefold() in self._built()

    def spells_whole(self, word: str) -> bool:
        """Whether the document spells word, in this case, whole or as a compound's head.

        Words cut at a line end do not count: "Car-" is no word, whatever follows it.
        """
        self._built()
        word = _TOKEN_EDGE.sub("", word)
        return word in self._whole or f"{word}-" in self._whole


def _spelled(tokens: Iterable[str]) -> set[str]:
    """Return the case-folded words of whitespace-split tokens, edge punctuation removed."""
    return {word for raw in tokens if (word := _TOKEN_EDGE.sub("", raw).casefold())}


def _whole_words(tokens: Iterable[str]) -> set[str]:
    """Return the words of tokens as spelled, less those cut by a hyphen ("Car-" of "Carter").

    The head of a compound counts too, with its hyphen: "Unicode-" of "Unicode-merkistö".
    """
    whole: set[str] = set()
    for raw in tokens:
        if raw.endswith(("-", "\u2010", "\u00ad")) or not (word := _TOKEN_EDGE.sub("", raw)):
            continue
        whole.add(word)
        if "-" in word:
            whole.add(word.split("-", 1)[0] + "-")
    return whole


def _alone_words(texts: Iterable[str]) -> set[str]:
    """Return the case-folded plain words of lines, less the pieces a line-end hyphen cut.

    A line's last token ending in a hyphen, and the first token of the line after it, are
    pieces ("equip-" "ment"): "ment" is no word of the document for being one of them.
    """
    alone: set[str] = set()
    cut = False
    for text in texts:
        tokens = text.split()
        start = 1 if cut else 0
        cut = bool(tokens) and tokens[-1].endswith(("-", "\u2010")) and len(tokens[-1]) > 1
        for raw in tokens[start : len(tokens) - 1 if cut else None]:
            word = _TOKEN_EDGE.sub("", raw).casefold()
            if word.isalpha():
                alone.add(word)
    return alone


MIN_PART = 3
"""Letters each part of a compound needs for its being two words to count ("in-" "formation")."""
_CLOSED_HEADS = frozenset(
    [
        "any",
        "every",
        "some",
        "with",
        "there",
        "where",
        "here",
        "how",
        "what",
        "when",
        "who",
        "them",
        "your",
        "for",
        "can",
        "else",
        "may",
        "never",
        "other",
        "out",
        "over",
        "under",
        "down",
        "back",
    ]
)
"""Words that start closed compounds ("some-" "thing", "with-" "out", "can-" "not")."""
_CLOSED_TAILS = frozenset(
    ["able", "less", "ness", "ship", "hood", "ward", "wards", "wise", "ever", "self", "selves"]
)
"""Words that end closed compounds or derived words ("read-" "able", "home-" "less")."""


def _two_words(before: str, after: str, vocabulary: Vocabulary) -> bool:
    """Whether before- and after are two words the document uses alone: a compound."""
    if min(len(before), len(after)) < MIN_PART or not (before + after).isalpha():
        return False
    if before.casefold() in _CLOSED_HEADS or after.casefold() in _CLOSED_TAILS:
        return False
    return vocabulary.occurs_alone(before) and vocabulary.occurs_alone(after)


def _hyphen_kept(before: str, after: str, vocabulary: Vocabulary | None) -> bool:
    """Whether the hyphen between before- and after is the author's, not the layout's."""
    if vocabulary is not None:
        joined, compound = before + after, f"{before}-{after}"
        if compound in vocabulary:
            return True
        if joined in vocabulary:
            return False
        if _two_words(before, after, vocabulary):
            return True
    if before[-1].isdigit() or "-" in before or not after[:1].islower():
        return True
    if not before[0].isupper():
        return False
    # A capital may start a name or a compound ("Unicode-aware") or just a word broken by
    # the layout ("Car-" "ter", "Win-" "dows"): a part the document never spells whole is
    # a piece of a word. One capital letter is too short a piece for a layout to leave.
    return vocabulary is None or len(before) < 2 or vocabulary.spells_whole(before)


def _first_word(text: str) -> str:
    """The first word of text, without the punctuation that follows it."""
    words = text.split()
    return _TOKEN_EDGE.sub("", words[0]) if words else ""


def join_wrapped(left: str, right: str, vocabulary: Vocabulary | None = None) -> str:
    """Join two wrapped lines with a space, or mend what the line break cut.

    A hyphen at the end of a line, straight after a word ("X-"), joins the next line
    without a space. Given the document's vocabulary, the hyphen goes when the joined
    word occurs in the document and the hyphenated one does not, and stays in the
    opposite case. Otherwise it is dropped only when both sides are lowercase letters
    ("equip-" + "ment" is "equipment"); it stays when the part before it ends with a
    digit ("PW-" + "2200", "4-" + "digit"), or when the next part starts with a digit or
    a capital ("long-" + "2025", "Wi-" + "Fi"), or when the part before it is itself a
    compound ("non-free-" + "firmware"). A part before it that starts with a capital
    keeps it when that part is one letter ("X-" + "ray"), or, given a vocabulary, when
    the document spells it whole elsewhere ("Unicode-" + "aware"); a capitalised piece
    it never spells whole is a piece of a word ("Car-" + "ter" is "Carter"). Given a
    vocabulary, the hyphen also stays when both parts are words the document uses on their
    own ("forest-" + "dwelling"). A hyphen after a space is a dash: the lines join with a
    space as usual. A URL or a path cut at a line end (its hyphens kept), a dash set tight
    against a word, and a line break between CJK characters join without a space.
    """
    if left.endswith("\u00ad"):
        return left[:-1] + right
    if left.endswith(("-", "\u2010")) and len(left) >= 2 and left[-2].isalnum():
        before = left[:-1].rsplit(None, 1)[-1]
        after = _first_word(right)
        if _URL.match(before):
            # A URL's hyphens are its own: url.sty breaks after them and adds none.
            return left + right
        # The word the hyphen ends, without what is glued before it ("config::low-").
        before = _WORD_END.search(before)[0] or before  # type: ignore[index]
        if after and _hyphen_kept(before, after, vocabulary):
            return left + right
        return left[:-1] + right if after else left + right
    if _tight(left, right):
        return left + right
    return f"{left} {right}"


def _tight(left: str, right: str) -> bool:
    """Whether two lines join without a space: a URL, a tight dash, or CJK on both sides."""
    if not left or not right:
        return False
    if _CJK.match(left[-1]) and _CJK.match(right[0]):
        return True
    if left[-1] in _DASHES and len(left) >= 2 and not left[-2].isspace():
        return True
    if right[0] in _DASHES and len(right) >= 2 and not right[1].isspace():
        return True
    last = left.rsplit(None, 1)[-1]
    if _PATH.match(last):
        return True
    if not _URL.match(last):
        return False
    return bool(_URL_GOES_ON.search(last)) or bool(_URL_PIECE.match(right.split(None, 1)[0]))
