"""A public search that finds nothing says the same whether or not staff chunks match."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from policy_assistant.chunk import make_chunker
from policy_assistant.cli import app
from policy_assistant.ingest.pipeline import ingest


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    corpus = tmp_path / "c"
    (corpus / "staff").mkdir(parents=True)
    (corpus / "a.md").write_text("---\naccess: public\n---\n# Mowers\n\nMowers carry a warranty.\n")
    (corpus / "staff" / "c.md").write_text(
        "---\naccess: staff\n---\n# Till codes\n\nThe refund code is 4471.\n"
    )
    ingest(corpus, tmp_path / "i", make_chunker("structure"))
    return tmp_path / "i"


def _search(index_dir: Path, query: str, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["search", query, "--index", str(index_dir), *args])
    return result.exit_code, result.stdout, result.stderr.replace(query, "QUERY")


@pytest.mark.parametrize("extra", [(), ("--json",), ("--budget", "50")], ids=str)
def test_a_public_caller_cannot_tell_a_staff_match_from_no_match(index_dir, extra) -> None:
    staff_word = _search(index_dir, "4471", *extra)
    no_word = _search(index_dir, "zyzzyva", *extra)
    assert staff_word == no_word
    assert staff_word[0] == 0 and "no " in staff_word[2] and "4471" not in staff_word[1]


def test_a_staff_caller_finds_the_staff_chunk(index_dir: Path) -> None:
    code, stdout, stderr = _search(index_dir, "4471", "--access", "staff", "--json")
    assert code == 0 and "4471" in stdout and not stderr
