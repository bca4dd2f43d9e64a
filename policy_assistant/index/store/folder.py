"""Where an index folder is, and which of its generations is live (the CURRENT file).

Shared by writer.py and reader.py; the layout: docs/index-format.md.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from policy_assistant.errors import BadIndex, StaleIndex

DEFAULT_INDEX_DIR = Path("build/index")
INDEX_ENV = "POLICY_ASSISTANT_INDEX"
"""Environment variable naming the index folder when --index is not given."""

GENERATION = re.compile(r"gen-[0-9a-f]{16}(-b)?")
"""A generation folder's name."""


def resolve_index_dir(option: Path | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """Return the index folder: the --index option, else $POLICY_ASSISTANT_INDEX, else default.

    A path that exists and is not a folder is refused here, before anything reads or writes it.
    """
    value = (os.environ if environ is None else environ).get(INDEX_ENV)
    chosen = option if option is not None else Path(value) if value else DEFAULT_INDEX_DIR
    return _check_folder(chosen)


def _check_folder(index_dir: Path) -> Path:
    """Return index_dir, or raise BadIndex when it exists and is not a folder."""
    if index_dir.exists() and not index_dir.is_dir():
        raise BadIndex(f"{index_dir}: is a file, not an index folder")
    return index_dir


def ingest_hint(index_dir: Path) -> str:
    """Return what to run to (re)build index_dir; it names no corpus, so a paste fills nothing."""
    extra = "" if index_dir == DEFAULT_INDEX_DIR else f" --index {index_dir}"
    return f"run `policy-assistant ingest CORPUS{extra}` with the folder you indexed as CORPUS"


def damaged(index_dir: Path, problem: object) -> BadIndex:
    """Return the error for an index whose files are unreadable or disagree."""
    one_line = " ".join(str(problem).split())  # an OS or JSON message may hold a newline
    if isinstance(problem, StaleIndex):
        where = f"index at {index_dir} was written by another version"
        return BadIndex(f"{where} ({one_line}): {ingest_hint(index_dir)}")
    return BadIndex(f"damaged index at {index_dir}: {one_line}: {ingest_hint(index_dir)}")


def read_current(index_dir: Path) -> str | None:
    """Return the generation CURRENT names, or None when there is no CURRENT."""
    try:
        return (index_dir / "CURRENT").read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise damaged(index_dir, exc) from exc


def live_generation(index_dir: Path) -> Path:
    """Return the live generation's folder, or raise BadIndex saying what to run."""
    name = read_current(_check_folder(index_dir))
    if name is None:
        raise BadIndex(f"no index at {index_dir}: {ingest_hint(index_dir)}")
    if not GENERATION.fullmatch(name) or not (index_dir / name).is_dir():
        raise damaged(index_dir, f"CURRENT names {name!r}")
    return index_dir / name
