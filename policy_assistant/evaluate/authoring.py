"""Help for writing questions: check a questions file alone, list a document's sections.

Both parse the corpus as eval does, so what they say holds for eval: a section path printed
here is one a question's `section` may name, and a span is in the parsed text, the offsets a
passage's `start`/`end` take.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policy_assistant.errors import PolicyAssistantError
from policy_assistant.evaluate.locate import sections_of, show_path
from policy_assistant.evaluate.questions import QuestionSet, load_questions
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


def check_questions(
    questions_path: Path, corpus: Path, options: CorpusOptions | None = None
) -> QuestionsCheck:
    """Parse the corpus and check every question against it, without running eval."""
    parsed = parse_path(corpus, options=options)
    loaded = load_questions(questions_path, parsed.documents, strict=False, corpus_root=parsed.root)
    return QuestionsCheck(loaded, tuple(str(f) for f in parsed.failures))


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
        section = show_path(self.path)
        return {"section": section, "path": list(self.path), "start": self.start, "end": self.end,
                "words": self.words}  # fmt: skip


def document_sections(
    corpus: Path, source: str, options: CorpusOptions | None = None
) -> list[SectionRow]:
    """Return every section of one document of the corpus, in reading order."""
    document = find_document(parse_path(corpus, options=options).documents, source, corpus)
    return [
        SectionRow(s.path, s.span[0], s.span[1], count_words(document.text[s.span[0] : s.span[1]]))
        for s in sections_of(document)
    ]


def find_document(documents: list[Document], source: str, corpus: Path) -> Document:
    """Return the document `source`; the error names the corpus and the nearest source."""
    for document in documents:
        if document.source == source:
            return document
    close = difflib.get_close_matches(source, [d.source for d in documents], n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    raise PolicyAssistantError(f"{corpus}: no document {source!r}{hint}")
