from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from support.corpora import write_pipeline_corpus
from typer.testing import CliRunner

from policy_assistant.chunk import chunk_documents, make_chunker
from policy_assistant.cli import app
from policy_assistant.errors import BadIndex
from policy_assistant.index import memory_index, open_index
from policy_assistant.parse import parse_path

runner = CliRunner()
CORPUS = Path(__file__).resolve().parents[1] / "corpus"
QUERY = "staff customer store product order refund till procedure"


def tree(index_dir: Path) -> dict[str, str]:
    return {
        p.relative_to(index_dir).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(index_dir.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


def invoke(*args: str, stdin: bytes | None = None):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args), input=stdin)


@pytest.mark.slow
def test_chunk_then_index_writes_the_bytes_ingest_writes(tmp_path: Path) -> None:
    chunks = tmp_path / "c.jsonl"
    made = invoke("chunk", str(CORPUS), "--out", str(chunks), "--quiet")
    assert made.exit_code == 0, made.output
    assert invoke("index", str(chunks), "--index", str(tmp_path / "i")).exit_code == 0
    # Units are ingest's by default; without them, ingest and index write the same bytes.
    ingested_ok = invoke("ingest", str(CORPUS), "--index", str(tmp_path / "j"), "-q", "--no-units")
    assert ingested_ok.exit_code == 0
    built, ingested = tree(tmp_path / "i"), tree(tmp_path / "j")
    assert built == ingested
    assert any(name.endswith("manifest.json") for name in built)
    found = invoke("search", "sprinkler warranty", "--index", str(tmp_path / "i"), "--json")
    assert found.exit_code == 0
    assert json.loads(found.stdout.splitlines()[0])["chunk"]["source"]


def test_index_reads_stdin_and_writes_nothing_when_nothing_changed(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    chunks = invoke("chunk", str(corpus), "--json", "--quiet").stdout_bytes
    index = str(tmp_path / "i")
    first = invoke("index", "-", "--index", index, "--json", stdin=chunks)
    assert json.loads(first.stdout)["added"] == ["a.md", "b.md", "staff/c.md"]
    before = tree(tmp_path / "i")
    again = invoke("index", "-", "--index", index, "--json", stdin=chunks)
    assert json.loads(again.stdout)["written"] is False
    assert tree(tmp_path / "i") == before
    fewer = b"".join(line + b"\n" for line in chunks.splitlines() if b'"a.md"' not in line)
    third = json.loads(invoke("index", "-", "--index", index, "--json", stdin=fewer).stdout)
    assert (third["removed"], third["written"]) == (["a.md"], True)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json\n", "<stdin>:1: not valid JSON"),
        (b'{"id": "x"}\n', "<stdin>:1: a chunk record needs 'source'"),
        (b"[1, 2]\n", "<stdin>:1: not a chunk record"),
        (b"", "no chunks to index"),
    ],
)
def test_a_bad_chunk_stream_is_one_line_and_exit_1(
    tmp_path: Path, content: bytes, message: str
) -> None:
    result = invoke("index", "-", "--index", str(tmp_path / "i"), stdin=content)
    assert result.exit_code == 1
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_chunks_of_two_chunkers_are_refused(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    one = invoke("chunk", str(corpus), "--json", "-q").stdout_bytes
    two = invoke("chunk", str(corpus), "--json", "-q", "--chunker", "fixed").stdout_bytes
    result = invoke("index", "-", "--index", str(tmp_path / "i"), stdin=one + two)
    assert result.exit_code == 1
    assert "more than one chunker" in result.stderr


def test_a_search_that_names_no_access_never_returns_staff(tmp_path: Path) -> None:
    assert invoke("ingest", str(CORPUS), "--index", str(tmp_path / "i"), "-q").exit_code == 0
    with open_index(tmp_path / "i") as index:
        labels = {c.access for c in index.chunks()}
        hits = index.search(QUERY, k=50)
        staff = index.search(QUERY, 50, "staff")
    assert labels == {"public", "staff"}
    assert len(hits) == 50  # deep enough that staff rows were passed over
    assert {h.chunk.access for h in hits} == {"public"}
    assert "staff" in {h.chunk.access for h in staff}


def test_a_damaged_label_array_raises_instead_of_leaking() -> None:
    documents = parse_path(CORPUS).documents
    chunks = chunk_documents(documents, make_chunker("structure"))
    index = memory_index(chunks)
    index.segments[0].access = np.zeros(len(chunks), np.uint8)  # every row claims public
    with pytest.raises(BadIndex, match=r"segments' access\.npy disagrees"):
        index.search("till refund procedure staff discount authorization", k=50)


def test_parse_chunk_index_through_pipes_equals_ingest(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    documents = invoke("parse", str(corpus), "--json").stdout_bytes
    chunks = invoke("chunk", "-", "--json", "-q", stdin=documents).stdout_bytes
    assert invoke("index", "-", "--index", str(tmp_path / "i"), stdin=chunks).exit_code == 0
    ingested = invoke("ingest", str(corpus), "--index", str(tmp_path / "j"), "-q", "--no-units")
    assert ingested.exit_code == 0
    assert tree(tmp_path / "i") == tree(tmp_path / "j")


def test_ls_and_show_say_what_the_index_holds(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    index = str(tmp_path / "i")
    assert invoke("ingest", str(corpus), "--index", index, "-q").exit_code == 0
    rows = [json.loads(x) for x in invoke("ls", "--index", index, "--json").stdout.splitlines()]
    assert [(r["source"], r["access"], r["chunks"]) for r in rows] == [
        ("a.md", "public", 1),
        ("b.md", "public", 1),
        ("staff/c.md", "staff", 1),
    ]
    with open_index(tmp_path / "i") as opened:
        chunk = opened.chunk(2)
    shown = json.loads(invoke("show", chunk.id, "--index", index, "--json").stdout)
    assert shown == chunk.to_dict()
    assert rows[2]["words"] == chunk.words
    missing = invoke("show", "0000000000000000", "--index", index)
    assert (missing.exit_code, "no chunk '0000000000000000'" in missing.stderr) == (1, True)


def test_an_empty_query_is_a_usage_error_and_hidden_staff_matches_are_not_said(
    tmp_path: Path,
) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    index = str(tmp_path / "i")
    assert invoke("ingest", str(corpus), "--index", index, "-q").exit_code == 0
    assert invoke("search", "  ?! ", "--index", index).exit_code == 2
    hidden = invoke("search", "sprinkler refund code", "--index", index)
    assert hidden.exit_code == 0
    assert "--access staff" not in hidden.stderr  # a.md matches publicly: nothing hidden to say
    only_staff = invoke("search", "4471", "--index", index)
    assert "staff" not in only_staff.stderr.replace("(a public search sees public chunks", "")


def test_search_verify_reports_a_damaged_file_in_one_line(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    index = tmp_path / "i"
    assert invoke("ingest", str(corpus), "--index", str(index), "-q").exit_code == 0
    assert invoke("search", "mowers", "--index", str(index), "--verify").exit_code == 0
    target = next(index.glob("gen-*/segments/seg-*/tf.npy"))
    data = bytearray(target.read_bytes())
    data[-1] ^= 0xFF
    target.write_bytes(bytes(data))
    damaged = invoke("search", "mowers", "--index", str(index), "--verify")
    assert damaged.exit_code == 1
    assert "does not match its checksum" in damaged.stderr
    assert len(damaged.stderr.strip().splitlines()) == 1
