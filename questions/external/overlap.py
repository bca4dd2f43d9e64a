"""Print each question set's median content-word overlap between question and evidence.

Usage:  python questions/external/overlap.py [SET.jsonl ...]
(default: every *.jsonl beside this script)

Content words are the lower-cased alphabetic tokens of a text that are not in the small
stop-word list below. A question's overlap is |Q & E| / |Q|: the share of its content words
that also occur in its evidence (all its quotes together). A low median means the questions
were asked in other words than the answer's.

It stands alone (no project code, the python3 of any machine), so these figures do not depend
on the tokenizer under test; `policy-assistant questions check` reports the same share in
search's own terms (stemmed, stopwords out), which is what BM25 can match.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from pathlib import Path

STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "don",
        "doesn",
        "isn",
        "aren",
        "won",
        "can't",
        "also",
        "may",
        "might",
        "must",
        "shall",
        "get",
        "gets",
        "got",
        "use",
        "used",
        "using",
        "one",
    ]
)

WORD = re.compile(r"[a-z]+")


def content_words(text: str) -> set[str]:
    """The set of lower-cased alphabetic tokens of text that are not stop words."""
    return {word for word in WORD.findall(text.lower()) if word not in STOP_WORDS}


def overlap(question: str, quotes: list[str]) -> float:
    """|Q & E| / |Q| for the question's content words Q and the quotes' E (0 if Q is empty)."""
    asked = content_words(question)
    if not asked:
        return 0.0
    evidence = set().union(*(content_words(quote) for quote in quotes))
    return len(asked & evidence) / len(asked)


def set_overlaps(path: Path) -> list[float]:
    """The overlap of each question in one JSON-lines question set."""
    values = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            question = json.loads(line)
            quotes = [passage["evidence"] for passage in question["relevant"]]
            values.append(overlap(question["question"], quotes))
    return values


def main(argv: list[str]) -> int:
    """Print each set's overlap between question and quote words: median, mean, share > 0.5."""
    paths = [Path(arg) for arg in argv] or sorted(Path(__file__).parent.glob("*.jsonl"))
    print(f"{'set':<32} {'questions':>9} {'median':>7} {'mean':>6} {'> 0.5':>6}")
    for path in paths:
        values = set_overlaps(path)
        if not values:
            continue
        high = sum(value > 0.5 for value in values)
        print(
            f"{path.name:<32} {len(values):>9} {statistics.median(values):>7.2f}"
            f" {statistics.fmean(values):>6.2f} {high:>6}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
