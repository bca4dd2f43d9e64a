"""Check an evaluation question set against the parsed corpus and print its coverage.

Usage (from the repository root)::

    .venv/bin/python scripts/check_questions.py                      # questions/questions.jsonl
    .venv/bin/python scripts/check_questions.py FILE --corpus DIR    # another set and corpus

Each question must have a unique id, a non-empty question, an audience ("public" or
"staff") and one or more relevant passages. For each passage: the source is a document
of the corpus; the section, when given, is a heading of that document (its text, or a heading path
joined with " > "); the evidence is found, after collapsing whitespace on both sides,
exactly once inside that section (or the document, when no section is named); and a
public question only cites public documents.
Tags are optional; "multi" needs two passages from different sections or documents and
"staff" needs the staff audience. The checker prints the counts per tag, per audience
and per document, and exits 1 on any problem, naming the question. With
`--write-valid FILE` it also writes the questions that check out, so a set whose quotes the
parser misses in part can still be evaluated on the rest.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from policy_assistant.parse import parse_path
from policy_assistant.records import ACCESS_LABELS, Document

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_QUESTIONS = ROOT / "questions" / "questions.jsonl"
DEFAULT_CORPUS = ROOT / "corpus"

QUESTION_KEYS = frozenset({"id", "question", "audience", "relevant", "tags"})
PASSAGE_KEYS = frozenset({"source", "section", "evidence"})
ID_PATTERN = re.compile(r"q(\d{3,})")
PATH_SEPARATOR = ">"
SPACE = re.compile(r"\s+")


def collapse(text: str) -> str:
    """Return text with every run of whitespace turned into one space, ends stripped."""
    return SPACE.sub(" ", text).strip()


def fold(text: str) -> str:
    """Return the form headings are compared in: whitespace collapsed, case folded."""
    return collapse(text).casefold()


@dataclass
class Report:
    """Problems found, and what the valid questions cover."""

    problems: list[str] = field(default_factory=list)
    tags: Counter[str] = field(default_factory=Counter)
    audiences: Counter[str] = field(default_factory=Counter)
    documents: Counter[str] = field(default_factory=Counter)
    questions: int = 0
    quotes: int = 0
    located: int = 0
    valid_lines: list[str] = field(default_factory=list)

    def problem(self, qid: str, message: str) -> None:
        """Record one problem of question `qid`."""
        self.problems.append(f"{qid}: {message}")


def section_regions(document: Document, section: str) -> tuple[list[tuple[int, int]], int]:
    """Return the text regions under the named section, and how many headings it names."""
    query = [fold(part) for part in section.split(PATH_SEPARATOR)]
    if not all(query):
        return [], 0
    wanted = [[fold(section)], query] if len(query) > 1 else [query]
    for names in wanted:
        named: set[tuple[str, ...]] = set()
        regions: list[tuple[int, int]] = []
        for block in document.blocks:
            path = [fold(p) for p in block.section]
            prefix = matching_prefix(path, names)
            if prefix is None:
                continue
            named.add(prefix)
            if regions and regions[-1][1] + 2 >= block.start:
                regions[-1] = (regions[-1][0], block.end)
            else:
                regions.append((block.start, block.end))
        if regions:
            return regions, len(named)
    return [], 0


def matching_prefix(path: list[str], names: list[str]) -> tuple[str, ...] | None:
    """Return the heading path that ends with `names` inside `path`, or None."""
    size = len(names)
    for end in range(size, len(path) + 1):
        if path[end - size : end] == names:
            return tuple(path[:end])
    return None


def did_you_mean(name: str, choices: list[str]) -> str:
    """Return ' (did you mean X?)' naming the closest choice, or an empty string."""
    close = difflib.get_close_matches(name, choices, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def count_in(text: str, quote: str) -> int:
    """Return how many times `quote` occurs in `text`, overlaps included."""
    count, at = 0, text.find(quote)
    while at >= 0:
        count += 1
        at = text.find(quote, at + 1)
    return count


def check_passage(
    qid: str, number: int, raw: Any, audience: str, docs: dict[str, Document], report: Report
) -> tuple[str, str] | None:
    """Check one relevant passage; return its (source, section) when it is sound."""
    where = f"relevant[{number}]"
    if not isinstance(raw, dict):
        report.problem(qid, f"{where}: expected an object with source, section and evidence")
        return None
    unknown = sorted(set(raw) - PASSAGE_KEYS)
    if unknown:
        report.problem(qid, f"{where}: unknown fields {unknown}")
    values = {key: raw.get(key) for key in ("source", "section", "evidence")}
    text = {k: v for k, v in values.items() if isinstance(v, str) and v.strip()}
    # The section may be left out (as the loader allows) for a document without headings.
    missing = [k for k in values if k not in text and (k != "section" or "section" in raw)]
    if missing:
        report.problem(qid, f"{where}: {', '.join(missing)} must be non-empty strings")
        return None
    source, section, evidence = text["source"], text.get("section"), text["evidence"]
    report.quotes += 1
    document = docs.get(source)
    if document is None:
        hint = did_you_mean(source, list(docs))
        report.problem(qid, f"{where}: source {source!r} is not a document of the corpus{hint}")
        return None
    if audience == "public" and document.access != "public":
        report.problem(qid, f"{where}: public question cites {source}, which is {document.access}")
    regions = [(0, len(document.text))]
    if section is not None:
        regions, named = section_regions(document, section)
        if not regions:
            headings = [b.text for b in document.blocks if b.kind == "heading"]
            hint = did_you_mean(section, headings)
            report.problem(qid, f"{where}: no section {section!r} in {source}{hint}")
            return None
        if named > 1:
            report.problem(qid, f"{where}: section {section!r} names {named} headings in {source}")
    scope = repr(section) if section is not None else source
    quote = collapse(evidence)
    short = quote if len(quote) <= 60 else quote[:57] + "..."
    inside = sum(count_in(collapse(document.text[a:b]), quote) for a, b in regions)
    if inside == 1:
        report.located += 1
        return source, fold(section) if section is not None else ""
    if inside > 1:
        report.problem(qid, f"{where}: quote {short!r} occurs {inside} times in {scope}")
    elif quote in collapse(document.text):
        report.problem(qid, f"{where}: quote {short!r} is in {source} but not in {scope}")
    else:
        report.problem(qid, f"{where}: quote {short!r} not found in {source}")
    return None


def check_question(
    raw: dict[str, Any], line: int, docs: dict[str, Document], report: Report
) -> str | None:
    """Check one question and add it to the coverage; return its id."""
    qid = raw.get("id")
    if not isinstance(qid, str) or not qid.strip():
        report.problems.append(f"line {line}: id must be a non-empty string")
        return None
    unknown = sorted(set(raw) - QUESTION_KEYS)
    if unknown:
        report.problem(qid, f"unknown fields {unknown}")
    question, audience = raw.get("question"), raw.get("audience")
    if not isinstance(question, str) or not question.strip():
        report.problem(qid, "question must be a non-empty string")
    if audience not in ACCESS_LABELS:
        report.problem(qid, f"audience {audience!r} is not one of {', '.join(ACCESS_LABELS)}")
    tags = raw.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) and t for t in tags):
        report.problem(qid, "tags must be a list of non-empty strings")
        tags = []
    relevant = raw.get("relevant")
    if not isinstance(relevant, list) or not relevant:
        report.problem(qid, "relevant must be a non-empty list of passages")
        relevant = []
    before = len(report.problems)
    found = [
        check_passage(qid, n, p, str(audience), docs, report) for n, p in enumerate(relevant, 1)
    ]
    if "multi" in tags and len({f for f in found if f}) < 2:
        report.problem(qid, "tagged multi but cites fewer than two sections or documents")
    if "staff" in tags and audience != "staff":
        report.problem(qid, "tagged staff but its audience is not staff")
    if len(report.problems) == before:
        report.questions += 1
        report.audiences[str(audience)] += 1
        report.tags.update(set(tags))
        report.documents.update({f[0] for f in found if f})
    return qid


def check_file(path: Path, documents: list[Document]) -> Report:
    """Check every question of a questions file against the parsed documents."""
    report = Report()
    docs = {d.source: d for d in documents}
    seen: dict[str, int] = {}
    previous = 0
    for line, text in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), 1):
        if not text.strip():
            continue
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            report.problems.append(f"line {line}: not valid JSON: {exc}")
            continue
        if not isinstance(raw, dict):
            report.problems.append(f"line {line}: expected a JSON object")
            continue
        before = len(report.problems)
        qid = check_question(raw, line, docs, report)
        if qid is None:
            continue
        if qid in seen:
            report.problem(qid, f"id already used on line {seen[qid]}")
        seen[qid] = line
        match = ID_PATTERN.fullmatch(qid)
        if not match or int(match.group(1)) != previous + 1:
            expected = f"q{previous + 1:03d}"
            report.problem(qid, f"ids must run q001, q002, ... in order; expected {expected}")
        previous = int(match.group(1)) if match else previous + 1
        if len(report.problems) == before:
            report.valid_lines.append(text)
    if not seen:
        report.problems.append(f"{path}: no questions")
    return report


def print_coverage(report: Report, documents: list[Document]) -> None:
    """Print the counts per tag, per audience and per document."""
    print(f"questions: {report.questions} valid")
    print(f"quotes: {report.located} of {report.quotes} located once in their section or document")
    print("audience: " + ", ".join(f"{a} {n}" for a, n in sorted(report.audiences.items())))
    print("tags:")
    for tag, count in sorted(report.tags.items(), key=lambda item: (-item[1], item[0])):
        print(f"  {tag:<16} {count}")
    sources = sorted(d.source for d in documents)
    print(f"documents cited: {len(report.documents)} of {len(sources)}")
    for source in sources:
        print(f"  {report.documents.get(source, 0):>3}  {source}")


def main(argv: list[str] | None = None) -> int:
    """Run the checker; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", nargs="?", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="corpus folder")
    parser.add_argument(
        "--write-valid",
        type=Path,
        metavar="FILE",
        help="also write the questions that check out to FILE (to evaluate a set with misses)",
    )
    args = parser.parse_args(argv)
    if not args.questions.is_file():
        print(f"error: no questions file {args.questions}", file=sys.stderr)
        return 1
    parsed = parse_path(args.corpus)
    for failure in parsed.failures:
        print(f"warning: {failure}", file=sys.stderr)
    report = check_file(args.questions, parsed.documents)
    print_coverage(report, parsed.documents)
    if args.write_valid:
        args.write_valid.write_text("".join(f"{line}\n" for line in report.valid_lines))
    if report.problems:
        print(f"\n{len(report.problems)} problem(s):", file=sys.stderr)
        for problem in report.problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    print("\nall questions check out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
