"""Run the comparison: parse once, chunk and index per chunker, score every question."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from policy_assistant import __version__
from policy_assistant.chunk import CHUNKERS, MODEL_CHUNKERS, SemanticChunker, chunk_documents
from policy_assistant.errors import PolicyAssistantError, QuestionsError, UsageError
from policy_assistant.evaluate.bootstrap import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Bootstrap,
)
from policy_assistant.evaluate.budget_units import (
    WORDS,
    budget_sizes,
    check_unit,
    measure_of,
    unit_settings,
)
from policy_assistant.evaluate.chunk_records import ChunkFile, load_chunk_file
from policy_assistant.evaluate.dense import (
    DEFAULT_VECTOR_CACHE,
    EvalModel,
    ModelUnavailable,
    as_ranker,
    check_rankers,
    ranker_row,
)
from policy_assistant.evaluate.peers import peer_warnings
from policy_assistant.evaluate.questions import Question, QuestionSet, load_questions
from policy_assistant.evaluate.report import ChunkerRun, EvalReport, compare, summarize
from policy_assistant.evaluate.retrieval import (
    IndexRetriever,
    Retriever,
    candidates,
    chunk_retriever,
)
from policy_assistant.evaluate.score import Layout, QuestionOutcome, score_question
from policy_assistant.evaluate.variants import Variant, parse_variants, report_spec
from policy_assistant.ids import content_id
from policy_assistant.index import Index, open_index
from policy_assistant.index.settings import BM25_DEFAULTS, UNIT_SETTINGS, BM25Settings
from policy_assistant.index.tokenize import TOKENIZER_SETTINGS
from policy_assistant.parse import CorpusOptions, read_corpus
from policy_assistant.records import Chunk, Document

DEFAULT_QUESTIONS = Path("questions/questions.jsonl")
"""Where eval looks for the questions when none are given."""
DEFAULT_BUDGETS = (100, 200, 400)
"""Context budgets in words, prefixes included."""
DEFAULT_K = 5
"""Results counted by hit@k."""

Progress = Callable[[int, int, str], None]
"""Called as progress(done, total, item): files while parsing, then chunkers."""
RetrieverFactory = Callable[[Sequence[Chunk]], Retriever]
"""Builds the retriever over one chunker's chunks."""


@dataclass(frozen=True)
class EvalSettings:
    """What to compare and how."""

    chunkers: tuple[str, ...] = tuple(CHUNKERS)
    """Chunker variants to compare, in the order shown: `structure`, `fixed:size=50`, ..."""
    chunker_options: dict[str, int] = field(default_factory=dict)
    """Settings given on the command line; each chunker takes the ones it knows."""
    budgets: tuple[int, ...] = DEFAULT_BUDGETS
    """Context budgets in words."""
    k: int = DEFAULT_K
    """Results counted by hit@k."""
    seed: int = DEFAULT_SEED
    """Seed of the bootstrap resamples."""
    resamples: int = DEFAULT_RESAMPLES
    """Bootstrap resamples."""
    level: float = DEFAULT_LEVEL
    """Confidence level of the intervals."""
    indexes: tuple[Path, ...] = ()
    """Index folders evaluated as they were built and shipped, beside the chunkers."""
    chunk_files: tuple[Path, ...] = ()
    """Files of chunk records from any tool, one variant each."""
    strict: bool = False
    """Stop on any invalid question instead of leaving it out."""
    strategies: tuple[str, ...] = ()
    """Context strategies over retrieval units (evaluate/strategies.py), beside the chunkers."""
    budget_unit: str = WORDS
    """What budgets count: words, or tokens (evaluate/budget_units.py)."""
    bm25: BM25Settings = BM25_DEFAULTS
    """How chunks are scored (the report records it)."""
    rankers: tuple[str, ...] = ("bm25",)
    """Rankers each chunker's row is searched with (bm25, dense, hybrid): a row per pair."""
    model: Path | None = None
    """The embedding model of dense, hybrid and the semantic chunker (None: DEFAULT_MODEL)."""
    vector_cache: Path | None = DEFAULT_VECTOR_CACHE
    """Where vectors are kept between runs, by model and text (None: not kept)."""

    def __post_init__(self) -> None:
        # Every stage indexes budgets by position: one order (ascending, no repeats) for all.
        object.__setattr__(self, "budgets", tuple(sorted(set(self.budgets))))

    def check(self) -> tuple[Variant, ...]:
        """Return the chunker variants; UsageError when the settings cannot be run."""
        variants = parse_variants(self.chunkers)
        if not (variants or self.indexes or self.chunk_files or self.strategies):
            raise UsageError("name at least one chunker, chunk file, index or strategy")
        if not self.budgets or any(b < 1 for b in self.budgets):
            raise UsageError("budgets must be whole numbers of words, at least 1")
        check_unit(self.budget_unit)
        if self.strategies and self.budget_unit != WORDS:
            raise UsageError("--strategy packs budgets in words only: drop --budget-unit tokens")
        if self.k < 1:
            raise UsageError(f"k must be at least 1, got {self.k}")
        check_rankers(self.rankers)
        if self.strategies:
            from policy_assistant.evaluate.strategies import (
                NEEDS_VECTORS,
                named_strategies,
                runs_under,
            )

            named = named_strategies(self.strategies)  # unknown or repeated names: usage errors
            if not any(runs_under(s.context, r) for s in named for r in self.rankers):
                # Fail before the work, not with a table that lacks every row asked for.
                raise UsageError(f"--strategy {','.join(self.strategies)}: {NEEDS_VECTORS}")
        unused = sorted(
            key for key in self.chunker_options if not any(key in v.takes for v in variants)
        )
        if unused:
            raise UsageError(f"no chunker compared takes {', '.join(unused)}")
        for variant in variants:
            variant.make(self.chunker_options)
        return variants


def needs_model(settings: EvalSettings, variants: Sequence[Variant]) -> bool:
    """Return whether a row of the run needs the embedding model."""
    dense = any(r != "bm25" for r in settings.rankers)
    return dense or any(v.chunker in MODEL_CHUNKERS for v in variants)


def run_eval(
    corpus: Path,
    questions_path: Path,
    settings: EvalSettings,
    progress: Progress | None = None,
    options: CorpusOptions | None = None,
) -> EvalReport:
    """Parse the corpus, load the questions, and compare the chunkers on them."""
    settings.check()
    parsed = read_corpus(corpus, options, progress=progress)
    # What parsed is evaluated; a question citing a file that did not is invalid, saying why.
    failed = {f.source: f.problem for f in parsed.failures}
    question_set = load_questions(
        questions_path, parsed.documents, settings.strict, parsed.root, failed
    )
    files = [load_chunk_file(p, parsed.documents) for p in settings.chunk_files]
    with ExitStack() as stack:
        shipped = [
            stack.enter_context(_open_shipped(p, parsed.documents)) for p in settings.indexes
        ]
        report = evaluate(
            parsed.documents,
            question_set,
            settings,
            progress=progress,
            shipped=shipped,
            chunk_files=files,
        )
    where = {**report.settings, "corpus": _corpus_identity(corpus, parsed.documents)}
    placed = [w for w in (f.warning() for f in files) if w is not None]
    placed += peer_warnings(report.runs)
    unparsed = [f"{f}; evaluated without it" for f in parsed.failures]
    warnings = (*unparsed, *parsed.notices, *parsed.warnings, *question_set.warnings(), *placed)
    return replace(report, settings=where, warnings=(*warnings, *report.warnings))


@dataclass(frozen=True)
class _Shipped:
    """An index folder evaluated as built: its name in the report, its spec, the open index."""

    name: str
    """Row name: index:<folder>."""
    spec: dict[str, Any]
    """The chunker spec its manifest records, and the folder."""
    index: Index
    """The open index, searched as users search it."""


@contextmanager
def _open_shipped(index_dir: Path, documents: Sequence[Document]) -> Iterator[_Shipped]:
    """Open an index for eval; an error unless it was built from these documents' bytes."""
    with open_index(index_dir) as index:
        parsed = {d.source: d.sha256 for d in documents}
        entries = index.manifest.documents
        stale = sorted(e.source for e in entries if parsed.get(e.source, e.sha256) != e.sha256)
        if stale:
            listed = ", ".join(stale[:3]) + (
                f" and {len(stale) - 3} more" if len(stale) > 3 else ""
            )
            raise PolicyAssistantError(
                f"index {index_dir} was built from other versions of {listed}: ingest it again"
            )
        name = f"index:{portable_path(index_dir)}"
        yield _Shipped(name, {**index.manifest.chunker, "index": portable_path(index_dir)}, index)


def evaluate(
    documents: Sequence[Document],
    question_set: QuestionSet,
    settings: EvalSettings,
    make_retriever: RetrieverFactory | None = None,
    progress: Progress | None = None,
    shipped: Sequence[_Shipped] = (),
    chunk_files: Sequence[ChunkFile] = (),
) -> EvalReport:
    """Compare the chunkers (and chunk files, shipped indexes) on parsed documents and questions."""
    variants = settings.check()
    factory = make_retriever or (lambda chunks: chunk_retriever(chunks, settings.bm25))
    questions = question_set.questions
    if not questions:
        raise QuestionsError(f"{question_set.path}: no valid questions to evaluate")
    model = EvalModel(settings.model, settings.vector_cache)
    todo = [(v.name, chunked(documents, v, settings, model)) for v in variants]
    todo += [(f.name, given(f)) for f in chunk_files]
    todo += [(one.name, _shipped_rows(one)) for one in shipped]
    names = [ranker_row(name, r) for name, _ in todo for r in settings.rankers]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"two rows would be named {twice[0]!r}: give the files other names")
    runs: list[ChunkerRun] = []
    skipped: list[str] = []
    for done, (name, build) in enumerate(todo, 1):
        rows = _ranked_rows(name, build, settings, factory, model)
        for row in rows:
            if isinstance(row, str):
                skipped.append(row)
                continue
            row_name, spec, chunks, retriever = row
            outcomes = _score_all(questions, chunks, retriever, settings)
            runs.append(ChunkerRun(row_name, spec, chunks, outcomes))
        if progress:
            progress(done, len(todo), name)
    if settings.strategies:
        from policy_assistant.evaluate.strategies import unit_strategy_runs

        found, left_out = unit_strategy_runs(
            documents, questions, settings.strategies, settings, model
        )
        runs += found
        skipped += left_out
    if needs_model(settings, variants):
        model.save()
    if not runs:
        raise PolicyAssistantError(f"no row could be evaluated: {'; '.join(skipped)}")
    boot = Bootstrap(len(questions), settings.seed, settings.resamples, settings.level)
    return EvalReport(
        settings=_report_settings(question_set, runs, settings, model.identity()),
        questions=questions,
        runs=tuple(runs),
        summaries=tuple(summarize(run, settings.budgets, boot) for run in runs),
        comparisons=tuple(compare(runs, settings.budgets, boot)),
        invalid=question_set.invalid,
        warnings=tuple(skipped),
    )


Row = tuple[str, dict[str, Any], tuple[Chunk, ...], Retriever]
"""One row to score: its name, spec, chunks and retriever."""


def _ranked_rows(
    name: str, build: Build, settings: EvalSettings, factory: RetrieverFactory, model: EvalModel
) -> list[Row | str]:
    """Return a variant's row per ranker, or for a row that cannot run, one line saying why."""
    try:
        spec, chunks, shipped = build()
    except ModelUnavailable as exc:  # the semantic chunker without its model
        return [f"left out {name}: {exc}"]
    rows: list[Row | str] = []
    vectors: Any = None
    for ranker in settings.rankers:
        row_name = ranker_row(name, ranker)
        if ranker == "bm25":
            retriever: Retriever = factory(chunks) if shipped is None else shipped
            rows.append((row_name, spec, chunks, retriever))
            continue
        ranked_spec = {**spec, "ranker": ranker}
        if shipped is not None:
            if not shipped.index.has_vectors():
                rows.append(f"left out {row_name}: the index holds no vectors")
            else:
                rows.append(
                    (
                        row_name,
                        ranked_spec,
                        chunks,
                        IndexRetriever(shipped.index, as_ranker(ranker)),
                    )
                )
            continue
        try:
            vectors = model.vectors(chunks) if vectors is None else vectors
            retriever = model.retriever(chunks, vectors, settings.bm25, ranker)
        except ModelUnavailable as exc:
            rows.append(f"left out {row_name}: {exc}")
            continue
        rows.append((row_name, ranked_spec, chunks, retriever))
    return rows


Build = Callable[[], tuple[dict[str, Any], tuple[Chunk, ...], IndexRetriever | None]]
"""Makes one variant's spec and chunks when its turn comes, and for a shipped index the
retriever over it (None: the chunks are indexed in memory, once per ranker)."""


def chunked(
    documents: Sequence[Document], variant: Variant, settings: EvalSettings, model: EvalModel
) -> Build:
    """Return the build of a chunker variant's rows: chunk the documents (the semantic
    chunker with the run's model)."""

    def build() -> tuple[dict[str, Any], tuple[Chunk, ...], IndexRetriever | None]:
        chunker = variant.make(settings.chunker_options)
        if isinstance(chunker, SemanticChunker):
            chunker.encoder = model.encoder()
        chunks = tuple(chunk_documents(documents, chunker))
        return report_spec(chunker), chunks, None

    return build


def given(chunk_file: ChunkFile) -> Build:
    """Return the build of a chunk file's rows: its chunks, indexed as ours are."""
    return lambda: (chunk_file.spec, chunk_file.chunks, None)


def _shipped_rows(one: _Shipped) -> Build:
    """Return the build of a shipped index's rows: its chunks, searched in the index itself."""
    return lambda: (one.spec, tuple(one.index.chunks()), IndexRetriever(one.index, "bm25"))


def _score_all(
    questions: Sequence[Question],
    chunks: Sequence[Chunk],
    retriever: Retriever,
    settings: EvalSettings,
) -> tuple[QuestionOutcome, ...]:
    """Rank and score every question with one chunker's chunks."""
    sizes = budget_sizes(chunks, settings.budget_unit)
    layout = Layout(chunks, sizes, measure_of(settings.budget_unit))
    budgets = settings.budgets
    out = []
    for question in questions:
        ranking = candidates(retriever, question, sizes, settings.k, budgets[-1])
        out.append(score_question(question, ranking, chunks, layout, settings.k, budgets, sizes))
    return tuple(out)


def _report_settings(
    question_set: QuestionSet,
    runs: Sequence[ChunkerRun],
    settings: EvalSettings,
    model: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Return what the figures depend on, as the report records it (the rankers and the
    model only when a row used them, so a BM25 run's report keeps its form)."""
    return {
        "tool": {"name": "policy-assistant", "version": __version__},
        "questions": {
            "path": portable_path(question_set.path),
            "sha256": question_set.sha256,
            "count": len(question_set.questions),
        },
        "chunkers": [run.spec for run in runs],
        "budgets": list(settings.budgets),
        "budget_unit": unit_settings(settings.budget_unit),
        "k": settings.k,
        **ranking_settings(settings),
        **({"retrieval_units": UNIT_SETTINGS} if settings.strategies else {}),
        **dense_settings(settings, model),
    }


def dense_settings(settings: EvalSettings, model: dict[str, Any] | None) -> dict[str, Any]:
    """Return the rankers and the model a report records, only when a row used them."""
    dense: dict[str, Any] = {}
    if settings.rankers != ("bm25",):
        dense["rankers"] = [as_ranker(r).to_dict() for r in settings.rankers]
        dense["unit_rankers"] = [as_ranker(r, units=True).to_dict() for r in settings.rankers]
    if model is not None:
        dense["embedding"] = model
    return dense


def ranking_settings(settings: EvalSettings) -> dict[str, Any]:
    """Return the settings every report records of how it ranked and resampled."""
    return {
        "tokenizer": TOKENIZER_SETTINGS,
        "bm25": settings.bm25.to_dict(),
        "bootstrap": {
            "seed": settings.seed,
            "resamples": settings.resamples,
            "level": settings.level,
        },
    }


def _corpus_identity(corpus: Path, documents: Sequence[Document]) -> dict[str, Any]:
    """Return the corpus as the report records it: where, and a hash of what it held."""
    contents = [[d.source, d.sha256] for d in documents]
    return {"path": portable_path(corpus), "documents": len(documents), "id": content_id(contents)}


def portable_path(path: Path) -> str:
    """Return a path fit for a committed file: relative to the working folder when it can be."""
    if not path.is_absolute():
        return path.as_posix()
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.name
