"""Options several commands share, defined once so their names, help and defaults agree."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from policy_assistant.chunk import (
    CHUNKERS,
    DEFAULT_CHUNKER,
    DEFAULT_MAX_TABLE_WORDS,
    DEFAULT_MAX_WORDS,
    DEFAULT_OVERLAP,
    DEFAULT_OVERLAP_SENTENCES,
    DEFAULT_SIZE,
    Chunker,
    make_chunker,
)
from policy_assistant.cli.index_options import (  # re-exported: one place for each
    AsJson as AsJson,
)
from policy_assistant.cli.index_options import (
    Bm25Variant as Bm25Variant,
)
from policy_assistant.cli.index_options import (
    IndexDir as IndexDir,
)
from policy_assistant.cli.index_options import (
    bm25_settings as bm25_settings,
)
from policy_assistant.cli.index_options import (
    check_bm25_variant as check_bm25_variant,
)
from policy_assistant.errors import UsageError
from policy_assistant.parse import DEFAULT_CACHE_DIR, DEFAULT_MAX_FILE_SIZE, CorpusOptions

MIB = 1024 * 1024

ChunkerName = Annotated[str, typer.Option("--chunker", help=f"One of: {', '.join(CHUNKERS)}.")]
Size = Annotated[
    int | None,
    typer.Option("--size", help=f"fixed, overlapping: words per window [{DEFAULT_SIZE}]."),
]
Overlap = Annotated[
    int | None,
    typer.Option("--overlap", help=f"overlapping: words windows share [{DEFAULT_OVERLAP}]."),
]
MaxWords = Annotated[
    int | None,
    typer.Option(
        "--max-words",
        help=f"structure, sentence: words per chunk, prefix in [{DEFAULT_MAX_WORDS}].",
    ),
]
MaxTableWords = Annotated[
    int | None,
    typer.Option(
        "--max-table-words",
        help=f"structure: words up to which a table stays whole [{DEFAULT_MAX_TABLE_WORDS}].",
    ),
]
OverlapSentences = Annotated[
    int | None,
    typer.Option(
        "--overlap-sentences",
        help=f"sentence: sentences repeated from the chunk before [{DEFAULT_OVERLAP_SENTENCES}].",
    ),
]

Include = Annotated[
    list[str] | None,
    typer.Option(
        "--include", help="Read only files matching this glob (repeatable; ** spans folders)."
    ),
]
Exclude = Annotated[
    list[str] | None,
    typer.Option("--exclude", help="Leave out files or folders matching this glob (repeatable)."),
]
DefaultAccess = Annotated[
    str | None,
    typer.Option(
        "--default-access",
        help="public or staff: the label of documents neither the catalog nor front matter "
        "labels [staff, with a warning].",
        show_default=False,
    ),
]
MaxFileSize = Annotated[
    int | None,
    typer.Option("--max-file-size", help="Largest document read, in MiB; a larger one fails."),
]
ParseCache = Annotated[
    Path,
    typer.Option("--parse-cache", help="Parse cache folder: unchanged files are not parsed again."),
]
DEFAULT_MAX_FILE_MIB = DEFAULT_MAX_FILE_SIZE // MIB
"""--max-file-size when not given."""
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
Workers = Annotated[
    int | None,
    typer.Option(
        "--workers",
        help="Processes that parse and chunk; 1 reads in this process alone "
        "[one per core this process may use].",
        show_default=False,
    ),
]
NoOcr = Annotated[
    bool,
    typer.Option("--no-ocr", help="Do not OCR scanned PDF pages (they are listed as skipped)."),
]

__all__ = [
    "DEFAULT_CACHE_DIR",
    "DEFAULT_CHUNKER",
    "DEFAULT_MAX_FILE_MIB",
    "AsJson",
    "Bm25Variant",
    "ChunkerName",
    "DefaultAccess",
    "Exclude",
    "Include",
    "IndexDir",
    "MaxFileSize",
    "MaxTableWords",
    "MaxWords",
    "NoOcr",
    "Overlap",
    "OverlapSentences",
    "ParseCache",
    "Quiet",
    "Size",
    "Workers",
    "bm25_settings",
    "check_bm25_variant",
    "chunker_settings",
    "corpus_options",
    "given_corpus",
    "make_cli_chunker",
    "set_ocr",
]


def set_ocr(no_ocr: bool) -> None:
    """Apply --no-ocr for this process."""
    from policy_assistant.parse.pdf.ocr import set_enabled

    set_enabled(not no_ocr)


def corpus_options(
    include: list[str] | None,
    exclude: list[str] | None,
    default_access: str | None,
    max_file_mib: int | None,
    cache_dir: Path | None = None,
    workers: int | None = None,
) -> CorpusOptions:
    """Return how to read the corpus, as asked; impossible values are usage errors."""
    max_file_mib = DEFAULT_MAX_FILE_MIB if max_file_mib is None else max_file_mib
    if max_file_mib <= 0:
        raise UsageError(f"--max-file-size must be above 0 (MiB), got {max_file_mib}")
    options = CorpusOptions(
        tuple(include or ()),
        tuple(exclude or ()),
        default_access,
        cache_dir,
        max_file_mib * MIB,
        workers,
    )
    options.check()
    return options


def given_corpus(
    include: list[str] | None,
    exclude: list[str] | None,
    default_access: str | None,
    max_file_mib: int | None,
) -> dict[str, object]:
    """Return the corpus options given (CorpusOptions fields; an empty glob clears its list),
    checked, leaving out those not given: ingest takes the others from the index."""
    options = corpus_options(
        [g for g in include or () if g], [g for g in exclude or () if g], default_access,
        max_file_mib,
    )  # fmt: skip
    given = {
        "include": None if include is None else list(options.include),
        "exclude": None if exclude is None else list(options.exclude),
        "default_access": default_access,
        "max_file_size": None if max_file_mib is None else options.max_file_size,
    }
    return {key: value for key, value in given.items() if value is not None}


def chunker_settings(
    size: int | None = None,
    overlap: int | None = None,
    max_words: int | None = None,
    max_table_words: int | None = None,
    overlap_sentences: int | None = None,
) -> dict[str, int]:
    """Return the chunker settings given on the command line, leaving out those not given."""
    given = {
        "size": size,
        "overlap": overlap,
        "max_words": max_words,
        "max_table_words": max_table_words,
        "overlap_sentences": overlap_sentences,
    }
    return {name: value for name, value in given.items() if value is not None}


def make_cli_chunker(name: str, settings: dict[str, int]) -> Chunker:
    """Return the chunker, with usage errors naming command-line options, not settings."""
    try:
        return make_chunker(name, **settings)
    except UsageError as exc:
        message = str(exc)
        names = {n for cls in CHUNKERS.values() for n in cls.setting_names}
        for setting in sorted(names, key=len, reverse=True):
            message = re.sub(rf"\b(?<!-){setting}\b", "--" + setting.replace("_", "-"), message)
        raise UsageError(message) from exc
