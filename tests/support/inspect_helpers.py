"""Small hand-made documents and chunks for the inspect tests."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from policy_assistant.chunk import CHUNKERS
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import Chunk, Document, DocumentMeta
from policy_assistant.text import count_words

PARAGRAPH = "Wash the deck. Dry it well. Oil it twice a year."


def make_doc(paragraph: str = PARAGRAPH) -> Document:
    """A two-page document: a heading, a paragraph, a list across the page break, a table."""
    builder = DocumentBuilder()
    builder.begin_page(1)
    builder.heading("Care guide", 1, (1,))
    builder.add("paragraph", paragraph, (1,))
    builder.add("list_item", "Use a soft brush on the boards.", (1,))
    builder.begin_page(2)
    builder.add("list_item", "Never use a pressure washer up close.", (2,))
    builder.heading("Products", 2, (2,))
    builder.add("table", "Product | Use\nDeck oil | Twice a year\nCleaner | Spring", (2,))
    return builder.build("guides/deck.md", "0" * 64, DocumentMeta(access="public"), "deck")


def chunk_at(doc: Document, start: int, end: int, position: int, prefix: str = "") -> Chunk:
    """A chunk whose body is doc.text[start:end], behind `prefix`."""
    text = prefix + doc.text[start:end]
    return Chunk(
        id=f"{position:016x}",
        source=doc.source,
        title=doc.title,
        version=doc.version,
        access=doc.access,
        language=doc.language,
        chunker={"name": "hand", "size": 0},
        position=position,
        start=start,
        end=end,
        pages=(),
        sections=(),
        text=text,
        words=count_words(text),
    )


def chunks_between(doc: Document, cuts: list[tuple[str, str]]) -> list[Chunk]:
    """Chunks from the first occurrence of each start phrase to the end of each end phrase."""
    out = []
    for position, (first, last) in enumerate(cuts):
        start = doc.text.index(first)
        end = doc.text.index(last, start) + len(last)
        out.append(chunk_at(doc, start, end, position))
    return out


@functools.cache
def eval_run(corpus: Path) -> tuple[dict[str, Any], dict[str, Chunk]]:
    """The bundled questions run on the bundled corpus: the report's JSON form and the chunks."""
    from policy_assistant.evaluate import EvalSettings, run_eval

    questions = corpus.parent / "questions" / "questions.jsonl"
    report = run_eval(corpus, questions, EvalSettings(chunkers=tuple(CHUNKERS)), None)
    return report.to_dict(), {c.id: c for run in report.runs for c in run.chunks}
