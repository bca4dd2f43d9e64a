"""BEIR benchmark folders: a corpus, queries and graded judgments, loaded as documents and queries.

A BEIR folder holds `corpus.jsonl` (one object a line: `_id`, `title`, `text`), `queries.jsonl`
(`_id`, `text`) and `qrels/<split>.tsv` (tab-separated, a header line `query-id corpus-id
score` (any first line whose score is not a number is taken as the header), then one judgment a
line; the score is a whole-number grade, 0 for judged not relevant).
Each corpus line becomes one public Document whose source is its `_id`, whose title is its
`title` and whose text is its `text` read as a plain-text file is (paragraphs at blank lines), so
it goes through the same chunkers, BM25 and access filter as any document. A query is evaluated
when the split judges it. A line that cannot be used (not JSON, a missing or repeated `_id`, a
judgment of an unknown query or document, a score that is not a whole number) is left out and
listed with its file and line; a missing file, or nothing left to evaluate, is an error.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from policy_assistant.errors import QuestionsError
from policy_assistant.jsonio import JSONDecodeError, compact_json, loads
from policy_assistant.parse.text import parse_text
from policy_assistant.records import Document, DocumentMeta

CORPUS_FILE = "corpus.jsonl"
"""The documents of a BEIR folder."""
QUERIES_FILE = "queries.jsonl"
"""The queries of a BEIR folder."""
DEFAULT_SPLIT = "test"
"""The qrels split evaluated: qrels/test.tsv."""
QRELS_HEADER = ("query-id", "corpus-id", "score")
"""The header line of a qrels file."""
BEIR_VERSION = "beir"
"""The version label every BEIR document gets."""


@dataclass(frozen=True, slots=True)
class BadRow:
    """A line of a BEIR file that was left out, and why."""

    file: str
    """The file, relative to the folder: corpus.jsonl, queries.jsonl, qrels/test.tsv."""
    line: int
    """1-based line number in that file."""
    reason: str
    """What is wrong with it."""

    def describe(self) -> str:
        """Return `qrels/test.tsv line 7: unknown document 'd9'`."""
        return f"{self.file} line {self.line}: {self.reason}"


@dataclass(frozen=True, slots=True)
class BeirQuery:
    """One judged query: its text, and every judgment the split gives it."""

    id: str
    """The query's `_id`."""
    text: str
    """The query text, as the retriever receives it."""
    judged: dict[str, int]
    """Document `_id` -> relevance grade (0 judged not relevant), in qrels order."""


@dataclass(frozen=True, slots=True)
class BeirSet:
    """A loaded BEIR folder: documents, judged queries and the lines left out."""

    folder: Path
    """The folder it came from."""
    split: str
    """The qrels split evaluated (test)."""
    sha256: str
    """Hex SHA-256 over the three files' bytes, for the report's settings."""
    documents: tuple[Document, ...]
    """One document per usable corpus line, in file order."""
    queries: tuple[BeirQuery, ...]
    """The queries the split judges, in queries.jsonl order."""
    unjudged: int
    """Queries of queries.jsonl the split does not judge (other splits'): not evaluated."""
    bad: tuple[BadRow, ...] = ()
    """Lines left out, each with its file, line and reason."""

    def warnings(self) -> list[str]:
        """Return one line per line left out, then their count per file."""
        lines = [f"{self.folder}: {row.describe()}" for row in self.bad]
        for name in sorted({row.file for row in self.bad}):
            count = sum(row.file == name for row in self.bad)
            lines.append(f"{self.folder}: {count} bad line{'s' * (count > 1)} of {name} left out")
        return lines


def is_beir_folder(path: Path) -> bool:
    """Return whether path is a folder holding a BEIR corpus.jsonl."""
    return path.is_dir() and (path / CORPUS_FILE).is_file()


def load_beir(folder: Path, split: str = DEFAULT_SPLIT) -> BeirSet:
    """Read a BEIR folder; bad lines are left out and listed, missing files are an error."""
    qrels_name = f"qrels/{split}.tsv"
    corpus, queries, qrels = (read(folder, n) for n in (CORPUS_FILE, QUERIES_FILE, qrels_name))
    bad: list[BadRow] = []
    documents = _read_corpus_lines(corpus, bad)
    texts = _read_query_lines(queries, bad)
    known = {d.source for d in documents}
    judged = _read_qrels(qrels, qrels_name, set(texts), known, bad)
    evaluated = tuple(BeirQuery(q, texts[q], judged[q]) for q in texts if q in judged)
    if not evaluated:
        raise QuestionsError(f"{folder}: no query of {QUERIES_FILE} is judged in {qrels_name}")
    digest = hashlib.sha256()
    for data in (corpus, queries, qrels):
        digest.update(hashlib.sha256(data).digest())
    return BeirSet(
        folder, split, digest.hexdigest(), tuple(documents), evaluated,
        len(texts) - len(evaluated), tuple(bad),
    )  # fmt: skip


def read(folder: Path, name: str) -> bytes:
    """Return the bytes of one of the folder's files, or raise naming it: missing, not UTF-8."""
    try:
        data = (folder / name).read_bytes()
    except OSError as exc:
        raise QuestionsError(
            f"{folder}: a BEIR folder needs {name}: {exc.strerror or exc}"
        ) from None
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise QuestionsError(f"{folder / name}: not UTF-8 text (byte offset {exc.start})") from None
    return data


def lines_of(data: bytes) -> list[tuple[int, str]]:
    """Return (line number, line) for each non-blank line of a UTF-8 file (checked by read)."""
    text = data.decode("utf-8-sig")
    return [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]


def _json_rows(data: bytes, name: str, bad: list[BadRow]) -> list[tuple[int, dict[str, Any]]]:
    """Return the JSON objects of a JSON-lines file; other lines become bad rows."""
    rows = []
    for number, line in lines_of(data):
        try:
            value = loads(line)
        except JSONDecodeError as exc:
            bad.append(BadRow(name, number, f"not valid JSON: {exc}"))
            continue
        if not isinstance(value, dict):
            bad.append(BadRow(name, number, "expected a JSON object"))
            continue
        rows.append((number, value))
    return rows


def _string_id(row: dict[str, Any]) -> str | None:
    """Return a row's `_id` as a string (BEIR ids are sometimes written as numbers)."""
    value = row.get("_id")
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) and value.strip() else None


def _read_corpus_lines(data: bytes, bad: list[BadRow]) -> list[Document]:
    """Return one Document per usable corpus line."""
    documents: dict[str, Document] = {}
    lines: dict[str, int] = {}
    for number, row in _json_rows(data, CORPUS_FILE, bad):
        doc_id, title, text = _string_id(row), row.get("title") or "", row.get("text")
        reason = (
            "no _id" if doc_id is None
            else f"_id {doc_id!r} already used on line {lines[doc_id]}" if doc_id in lines
            else "text must be a string" if not isinstance(text, str)
            else "title must be a string" if not isinstance(title, str)
            else None
        )  # fmt: skip
        if reason is not None or doc_id is None:
            bad.append(BadRow(CORPUS_FILE, number, reason or "no _id"))
            continue
        lines[doc_id] = number
        documents[doc_id] = _beir_document(doc_id, str(title), str(text))
    return list(documents.values())


def _beir_document(doc_id: str, title: str, text: str) -> Document:
    """Return one corpus entry as a public Document: title as title, text as body."""
    body = text.encode("utf-8")
    sha256 = hashlib.sha256(compact_json([doc_id, title, text])).hexdigest()
    meta = DocumentMeta(
        title=title.strip() or None, version=BEIR_VERSION, access="public", labelled=True
    )
    document = parse_text(body, doc_id, meta, sha256)
    # The text parser falls back on the file name for a title; a BEIR title is taken as given,
    # an empty one included, so no document ID ends up in what BM25 indexes.
    return replace(document, title=title.strip())


def _read_query_lines(data: bytes, bad: list[BadRow]) -> dict[str, str]:
    """Return query `_id` -> text for each usable line of queries.jsonl, in file order."""
    texts: dict[str, str] = {}
    lines: dict[str, int] = {}
    for number, row in _json_rows(data, QUERIES_FILE, bad):
        query_id, text = _string_id(row), row.get("text")
        reason = (
            "no _id" if query_id is None
            else f"_id {query_id!r} already used on line {lines[query_id]}" if query_id in lines
            else "text must be a non-empty string" if not isinstance(text, str) or not text.strip()
            else None
        )  # fmt: skip
        if reason is not None or query_id is None or not isinstance(text, str):
            bad.append(BadRow(QUERIES_FILE, number, reason or "no _id"))
            continue
        lines[query_id] = number
        texts[query_id] = text
    return texts


def _read_qrels(
    data: bytes, name: str, queries: set[str], documents: set[str], bad: list[BadRow]
) -> dict[str, dict[str, int]]:
    """Return query -> document -> grade from a qrels file; unusable lines become bad rows."""
    judged: dict[str, dict[str, int]] = {}
    for number, line in lines_of(data):
        fields = [f.strip() for f in line.split("\t")]
        if number == 1 and (tuple(f.lower() for f in fields) == QRELS_HEADER or _not_whole(fields)):
            continue  # the header line; BEIR's own loader skips the first line whatever it says
        reason = _judgment_problem(fields, queries, documents, judged)
        if reason is not None:
            bad.append(BadRow(name, number, reason))
            continue
        query_id, doc_id, score = fields
        judged.setdefault(query_id, {})[doc_id] = int(score)
    return judged


def _not_whole(fields: list[str]) -> bool:
    """Return whether a qrels line's third field is there and not a whole number: a header."""
    try:
        int(fields[2])
    except ValueError:
        return True
    except IndexError:
        return False
    return False


def _judgment_problem(
    fields: list[str], queries: set[str], documents: set[str], judged: dict[str, dict[str, int]]
) -> str | None:
    """Return why a qrels line cannot be used, or None when it can."""
    if len(fields) != 3:
        return f"expected 3 tab-separated fields (query-id, corpus-id, score), got {len(fields)}"
    query_id, doc_id, score = fields
    try:
        int(score)
    except ValueError:
        return f"score {score!r} is not a whole number"
    if query_id not in queries:
        return f"query {query_id!r} is not in {QUERIES_FILE}"
    if doc_id not in documents:
        return f"document {doc_id!r} is not in {CORPUS_FILE}"
    if doc_id in judged.get(query_id, {}):
        return f"query {query_id!r} already judges document {doc_id!r}"
    return None
