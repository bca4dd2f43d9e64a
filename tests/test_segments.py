"""Segments: after any sequence of ingests, search equals a cold build of the final corpus.

The reference for the scores is memory_index over the same chunks (one segment holding the
final corpus, its scores checked against rank-bm25 in test_ranker.py), and a cold build of the
final corpus into a fresh folder; both must give the same IDs and the same floats.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
from support.chunk_factory import bare_chunk

from policy_assistant.ids import content_id
from policy_assistant.index import BM25Settings, build_index, open_index
from policy_assistant.index.chunks import segment_search
from policy_assistant.index.chunks.search import memory_index
from policy_assistant.index.chunks.segment import Segment
from policy_assistant.index.store import manifest as manifest_module
from policy_assistant.index.store import plan
from policy_assistant.index.store.build import IndexSettings, sort_chunks
from policy_assistant.index.store.entries import parse_entries
from policy_assistant.index.store.manifest import DocumentEntry, ids_digest
from policy_assistant.records import Chunk

CHUNKER = {"name": "test", "size": 3}
VOCAB = [f"w{i}" for i in range(120)] + ["mower", "sprinkler", "warranty", "refund"]
QUERIES = [
    "mower",
    "w1",
    "w2 w3",
    "mower warranty refund",
    "w0 w0 w5",
    "sprinkler w7 w8 w9 w10",
    "w110 w111 nothing",
    "absent",
]


def doc_chunks(source: str, seed: int, access: str) -> list[Chunk]:
    """Chunks of one document; seed decides its text, so a new seed is a changed document."""
    rng = random.Random(f"{source}:{seed}")
    chunks = []
    for position in range(rng.randint(1, 6)):
        size = rng.choice([0, 3, 8, 20, 40])  # an empty chunk has no term (lucene's N)
        text = " ".join(rng.choice(VOCAB[: rng.randint(10, len(VOCAB))]) for _ in range(size))
        chunks.append(
            bare_chunk(
                source,
                position,
                text,
                access,
                CHUNKER,
                id=content_id([source, seed, position, text]),
                version=f"v{seed}",
                sha256=hashlib.sha256(f"{source}{seed}".encode()).hexdigest(),
            )
        )
    return chunks


Corpus = dict[str, tuple[int, str]]


def corpus_chunks(corpus: Corpus) -> list[Chunk]:
    return [c for s, (seed, access) in sorted(corpus.items()) for c in doc_chunks(s, seed, access)]


def step(rng: random.Random, corpus: Corpus, serial: list[int]) -> Corpus:
    """Return the corpus after adding, changing and removing a few documents."""
    new = dict(corpus)
    for source in rng.sample(sorted(new), min(len(new), rng.randint(0, 3))):
        if rng.random() < 0.5:
            del new[source]
        else:
            new[source] = (new[source][0] + 1, new[source][1])
    for _ in range(rng.randint(0, 4)):
        serial[0] += 1
        new[f"doc{serial[0]:03d}.md"] = (0, rng.choice(["public", "public", "staff"]))
    return new


def ingest(folder: Path, before: Corpus, after: Corpus, variant: str, partial: bool) -> None:
    """Index after: the whole stream, or (partial, as ingest does) only what changed."""
    chunks = corpus_chunks(after)
    settings = IndexSettings(CHUNKER, BM25Settings(variant))
    if not partial:
        build_index(chunks, folder, settings)
        return
    entries = []
    given: list[Chunk] = []
    for source, (seed, access) in sorted(after.items()):
        own = doc_chunks(source, seed, access)
        entries.append(DocumentEntry.from_chunks(own))
        if before.get(source) != after[source]:
            given += own
    build_index(given, folder, settings, entries=entries)


def results(folder: Path) -> list[list[tuple[str, float]]]:
    out = []
    with open_index(folder) as index:
        for query in QUERIES:
            for access in ("public", "staff"):
                for k in (3, 10, 1000):
                    out.append([(h.chunk.id, h.score) for h in index.search(query, k, access)])
    return out


def placed_entries(folder: Path) -> list[tuple[DocumentEntry, int]]:
    """Return every entry with its words, checking that each names its own live rows."""
    with open_index(folder) as index:
        segments = {s.info.name: s for s in index.segments}
        entries = index.manifest.documents
        for entry in (e for e in entries if e.chunks):
            segment = segments[entry.segment]
            rows = range(entry.first, entry.first + entry.chunks)
            records = [segment.record(row) for row in rows]
            assert {c.source for c in records} == {entry.source}
            assert segment.deleted is None or not segment.deleted[rows.start : rows.stop].any()
            assert ids_digest([c.id for c in records]) == entry.digest
            assert sum(c.words for c in records) == entry.words
        assert sum(e.chunks for e in entries) == index.manifest.rows
        assert index.manifest.document_count == len(entries)
        return [(e, e.words) for e in entries]


def reference(chunks: list[Chunk], variant: str) -> list[list[tuple[str, float]]]:
    index = memory_index(sort_chunks(chunks), BM25Settings(variant))
    return [
        [(h.chunk.id, h.score) for h in index.search(query, k, access)]
        for query in QUERIES
        for access in ("public", "staff")
        for k in (3, 10, 1000)
    ]


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and p.name != ".lock"
    }


def run_sequence(folder: Path, seed: int, variant: str, steps: int) -> tuple[Corpus, list[int]]:
    """Ingest a random sequence; return the final corpus and the segment count after each."""
    rng = random.Random(seed)
    serial = [0]
    corpus: Corpus = {}
    counts = []
    for n in range(steps):
        after = step(rng, corpus, serial) or {"seed.md": (n, "public")}
        ingest(folder, corpus, after, variant, partial=bool(n % 2))
        corpus = after
        with open_index(folder) as index:
            counts.append(len(index.segments))
    return corpus, counts


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["lucene", "okapi"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_any_sequence_of_ingests_searches_as_a_cold_build(
    tmp_path: Path, seed: int, variant: str
) -> None:
    corpus, counts = run_sequence(tmp_path / "i", seed, variant, steps=14)
    final = corpus_chunks(corpus)
    build_index(final, tmp_path / "cold", IndexSettings(CHUNKER, BM25Settings(variant)))
    incremental = results(tmp_path / "i")
    assert incremental == results(tmp_path / "cold")
    assert incremental == reference(final, variant)
    assert placed_entries(tmp_path / "i") == placed_entries(tmp_path / "cold")
    assert any(incremental), "the queries must find something, or nothing is compared"
    assert max(counts) <= plan.MAX_SEGMENTS
    assert max(counts) > 1, "the sequence never made a second segment"


def test_scores_are_the_same_when_weights_are_computed_a_few_postings_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus, _ = run_sequence(tmp_path / "i", 4, "lucene", steps=6)
    monkeypatch.setattr(segment_search, "SLICE", 3)
    assert results(tmp_path / "i") == reference(corpus_chunks(corpus), "lucene")


def test_the_sequences_above_merge_segments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    merged: list[list[str]] = []
    choose = plan.choose_merges

    def spy(segments: list[plan.Merging], fresh: bool) -> tuple[list[str], list[str]]:
        kept, chosen = choose(segments, fresh)
        merged.append(chosen)
        return kept, chosen

    monkeypatch.setattr(plan, "choose_merges", spy)
    _, counts = run_sequence(tmp_path / "i", 1, "lucene", steps=14)
    assert sum(1 for m in merged if len(m) >= 2) >= 1, (merged, counts)


def test_the_same_sequence_gives_the_same_bytes(tmp_path: Path) -> None:
    run_sequence(tmp_path / "a", 5, "lucene", steps=8)
    run_sequence(tmp_path / "b", 5, "lucene", steps=8)
    assert tree(tmp_path / "a") == tree(tmp_path / "b")


def test_a_change_writes_one_segment_and_links_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "i"
    corpus = {f"d{i}.md": (0, "public") for i in range(20)}
    ingest(folder, {}, corpus, "lucene", partial=False)
    with open_index(folder) as index:
        (first,) = [s.folder for s in index.segments]
    inode = (first / "rows.npy").stat().st_ino
    read: list[int] = []
    original = Segment.records
    monkeypatch.setattr(Segment, "records", lambda self: read.append(1) or original(self))
    changed = {**corpus, "d3.md": (1, "public")}
    ingest(folder, corpus, changed, "lucene", partial=True)
    with open_index(folder) as index:
        assert len(index.segments) == 2
        assert (index.segments[0].folder / "rows.npy").stat().st_ino == inode
        assert index.manifest.segments[0].deleted == len(doc_chunks("d3.md", 0, "public"))
    assert read == [], "no chunk record of an unchanged document was read"


def test_search_does_not_read_the_document_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "i"
    ingest(folder, {}, {f"d{i}.md": (0, "public") for i in range(5)}, "lucene", partial=False)

    def refuse(generation: Path, segments: object) -> None:
        raise AssertionError(f"search read the entries of {generation.name}")

    monkeypatch.setattr(manifest_module, "read_entries", refuse)  # where the manifest reads them
    with open_index(folder) as index:
        assert index.search("w1 w2", 5)
    with pytest.raises(AssertionError, match="read the entries"), open_index(folder) as index:
        index.manifest.documents  # noqa: B018  (the lazy read, shown to be the one refused)


def test_removing_every_document_of_a_segment_drops_it(tmp_path: Path) -> None:
    folder = tmp_path / "i"
    first = {f"a{i}.md": (0, "public") for i in range(4)}
    ingest(folder, {}, first, "lucene", partial=False)
    second = {**first, **{f"b{i}.md": (0, "public") for i in range(4)}}
    ingest(folder, first, second, "lucene", partial=True)
    third = {s: v for s, v in second.items() if s.startswith("a")}
    ingest(folder, second, third, "lucene", partial=True)
    with open_index(folder) as index:
        assert len(index.segments) == 1
        assert {c.source for c in index.chunks()} == set(third)


def test_a_hit_row_names_its_chunk_in_chunks_order_after_deletions(tmp_path: Path) -> None:
    run_sequence(tmp_path / "i", 2, "lucene", steps=8)
    with open_index(tmp_path / "i") as index:
        assert any(s.deleted is not None for s in index.segments), "no deletion to step over"
        every = index.chunks()
        assert len(every) == len(index) == len({c.id for c in every})
        hits = index.search("w1 w2 mower", 50, "staff")
        assert hits
        for hit in hits:
            assert every[hit.row] == hit.chunk == index.chunk(hit.row)
            assert index.find(hit.chunk.id) == hit.chunk


def empty_entry(source: str, seed: int) -> DocumentEntry:
    """The entry of a document that gave no chunk."""
    sha = hashlib.sha256(f"{source}{seed}".encode()).hexdigest()
    return DocumentEntry(source, sha, source, f"v{seed}", "public", "en", 0, ids_digest([]))


def ingest_with_empty(folder: Path, before: dict[str, int], after: dict[str, int]) -> None:
    """Index after (source -> seed; a negative seed is a document without chunks), giving
    only the chunks of what changed when before is not None."""
    entries, given = [], []
    for source, seed in sorted(after.items()):
        own = doc_chunks(source, seed, "public") if seed >= 0 else []
        entries.append(DocumentEntry.from_chunks(own) if own else empty_entry(source, seed))
        given += own if before is None or before.get(source) != seed else []
    build_index(given, folder, IndexSettings(CHUNKER), entries=entries)


def test_documents_without_chunks_keep_their_entries_across_ingests(tmp_path: Path) -> None:
    states = [
        {"a.md": 0, "b.md": 0, "e1.md": -1},
        {"a.md": 0, "b.md": 0, "e1.md": 1, "e2.md": -1},  # e1 gains chunks, e2 is new and empty
        {"a.md": -2, "b.md": 0, "e1.md": 1, "e2.md": -1},  # a loses its chunks
        {"a.md": -2, "b.md": 1, "e1.md": 1},  # e2 removed
        {"a.md": -3, "b.md": 1, "e1.md": 1, "e3.md": -1},  # a stays empty, changed
    ]
    before: dict[str, int] = {}
    for n, state in enumerate(states):
        ingest_with_empty(tmp_path / "i", before, state)
        ingest_with_empty(tmp_path / f"cold{n}", None, state)
        assert placed_entries(tmp_path / "i") == placed_entries(tmp_path / f"cold{n}")
        found = {e.source: e.chunks for e, _ in placed_entries(tmp_path / "i")}
        assert {s for s, count in found.items() if not count} == {
            s for s, seed in state.items() if seed < 0
        }
        before = state


def new_files(folder: Path, change: Callable[[], None]) -> dict[str, int]:
    """Run change; return the size of each file of the new generation it created (not a hard
    link to an older one), by path with the segment names left out."""
    before = {(p.stat().st_dev, p.stat().st_ino) for p in folder.rglob("*") if p.is_file()}
    change()
    (generation,) = folder.glob("gen-*")
    return {
        re.sub(r"seg-[0-9a-f]{16}", "seg-*", p.relative_to(generation).as_posix()): p.stat().st_size
        for p in generation.rglob("*")
        if p.is_file() and (p.stat().st_dev, p.stat().st_ino) not in before
    }


def test_a_one_document_change_writes_only_that_documents_entry(tmp_path: Path) -> None:
    touched = {}
    for size in (20, 200):
        folder = tmp_path / f"i{size}"
        corpus = {f"d{i:04d}.md": (0, "public") for i in range(size)}
        ingest(folder, {}, corpus, "lucene", partial=False)
        changed = {**corpus, "d0003.md": (1, "public")}
        files = new_files(folder, partial(ingest, folder, corpus, changed, "lucene", True))
        with open_index(folder) as index:
            newest = index.segments[-1].folder / "entries.json"
        assert [e.source for e in parse_entries(newest.read_bytes(), "")] == ["d0003.md"]
        entry_bytes = {k: v for k, v in files.items() if k.endswith(("entries.json", "empty.json"))}
        touched[size] = sorted(files), entry_bytes
    assert touched[20] == touched[200]  # the same files and entry bytes, ten times the documents
    assert sorted(touched[20][1]) == ["empty.json", "segments/seg-*/entries.json"]
