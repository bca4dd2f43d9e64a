"""Small corpora written into a folder: one writer, and the file sets several tests share."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def write_corpus(root: Path, files: Mapping[str, str]) -> Path:
    """Write each file (a path relative to root -> its text) under root and return root."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


PIPELINE_FILES = {
    "catalog.toml": (
        '["a.md"]\naccess = "public"\nversion = "1"\n'
        '["b.md"]\naccess = "public"\nversion = "1"\n'
        '["staff/c.md"]\naccess = "staff"\nversion = "1"\n'
    ),
    "a.md": "# Sprinklers\n\nOscillating sprinklers carry an 18 month warranty.\n",
    "b.md": "# Mowers\n\nLawn mowers carry a two year warranty.\n",
    "staff/c.md": "# Till codes\n\nThe sprinkler refund code is 4471.\n",
}
"""Three one-paragraph documents, one of them staff: the ingest and index tests' corpus."""


def write_pipeline_corpus(root: Path) -> Path:
    """Write the three-document corpus (two public, one staff) under root and return root."""
    return write_corpus(root, PIPELINE_FILES)
