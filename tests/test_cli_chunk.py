"""The chunk command, driven through Typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import APP, runner
from support.corpora import write_corpus

MARKDOWN = (
    "# Alpha guide\n\nFirst paragraph. It has two sentences.\n\n## Table\n\n"
    "| h1 | h2 |\n|--|--|\n| x | y |\n| z | w |\n\n## Care\n\n- one item\n- two items\n"
)


FILES = {
    "catalog.toml": (
        '["a.md"]\naccess = "public"\nversion = "1"\n["b.md"]\naccess = "staff"\nversion = "2"\n'
    ),
    "a.md": MARKDOWN,
    "b.md": "# Beta\n\n" + " ".join(f"w{i}" for i in range(250)) + "\n",
}
"""A structured public document and a long staff one."""


def test_json_lines_one_chunk_per_line(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    result = runner.invoke(APP, ["chunk", str(corpus), "--json"])
    assert result.exit_code == 0, result.output
    chunks = [json.loads(line) for line in result.stdout.splitlines()]
    assert {c["source"] for c in chunks} == {"a.md", "b.md"}
    assert all(
        c["chunker"] == {"name": "structure", "max_words": 200, "max_table_words": 800}
        for c in chunks
    )
    assert {c["access"] for c in chunks if c["source"] == "b.md"} == {"staff"}


def test_size_options_reach_the_chunker(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    args = [
        "chunk",
        str(corpus / "b.md"),
        "--chunker",
        "overlapping",
        "--size",
        "50",
        "--overlap",
        "10",
    ]
    result = runner.invoke(APP, [*args, "--json"])
    assert result.exit_code == 0, result.output
    chunks = [json.loads(line) for line in result.stdout.splitlines()]
    # 251 words: ceil((251 - 10) / 40) = 7 windows.
    assert len(chunks) == 7
    assert chunks[0]["chunker"] == {"name": "overlapping", "size": 50, "overlap": 10}


def test_table_and_readout_per_document(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    result = runner.invoke(APP, ["chunk", str(corpus), "--chunker", "fixed", "--size", "5"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "a.md:" in out and "b.md:" in out and "all 2 documents" in out
    for label in ("words per chunk", "tables cut", "chunks starting inside", "words stored"):
        assert label in out


def test_parse_output_is_accepted_and_out_is_written(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    parsed = tmp_path / "docs.jsonl"
    parse = runner.invoke(APP, ["parse", str(corpus), "--out", str(parsed)])
    assert parse.exit_code == 0, parse.output
    target = tmp_path / "out" / "chunks.jsonl"
    from_parse = runner.invoke(APP, ["chunk", str(parsed), "--out", str(target), "-q"])
    assert from_parse.exit_code == 0, from_parse.output
    direct = runner.invoke(APP, ["chunk", str(corpus), "--json"])
    assert target.read_text() == direct.stdout
    assert "quality" in from_parse.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--chunker", "nope"], "unknown chunker 'nope'"),
        (["--chunker", "fixed", "--overlap", "3"], "does not take --overlap"),
        (
            ["--chunker", "overlapping", "--size", "10", "--overlap", "10"],
            "--overlap must be smaller than --size",
        ),
        (["--max-words", "0"], "--max-words must be positive, got 0"),
    ],
)
def test_bad_settings_exit_2_saying_what_is_wrong(
    tmp_path: Path, args: list[str], message: str
) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    result = runner.invoke(APP, ["chunk", str(corpus), *args])
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stdout == ""


def test_a_damaged_parse_output_exits_1_naming_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "docs.jsonl"
    bad.write_text('{"source": "a.md"}\n')
    result = runner.invoke(APP, ["chunk", str(bad)])
    assert result.exit_code == 1
    assert "docs.jsonl: line 1 is not a parsed document" in result.stderr


def test_chunk_has_help() -> None:
    result = runner.invoke(APP, ["chunk", "--help"])
    assert result.exit_code == 0
    for option in (
        "--chunker",
        "--size",
        "--overlap",
        "--max-words",
        "--max-table-words",
        "--overlap-sentences",
        "--json",
        "--out",
    ):
        assert option in result.stdout


def chunk_numbers(text: str, ids: list[str]) -> list[int]:
    """Return the number shown on the row of each chunk ID, in the order of ids."""
    rows = {i: line for line in text.splitlines() for i in ids if i in line}
    return [int(rows[i].split(i)[0].strip(" │✂")) for i in ids]


def test_chunk_and_inspect_number_the_same_chunk_alike_from_1(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    path, settings = str(corpus / "a.md"), ["--chunker", "fixed", "--size", "5"]
    listed = runner.invoke(APP, ["chunk", path, "--json", *settings])
    records = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [r["position"] for r in records] == list(range(len(records)))  # JSON stays 0-based
    ids = [r["id"] for r in records]
    table = runner.invoke(APP, ["chunk", path, "-q", *settings], env={"COLUMNS": "120"})
    drawn = runner.invoke(
        APP, ["inspect", "a.md", "--corpus", str(corpus), "-q", *settings], env={"COLUMNS": "120"}
    )
    assert table.exit_code == drawn.exit_code == 0, table.output + drawn.output
    expected = list(range(1, len(ids) + 1))
    assert chunk_numbers(drawn.stdout, ids) == expected
    assert chunk_numbers(table.stdout, ids) == expected
