"""Help for writing questions: check a questions file alone, list a document's sections.

Both parse the corpus as eval does, so what they say holds for eval: a section path printed
here is one a question's `section` may name, and a span is in the parsed text, the offsets a
passage's `start`/`end` take.
"""

from __future__ import annotations

import difflib
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policy_assistant.atomic import atomic_write_bytes
from policy_assistant.errors import PolicyAssistantError, UsageError
from policy_assistant.evaluate.locate import sections_of, show_path
from policy_assistant.evaluate.questions import Question, QuestionSet, load_questions
from policy_assistant.index.tokenize import tokenize
from policy_assistant.jsonio import JSONDecodeError, loads
from policy_assistant.parse import CorpusOptions, parse_path
from policy_assistant.records import Document
from policy_assistant.text import count_words


@dataclass(frozen=True)
class QuestionsCheck:
    """What checking a questions file found."""

    questions: QuestionSet
    """The valid questions and, in `invalid`, every one left out with its reason."""
    parse_failures: tuple[str, ...]
    """Documents of the corpus that failed to parse: questions citing them are invalid."""
    documents: tuple[str, ...] = ()
    """Every document source of the corpus, sorted, for the coverage counts."""

    def coverage(self) -> dict[str, Any]:
        """Return what the valid questions cover: counts per audience, tag and document cited."""
        valid = self.questions.questions
        cited = Counter(source for q in valid for source in {p.source for p in q.relevant})
        return {
            "questions": len(valid),
            "invalid": len(self.questions.invalid),
            "quotes": sum(len(q.relevant) for q in valid),
            "audiences": dict(sorted(Counter(q.audience for q in valid).items())),
            "tags": dict(sorted(Counter(t for q in valid for t in set(q.tags)).items())),
            "documents": {source: cited.get(source, 0) for source in self.documents},
            "overlap": overlap_summary(valid),
        }


def word_overlap(question: Question) -> float:
    """Return the share of the question's search terms (stemmed, stopwords out, as search
    sees them) that its quotes hold: 0 when a word-matching ranker has nothing to match."""
    asked = set(tokenize(question.question))
    held = {term for passage in question.relevant for term in tokenize(passage.evidence)}
    return len(asked & held) / len(asked) if asked else 0.0


def overlap_summary(questions: tuple[Question, ...]) -> dict[str, Any]:
    """Return the questions' median word overlap with their quotes and how many share none:
    a set written from the quote scores high, one asked from the need low (harder for BM25)."""
    shares = [word_overlap(q) for q in questions]
    median = round(statistics.median(shares), 2) if shares else 0.0
    return {"median": median, "none": sum(1 for s in shares if s == 0)}


def check_questions(
    questions_path: Path, corpus: Path, options: CorpusOptions | None = None
) -> QuestionsCheck:
    """Parse the corpus and check every question against it, without running eval."""
    parsed = parse_path(corpus, options=options)
    failed = {f.source: f.problem for f in parsed.failures}
    loaded = load_questions(questions_path, parsed.documents, False, parsed.root, failed)
    sources = tuple(sorted(d.source for d in parsed.documents))
    return QuestionsCheck(loaded, tuple(str(f) for f in parsed.failures), sources)


def write_valid(source: Path, check: QuestionsCheck, out: Path) -> int:
    """Copy the lines of a JSON lines questions file whose questions check out; return how many."""
    require_lines_file(source)
    keep = {q.id for q in check.questions.questions}
    lines = source.read_text(encoding="utf-8-sig").splitlines()
    kept = [line for line in lines if line.strip() and question_id(line) in keep]
    atomic_write_bytes(out, "".join(f"{line}\n" for line in kept).encode())
    return len(kept)


def require_lines_file(source: Path) -> None:
    """Refuse a CSV questions file for --write-valid, which copies JSON lines as they are."""
    if source.suffix.lower() == ".csv":
        raise UsageError(f"{source}: --write-valid copies JSON lines files, not CSV")


def question_id(line: str) -> object:
    """Return the `id` of a questions-file line, or None when the line is not a JSON object."""
    try:
        value = loads(line)
    except JSONDecodeError:
        return None
    return value.get("id") if isinstance(value, dict) else None


@dataclass(frozen=True)
class SectionRow:
    """One section of a document: its path and its span in the parsed text."""

    path: tuple[str, ...]
    """The heading path, outermost first, ending with the heading itself."""
    start: int
    """Offset of the heading's first character in the parsed text."""
    end: int
    """Offset where the next heading of the same or a higher level starts (or the text ends)."""
    words: int
    """Words in the span, heading included."""

    def to_dict(self) -> dict[str, Any]:
        """Return the row as JSON: the path as a question's `section` writes it, and its parts."""
        # Hand-written: the derived `section` string beside the path's parts.
        section = show_path(self.path)
        return {"section": section, "path": list(self.path), "start": self.start, "end": self.end,
                "words": self.words}  # fmt: skip


def document_sections(
    corpus: Path, source: str, options: CorpusOptions | None = None
) -> list[SectionRow]:
    """Return every section of one document of the corpus, in reading order."""
    document = _find_document(parse_path(corpus, options=options).documents, source, corpus)
    return [
        SectionRow(s.path, s.span[0], s.span[1], count_words(document.text[s.span[0] : s.span[1]]))
        for s in sections_of(document)
    ]


def _find_document(documents: list[Document], source: str, corpus: Path) -> Document:
    """Return the document `source`; the error names the corpus and the nearest source."""
    for document in documents:
        if document.source == source:
            return document
    close = difflib.get_close_matches(source, [d.source for d in documents], n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    raise PolicyAssistantError(f"{corpus}: no document {source!r}{hint}")
