"""Find and parse what `inspect` is asked to show: one document, or every document of a folder.

A SOURCE is corpus-relative (`policies/warranty-policy.pdf`), as document IDs are, and is looked
up in the corpus folder; a path that exists as typed is taken too, relative to its corpus.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from policy_assistant.errors import UsageError
from policy_assistant.parse import CorpusOptions, CorpusRead, read_corpus
from policy_assistant.parse.discover import find_root
from policy_assistant.records import Document


def locate(source: str, corpus: Path) -> tuple[Path, Path]:
    """Return (corpus root, path) of SOURCE; UsageError when it is in neither place."""
    inside = corpus / source
    if inside.exists():
        return corpus, inside
    typed = Path(source)
    if typed.exists():
        root = corpus if _is_within(typed, corpus) else find_root(typed.absolute())
        if typed.is_dir() and not _is_within(typed, root):
            root = typed
        return root, typed
    raise UsageError(f"{source}: no such document in {corpus} (give a corpus-relative path)")


def _is_within(path: Path, folder: Path) -> bool:
    return _absolute(path).is_relative_to(_absolute(folder))


def _absolute(path: Path) -> Path:
    """Return the absolute path with '..' folded, links left alone (as discovery sees them)."""
    return Path(os.path.abspath(path))


def load_document(root: Path, path: Path, options: CorpusOptions | None = None) -> Document:
    """Parse one file of the corpus at `root`, labelled by the corpus's catalog."""
    read = read_corpus(_absolute(path), options, root=_absolute(root))
    if read.failures:
        raise read.failures[0]
    return read.documents[0]


def load_folder(
    root: Path,
    folder: Path,
    progress: Callable[[int, int, str], None] | None = None,
    options: CorpusOptions | None = None,
) -> CorpusRead:
    """Parse every document under `folder`, with sources relative to the corpus `root`."""
    return read_corpus(_absolute(folder), options, progress=progress, root=_absolute(root))
