"""`policy-assistant ingest`: parse, chunk and index a corpus, doing again only what changed."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from policy_assistant.chunk import CHUNKERS
from policy_assistant.cli.common import (
    err,
    guarded,
    out,
    print_notices,
    print_warnings,
    progress_bar,
    report_failures,
)
from policy_assistant.cli.engine_options import (
    EngineName,
    RayAddress,
    Stages,
    batch_progress,
    chosen_engine,
)
from policy_assistant.cli.index_options import LockWait, set_wait
from policy_assistant.cli.options import (
    DEFAULT_CHUNKER,
    AsJson,
    DefaultAccess,
    Exclude,
    Include,
    IndexDir,
    MaxFileSize,
    MaxTableWords,
    MaxWords,
    NoOcr,
    Overlap,
    OverlapSentences,
    Quiet,
    Size,
    Workers,
    check_bm25_variant,
    chunker_settings,
    corpus_options,
    given_corpus,
    make_cli_chunker,
    set_ocr,
)
from policy_assistant.cli.summary import summary_table
from policy_assistant.errors import UsageError
from policy_assistant.index import resolve_index_dir
from policy_assistant.index.settings import VARIANTS, BM25Settings
from policy_assistant.ingest.embedding import (
    HINT,
    RUNTIMES,
    EmbedChoice,
    dense_missing,
    load_embedding,
    sticky_embedding,
)
from policy_assistant.ingest.pipeline import (
    IngestSummary,
    apply_corpus,
    ingest,
    sticky_settings,
)
from policy_assistant.jsonio import json_text
from policy_assistant.parse.files import printable

if TYPE_CHECKING:
    from policy_assistant.chunk import Chunker
    from policy_assistant.index.store.vectors import Embedding
    from policy_assistant.ingest.watch import Watch
    from policy_assistant.parse import CorpusOptions


def register(app: typer.Typer) -> None:
    """Add the ingest command to the app."""
    app.command("ingest")(guarded(_ingest_command))


def _ingest_command(
    corpus: Annotated[Path, typer.Argument(help="The corpus folder (or one file).")],
    index: IndexDir = None,
    chunker: Annotated[
        str | None,
        typer.Option(
            "--chunker",
            help=f"One of: {', '.join(CHUNKERS)} [the index's own, else {DEFAULT_CHUNKER}].",
            show_default=False,
        ),
    ] = None,
    size: Size = None,
    overlap: Overlap = None,
    max_words: MaxWords = None,
    max_table_words: MaxTableWords = None,
    overlap_sentences: OverlapSentences = None,
    bm25_variant: Annotated[
        str | None,
        typer.Option(
            "--bm25",
            help=f"BM25 scoring: {' or '.join(VARIANTS)} [the index's own, else lucene].",
            show_default=False,
        ),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Stop at the first bad file; keep the old index.")
    ] = False,
    as_json: AsJson = False,
    quiet: Quiet = False,
    include: Include = None,
    exclude: Exclude = None,
    default_access: DefaultAccess = None,
    max_file_size: MaxFileSize = None,
    no_ocr: NoOcr = False,
    workers: Workers = None,
    units: Annotated[
        bool,
        typer.Option(
            "--units/--no-units", help="Also store retrieval units, which search --budget reads."
        ),
    ] = True,
    watch: Annotated[
        bool,
        typer.Option(
            "--watch",
            help="Keep running: ingest each change to the corpus as it happens (Ctrl-C stops).",
        ),
    ] = False,
    wait: LockWait = None,
    engine_name: EngineName = "local",
    ray_address: RayAddress = None,
    embed_model: Annotated[
        str | None,
        typer.Option(
            "--embed",
            metavar="MODEL",
            help="Also store each chunk's vector, made by this local sentence-transformers "
            "model (a folder, or a name in the Hugging Face cache; nothing is downloaded) "
            "[the index's own, else none]. Needs the dense extra.",
            show_default=False,
        ),
    ] = None,
    embed_runtime: Annotated[
        str | None,
        typer.Option(
            "--embed-runtime",
            help="auto, onnx or numpy: what runs the --embed model [the index's own, else auto].",
            show_default=False,
        ),
    ] = None,
    no_embed: Annotated[
        bool, typer.Option("--no-embed", help="Drop the index's vectors (BM25 only).")
    ] = False,
) -> None:
    """Parse, chunk and index a corpus; unchanged documents are not parsed again."""
    _check_usage(bm25_variant, watch, strict)
    set_wait(wait)
    given = chunker_settings(size, overlap, max_words, max_table_words, overlap_sentences)
    index_dir = resolve_index_dir(index)
    reading = given_corpus(include, exclude, default_access, max_file_size)
    sticky = sticky_settings(index_dir, chunker, given, bm25_variant, reading)
    choice = _embed_choice(index_dir, embed_model, embed_runtime, no_embed)
    embed = load_embedding(choice)
    _say_sticky([*sticky.changed, *choice.changed], [*sticky.kept, *choice.kept])
    if embed is None and not quiet and dense_missing():
        err.print(escape(HINT), highlight=False, soft_wrap=True)
    set_ocr(no_ocr)
    options = apply_corpus(corpus_options(None, None, None, None, workers=workers), sticky.corpus)
    engine = chosen_engine(engine_name, ray_address, watch)
    options = replace(options, engine=engine)
    stages = Stages(engine.report) if engine is not None else None
    made = make_cli_chunker(sticky.chunker, sticky.chunker_settings)
    bm25 = sticky.bm25
    watcher = _watcher(corpus, index_dir, made, bm25, options, units, embed) if watch else None
    with progress_bar("ingesting", quiet) as progress:
        if watcher is not None:
            summary = watcher.ingest(progress)
        else:
            run = _IngestRun(corpus, index_dir, made, bm25, strict, options, units, embed)
            summary = run.ingest(progress, stages)
    _print_summary(summary, stages, as_json)
    code = report_failures(summary.failures)
    if watcher is not None:
        from policy_assistant.cli.watch_view import WatchPrinter
        from policy_assistant.ingest.loop import watch_rounds  # watchdog: only to watch

        watch_rounds(watcher, WatchPrinter(as_json, quiet))
        code = 0  # Ctrl-C is how a watch ends
    raise typer.Exit(code)


def _check_usage(bm25_variant: str | None, watch: bool, strict: bool) -> None:
    """Refuse option combinations that cannot run, before anything is read."""
    if bm25_variant is not None:
        check_bm25_variant(bm25_variant)
    if watch and strict:
        raise UsageError("--strict stops at the first bad file and --watch goes on: give one")
    if watch:
        _require_watchdog()


def _embed_choice(
    index_dir: Path, model: str | None, runtime: str | None, drop: bool
) -> EmbedChoice:
    """Return the model to embed with (checking --embed-runtime's value first)."""
    if runtime is not None and runtime not in RUNTIMES:
        raise UsageError(f"--embed-runtime {printable(runtime)}: not one of {', '.join(RUNTIMES)}")
    return sticky_embedding(index_dir, model, runtime, drop)


def _say_sticky(changed: Sequence[str], kept: Sequence[str]) -> None:
    """Tell, on stderr, which settings an option changed and which the index kept."""
    if changed:
        err.print(f"settings changed: {escape('; '.join(changed))}", highlight=False)
    if kept:
        err.print(f"kept from the index: {escape('; '.join(kept))}", highlight=False)


@dataclass(frozen=True)
class _IngestRun:
    """One ingest as the command runs it: the library's ingest, with the engine's progress."""

    corpus: Path
    index_dir: Path
    chunker: Chunker
    bm25: BM25Settings
    strict: bool
    options: CorpusOptions
    units: bool
    embed: Embedding | None = None

    def ingest(
        self, progress: Callable[[int, int, str], None], stages: Stages | None
    ) -> IngestSummary:
        """Run it; on Ray the bar counts batches, not files, and the stages are timed."""
        if stages is not None:
            batch_progress(stages.report, progress)
        summary = ingest(
            self.corpus,
            self.index_dir,
            self.chunker,
            bm25=self.bm25,
            strict=self.strict,
            progress=progress if stages is None else None,
            options=self.options,
            units=self.units,
            embed=self.embed,
        )
        if stages is not None:
            stages.end()
        return summary


def _print_summary(summary: IngestSummary, stages: Stages | None, as_json: bool) -> None:
    """Print the notices and warnings on stderr, and the summary (table or JSON) on stdout."""
    print_notices(summary.notices)
    print_warnings(summary.warnings)
    if as_json:
        extra = {"engine": stages.to_dict()} if stages is not None else {}
        typer.echo(json_text({**summary.to_dict(), **extra}))
        return
    failed = [f.source for f in summary.failures]
    out.print(summary_table(summary, summary.index_dir.as_posix(), failed))
    for line in stages.lines() if stages is not None else []:
        out.print(f" {escape(line)}", highlight=False)


def _require_watchdog() -> None:
    """Raise UsageError, saying which extra to install, unless watchdog can be imported."""
    try:
        importlib.import_module("watchdog")
    except ImportError:
        raise UsageError(
            "--watch needs watchdog (the watch extra): pip install 'policy-assistant[watch]'"
        ) from None


def _watcher(
    corpus: Path,
    index_dir: Path,
    chunker: Chunker,
    bm25: BM25Settings,
    options: CorpusOptions,
    units: bool,
    embed: Embedding | None,
) -> Watch:
    """Return the watch of a corpus folder (a usage error for anything else)."""
    from policy_assistant.ingest.watch import Watch

    if not corpus.is_dir():
        what = "this is not one" if corpus.exists() else "there is none"
        raise UsageError(f"{printable(str(corpus))}: --watch watches a folder; {what}")
    return Watch(corpus, index_dir, chunker, bm25=bm25, options=options, units=units, embed=embed)
