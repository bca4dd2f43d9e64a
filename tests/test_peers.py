"""Peer chunkers inside eval: LangChain, LlamaIndex and Chonkie, their spans mapped back exactly."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from support.cli import APP, runner
from support.eval_corpus import QUESTIONS, parsed_corpus, write_eval_corpus, write_questions

from policy_assistant.errors import UsageError
from policy_assistant.evaluate.peers import PEERS, LangChainRecursive, PeerChunker
from policy_assistant.evaluate.variants import parse_variants
from policy_assistant.parse import parse_path
from policy_assistant.records import Document

FIXTURES = Path(__file__).parent / "fixtures"
REAL = [FIXTURES / "md" / "pip-repeatable-installs.md", FIXTURES / "formats" / "docutils-faq.txt"]
"""Documents nobody on the team wrote (their provenance is in the fixtures' READMEs)."""
IMPORTS = {
    "langchain-recursive": "langchain_text_splitters",
    "llamaindex-sentence": "llama_index.core",
    "chonkie-recursive": "chonkie",
}
SMALL = {
    "langchain-recursive": {"chunk_size": 300, "chunk_overlap": 80},
    "llamaindex-sentence": {"chunk_size": 64, "chunk_overlap": 16},
    "chonkie-recursive": {"chunk_size": 300},
}
"""Sizes small enough that the short texts give many chunks (overlapping where the peer can)."""


def need(name: str) -> None:
    pytest.importorskip(IMPORTS[name], reason=f"the peers extra is not installed ({name})")


def repeated_text() -> Document:
    """A document whose paragraphs repeat word for word, so a search from the start would err."""
    para = "The same notice, word for word, appears again below. Keep it in mind."
    body = "\n\n".join([f"Section {n}. {para} " * 3 for n in range(1, 4)] + [para] * 6)
    return Document("repeat.txt", "Repeat", "1", "public", "en", "0" * 64, body)


@pytest.fixture(scope="module")
def real_documents() -> list[Document]:
    return [doc for path in REAL for doc in parse_path(path).documents]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PEERS))
def test_every_peer_chunk_maps_back_exactly_to_the_parsed_text(
    name: str, real_documents: list[Document]
) -> None:
    need(name)
    for doc in [*real_documents, repeated_text()]:
        chunker = PEERS[name](**SMALL[name])
        chunks = chunker.chunk(doc)
        assert len(chunks) > 3, (name, doc.source)
        assert chunker.unplaced == 0
        for chunk in chunks:
            assert chunk.text == doc.text[chunk.start : chunk.end]
            assert chunk.start < chunk.end
        starts = [c.start for c in chunks]
        assert starts == sorted(starts), "chunks are placed in order, repeats included"


def test_langchain_spans_are_the_texts_and_order_langchain_itself_gives(
    real_documents: list[Document],
) -> None:
    need("langchain-recursive")
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    for doc in [*real_documents, repeated_text()]:
        theirs = RecursiveCharacterTextSplitter(chunk_size=300, chunk_overlap=80)
        ours = LangChainRecursive(chunk_size=300, chunk_overlap=80).chunk(doc)
        assert [c.text for c in ours] == theirs.split_text(doc.text)


def test_repeated_paragraphs_are_placed_at_successive_copies() -> None:
    need("chonkie-recursive")
    doc = repeated_text()
    chunks = PEERS["chonkie-recursive"](chunk_size=80).chunk(doc)
    spans = [(c.start, c.end) for c in chunks]
    assert len(set(spans)) == len(spans), "two chunks of one text are two copies, not one"


def test_a_chunk_the_peer_changed_beyond_whitespace_is_kept_unplaced_and_counted(
    real_documents: list[Document],
) -> None:
    need("langchain-recursive")
    chunker = LangChainRecursive(chunk_size=300, chunk_overlap=0)
    made = chunker._split

    def altered(text: str) -> list[tuple[str, int | None]]:
        pieces = made(text)
        return [("not in the text at all", None), *pieces[1:]]

    chunker._split = altered
    chunks = chunker.chunk(real_documents[0])
    assert chunker.unplaced == 1
    assert (chunks[0].start, chunks[0].end, chunks[0].text) == (0, 0, "not in the text at all")
    assert chunker.report_spec()["unplaced"] == 1


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("langchain-recursive:chunk_size=100,chunk_overlap=100", "chunk_overlap must be smaller"),
        ("llamaindex-sentence:chunk_size=0", "chunk_size must be positive"),
        ("chonkie-recursive:chunk_overlap=5", "chonkie-recursive takes chunk_size, not"),
    ],
)
def test_bad_peer_settings_are_usage_errors(spec: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        for variant in parse_variants([spec]):
            variant.make({})


def test_without_the_extra_the_error_names_it_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A None entry in sys.modules makes the import fail as a missing package does.
    monkeypatch.setitem(sys.modules, "langchain_text_splitters", None)
    with pytest.raises(UsageError, match=r"needs the peers extra: pip install"):
        LangChainRecursive()
    corpus = write_eval_corpus(tmp_path / "corpus")
    questions = write_questions(tmp_path / "q.jsonl", QUESTIONS)
    result = runner.invoke(
        APP,
        ["eval", "--corpus", str(corpus), "--questions", str(questions), "-q",
         "--chunker", "langchain-recursive:chunk_size=800"],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "policy-assistant[peers]" in result.stderr
    assert "langchain-text-splitters is not installed" in result.stderr
    assert "Traceback" not in result.output


def test_the_spec_names_the_peer_its_settings_and_its_version() -> None:
    need("chonkie-recursive")
    from importlib.metadata import version

    spec = PEERS["chonkie-recursive"](chunk_size=500).spec()
    assert spec == {"name": "chonkie-recursive", "chunk_size": 500,
                    "library": f"chonkie {version('chonkie')}"}  # fmt: skip


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("peers")
    return write_eval_corpus(root / "corpus"), write_questions(root / "q.jsonl", QUESTIONS)


def evaluate(paths: tuple[Path, Path], *args: str) -> Any:
    corpus, questions = paths
    common = ["eval", "--corpus", str(corpus), "--questions", str(questions), "-q"]
    return runner.invoke(APP, [*common, *args])


def figures(summary: dict[str, Any]) -> dict[str, Any]:
    return {"chunks": summary["chunks"], "hit@k": summary["hit@k"], "budgets": summary["budgets"]}


def test_langchains_own_chunks_in_a_file_score_as_the_adapter_does(
    paths: tuple[Path, Path], tmp_path: Path
) -> None:
    need("langchain-recursive")
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    # Written by LangChain itself, not through the adapter: text only, and with its start index.
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=120, chunk_overlap=30, add_start_index=True
    )
    bare, offsets = [], []
    for doc in parsed_corpus(tmp_path / "parsed"):
        for piece in splitter.create_documents([doc.text]):
            start = piece.metadata["start_index"]
            bare.append({"source": doc.source, "text": piece.page_content})
            offsets.append({**bare[-1], "start": start, "end": start + len(piece.page_content)})
    files = []
    for name, records in (("bare.jsonl", bare), ("offsets.jsonl", offsets)):
        files.append(tmp_path / name)
        files[-1].write_text("".join(json.dumps(r) + "\n" for r in records))
    variant = "langchain-recursive:chunk_size=120,chunk_overlap=30"
    result = evaluate(
        paths, "--chunker", variant, "--chunks", str(files[0]), "--chunks", str(files[1]), "--json"
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["chunkers"]
    assert rows[variant]["chunks"] == len(bare) > len(QUESTIONS)
    assert figures(rows["chunks:bare.jsonl"]) == figures(rows[variant])
    assert figures(rows["chunks:offsets.jsonl"]) == figures(rows[variant])
    assert rows[variant]["spec"]["unplaced"] == 0


def test_two_of_ours_and_a_peer_give_one_table_of_three_rows_with_paired_comparisons(
    paths: tuple[Path, Path],
) -> None:
    need("langchain-recursive")
    variants = [
        "structure:max_words=100",
        "structure:max_words=200",
        "langchain-recursive:chunk_size=800,chunk_overlap=200",
    ]
    args = [a for v in variants for a in ("--chunker", v)]
    result = evaluate(paths, *args, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert set(report["chunkers"]) == set(variants)
    pairs = {(c["a"], c["b"]) for c in report["comparisons"]}
    assert len(pairs) == 3 and all(a in variants and b in variants for a, b in pairs)
    table = evaluate(paths, *args)
    assert table.exit_code == 0, table.output
    for shown in ("structure:max_words=100", "structure:max_words=200", "langchain-recursive"):
        assert shown in table.stdout
    assert "Differences from the best" in table.stdout


def test_peer_classes_are_chunkers_named_as_the_command_line_names_them() -> None:
    assert set(PEERS) == set(IMPORTS)
    assert all(issubclass(cls, PeerChunker) and cls.name == n for n, cls in PEERS.items())


@pytest.mark.parametrize("name", list(PEERS))
def test_a_peers_chunks_and_ids_are_the_same_on_every_run(
    name: str, real_documents: list[Document]
) -> None:
    need(name)
    first = [c.to_dict() for c in PEERS[name](**SMALL[name]).chunk(real_documents[0])]
    again = [c.to_dict() for c in PEERS[name](**SMALL[name]).chunk(real_documents[0])]
    assert first == again
    assert len({c["id"] for c in first}) == len(first)
