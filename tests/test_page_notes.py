"""The eval page and inspect's pages say what the terminal says, and when they hold staff text."""

from __future__ import annotations

from pathlib import Path

from support.corpora import write_corpus
from support.eval_corpus import QUESTIONS, write_eval_corpus, write_questions
from typer.testing import CliRunner

from policy_assistant.cli import app
from policy_assistant.inspect.html import STAFF_NOTE

runner = CliRunner()


def test_the_eval_page_holds_the_warnings_the_reading_and_a_staff_note(tmp_path: Path) -> None:
    corpus = write_eval_corpus(tmp_path / "corpus")
    questions = write_questions(tmp_path / "q.jsonl", [*QUESTIONS, {"id": "bad"}])
    page = tmp_path / "eval.html"
    result = runner.invoke(
        app,
        ["eval", "--corpus", str(corpus), "--questions", str(questions), "--chunker",
         "structure,fixed", "-q", "--workers", "1", "--html", str(page),
         "--parse-cache", str(tmp_path / "cache")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    text = page.read_text(encoding="utf-8")
    assert "questions left out" in text  # a warning the terminal prints
    best = next(line for line in result.stdout.splitlines() if line.startswith("B="))
    assert best.split(":")[0] in text and "Reading" in text
    assert STAFF_NOTE in text


def test_inspect_pages_say_the_warnings_and_mark_staff_text(tmp_path: Path) -> None:
    files = {
        "catalog.toml": '["staff/**"]\naccess = "staff"\n["a.md"]\naccess = "public"\n',
        "a.md": "# A\n\nPublic words here.\n",
        "b.md": "# B\n\nNobody labelled this one.\n",
        "staff/c.md": "# C\n\nStaff words here.\n",
    }
    corpus = write_corpus(tmp_path / "c", files)
    target = tmp_path / "site" / "index.html"
    args = ["inspect", ".", "--corpus", str(corpus), "--html", str(target), "--workers", "1"]
    result = runner.invoke(app, [*args, "--parse-cache", str(tmp_path / "pc")])
    assert result.exit_code == 0, result.output
    index = target.read_text(encoding="utf-8")
    assert "b.md: no access label; treated as staff" in index and STAFF_NOTE in index
    assert STAFF_NOTE in (tmp_path / "site" / "staff" / "c.md.html").read_text(encoding="utf-8")
    assert STAFF_NOTE not in (tmp_path / "site" / "a.md.html").read_text(encoding="utf-8")
    assert "no access label" in (tmp_path / "site" / "b.md.html").read_text(encoding="utf-8")
