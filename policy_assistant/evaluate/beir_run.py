"""Eval on a BEIR folder: chunk its documents per variant, rank documents, score nDCG, MRR, recall.

Each variant (a chunker setting, or a chunk file) chunks the folder's documents, and each
ranker asked for (BM25, dense, hybrid: the same in-memory index and access path as every eval
row) ranks chunks for each query, a row per variant and ranker; the ranking is folded to
documents by their best chunk (evaluate/ir_measures.py) and scored against the qrels. Every
figure is a mean over the judged queries with a bootstrap interval, and every pair of rows is
compared on the same resamples. BEIR judges whole
documents and quotes no evidence, so the chunk figures (hit@k, complete@B, ...) are not measured.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from policy_assistant import __version__
from policy_assistant.chunk import Chunker, SemanticChunker, chunk_documents
from policy_assistant.errors import PolicyAssistantError, QuestionsError, UsageError
from policy_assistant.evaluate.beir import BadRow, BeirQuery, BeirSet, load_beir
from policy_assistant.evaluate.bootstrap import Bootstrap, Interval
from policy_assistant.evaluate.chunk_records import load_chunk_file
from policy_assistant.evaluate.dense import EvalModel, ModelUnavailable, ranker_row
from policy_assistant.evaluate.ir_measures import DEPTH, MEASURES, fold_to_documents, measure_query
from policy_assistant.evaluate.questions import Question
from policy_assistant.evaluate.report import Comparison, comparison_dict
from policy_assistant.evaluate.retrieval import Retriever, chunk_retriever
from policy_assistant.evaluate.run import (
    EvalSettings,
    Progress,
    dense_settings,
    portable_path,
    ranking_settings,
)
from policy_assistant.index.settings import BM25Settings
from policy_assistant.records import Chunk, Document

NO_CHUNK_FIGURES = (
    "not measured: BEIR's qrels judge whole documents and quote no evidence, so hit@k, "
    "recall@B, complete@B and evidence@B have nothing to check a chunk against"
)
"""What the report says in place of the chunk figures."""
SHOWN_RANKING = 10
"""Documents of each query's ranking kept in the report's per-query rows."""


@dataclass(frozen=True, slots=True)
class BeirRun:
    """One variant's document rankings and per-query measures."""

    name: str
    """The row's name: the variant, or chunks:<file name>."""
    spec: dict[str, Any]
    """The chunker's name and effective settings (or the chunk file's)."""
    chunks: int
    """How many chunks it made of the documents."""
    rankings: tuple[tuple[str, ...], ...]
    """Per query, the documents in the order of their best chunk, down to DEPTH."""
    values: dict[str, NDArray[np.float64]]
    """Per measure, its value for each query, in query order."""


@dataclass(frozen=True, slots=True)
class BeirReport:
    """Everything one eval run on a BEIR folder measured."""

    settings: dict[str, Any]
    """What the figures depend on: the folder, split, variants, tokenizer, BM25, bootstrap."""
    queries: tuple[BeirQuery, ...]
    """The judged queries, in queries.jsonl order."""
    runs: tuple[BeirRun, ...]
    """Per variant: rankings and per-query measures."""
    figures: dict[str, dict[str, Interval]]
    """Variant -> measure -> mean over queries with its interval."""
    comparisons: tuple[Comparison, ...]
    """Every pair of variants on every measure, paired."""
    bad: tuple[BadRow, ...] = ()
    """Lines of the folder's files left out."""
    warnings: tuple[str, ...] = ()
    """What the user should know (lines left out); not part of the JSON form."""

    def to_dict(self, detail: bool = True) -> dict[str, Any]:
        """Return the JSON form; without detail, no comparisons and no per-query rows."""
        # Hand-written: figures per variant and measure, a short and a long form.
        out: dict[str, Any] = {
            "settings": self.settings,
            "chunkers": {
                run.name: {
                    "spec": run.spec,
                    "chunks": run.chunks,
                    **{m: self.figures[run.name][m].to_dict() for m in MEASURES},
                }
                for run in self.runs
            },
            "chunk_figures": NO_CHUNK_FIGURES,
        }
        if self.bad:
            out["bad_rows"] = [
                {"file": b.file, "line": b.line, "reason": b.reason} for b in self.bad
            ]
        if detail:
            out["comparisons"] = [comparison_dict(c) for c in self.comparisons]
            out["queries"] = [self.query_dict(i, q) for i, q in enumerate(self.queries)]
        return out

    def query_dict(self, index: int, query: BeirQuery) -> dict[str, Any]:
        """Return one query's row: its judgments and, per variant, measures and top documents."""
        return {
            "id": query.id,
            "query": query.text,
            "judged": query.judged,
            "chunkers": {
                run.name: {
                    **{m: round(float(run.values[m][index]), 6) for m in MEASURES},
                    "ranking": list(run.rankings[index][:SHOWN_RANKING]),
                }
                for run in self.runs
            },
        }


Row = tuple[str, dict[str, Any], Callable[[EvalModel], Sequence[Chunk]]]
"""A variant to run: its name, its spec, and how to make its chunks (with the run's model)."""


def run_beir_eval(
    folder: Path, settings: EvalSettings, progress: Progress | None = None
) -> BeirReport:
    """Load a BEIR folder and score every variant's document rankings on its judged queries."""
    if settings.indexes or settings.strategies:
        raise UsageError("--index and --strategy do not apply to a BEIR folder")
    variants = settings.check()
    beir = load_beir(folder)
    if settings.strict and beir.bad:
        listed = "\n".join(row.describe() for row in beir.bad)  # the error indents them
        raise QuestionsError(f"{folder}: {len(beir.bad)} bad lines (--strict):\n{listed}")
    documents = beir.documents
    rows: list[Row] = []
    for variant in variants:
        chunker = variant.make(settings.chunker_options)
        rows.append((variant.name, chunker.spec(), partial(chunked, documents, chunker)))
    for path in settings.chunk_files:
        given = load_chunk_file(path, list(documents))
        rows.append((given.name, given.spec, partial(_as_given, given.chunks)))
    runs: list[BeirRun] = []
    skipped: list[str] = []
    model = EvalModel(settings.model, settings.vector_cache)
    for done, (name, spec, make) in enumerate(rows, 1):
        try:
            chunks = tuple(make(model))
        except ModelUnavailable as exc:  # the semantic chunker without its model
            skipped.append(f"left out {name}: {exc}")
            continue
        for ranker in settings.rankers:
            row = ranker_row(name, ranker)
            try:
                retriever = _row_retriever(chunks, ranker, settings.bm25, model)
            except ModelUnavailable as exc:
                skipped.append(f"left out {row}: {exc}")
                continue
            row_spec = spec if ranker == "bm25" else {**spec, "ranker": ranker}
            runs.append(_run_variant(row, row_spec, chunks, beir.queries, retriever))
        if progress:
            progress(done, len(rows), name)
    model.save()
    if not runs:
        raise PolicyAssistantError(f"no row could be evaluated: {'; '.join(skipped)}")
    boot = Bootstrap(len(beir.queries), settings.seed, settings.resamples, settings.level)
    figures = {r.name: {m: boot.mean(r.values[m]) for m in MEASURES} for r in runs}
    pairs = [
        Comparison(m, a.name, b.name, boot.difference(a.values[m], b.values[m]))
        for a, b in combinations(runs, 2)
        for m in MEASURES
    ]
    return BeirReport(
        _beir_settings(beir, runs, settings, model.identity()), beir.queries, tuple(runs),
        figures, tuple(pairs), beir.bad, (*beir.warnings(), *skipped),
    )  # fmt: skip


def chunked(documents: Sequence[Document], chunker: Chunker, model: EvalModel) -> list[Chunk]:
    """Return the documents' chunks (the semantic chunker embedding with the run's model)."""
    if isinstance(chunker, SemanticChunker):
        chunker.encoder = model.encoder()
    return chunk_documents(documents, chunker)


def _as_given(chunks: Sequence[Chunk], _: EvalModel) -> Sequence[Chunk]:
    """Return a chunk file's chunks as they are (no model needed)."""
    return chunks


def _row_retriever(
    chunks: Sequence[Chunk], ranker: str, bm25: BM25Settings, model: EvalModel
) -> Retriever:
    """Return the retriever of one row: BM25 over the chunks, or dense or hybrid with their
    vectors (ModelUnavailable when the model cannot load)."""
    if ranker == "bm25":
        return chunk_retriever(chunks, bm25)
    return model.retriever(chunks, model.vectors(chunks), bm25, ranker)


def _run_variant(
    name: str, spec: dict[str, Any], chunks: tuple[Chunk, ...], queries: Sequence[BeirQuery],
    retriever: Retriever | None = None,
) -> BeirRun:  # fmt: skip
    """Rank documents for every query by one variant's chunks (BM25 unless a retriever over
    them is given)."""
    retriever = chunk_retriever(chunks) if retriever is None else retriever
    sources = [c.source for c in chunks]
    rankings = tuple(_document_ranking(retriever, sources, q) for q in queries)
    per_query = [measure_query(r, q.judged) for r, q in zip(rankings, queries, strict=True)]
    values = {m: np.array([v[m] for v in per_query], dtype=np.float64) for m in MEASURES}
    return BeirRun(name, spec, len(chunks), rankings, values)


def _document_ranking(
    retriever: Retriever, sources: Sequence[str], query: BeirQuery
) -> tuple[str, ...]:
    """Return the documents of the chunk ranking by best chunk, searching deeper until DEPTH."""
    question = Question(query.id, query.text, "public", ())
    n = 2 * DEPTH
    while True:
        hits = retriever.search(question, n)
        documents = fold_to_documents(sources[row] for row, _ in hits)
        if len(documents) >= DEPTH or len(hits) < n:
            return tuple(documents)
        n *= 4


def _beir_settings(
    beir: BeirSet, runs: Sequence[BeirRun], settings: EvalSettings,
    model: dict[str, Any] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Return what the figures depend on, as the report records it (rankers and model only
    when a row used them)."""
    return {
        "tool": {"name": "policy-assistant", "version": __version__},
        "questions": {
            "path": portable_path(beir.folder),
            "format": "beir",
            "split": beir.split,
            "sha256": beir.sha256,
            "count": len(beir.queries),
            "unjudged_queries": beir.unjudged,
            "documents": len(beir.documents),
        },
        "chunkers": [run.spec for run in runs],
        "measures": {
            "names": list(MEASURES),
            "depth": DEPTH,
            "fold": "documents ranked by their best chunk",
            "gain": "relevance grade",
        },
        **ranking_settings(settings),
        **dense_settings(settings, model),
    }
