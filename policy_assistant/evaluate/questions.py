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
from typing import Any, TypeGuard

from policy_assistant.errors import QuestionsError
from policy_assistant.evaluate.beir import is_beir_folder
from policy_assistant.evaluate.chroma_csv import FileOffsets, RowError, read_chroma_rows
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
from policy_assistant.jsonio import JSONDecodeError, loads
from policy_assistant.records import ACCESS_LABELS, Document
from policy_assistant.text import counted

QUESTION_KEYS = frozenset({"id", "question", "audience", "relevant", "tags"})
"""Fields a question may have."""
PASSAGE_KEYS = frozenset(
    {"source", "section", "evidence", "start", "end", "source_start", "source_end"}
)
"""Fields a relevant passage may have: start/end are offsets into the parsed text,
source_start/source_end into the document's file read as UTF-8 text."""


@dataclass(frozen=True, slots=True)
class InvalidQuestion:
    """A line of a questions file that was left out, and why."""

    line: int
    """1-based line number in the file (0 for a problem of the whole file)."""
    id: str | None
    """The question's id, when the line has one."""
    reason: str
    """What is wrong with it."""

    def describe(self) -> str:
        """Return `line 7: question 'q7': quote ... not found in ...`."""
        named = f"question {self.id!r}: {self.reason}" if self.id else self.reason
        return f"line {self.line}: {named}" if self.line else named


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
    """The valid questions, in file order."""
    invalid: tuple[InvalidQuestion, ...] = ()
    """The questions left out, each with its reason, in file order."""

    def warnings(self) -> list[str]:
        """Return one line per question left out, then their count."""
        if not self.invalid:
            return []
        lines = [f"{self.path}: {q.describe()}" for q in self.invalid]
        total = len(self.invalid) + len(self.questions)
        lines.append(f"{self.path}: {len(self.invalid)} of {total} questions left out")
        return lines


def load_questions(
    path: Path,
    documents: list[Document],
    strict: bool = True,
    corpus_root: Path | None = None,
    failed: dict[str, str] | None = None,
) -> QuestionSet:
    """Read a questions file and check every question; strict raises listing every problem.

    Not strict, the invalid questions are left out and listed in the set's `invalid`. A `.csv`
    file is read in Chroma's layout, whose offsets are into the files under corpus_root.
    failed names the corpus files that did not parse (source -> problem): a question citing
    one is invalid for that reason.
    """
    if _question_format(path) == "beir":
        raise QuestionsError(f"{path}: a BEIR folder is read by evaluate.beir.load_beir")
    if path.is_dir():
        raise QuestionsError(
            f"{path}: a folder of questions must be a BEIR folder "
            "(corpus.jsonl, queries.jsonl, qrels/test.tsv), and this one has no corpus.jsonl"
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise QuestionsError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    finder = EvidenceFinder(documents, corpus_root, failed)
    problems: list[InvalidQuestion] = []
    questions: list[Question] = []
    seen: dict[str, int] = {}
    rows = (
        _read_csv(data, documents, corpus_root, problems)
        if _question_format(path) == "chroma-csv"
        else read_lines(data, problems)
    )
    for number, raw in rows:
        try:
            question = build_question(raw, finder)
            if question.id in seen:
                raise QuestionsError(f"id already used on line {seen[question.id]}")
        except QuestionsError as exc:
            name = raw.get("id")
            problems.append(
                InvalidQuestion(number, name if isinstance(name, str) else None, str(exc))
            )
            continue
        seen[question.id] = number
        questions.append(question)
    if any(p.line == 0 for p in problems) or (strict and problems) or not questions:
        if not questions and not (strict and problems):
            problems.append(
                InvalidQuestion(0, None, "no valid questions" if problems else "no questions")
            )
        raise QuestionsError(_describe_problems(path, sorted(problems, key=lambda p: p.line)))
    return QuestionSet(path, file_sha256(data), tuple(questions), tuple(problems))


def _question_format(path: Path) -> str:
    """Return how a --questions path is read: `beir` (a folder), `chroma-csv` or `jsonl`."""
    if is_beir_folder(path):
        return "beir"
    return "chroma-csv" if path.suffix.lower() == ".csv" else "jsonl"


def _describe_problems(path: Path, problems: list[InvalidQuestion]) -> str:
    """Return one error message: the file's own problems, then one line per bad question.

    A problem of the whole file (no valid questions, not UTF-8) goes in the first line and is
    not counted with the lines': the error boundary indents the rest and caps their number.
    """
    whole = [p.reason for p in problems if p.line == 0]
    lines = [p.describe() for p in problems if p.line]
    if lines:
        whole.append(f"{counted(len(lines), 'problem')}:")
    return "\n".join([f"{path}: {'; '.join(whole)}", *lines])


def _read_csv(
    data: bytes,
    documents: list[Document],
    corpus_root: Path | None,
    problems: list[InvalidQuestion],
) -> list[tuple[int, dict[str, Any]]]:
    """Return the rows of a Chroma questions CSV as our questions; bad rows become problems."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problems.append(InvalidQuestion(0, None, f"not UTF-8 text (byte offset {exc.start})"))
        return []
    rows, bad = read_chroma_rows(text, documents, corpus_root)
    problems.extend(InvalidQuestion(line, qid, reason) for line, qid, reason in bad)
    return rows


def read_lines(data: bytes, problems: list[InvalidQuestion]) -> list[tuple[int, dict[str, Any]]]:
    """Return (line number, object) for each non-blank line; malformed lines become problems."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problems.append(InvalidQuestion(0, None, f"not UTF-8 text (byte offset {exc.start})"))
        return []
    out: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = loads(line)
        except JSONDecodeError as exc:
            problems.append(InvalidQuestion(number, None, f"not valid JSON: {exc}"))
            continue
        if not isinstance(value, dict):
            problems.append(InvalidQuestion(number, None, "expected a JSON object"))
            continue
        out.append((number, value))
    return out


def build_question(raw: dict[str, Any], finder: EvidenceFinder) -> Question:
    """Check one question's fields and locate its passages."""
    unknown = sorted(set(raw) - QUESTION_KEYS)
    if unknown:
        raise QuestionsError(f"unknown fields {unknown}")
    qid = _text_field(raw, "id")
    audience = _text_field(raw, "audience")
    if audience not in ACCESS_LABELS:
        raise QuestionsError(f"audience {audience!r} is not one of {', '.join(ACCESS_LABELS)}")
    relevant = raw.get("relevant")
    if not isinstance(relevant, list) or not relevant:
        raise QuestionsError("relevant must be a non-empty list of passages")
    tags = raw.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise QuestionsError("tags must be a list of strings")
    passages = tuple(finder.passage(p, audience, i) for i, p in enumerate(relevant, 1))
    _check_tags(tags, audience, passages)
    return Question(qid, _text_field(raw, "question"), audience, passages, tuple(tags))


def _check_tags(tags: list[str], audience: str, passages: tuple[Passage, ...]) -> None:
    """Refuse a `multi` tag on one place and a `staff` tag on a public question."""
    if "multi" in tags and len({(p.source, p.target) for p in passages}) < 2:
        raise QuestionsError("tagged multi but cites fewer than two sections or documents")
    if "staff" in tags and audience != "staff":
        raise QuestionsError("tagged staff but its audience is not staff")


def within(inner: Span, outer: Span) -> bool:
    """Return whether span `inner` lies inside span `outer`."""
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def _text_field(raw: dict[str, Any], name: str, context: str = "") -> str:
    """Return a required non-empty string field, or raise naming it."""
    value = raw.get(name)
    if not isinstance(value, str) or not value.strip():
        raise QuestionsError(f"{context}{name} must be a non-empty string")
    return value


def whole(value: Any) -> TypeGuard[int]:
    """Return whether value is a whole number (and not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _pinned_span(document: Document, raw: dict[str, Any], evidence: str, context: str) -> Span:
    """Return the span start/end give, checked to hold the quote (whitespace collapsed)."""
    start, end = raw.get("start"), raw.get("end")
    if not whole(start) or not whole(end):
        raise QuestionsError(f"{context}start and end must both be whole numbers")
    if not 0 <= start < end <= len(document.text):
        raise QuestionsError(
            f"{context}start {start} and end {end} are not a span of {document.source}'s "
            f"parsed text ({len(document.text)} characters)"
        )
    if collapse_whitespace(document.text[start:end]) != collapse_whitespace(evidence):
        found = collapse_whitespace(document.text[start:end])
        short = found if len(found) <= 60 else found[:57] + "..."
        raise QuestionsError(
            f"{context}the parsed text at [{start}:{end}] is {short!r}, not the quote"
        )
    return (start, end)


class EvidenceFinder:
    """Locate passages in the parsed documents, caching each document's collapsed text."""

    def __init__(
        self,
        documents: list[Document],
        corpus_root: Path | None = None,
        failed: dict[str, str] | None = None,
    ) -> None:
        self.documents = {d.source: d for d in documents}
        self.failed = failed or {}
        self.files = FileOffsets(documents, corpus_root)
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
        document = self.document(_text_field(raw, "source", context), context)
        if audience == "public" and document.access != "public":
            raise QuestionsError(
                f"{context}a public question cannot be answered from {document.source}, "
                f"which is {document.access}"
            )
        section = raw.get("section")
        if section is not None and (not isinstance(section, str) or not section.strip()):
            raise QuestionsError(f"{context}section must be a non-empty string when given")
        section_span = self.section_span(document, section, context) if section else None
        evidence = _text_field(raw, "evidence", context)
        if "source_start" in raw or "source_end" in raw:
            span = self.file_span(document, raw, evidence, context)
            if section_span is not None and not within(span, section_span):
                raise QuestionsError(f"{context}the quote lies outside section {section!r}")
        elif "start" in raw or "end" in raw:
            span = _pinned_span(document, raw, evidence, context)
            if section_span is not None and not within(span, section_span):
                raise QuestionsError(f"{context}start and end lie outside section {section!r}")
        else:
            span = self.evidence_span(document, evidence, section_span, context)
        return Passage(document.source, section, evidence, span, section_span)

    def file_span(
        self, document: Document, raw: dict[str, Any], evidence: str, context: str
    ) -> Span:
        """Return the parsed-text span of the quote source_start/source_end pin in the file."""
        start, end = raw.get("source_start"), raw.get("source_end")
        if not whole(start) or not whole(end) or "start" in raw or "end" in raw:
            raise QuestionsError(
                f"{context}source_start and source_end must both be whole numbers "
                "(and not given with start/end)"
            )
        try:
            text = self.files.file_text(document)
            if not 0 <= start < end <= len(text):
                raise RowError(f"source_start {start} and source_end {end} are not a span of "
                               f"{document.source}'s file ({len(text)} characters)")  # fmt: skip
            if collapse_whitespace(text[start:end]) != collapse_whitespace(evidence):
                raise RowError(f"{document.source}'s file text at [{start}:{end}] is not the quote")
            return self.files.map_span(document, text, text[start:end], start, "")
        except RowError as exc:
            raise QuestionsError(f"{context}{exc}") from None

    def document(self, source: str, context: str) -> Document:
        """Return the parsed document `source`, or raise naming the near misses."""
        if source in self.documents:
            return self.documents[source]
        if source in self.failed:
            raise QuestionsError(f"{context}{source} did not parse ({self.failed[source]})")
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
