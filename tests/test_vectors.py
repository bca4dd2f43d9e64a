"""Vectors in the index folder: written per segment, reused by content hash, served as float32.

Incrementality is proven by counting what reaches the encoder (a recording fake), as the
ingest tests count parser calls; the fake's vectors are a function of the text alone, so a
vector found in a segment can be checked against the one its row's text should have.
"""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from support.corpora import write_pipeline_corpus
from support.pipeline import STRUCTURE, tree_digest

from policy_assistant.embed.model import ModelIdentity
from policy_assistant.errors import BadIndex
from policy_assistant.index import load_manifest, open_index
from policy_assistant.index.chunks.kernel import simd_kernel
from policy_assistant.index.chunks.vector_file import VECTORS_FILE
from policy_assistant.index.context.unit_open import segment_units
from policy_assistant.index.context.units import build_units
from policy_assistant.index.store.folder import live_generation
from policy_assistant.index.store.units import UNITS_DIR, load_units
from policy_assistant.index.store.vectors import (
    TEXT_RECIPE,
    Embedding,
    chunk_text,
    embedding_change,
    unit_texts,
)
from policy_assistant.ingest.pipeline import ingest
from policy_assistant.ingest.watch import Watch
from policy_assistant.parse import CorpusOptions
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import DocumentMeta

ONE_PROCESS = CorpusOptions(workers=1)
"""Units written in this process, not a forked child, so their encoder calls are counted."""

DIM = 8


class CountingEncoder:
    """A fake encoder: a unit vector from each text's hash; records every text it is sent."""

    def __init__(self, name: str = "fake") -> None:
        self.identity = ModelIdentity(name, "numpy", (("w", name),), "mean", True, 64, DIM)
        self.texts: list[str] = []
        self.calls = 0

    @property
    def dimension(self) -> int:
        return DIM

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts.extend(texts)
        return np.stack([vector_of(t, self.identity.name) for t in texts])


def vector_of(text: str, salt: str = "fake") -> np.ndarray:
    """Return the fake model's unit vector of a text."""
    seed = int.from_bytes(hashlib.sha256((salt + text).encode()).digest()[:8], "big")
    v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def embedded(encoder: CountingEncoder) -> Embedding:
    return Embedding(encoder, encoder.identity.name)


def served(index_dir: Path, salt: str = "fake") -> dict[str, str]:
    """Check every live row's vector is its text's; return each live chunk's embedded text."""
    texts = {}
    with open_index(index_dir) as index:
        for segment in index.segments:
            vectors = segment.vectors()
            # As stored when the SIMD kernel multiplies them, else widened once.
            stored = np.float16 if simd_kernel() is not None else np.float32
            assert vectors is not None and vectors.dtype == stored
            assert vectors.shape == (segment.info.rows, DIM)
            for row, chunk in enumerate(segment.records()):
                if segment.is_deleted(row):
                    continue
                want = vector_of(chunk_text(chunk), salt)
                assert np.allclose(vectors[row], want, atol=1e-3)
                texts[chunk.id] = chunk_text(chunk)
    return texts


def test_a_cold_ingest_embeds_each_distinct_text_once(tmp_path: Path) -> None:
    encoder = CountingEncoder()
    ingest(
        write_pipeline_corpus(tmp_path / "c"),
        tmp_path / "i",
        STRUCTURE,
        options=ONE_PROCESS,
        embed=embedded(encoder),
    )
    texts = set(served(tmp_path / "i").values()) | served_units(tmp_path / "i")
    assert sorted(encoder.texts) == sorted(texts)
    with open_index(tmp_path / "i") as index:
        assert index.embedding is not None
        assert index.embedding["identity"] == encoder.identity.as_dict()
        norms = np.linalg.norm(index.segments[0].vectors(), axis=1)
        assert np.allclose(norms, 1.0, atol=1e-3)


def test_an_unchanged_corpus_encodes_nothing_and_writes_nothing(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(
        corpus, tmp_path / "i", STRUCTURE, options=ONE_PROCESS, embed=embedded(CountingEncoder())
    )
    before = tree_digest(tmp_path / "i")
    encoder = CountingEncoder()
    summary = ingest(
        corpus, tmp_path / "i", STRUCTURE, options=ONE_PROCESS, embed=embedded(encoder)
    )
    assert (encoder.calls, summary.written) == (0, False)
    assert tree_digest(tmp_path / "i") == before


def test_one_changed_file_encodes_only_its_new_texts(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(
        corpus, tmp_path / "i", STRUCTURE, options=ONE_PROCESS, embed=embedded(CountingEncoder())
    )
    old = set(served(tmp_path / "i").values())
    (corpus / "b.md").write_text("# Mowers\n\nLawn mowers now carry a three year warranty.\n")
    encoder = CountingEncoder()
    summary = ingest(
        corpus, tmp_path / "i", STRUCTURE, options=CorpusOptions(workers=1), units=False,
        embed=embedded(encoder),
    )  # fmt: skip
    assert summary.changed == ["b.md"]
    with open_index(tmp_path / "i") as index:
        of_b = {chunk_text(c) for c in index.chunks() if c.source == "b.md"}
    assert encoder.texts and sorted(encoder.texts) == sorted(of_b - old)
    served(tmp_path / "i")


def test_the_same_corpus_gives_the_same_vector_bytes(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(
        corpus, tmp_path / "one", STRUCTURE, options=ONE_PROCESS, embed=embedded(CountingEncoder())
    )
    ingest(
        corpus, tmp_path / "two", STRUCTURE, options=ONE_PROCESS, embed=embedded(CountingEncoder())
    )
    assert tree_digest(tmp_path / "one") == tree_digest(tmp_path / "two")


def edit(rng: random.Random, corpus: Path, step: int) -> str:
    """Change, add or remove one file; return its source."""
    files = sorted(p.relative_to(corpus).as_posix() for p in corpus.rglob("*.md"))
    kind = rng.choice(["add", "change", "remove"])
    source = rng.choice(files) if kind != "add" else f"n{step}.md"
    if kind == "remove" and len(files) > 2:
        (corpus / source).unlink()
    else:
        words = " ".join(
            rng.choice(["lawn", "mower", "leave", "travel", "claim"]) for _ in range(9)
        )
        (corpus / source).write_text(f"# Doc {step}\n\nShared opening line.\n\n{words} {step}.\n")
    return source


def test_rounds_and_merges_keep_every_vector_and_encode_only_new_text(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    encoder = CountingEncoder()
    watch = Watch(corpus, tmp_path / "w", STRUCTURE, options=ONE_PROCESS, embed=embedded(encoder))
    watch.ingest()
    seen = set(encoder.texts)
    rng = random.Random(7)
    segment_counts = []
    for step in range(14):  # past 8 segments, so merges copy vectors between segments
        source = edit(rng, corpus, step)
        encoder.texts.clear()
        watch.round({source})
        texts = set(served(tmp_path / "w").values()) | served_units(tmp_path / "w")
        assert set(encoder.texts) == texts - seen  # never a text the index had embedded
        assert len(encoder.texts) == len(set(encoder.texts))
        seen |= texts
        segment_counts.append(len(load_manifest(tmp_path / "w").segments))
    assert max(segment_counts) > 1
    cold = CountingEncoder()
    ingest(corpus, tmp_path / "cold", STRUCTURE, options=ONE_PROCESS, embed=embedded(cold))
    assert sorted(served(tmp_path / "cold").values()) == sorted(served(tmp_path / "w").values())


def test_another_model_re_encodes_everything_and_says_so(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(
        corpus, tmp_path / "i", STRUCTURE, options=ONE_PROCESS, embed=embedded(CountingEncoder())
    )
    other = CountingEncoder("other")
    summary = ingest(corpus, tmp_path / "i", STRUCTURE, options=ONE_PROCESS, embed=embedded(other))
    assert summary.rebuilt is not None and "embedding model changed" in summary.rebuilt
    texts = served(tmp_path / "i", salt="other")
    assert set(texts.values()) <= set(other.texts)
    assert len(other.texts) == len(set(other.texts))


def test_dropping_the_embedding_drops_the_vectors(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(
        corpus, tmp_path / "i", STRUCTURE, options=ONE_PROCESS, embed=embedded(CountingEncoder())
    )
    summary = ingest(corpus, tmp_path / "i", STRUCTURE, options=ONE_PROCESS)
    assert summary.rebuilt == "vectors dropped"
    with open_index(tmp_path / "i") as index:
        assert index.embedding is None
        assert all(s.vectors() is None for s in index.segments)
    assert not list((tmp_path / "i").rglob(VECTORS_FILE))


@pytest.mark.parametrize("where", ["segments", "units"])
def test_verify_finds_a_damaged_vectors_file(tmp_path: Path, where: str) -> None:
    ingest(write_pipeline_corpus(tmp_path / "c"), tmp_path / "i", STRUCTURE,
           options=ONE_PROCESS, embed=embedded(CountingEncoder()))  # fmt: skip
    (path,) = (p for p in (tmp_path / "i").rglob(VECTORS_FILE) if where in p.parts)
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(BadIndex, match=VECTORS_FILE):
        open_index(tmp_path / "i", verify=True).close()


def test_an_index_with_vectors_serves_bm25_without_the_dense_extra(tmp_path: Path) -> None:
    ingest(write_pipeline_corpus(tmp_path / "c"), tmp_path / "i", STRUCTURE,
           options=ONE_PROCESS, embed=embedded(CountingEncoder()))  # fmt: skip
    script = (
        "import sys\n"
        "sys.modules['onnxruntime'] = None\n"
        "sys.modules['tokenizers'] = None\n"
        "from policy_assistant.index import open_index\n"
        f"with open_index({str(tmp_path / 'i')!r}) as index:\n"
        "    hits = index.search('mower warranty', 3, 'public')\n"
        "    print(len(hits), index.embedding['identity']['name'], hits[0].ranker)\n"
        "    print(index.notice, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    count, name, ranker = done.stdout.split()
    assert int(count) > 0 and name == "fake" and ranker == "bm25"
    assert done.stderr.startswith("ranked by bm25: the index's vectors need")


def served_units(index_dir: Path) -> set[str]:
    """Check every live unit's vector is its text's; return the live units' embedded texts."""
    texts = set()
    units = load_units(live_generation(index_dir) / UNITS_DIR)
    try:
        for segment in units.segments:
            vectors, unit_set = segment.vectors(), segment_units(segment)
            assert vectors is not None and vectors.shape == (len(unit_set), DIM)
            dead, embedded = segment.dead_docs, unit_texts(unit_set)
            for row in range(len(unit_set)):
                if dead is not None and dead[int(unit_set.col("unit_doc")[row])]:
                    continue
                text = embedded[row]
                assert np.allclose(vectors[row], vector_of(text), atol=1e-3)
                texts.add(text)
    finally:
        units.close()
    return texts


def test_units_get_vectors_and_a_change_encodes_only_new_unit_and_chunk_texts(
    tmp_path: Path,
) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    encoder = CountingEncoder()
    embed = embedded(encoder)
    ingest(corpus, tmp_path / "i", STRUCTURE, options=ONE_PROCESS, embed=embed)
    old = set(served(tmp_path / "i").values()) | served_units(tmp_path / "i")
    assert sorted(encoder.texts) == sorted(old)
    encoder.texts.clear()
    ingest(corpus, tmp_path / "i", STRUCTURE, options=ONE_PROCESS, embed=embed)
    assert encoder.texts == []
    (corpus / "b.md").write_text("# Mowers\n\nLawn mowers now carry a three year warranty.\n")
    ingest(corpus, tmp_path / "i", STRUCTURE, options=ONE_PROCESS, embed=embed)
    now = set(served(tmp_path / "i").values()) | served_units(tmp_path / "i")
    assert encoder.texts and sorted(encoder.texts) == sorted(now - old)


def test_units_without_an_embedding_have_no_vectors(tmp_path: Path) -> None:
    ingest(write_pipeline_corpus(tmp_path / "c"), tmp_path / "i", STRUCTURE)
    units = load_units(live_generation(tmp_path / "i") / UNITS_DIR)
    try:
        assert [s.vectors() for s in units.segments] == [None]
    finally:
        units.close()


def test_a_folder_ranks_units_and_chunks_by_their_stored_vectors_call_after_call(
    tmp_path: Path,
) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    embed = embedded(CountingEncoder())
    ingest(corpus, tmp_path / "i", STRUCTURE, options=ONE_PROCESS, embed=embed)
    # The fake's vectors are a hash of the text: a query equal to a unit's embedded text finds
    # that unit at cosine 1, though BM25 would rank it by words alone.
    (query,) = [t for t in served_units(tmp_path / "i") if "two year warranty" in t]
    with open_index(tmp_path / "i") as index:
        index.encoder = CountingEncoder()
        for _ in range(2):  # the second call reads the vectors kept by the first
            for ranker in ("dense", "hybrid"):
                passages = index.context(query, 30, "public", ranker=ranker)
                assert "two year warranty" in passages[0].text
            (hit,) = index.search(chunk_text_of(index, "two year warranty"), 1, ranker="dense")
            assert "two year warranty" in hit.chunk.text


def chunk_text_of(index: object, words: str) -> str:
    """Return the embedded text of the chunk holding words."""
    (chunk,) = [c for c in index.chunks() if words in c.text]  # type: ignore[attr-defined]
    return chunk_text(chunk)


def test_a_unit_is_embedded_with_its_neighbours_in_its_section_only() -> None:
    builder = DocumentBuilder()
    builder.heading("Mowers", 1, ())
    builder.add("paragraph", "First one. She said so. Third one.", ())
    builder.heading("Hedges", 1, ())
    builder.add("paragraph", "Trim in May.", ())
    doc = builder.build("guide.md", "0" * 64, DocumentMeta(access="public", title="Guide"), "")
    units = build_units([doc])
    texts = dict(
        zip([units.unit_text(r) for r in range(len(units))], unit_texts(units), strict=True)
    )
    # The sentence that lacks its subject carries both its neighbours, in order.
    assert texts["She said so."].endswith("\n\nFirst one. She said so. Third one.")
    # The heading is a unit of its section; the section's last sentence has one neighbour.
    assert texts["First one."].endswith("\n\nMowers First one. She said so.")
    assert texts["Third one."].endswith("\n\nShe said so. Third one.")
    # A section's first unit is embedded without the last one of the section before it.
    assert texts["Hedges"] == "Guide\nHedges\n\nHedges Trim in May."
    assert "Third" not in texts["Hedges"] and "Mowers" not in texts["Trim in May."]


def test_a_new_recipe_rebuilds_the_vectors_and_says_it_is_the_text() -> None:
    identity = CountingEncoder().identity.as_dict()
    old = {"identity": identity, "text": "title, first heading path, body", "dtype": "float16"}
    new = {**old, "text": TEXT_RECIPE}
    assert embedding_change(old, new).startswith("embedded text changed (title, first heading")
    assert embedding_change(new, dict(new)) == ""
    other = {**new, "identity": CountingEncoder("other").identity.as_dict()}
    assert embedding_change(old, other).startswith("embedding model changed")
