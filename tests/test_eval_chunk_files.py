"""`eval --chunks FILE`: chunk records from any tool, placed in the parsed text and compared."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.cli import APP, runner
from support.eval_corpus import QUESTIONS, parsed_corpus, write_eval_corpus, write_questions

from policy_assistant.chunk import FixedChunker, OverlappingChunker, chunk_documents
from policy_assistant.evaluate.chunk_records import ChunkRecordsError, load_chunk_file
from policy_assistant.records import Document


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("chunkfiles")
    return write_eval_corpus(root / "corpus"), write_questions(root / "q.jsonl", QUESTIONS)


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> list[Document]:
    return parsed_corpus(tmp_path_factory.mktemp("docs") / "corpus")


def write_records(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return path


def fixed_records(documents: list[Document], keep: tuple[str, ...] | None = None) -> list[Any]:
    """Our fixed chunker's records, whole or cut down to the fields in keep."""
    chunks = chunk_documents(documents, FixedChunker(size=20))
    records = [c.to_dict() for c in chunks]
    return records if keep is None else [{k: r[k] for k in keep} for r in records]


def evaluate(paths: tuple[Path, Path], *args: str) -> Any:
    corpus, questions = paths
    common = ["eval", "--corpus", str(corpus), "--questions", str(questions), "-q"]
    return runner.invoke(APP, [*common, *args])


def figures(summary: dict[str, Any]) -> dict[str, Any]:
    return {"hit@k": summary["hit@k"], "budgets": summary["budgets"]}


def test_records_with_offsets_are_used_as_they_are(
    documents: list[Document], tmp_path: Path
) -> None:
    path = write_records(tmp_path / "ours.jsonl", fixed_records(documents))
    loaded = load_chunk_file(path, documents)
    ours = chunk_documents(documents, FixedChunker(size=20))
    assert [(c.source, c.start, c.end, c.text) for c in loaded.chunks] == [
        (c.source, c.start, c.end, c.text) for c in ours
    ]
    assert loaded.name == "chunks:ours.jsonl"
    assert loaded.unplaced == 0 and loaded.warning() is None


def test_text_only_records_are_located_in_order_at_the_same_spans(
    documents: list[Document], tmp_path: Path
) -> None:
    path = write_records(tmp_path / "text.jsonl", fixed_records(documents, ("source", "text")))
    loaded = load_chunk_file(path, documents)
    ours = chunk_documents(documents, FixedChunker(size=20))
    assert [(c.start, c.end) for c in loaded.chunks] == [(c.start, c.end) for c in ours]
    for chunk in loaded.chunks:
        body = next(d for d in documents if d.source == chunk.source).text[chunk.start : chunk.end]
        assert chunk.text.endswith(body)


def test_a_repeated_text_is_placed_after_the_copy_before_it(tmp_path: Path) -> None:
    doc = Document(
        source="a.md", title="A", version="1", access="public", language="en",
        sha256="", text="alpha beta\n\nalpha beta\n\ngamma",
    )  # fmt: skip
    records = [{"source": "a.md", "text": t} for t in ("alpha beta", "alpha beta", "gamma")]
    loaded = load_chunk_file(write_records(tmp_path / "r.jsonl", records), [doc])
    assert [(c.start, c.end) for c in loaded.chunks] == [(0, 10), (12, 22), (24, 29)]


def test_text_differing_only_in_whitespace_is_placed_and_stored_as_parsed(tmp_path: Path) -> None:
    doc = Document(
        source="a.md", title="A", version="1", access="staff", language="en",
        sha256="", text="one two\n\nthree four",
    )  # fmt: skip
    records = [{"source": "a.md", "text": "two three", "access": "public"}]
    (chunk,) = load_chunk_file(write_records(tmp_path / "r.jsonl", records), [doc]).chunks
    assert (chunk.start, chunk.end, chunk.text) == (4, 14, "two\n\nthree")
    assert chunk.access == "staff"  # the document's label, never the record's


def test_records_that_cannot_be_placed_are_counted_and_said(
    documents: list[Document], tmp_path: Path
) -> None:
    records = fixed_records(documents, ("source", "text"))
    records.insert(2, {"source": records[0]["source"], "text": "words no document holds"})
    loaded = load_chunk_file(write_records(tmp_path / "some.jsonl", records), documents)
    assert loaded.unplaced == 1
    assert loaded.warning() == (
        f"some.jsonl: 1 of {len(records)} chunks could not be placed in their document's "
        "text; they are searched but relevant to nothing"
    )


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"source": "policies/warranty.md"}, "r.jsonl:1: a chunk record needs text"),
        ({"source": "nope.md", "text": "x"}, "r.jsonl:1: source 'nope.md' is not in the corpus"),
        ({"source": "policies/warranty.md", "text": "x", "start": 0}, "both start and end"),
        (
            {"source": "policies/warranty.md", "text": "Warranty", "start": 2, "end": 10},
            "text does not end with policies/warranty.md's parsed text[2:10]",
        ),
        (
            {"source": "policies/warranty.md", "text": "x", "start": 0, "end": 10**6},
            "are not a span of policies/warranty.md's parsed text",
        ),
    ],
)
def test_a_bad_record_names_the_file_and_line(
    documents: list[Document], tmp_path: Path, record: dict[str, Any], message: str
) -> None:
    with pytest.raises(ChunkRecordsError, match=re.escape(message)):
        load_chunk_file(write_records(tmp_path / "r.jsonl", [record]), documents)


def test_a_chunk_file_scores_exactly_as_the_chunker_that_wrote_it(
    paths: tuple[Path, Path], documents: list[Document], tmp_path: Path
) -> None:
    full = write_records(tmp_path / "full.jsonl", fixed_records(documents))
    bare = write_records(tmp_path / "bare.jsonl", fixed_records(documents, ("source", "text")))
    result = evaluate(
        paths, "--chunker", "fixed:size=20", "--chunks", str(full), "--chunks", str(bare), "--json"
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["chunkers"]
    assert set(rows) == {"fixed:size=20", "chunks:full.jsonl", "chunks:bare.jsonl"}
    assert figures(rows["chunks:full.jsonl"]) == figures(rows["fixed:size=20"])
    assert figures(rows["chunks:bare.jsonl"]) == figures(rows["fixed:size=20"])
    assert rows["chunks:bare.jsonl"]["spec"] == {
        "name": "chunks", "file": "bare.jsonl", "unplaced": 0
    }  # fmt: skip


def test_chunks_alone_evaluate_only_the_file_and_a_bad_file_exits_1(
    paths: tuple[Path, Path], documents: list[Document], tmp_path: Path
) -> None:
    good = write_records(tmp_path / "good.jsonl", fixed_records(documents))
    result = evaluate(paths, "--chunks", str(good), "--json")
    assert result.exit_code == 0, result.output
    assert list(json.loads(result.stdout)["chunkers"]) == ["chunks:good.jsonl"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"source": "policies/warranty.md", "text": "x"}\nnot json\n')
    result = evaluate(paths, "--chunks", str(bad))
    assert result.exit_code == 1
    assert "bad.jsonl:2: not valid JSON" in result.stderr


def test_overlapping_windows_given_as_text_are_placed_at_their_own_spans(
    documents: list[Document], tmp_path: Path
) -> None:
    ours = chunk_documents(documents, OverlappingChunker(size=12, overlap=6))
    records = [{"source": c.source, "text": c.text} for c in ours]
    loaded = load_chunk_file(write_records(tmp_path / "overlap.jsonl", records), documents)
    assert loaded.unplaced == 0
    assert [(c.source, c.start, c.end) for c in loaded.chunks] == [
        (c.source, c.start, c.end) for c in ours
    ]


def test_two_chunk_files_of_one_name_are_refused(
    paths: tuple[Path, Path], documents: list[Document], tmp_path: Path
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one = write_records(tmp_path / "a" / "c.jsonl", fixed_records(documents))
    two = write_records(tmp_path / "b" / "c.jsonl", fixed_records(documents))
    result = evaluate(paths, "--chunks", str(one), "--chunks", str(two))
    assert result.exit_code == 2
    assert "two rows would be named 'chunks:c.jsonl'" in result.stderr
