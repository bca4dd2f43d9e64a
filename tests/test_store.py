from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.chunk_factory import bare_chunk

from policy_assistant import index as store
from policy_assistant.chunk import make_chunker
from policy_assistant.errors import BadIndex, UsageError
from policy_assistant.index import (
    BM25_DEFAULTS,
    DocumentEntry,
    IndexBusyError,
    Manifest,
    index_lock,
    load_chunks,
    load_manifest,
    open_index,
    write_index,
)
from policy_assistant.index.settings import BM25Settings
from policy_assistant.index.store.entries import entries_bytes, parse_entries
from policy_assistant.index.store.manifest import ids_digest
from policy_assistant.records import Chunk, Document

CHUNKER = {"name": "test", "size": 3}


def make_chunks(docs: int, per_doc: int, seed: int, marker: str) -> list[Chunk]:
    """Chunks of 61 words each starting with marker, alternately public and staff by doc."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(500)]
    chunks = []
    for d in range(docs):
        source = f"doc{d:04d}.md"
        for position in range(per_doc):
            text = " ".join([marker] + [words[i] for i in rng.integers(0, 500, 60)])
            access = ("public", "staff")[d % 2]
            chunks.append(bare_chunk(source, position, text, access, CHUNKER))
    return chunks


def make_index(chunks: list[Chunk]) -> Manifest:
    by_source: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_source.setdefault(c.source, []).append(c)
    entries = [DocumentEntry.from_chunks(own) for own in by_source.values()]
    return Manifest.create(CHUNKER, BM25_DEFAULTS, entries)


def write(index_dir: Path, chunks: list[Chunk], **kwargs) -> Path:
    return write_index(index_dir, chunks, make_index(chunks), **kwargs)


@pytest.fixture
def chunks() -> list[Chunk]:
    return make_chunks(6, 5, 1, "alpha")


def test_round_trip(tmp_path: Path, chunks: list[Chunk]):
    index_dir = tmp_path / "index"
    generation = write(index_dir, chunks)
    manifest = make_index(chunks)
    on_disk = {
        p.relative_to(generation).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in generation.rglob("*")
        if p.is_file() and p.name != "manifest.json" and p.parts[-3] != "segments"
    }
    loaded = load_manifest(index_dir)
    assert loaded.files == on_disk and list(on_disk) == ["empty.json"]
    assert loaded.documents == manifest.documents
    assert [s.info.rows for s in loaded.segments] == [len(chunks)]
    assert load_chunks(index_dir) == chunks
    open_index(index_dir, verify=True).close()
    with open_index(index_dir) as index:
        assert len(index) == len(chunks)
        assert [index.chunk(row) for row in range(len(chunks))] == chunks
        hits = index.search("alpha w7 w9", k=4)
        assert [h.rank for h in hits] == [1, 2, 3, 4]
        assert all(h.chunk in chunks for h in hits)
        assert hits[0].to_dict()["chunk"]["id"] == hits[0].chunk.id


def test_manifest_records_settings_and_documents(tmp_path: Path, chunks: list[Chunk]):
    write(tmp_path / "index", chunks)
    data = orjson.loads(next((tmp_path / "index").glob("gen-*/manifest.json")).read_bytes())
    assert data["format_version"] == store.FORMAT_VERSION
    assert data["tool_version"] == "0.1.0"
    assert data["tokenizer"]["stemmer"] == "english"
    assert data["bm25"] == {"variant": "lucene", "k1": 1.2, "b": 0.75}
    assert "documents" not in data  # search opens the manifest: nothing per document in it
    assert data["document_count"] == len({c.source for c in chunks})
    assert sum(s["rows"] for s in data["segments"]) == len(chunks)
    assert load_manifest(tmp_path / "index").documents == make_index(chunks).documents


texts = st.text(max_size=12)
entries = st.builds(
    DocumentEntry,
    source=texts,
    sha256=st.text("0123456789abcdef", min_size=64, max_size=64),
    title=texts,
    version=texts,
    access=st.sampled_from(["public", "staff"]),
    language=st.sampled_from(["en", "fr"]),
    chunks=st.integers(0, 10_000),
    digest=st.text("0123456789abcdef", min_size=16, max_size=16),
    words=st.integers(0, 10**6),
    segment=st.text("0123456789abcdef", max_size=16),
    first=st.integers(0, 10**6),
)


@pytest.mark.slow
@given(st.lists(entries, max_size=5))
def test_manifest_and_entries_survive_json(documents):
    manifest = Manifest.create({"name": "x", "size": 3}, BM25Settings(), documents)
    assert Manifest.from_dict(orjson.loads(orjson.dumps(manifest.to_dict()))) == manifest
    back = parse_entries(entries_bytes(manifest.documents), "seg-x")
    assert back == list(manifest.documents)
    assert [(e.words, e.segment, e.first) for e in back] == [
        (e.words, "seg-x", e.first) for e in manifest.documents
    ]


def test_a_document_and_its_chunks_give_the_same_entry():
    document = Document("a.md", "A", "v2", "public", "fr", "f" * 64, "one two three four")
    chunks = make_chunker("fixed", size=2).chunk(document)
    ids = [c.id for c in chunks]
    entry = DocumentEntry.from_document(document, ids)
    expected = DocumentEntry("a.md", "f" * 64, "A", "v2", "public", "fr", 2, ids_digest(ids))
    assert entry == expected
    assert DocumentEntry.from_chunks(chunks) == entry
    assert entry.same_document(document)
    assert not entry.same_document(replace(document, access="staff"))


def test_same_input_gives_byte_identical_files(tmp_path: Path, chunks: list[Chunk]):
    first = write(tmp_path / "a", chunks)
    second = write(tmp_path / "b", list(chunks))
    assert first.name == second.name
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    for rel in files:
        assert (first / rel).read_bytes() == (second / rel).read_bytes(), rel


def test_new_generation_replaces_the_old_and_keeps_foreign_files(tmp_path: Path, chunks):
    index_dir = tmp_path / "index"
    old = write(index_dir, chunks)
    (index_dir / "notes.txt").write_text("mine")
    new = write(index_dir, make_chunks(3, 2, 9, "beta"))
    assert new != old and not old.exists()
    names = sorted(p.name for p in index_dir.iterdir())
    assert names == sorted(["CURRENT", ".lock", "notes.txt", new.name])


def test_rewriting_the_same_content_repairs_a_damaged_live_generation(tmp_path, chunks):
    index_dir = tmp_path / "index"
    first = write(index_dir, chunks)
    (first / "manifest.json").write_text("{not json")
    second = write(index_dir, chunks)
    assert second.name == first.name + "-b" and not first.exists()
    assert load_chunks(index_dir) == chunks
    third = write(index_dir, chunks)
    assert third == first and not second.exists()  # the slots alternate
    with open_index(index_dir) as index:
        assert index.search("alpha", k=3)


def test_public_never_sees_staff_and_still_gets_k(tmp_path: Path, chunks: list[Chunk]):
    write(tmp_path / "index", chunks)
    with open_index(tmp_path / "index") as index:
        public = index.search("alpha", k=10, access="public")
        assert len(public) == 10 and all(h.chunk.access == "public" for h in public)
        staff = index.search("alpha", k=30, access="staff")
        assert {h.chunk.access for h in staff} == {"public", "staff"}
        with pytest.raises(UsageError, match="access"):
            index.search("alpha", access="admin")


def test_missing_index_says_what_to_run(tmp_path: Path):
    with pytest.raises(BadIndex) as err:
        open_index(tmp_path / "nowhere")
    message = str(err.value)
    assert "no index at" in message and "policy-assistant ingest" in message
    assert "\n" not in message
    with pytest.raises(BadIndex, match="no index"):
        load_manifest(tmp_path / "nowhere")


def test_the_hint_names_no_corpus_so_a_paste_cannot_fill_the_index_with_the_demo():
    hint = store.ingest_hint(store.DEFAULT_INDEX_DIR)
    assert hint == "run `policy-assistant ingest CORPUS` with the folder you indexed as CORPUS"
    assert "--index elsewhere" in store.ingest_hint(Path("elsewhere"))


def rewrite_manifest(index_dir: Path, **changes) -> None:
    """Rewrite the live manifest as a writer would: the generation named after its hash."""
    path = next(index_dir.glob("gen-*/manifest.json"))
    data = orjson.dumps(orjson.loads(path.read_bytes()) | changes)
    path.write_bytes(data)
    name = f"gen-{hashlib.sha256(data).hexdigest()[:16]}"
    path.parent.rename(index_dir / name)
    (index_dir / "CURRENT").write_text(name + "\n")


def test_stale_format_says_what_to_run(tmp_path: Path, chunks: list[Chunk]):
    write(tmp_path / "index", chunks)
    rewrite_manifest(tmp_path / "index", format_version=0)
    with pytest.raises(BadIndex, match=r"format 0.*policy-assistant ingest"):
        open_index(tmp_path / "index")


def test_other_tokenizer_is_stale(tmp_path: Path, chunks: list[Chunk]):
    write(tmp_path / "index", chunks)
    rewrite_manifest(tmp_path / "index", tokenizer={"name": "other"})
    with pytest.raises(BadIndex, match="tokenizer"):
        open_index(tmp_path / "index")
    assert load_chunks(tmp_path / "index") == chunks  # a pipeline may still reuse chunks


@pytest.mark.parametrize(
    "damage",
    ["current", "truncate chunks", "delete bm25", "bad manifest", "drop row"],
)
def test_damaged_index_gives_one_line_error(tmp_path: Path, chunks: list[Chunk], damage):
    index_dir = tmp_path / "index"
    generation = write(index_dir, chunks)
    if damage == "current":
        (index_dir / "CURRENT").write_text("../elsewhere\n")
    elif damage == "truncate chunks":
        path = next(generation.glob("segments/seg-*/records.bin"))
        path.write_bytes(path.read_bytes()[:-100])
    elif damage == "delete bm25":
        next(generation.glob("segments/seg-*/rows.npy")).unlink()
    elif damage == "bad manifest":
        (generation / "manifest.json").write_text("{not json")
    else:
        path = next(generation.glob("segments/seg-*/access.npy"))
        np.save(path, np.zeros(len(chunks) - 1, np.uint8))
    with pytest.raises(BadIndex) as err:
        open_index(index_dir)
    assert "damaged" in str(err.value) and "\n" not in str(err.value)
    assert "policy-assistant ingest" in str(err.value)


def test_leftovers_of_a_killed_writer_are_ignored_then_cleaned(tmp_path: Path, chunks):
    index_dir = tmp_path / "index"
    write(index_dir, chunks)
    (index_dir / ".tmp-99999").mkdir()
    (index_dir / ".tmp-99999" / "chunks.jsonl").write_text("partial")
    (index_dir / ".trash-gen-0000000000000000").mkdir()
    assert load_chunks(index_dir) == chunks
    write(index_dir, make_chunks(2, 2, 5, "beta"))
    assert not list(index_dir.glob(".tmp-*")) and not list(index_dir.glob(".trash-*"))


def test_inconsistent_input_is_refused(tmp_path: Path, chunks: list[Chunk]):
    manifest = make_index(chunks)
    with pytest.raises(ValueError, match="sorted"):
        write_index(tmp_path / "i", chunks[::-1], manifest)
    with pytest.raises(ValueError, match="does not match its chunks"):
        write_index(tmp_path / "i", chunks[1:], manifest)
    assert not (tmp_path / "i" / "CURRENT").exists()


def test_index_dir_from_option_environment_or_default():
    assert store.resolve_index_dir(Path("x"), {store.INDEX_ENV: "y"}) == Path("x")
    assert store.resolve_index_dir(None, {store.INDEX_ENV: "y"}) == Path("y")
    assert store.resolve_index_dir(None, {}) == store.DEFAULT_INDEX_DIR


def run_python(code: str) -> subprocess.Popen[str]:
    """Start a Python that has this module's helpers and `store` imported."""
    here = Path(__file__).resolve().parent  # the root for `tests.`, and tests/ for its helpers
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(here.parent), str(here)])}
    prelude = (
        "from policy_assistant import index as store\n"
        "from tests.test_store import make_chunks, make_index\n"
    )
    return subprocess.Popen(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )


@pytest.mark.slow
def test_second_writer_waits_then_stops_with_a_clear_message(tmp_path: Path, chunks):
    index_dir = tmp_path / "index"
    holder = run_python(
        f"""
        import time
        from pathlib import Path
        with store.index_lock(Path({str(index_dir)!r})):
            print("locked", flush=True)
            time.sleep(1.0)
        """
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    with pytest.raises(
        IndexBusyError, match=rf"being written by another ingest \(process {holder.pid}\)"
    ):
        write(index_dir, chunks, lock_timeout=0.2)
    start = time.monotonic()
    write(index_dir, chunks, lock_timeout=10)  # waits for the holder to finish
    assert time.monotonic() - start > 0.3
    assert holder.wait(5) == 0
    assert load_chunks(index_dir) == chunks


def test_lock_is_reentrant_for_one_process(tmp_path: Path, chunks: list[Chunk]):
    with index_lock(tmp_path / "index", timeout=0.1):
        write(tmp_path / "index", chunks, lock_timeout=0.1)
    assert load_chunks(tmp_path / "index") == chunks


@pytest.mark.slow
def test_killed_writer_leaves_the_old_or_the_new_index(tmp_path: Path):
    index_dir = tmp_path / "index"
    versions = {
        marker: make_chunks(200, 50, seed, marker) for seed, marker in ((1, "alpha"), (2, "beta"))
    }
    ids = {marker: [c.id for c in chunks] for marker, chunks in versions.items()}
    write(index_dir, versions["alpha"])
    rng = random.Random(7)
    interrupted = 0
    for _ in range(6):
        writer = run_python(
            f"""
            from pathlib import Path
            versions = [make_chunks(200, 50, 2, "beta"), make_chunks(200, 50, 1, "alpha")]
            built = [(chunks, make_index(chunks)) for chunks in versions]
            print("ready", flush=True)
            while True:
                for chunks, manifest in built:
                    store.write_index(Path({str(index_dir)!r}), chunks, manifest)
            """
        )
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.05, 0.6))
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        leftovers = list(index_dir.glob(".tmp-*")) + list(index_dir.glob(".trash-*"))
        interrupted += bool(leftovers)
        with open_index(index_dir) as index:
            found = [c.id for c in index.chunks()]
            marker = "alpha" if found == ids["alpha"] else "beta"
            assert found == ids[marker]
            assert index.chunks() == versions[marker]
            assert len(index) == len(ids[marker])
            hits = index.search(marker, k=5)
            assert len(hits) == 5 and all(h.chunk.text.startswith(marker) for h in hits)
    assert interrupted  # at least one kill landed in the middle of a write
    write(index_dir, versions["alpha"])
    assert not list(index_dir.glob(".tmp-*")) and len(list(index_dir.glob("gen-*"))) == 1
