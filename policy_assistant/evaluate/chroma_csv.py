"""Questions in the CSV layout of Chroma's chunking evaluation, turned into our questions.

Each row has `question`, `references` (a JSON list of objects with `content`, `start_index` and
`end_index`: offsets into the corpus file's text as Python reads it, universal newlines) and
`corpus_id` (the corpus file: a document's source, or its source without the extension). Our
evidence offsets are into the parsed text, which differs from the file's (Markdown marks gone,
whitespace normalized), so each reference is mapped: the quote must be the file's text at its
offsets, and its k-th copy in the file is taken to be its k-th copy in the parsed text (copies
counted with whitespace collapsed on both sides, so a sentence wrapped at other points is the
same copy), which holds only when both have as many copies; else the question is invalid and
says why. Rows have no id: a row's id is `row<N>`, N counting data rows from 1.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeGuard

from policy_assistant.evaluate.locate import CollapsedText, collapse_whitespace
from policy_assistant.jsonio import JSONDecodeError, loads
from policy_assistant.records import Document

COLUMNS = ("question", "references", "corpus_id")
"""The columns a Chroma questions file must have."""

Row = tuple[int, dict[str, Any]]
"""(line number, a question in our format) for one row."""
Problem = tuple[int, str | None, str]
"""(line number, the row's id, the reason) for a row that cannot be used."""


class RowError(ValueError):
    """One row that cannot be turned into a question; the message says why."""


def read_chroma_rows(
    text: str, documents: Sequence[Document], corpus_root: Path | None
) -> tuple[list[Row], list[Problem]]:
    """Return each usable row as one of our questions, and a reason for each other row."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        return [], [(0, None, f"not a Chroma questions CSV: no column {', '.join(missing)}")]
    mapper = FileOffsets(documents, corpus_root)
    rows: list[Row] = []
    problems: list[Problem] = []
    line = 2
    for number, record in enumerate(reader, 1):
        qid = f"row{number}"
        try:
            rows.append((line, mapper.question(qid, record)))
        except RowError as exc:
            problems.append((line, qid, str(exc)))
        line = reader.line_num + 1
    return rows, problems


class FileOffsets:
    """Map offsets into a corpus file's text to the parsed text, caching what each needs."""

    def __init__(self, documents: Sequence[Document], corpus_root: Path | None) -> None:
        self.documents = {d.source: d for d in documents}
        self.stems = {Path(d.source).with_suffix("").as_posix(): d for d in documents}
        self.root = corpus_root
        self._files: dict[str, str] = {}
        self._collapsed: dict[str, CollapsedText] = {}
        self._file_collapsed: dict[str, CollapsedText] = {}

    def question(self, qid: str, record: dict[str, Any]) -> dict[str, Any]:
        """Return one row as a question of our format, evidence pinned in the parsed text."""
        question = (record.get("question") or "").strip()
        if not question:
            raise RowError("question is empty")
        try:
            references = loads(record.get("references") or "")
        except JSONDecodeError as exc:
            raise RowError(f"references is not JSON ({exc})") from None
        if not isinstance(references, list) or not references:
            raise RowError("references must be a non-empty JSON list")
        document = self.document(record.get("corpus_id") or "")
        passages = [self.passage(document, ref, i) for i, ref in enumerate(references, 1)]
        audience = "public" if document.access == "public" else "staff"
        return {"id": qid, "question": question, "audience": audience, "relevant": passages}

    def document(self, corpus_id: str) -> Document:
        """Return the document a corpus_id names: its source, or its source without extension."""
        found = self.documents.get(corpus_id) or self.stems.get(corpus_id)
        if found is None:
            raise RowError(f"corpus_id {corpus_id!r} names no document of the corpus")
        return found

    def passage(self, document: Document, ref: Any, number: int) -> dict[str, Any]:
        """Return one reference as a passage with start/end in the parsed text."""
        where = f"references[{number}]: "
        if not isinstance(ref, dict) or not isinstance(ref.get("content"), str):
            raise RowError(f"{where}expected an object with content, start_index, end_index")
        content, start, end = ref["content"], ref.get("start_index"), ref.get("end_index")
        if not whole(start) or not whole(end):
            raise RowError(f"{where}start_index and end_index must be whole numbers")
        source_text = self.file_text(document)
        if source_text[start:end] != content:
            raise RowError(
                f"{where}{document.source}'s file text at [{start}:{end}] is not the content"
            )
        span = self.map_span(document, source_text, content, start, where)
        return {"source": document.source, "evidence": content, "start": span[0], "end": span[1]}

    def map_span(
        self, document: Document, source_text: str, content: str, start: int, where: str
    ) -> tuple[int, int]:
        """Return the parsed-text span of the copy of content that starts at `start` in the file."""
        # Copies are counted with whitespace collapsed on both sides: a sentence the file
        # wraps at another point is still the same copy once the parser has joined its lines.
        quote = collapse_whitespace(content)
        if document.source not in self._file_collapsed:
            self._file_collapsed[document.source] = CollapsedText.of(source_text)
        copies = [s[0] for s in self._file_collapsed[document.source].find_all(quote)]
        lead = len(content) - len(content.lstrip())
        if start + lead not in copies:
            raise RowError(f"{where}the content at {start} is not a copy of the quote in the file")
        copy = copies.index(start + lead)
        if document.source not in self._collapsed:
            self._collapsed[document.source] = CollapsedText.of(document.text)
        spans = self._collapsed[document.source].find_all(quote)
        if not spans:
            raise RowError(f"{where}the content is not in {document.source}'s parsed text")
        if len(spans) != len(copies):
            raise RowError(
                f"{where}the content occurs {len(copies)} times in {document.source}'s file and "
                f"{len(spans)} times in its parsed text: which copy is meant cannot be told"
            )
        return spans[copy]

    def file_text(self, document: Document) -> str:
        """Return the document's file as text, read as Chroma's evaluation reads it."""
        if document.source not in self._files:
            if self.root is None:
                raise RowError("offsets into a file need the corpus folder to read it")
            try:
                with (self.root / document.source).open(encoding="utf-8") as handle:
                    self._files[document.source] = handle.read()
            except (OSError, UnicodeDecodeError) as exc:
                raise RowError(f"cannot read {document.source} as UTF-8 text ({exc})") from None
        return self._files[document.source]


def whole(value: Any) -> TypeGuard[int]:
    """Return whether value is a whole number (and not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)
