"""A writer removes only what an index made, and refuses a folder that is not an index."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from policy_assistant.chunk import make_chunker
from policy_assistant.cli import app
from policy_assistant.errors import BadIndex
from policy_assistant.ingest.pipeline import ingest

STRUCTURE = make_chunker("structure")


def small_corpus(root: Path, word: str = "sprinklers") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "a.md").write_text(f"---\naccess: public\n---\n# A\n\n{word} carry a warranty.\n")
    return root


def test_a_foreign_folder_named_like_a_generation_survives_every_write(tmp_path: Path) -> None:
    corpus, index_dir = small_corpus(tmp_path / "c"), tmp_path / "index"
    ingest(corpus, index_dir, STRUCTURE)
    foreign = index_dir / "gen-0123456789abcdef"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("years of work")
    ingest(corpus, index_dir, STRUCTURE)  # nothing to write: leftovers are cleaned
    small_corpus(corpus, "mowers")
    assert ingest(corpus, index_dir, STRUCTURE).written
    assert (foreign / "thesis.tex").read_text() == "years of work"
    gens = sorted(p.name for p in index_dir.glob("gen-*"))
    assert len(gens) == 2 and foreign.name in gens


def test_a_non_empty_folder_that_is_not_an_index_is_refused(tmp_path: Path) -> None:
    corpus, home = small_corpus(tmp_path / "c"), tmp_path / "home"
    home.mkdir()
    (home / "notes.txt").write_text("mine")
    with pytest.raises(BadIndex, match="not an index folder"):
        ingest(corpus, home, STRUCTURE)
    assert sorted(p.name for p in home.iterdir()) == ["notes.txt"]
    result = CliRunner().invoke(app, ["ingest", str(corpus), "--index", str(home), "-q"])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "not an index folder" in lines[0], result.stderr


def test_an_empty_or_new_folder_and_an_index_are_written(tmp_path: Path) -> None:
    corpus = small_corpus(tmp_path / "c")
    (tmp_path / "empty").mkdir()
    for target in (tmp_path / "empty", tmp_path / "new", tmp_path / "new"):
        ingest(corpus, target, STRUCTURE)
        assert (target / "CURRENT").is_file()
