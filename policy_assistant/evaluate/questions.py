"""The question set: one JSON object per line, each checked against the parsed corpus.

A line looks like::

    {"id": "q01", "question": "How long is the sprinkler warranty?", "audience": "public",
     "relevant": [{"source": "policies/warranty-policy.pdf", "section": "Garden watering",
                   "evidence": "Sprinkler systems | 2 years"}], "tags": ["table"]}

`section` may be left out (for collections without headings) and `tags` is optional. Loading
checks every question and reports every problem at once, each naming its question.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from policy_assistant.errors import QuestionsError
from policy_assistant.evaluate.locate import (
    CollapsedText,
    Section,
    Span,
    collapse_whitespace,
    match_sections,
    sections_of,
    show_path,
)
from policy_assistant.ids import file_sha256
from policy_assistant.records import ACCESS_LABELS, Document

QUESTION_KEYS = frozenset({"id", "question", "audience", "relevant", "tags"})
"""Fields a question may have."""
PASSAGE_KEYS = frozenset({"source", "section", "evidence"})
"""Fields a relevant passage may have."""
MAX_REPORTED_PROBLEMS = 25
"""Problems listed in one error before the rest are only counted."""


@dataclass(frozen=True, slots=True)
class Passage:
    """One passage that answers a question, located in the parsed text."""

    source: str
    """The document's source path."""
    section: str | None
    """The section named in the questions file, or None."""
    evidence: str
    """The verbatim quote, as written in the questions file."""
    evidence_span: Span
    """Where the quote lies in the document's text."""
    section_span: Span | None
    """Where the named section lies, or None when no section was named."""

    @property
    def target(self) -> Span:
        """The span a chunk must overlap to be relevant: the section's, else the quote's."""
        return self.section_span or self.evidence_span


@dataclass(frozen=True, slots=True)
class Question:
    """A question as its users would ask it, with the passages that answer it."""

    id: str
    """Unique identifier within the file."""
    question: str
    """The question text, as the retriever receives it."""
    audience: str
    """public or staff: public questions may only see public chunks."""
    relevant: tuple[Passage, ...]
    """One or more passages that answer the question."""
    tags: tuple[str, ...] = ()
    """Free labels for what the question exercises (table, page-break, french, ...)."""


@dataclass(frozen=True, slots=True)
class QuestionSet:
    """A loaded, validated questions file."""

    path: Path
    """The file the questions came from."""
    sha256: str
    """Hex SHA-256 of the file's bytes, for the report's settings."""
    questions: tuple[Question, ...]
    """The questions, in file order."""


def load_questions(path: Path, documents: list[Document]) -> QuestionSet:
    """Read a questions file and check every question against the parsed documents."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise QuestionsError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    finder = EvidenceFinder(documents)
    problems: list[tuple[int, str]] = []
    questions: list[Question] = []
    seen: dict[str, int] = {}
    for number, raw in read_lines(data, problems):
        try:
            question = build_question(raw, finder)
            if question.id in seen:
                raise QuestionsError(f"id already used on line {seen[question.id]}")
        except QuestionsError as exc:
            name = raw.get("id")
            problems.append((number, f"question {name!r}: {exc}" if name else str(exc)))
            continue
        seen[question.id] = number
        questions.append(question)
    if not problems and not questions:
        problems.append((0, "no questions"))
    if problems:
        raise QuestionsError(describe_problems(path, sorted(problems)))
    return QuestionSet(path, file_sha256(data), tuple(questions))


def describe_problems(path: Path, problems: list[tuple[int, str]]) -> str:
    """Return one error message listing the problems of a questions file, by line."""
    shown = [f"  line {n}: {p}" if n else f"  {p}" for n, p in problems[:MAX_REPORTED_PROBLEMS]]
    more = len(problems) - len(shown)
    lines = [f"{path}: {len(problems)} problem{'s' if len(problems) > 1 else ''}:", *shown]
    if more:
        lines.append(f"  ... and {more} more")
    return "\n".join(lines)


def read_lines(data: bytes, problems: list[tuple[int, str]]) -> list[tuple[int, dict[str, Any]]]:
    """Return (line number, object) for each non-blank line; malformed lines become problems."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problems.append((0, f"not UTF-8 text (byte offset {exc.start})"))
        return []
    out: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            problems.append((number, f"not valid JSON: {exc}"))
            continue
        if not isinstance(value, dict):
            problems.append((number, "expected a JSON object"))
            continue
        out.append((number, value))
    return out


def build_question(raw: dict[str, Any], finder: EvidenceFinder) -> Question:
    """Check one question's fields and locate its passages."""
    unknown = sorted(set(raw) - QUESTION_KEYS)
    if unknown:
        raise QuestionsError(f"unknown fields {unknown}")
    qid = text_field(raw, "id")
    audience = text_field(raw, "audience")
    if audience not in ACCESS_LABELS:
        raise QuestionsError(f"audience {audience!r} is not one of {', '.join(ACCESS_LABELS)}")
    relevant = raw.get("relevant")
    if not isinstance(relevant, list) or not relevant:
        raise QuestionsError("relevant must be a non-empty list of passages")
    tags = raw.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise QuestionsError("tags must be a list of strings")
    passages = tuple(finder.passage(p, audience, i) for i, p in enumerate(relevant, 1))
    return Question(qid, text_field(raw, "question"), audience, passages, tuple(tags))


def within(inner: Span, outer: Span) -> bool:
    """Return whether span `inner` lies inside span `outer`."""
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def text_field(raw: dict[str, Any], name: str, context: str = "") -> str:
    """Return a required non-empty string field, or raise naming it."""
    value = raw.get(name)
    if not isinstance(value, str) or not value.strip():
        raise QuestionsError(f"{context}{name} must be a non-empty string")
    return value


class EvidenceFinder:
    """Locate passages in the parsed documents, caching each document's collapsed text."""

    def __init__(self, documents: list[Document]) -> None:
        self.documents = {d.source: d for d in documents}
        self._collapsed: dict[str, CollapsedText] = {}
        self._sections: dict[str, list[Section]] = {}

    def passage(self, raw: Any, audience: str, number: int) -> Passage:
        """Check one relevant passage and return it located."""
        context = f"relevant[{number}]: "
        if not isinstance(raw, dict):
            raise QuestionsError(f"{context}expected an object with source and evidence")
        unknown = sorted(set(raw) - PASSAGE_KEYS)
        if unknown:
            raise QuestionsError(f"{context}unknown fields {unknown}")
        document = self.document(text_field(raw, "source", context), context)
        if audience == "public" and document.access != "public":
            raise QuestionsError(
                f"{context}a public question cannot be answered from {document.source}, "
                f"which is {document.access}"
            )
        section = raw.get("section")
        if section is not None and (not isinstance(section, str) or not section.strip()):
            raise QuestionsError(f"{context}section must be a non-empty string when given")
        section_span = self.section_span(document, section, context) if section else None
        evidence = text_field(raw, "evidence", context)
        span = self.evidence_span(document, evidence, section_span, context)
        return Passage(document.source, section, evidence, span, section_span)

    def document(self, source: str, context: str) -> Document:
        """Return the parsed document `source`, or raise naming the near misses."""
        if source in self.documents:
            return self.documents[source]
        close = difflib.get_close_matches(source, list(self.documents), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise QuestionsError(f"{context}unknown source {source!r}{hint}")

    def section_span(self, document: Document, section: str, context: str) -> Span:
        """Return the span of the one section `section` names in the document."""
        sections = self._sections.setdefault(document.source, sections_of(document))
        found = match_sections(sections, section)
        if len(found) == 1:
            return found[0].span
        if found:
            paths = "; ".join(show_path(s.path) for s in found)
            raise QuestionsError(
                f"{context}section {section!r} is ambiguous in {document.source} ({paths}); "
                f"give the path, e.g. 'Parent {'>'} Heading'"
            )
        names = [s.path[-1] for s in sections]
        close = difflib.get_close_matches(section, names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise QuestionsError(f"{context}no section {section!r} in {document.source}{hint}")

    def evidence_span(
        self, document: Document, evidence: str, scope: Span | None, context: str
    ) -> Span:
        """Return the span of the one occurrence of the quote within scope (or the document)."""
        quote = collapse_whitespace(evidence)
        collapsed = self._collapsed.get(document.source)
        if collapsed is None:
            collapsed = self._collapsed[document.source] = CollapsedText.of(document.text)
        everywhere = collapsed.find_all(quote)
        inside = [s for s in everywhere if scope is None or within(s, scope)]
        short = quote if len(quote) <= 60 else quote[:57] + "..."
        if len(inside) == 1:
            return inside[0]
        if len(inside) > 1:
            raise QuestionsError(
                f"{context}quote {short!r} occurs {len(inside)} times in {document.source}; "
                "quote more of it, or name its section"
            )
        if everywhere:
            raise QuestionsError(
                f"{context}quote {short!r} is in {document.source} but not in the section named"
            )
        raise QuestionsError(f"{context}quote {short!r} not found in {document.source}")
