from __future__ import annotations

import json
import re
import webbrowser
from pathlib import Path

import pytest
from support.cli import APP, runner
from support.corpora import write_corpus

from policy_assistant.chunk import make_chunker
from policy_assistant.cli import inspect_cmd
from policy_assistant.index import BM25_DEFAULTS, DocumentEntry, Manifest, sort_chunks, write_index
from policy_assistant.parse import parse_path

DATA_RE = re.compile(r'<script type="application/json" id="data">(.*?)</script>', re.DOTALL)


FILES = {
    "catalog.toml": '["policies/a.md"]\naccess = "public"\nversion = "1"\n',
    "policies/a.md": (
        "# Alpha\n\nFirst sentence here. Second sentence follows it.\n\n"
        "- one item of a list\n- another item\n\n| h1 | h2 |\n|--|--|\n| x | y |\n"
    ),
    "b.md": "# Beta\n\nJust one paragraph of text.\n",
}
"""A catalogued document with sentences, a list and a table, and an uncatalogued one."""


def test_terminal_view_of_one_document(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    result = runner.invoke(
        APP,
        ["inspect", "policies/a.md", "--corpus", str(corpus), "--chunker", "fixed", "--size", "4"],
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "policies/a.md — Alpha · fixed (size 4)" in out
    assert "# ⟦1 Alpha" in out  # piped: plain text, headings marked with '#'
    assert "First sentence here. ⟦2 Second" in out
    assert "• ⟦3 one item of a ✂⟦4 list" in out
    assert re.search(r"│ x +│ ✂⟦6 y 6⟧ +│", out)
    assert "\x1b[" not in out
    doc = next(d for d in parse_path(corpus).documents if d.source == "policies/a.md")
    chunks = make_chunker("fixed", size=4).chunk(doc)
    assert f"{len(chunks)} chunks" in out
    for chunk in chunks:
        assert chunk.id in out


def test_html_page_of_one_document(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    target = tmp_path / "out" / "a.html"
    result = runner.invoke(
        APP, ["inspect", "policies/a.md", "--corpus", str(corpus), "--html", str(target)]
    )
    assert result.exit_code == 0, result.output
    assert f"wrote {target}" in result.stdout
    match = DATA_RE.search(target.read_text())
    assert match is not None
    data = json.loads(match.group(1))
    assert data["variants"][data["initial"]]["spec"] == make_chunker("structure").spec()


def test_html_of_a_folder_writes_an_index_and_a_page_per_document(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    target = tmp_path / "site" / "index.html"
    result = runner.invoke(APP, ["inspect", ".", "--corpus", str(corpus), "--html", str(target)])
    assert result.exit_code == 0, result.output
    assert "and 2 document pages beside it" in result.stdout
    index = target.read_text()
    assert 'href="b.md.html"' in index and 'href="policies/a.md.html"' in index
    page = (tmp_path / "site" / "policies" / "a.md.html").read_text()
    assert 'href="../index.html"' in page


def test_a_folder_without_html_is_a_usage_error(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    result = runner.invoke(APP, ["inspect", "policies", "--corpus", str(corpus)])
    assert result.exit_code == 2
    assert "is a folder" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["inspect", "nope.md"], "no such document"),
        (
            ["inspect", "b.md", "--chunker", "fixed", "--max-words", "3"],
            "does not take --max-words",
        ),
        (["inspect", "b.md", "--chunker", "magic"], "unknown chunker"),
        (["inspect", "b.md", "--open"], "--open opens the page that --html writes"),
        (["inspect", "b.md", "--index", "ix", "--size", "3"], "--index shows the index's own"),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    result = runner.invoke(APP, [*args, "--corpus", str(corpus)])
    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_open_without_a_display_warns_and_opens_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(inspect_cmd.sys, "platform", "linux")
    opened: list[str] = []

    def fake_open(url: str) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(webbrowser, "open", fake_open)
    target = tmp_path / "a.html"
    args = ["inspect", "b.md", "--corpus", str(corpus), "--html", str(target), "--open"]
    result = runner.invoke(APP, args)
    assert result.exit_code == 0, result.output
    assert opened == []
    assert "no display to open a browser on" in result.stderr
    monkeypatch.setenv("DISPLAY", ":0")
    result = runner.invoke(APP, args)
    assert result.exit_code == 0
    assert opened == [target.resolve().as_uri()]
    assert f"opened {target}" in result.stderr


def build_index(corpus: Path, folder: Path, size: int) -> list:
    docs = parse_path(corpus).documents
    chunker = make_chunker("fixed", size=size)
    chunks = sort_chunks([c for doc in docs for c in chunker.chunk(doc)])
    entries = [
        DocumentEntry.from_document(doc, [c.id for c in chunks if c.source == doc.source])
        for doc in docs
    ]
    write_index(folder, chunks, Manifest.create(chunker.spec(), BM25_DEFAULTS, entries))
    return [c for c in chunks if c.source == "policies/a.md"]


def test_index_chunks_are_drawn_over_the_document(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    indexed = build_index(corpus, tmp_path / "ix", size=3)
    result = runner.invoke(
        APP, ["inspect", "policies/a.md", "--corpus", str(corpus), "--index", str(tmp_path / "ix")]
    )
    assert result.exit_code == 0, result.output
    assert f"fixed (size 3) · {len(indexed)} chunks" in result.stdout
    assert all(c.id in result.stdout for c in indexed)


def test_a_document_changed_since_indexing_is_refused(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    build_index(corpus, tmp_path / "ix", size=3)
    (corpus / "policies" / "a.md").write_text("# Alpha\n\nRewritten since.\n")
    result = runner.invoke(
        APP, ["inspect", "policies/a.md", "--corpus", str(corpus), "--index", str(tmp_path / "ix")]
    )
    assert result.exit_code == 1
    assert "changed since the index" in result.stderr and "policy-assistant ingest" in result.stderr


def test_a_missing_index_says_what_to_run(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    result = runner.invoke(
        APP, ["inspect", "b.md", "--corpus", str(corpus), "--index", str(tmp_path / "none")]
    )
    assert result.exit_code == 1
    assert "no index at" in result.stderr


def test_warranty_policy_page_break_and_table(corpus_dir: Path) -> None:
    result = runner.invoke(
        APP, ["inspect", "policies/warranty-policy.pdf", "--corpus", str(corpus_dir)]
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    rule = next(i for i, line in enumerate(lines) if re.search(r"╌+ page 2 ╌+", line))
    assert 0 < rule < len(lines) - 1
    assert "whole in #" in result.stdout  # structure keeps the 12-row table in one chunk
    assert sum("│" in line for line in lines) >= 13  # the table's rows as rows
