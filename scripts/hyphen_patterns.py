"""Would hyphenation patterns settle the line-end hyphens the document's words leave open?

    .venv/bin/pip install pyphen   # not a dependency: needed by this measurement only
    .venv/bin/python scripts/hyphen_patterns.py build/x            # files or folders of PDFs

A spy on `parse.pdf_words._hyphen_kept` lists every line-end hyphen between two lowercase
parts ("equip-" + "ment") for which the document's vocabulary has neither the joined nor
the hyphenated form: today's rule drops those hyphens. For each, pyphen (LibreOffice's
hyphenation dictionaries) is asked whether the language's patterns would break the joined
word at that point: if they would not, the hyphen would be the author's (kept). The
language is the document's (`parse.language.detect_language`), or Greek or Russian for a
word in those scripts. Printed: the counts per language (no dictionary, patterns agree with
the rule, patterns would keep the hyphen), then every distinct case where they would keep
it, for a person to judge. Output is deterministic; exit 0.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pyphen
from pdf_loss import pdf_files

from policy_assistant.parse.language import detect_language
from policy_assistant.parse.pdf import words as pdf_words
from policy_assistant.parse.pdf.reader import parse_pdf
from policy_assistant.records import DocumentMeta

Case = tuple[str, str, str, str]
"""(file, language, part before the hyphen, part after it)."""


def open_cases(path: Path) -> list[Case]:
    """Parse one PDF and return its lowercase line-end hyphens its vocabulary leaves open."""
    calls: list[tuple[str, str]] = []
    decide = pdf_words._hyphen_kept

    def spy(before: str, after: str, vocabulary: Any) -> bool:
        open_ = vocabulary is None or (before + after in vocabulary) == (
            f"{before}-{after}" in vocabulary
        )
        if open_ and before[:1].islower() and before[-1:].isalpha() and after[:1].islower():
            calls.append((before, after))
        return decide(before, after, vocabulary)

    pdf_words._hyphen_kept = spy
    try:
        document = parse_pdf(path.read_bytes(), path.name, DocumentMeta(), "")
    finally:
        pdf_words._hyphen_kept = decide
    language = detect_language(document.text, "en")
    return [(path.name, language, before, after) for before, after in calls]


def word_language(word: str, language: str) -> str:
    """Return the language whose patterns fit a word: its script's, else the document's."""
    if any("\u0370" <= ch <= "\u03ff" or "\u1f00" <= ch <= "\u1fff" for ch in word):
        return "el"
    if any("\u0400" <= ch <= "\u04ff" for ch in word):
        return language if language in ("ru", "uk", "bg", "sr", "be") else "ru"
    return language


def patterns_break(dictionary: pyphen.Pyphen, before: str, after: str) -> bool | None:
    """Whether the patterns break before+after where the line did; None if not letters."""
    tail = after[: next((i for i, ch in enumerate(after) if not ch.isalpha()), len(after))]
    if not before.isalpha() or not tail:
        return None
    return len(before) in dictionary.positions(before + tail)


def main(argv: list[str] | None = None) -> int:
    """Compare today's rule with hyphenation patterns on the open line-end hyphens."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args(argv)
    files = pdf_files(args.paths)
    dictionaries: dict[str, pyphen.Pyphen | None] = {}
    counts: Counter[tuple[str, str]] = Counter()
    keeps: dict[tuple[str, str], Case] = {}
    for path in files:
        for name, language, before, after in open_cases(path):
            lang = word_language(before + after, language)
            if lang not in dictionaries:
                found = pyphen.language_fallback(lang)
                dictionaries[lang] = pyphen.Pyphen(lang=found) if found else None
            dictionary = dictionaries[lang]
            verdict = None if dictionary is None else patterns_break(dictionary, before, after)
            label = {None: "no dictionary or not letters", True: "agree", False: "would keep"}
            counts[(lang, label[verdict])] += 1
            if verdict is False:
                keeps.setdefault((before, after), (name, lang, before, after))
    for (lang, label), number in sorted(counts.items()):
        print(f"{lang}\t{label}\t{number}")
    print(f"total\t{sum(counts.values())}\tfiles\t{len(files)}\tdistinct kept\t{len(keeps)}")
    for name, lang, before, after in sorted(keeps.values()):
        print(f"{name}\t{lang}\t{before}-{after}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
