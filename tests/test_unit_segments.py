"""Unit segments: after any sequence of ingests, contexts equal a cold build's, to the bit.

The reference is the store eval's strategies rank (units_of: the final corpus's documents
written as one segment) and a cold ingest of the final corpus into
a fresh folder; every context, its passages' texts, citations and scores, must be the same.
"""

from __future__ import annotations

import hashlib
import random
import shutil
from pathlib import Path

import orjson
import pytest

from policy_assistant.chunk import make_chunker
from policy_assistant.errors import BadIndex
from policy_assistant.index import (
    open_index,
)
from policy_assistant.index.chunks import segment_search
from policy_assistant.index.context import unit_rank, unit_segment
from policy_assistant.index.context.assembler import ContextSettings, context_for
from policy_assistant.index.settings import BM25Settings
from policy_assistant.index.store import plan
from policy_assistant.index.store import units as unit_store
from policy_assistant.index.store.folder import live_generation
from policy_assistant.ingest.pipeline import ingest
from policy_assistant.parse import CorpusOptions, parse_path

CHUNKER = make_chunker("structure")
WORDS = [
    "mower",
    "sprinkler",
    "warranty",
    "refund",
    "frost",
    "pump",
    "hose",
    "blade",
    "seed",
    "till",
    "code",
    "months",
]
QUERIES = (
    "mower warranty",
    "sprinkler refund code",
    "frost pump hose blade seed",
    "warranty warranty months",
    "till",
    "nothing here",
)
SETTINGS = (
    None,
    ContextSettings("units"),
    ContextSettings("automerge"),
    ContextSettings("window", window=1, wide_hits=1, narrow=0),
)


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS[: rng.randint(3, len(WORDS))]) for _ in range(rng.randint(2, 9))]
    return " ".join(words).capitalize() + "."


def document(rng: random.Random) -> str:
    """Return a Markdown file: its access label, headings, paragraphs, a list, a table."""
    parts = [f"---\naccess: {'staff' if rng.random() < 0.3 else 'public'}\n---\n"]
    for section in range(rng.randint(1, 3)):
        parts.append(f"{'#' * rng.randint(1, 2)} {rng.choice(WORDS).title()} {section}\n")
        parts.append(" ".join(sentence(rng) for _ in range(rng.randint(1, 4))) + "\n")
        if rng.random() < 0.4:
            parts.append("\n".join(f"- {sentence(rng)}" for _ in range(rng.randint(1, 3))) + "\n")
        if rng.random() < 0.3:
            rows = [f"| {rng.choice(WORDS)} | {rng.randint(1, 30)} months |" for _ in range(3)]
            parts.append("| item | warranty |\n|---|---|\n" + "\n".join(rows) + "\n")
    return "\n".join(parts)


def step(rng: random.Random, corpus: Path, serial: list[int]) -> None:
    """Add, change and remove a few files (a copy of another file makes ties)."""
    files = sorted(corpus.glob("*.md"))
    for path in rng.sample(files, min(len(files), rng.randint(0, 3))):
        if rng.random() < 0.4:
            path.unlink()
        else:
            path.write_text(document(rng), encoding="utf-8")
    for _ in range(rng.randint(1, 3)):
        serial[0] += 1
        path = corpus / f"doc{serial[0]:03d}.md"
        existing = sorted(corpus.glob("*.md"))
        if existing and rng.random() < 0.2:
            path.write_text(rng.choice(existing).read_text(encoding="utf-8"), encoding="utf-8")
        else:
            path.write_text(document(rng) if rng.random() < 0.9 else "", encoding="utf-8")


def contexts(index_dir: Path) -> list[object]:
    out: list[object] = []
    with open_index(index_dir) as index:
        for query in QUERIES:
            for access in ("public", "staff"):
                for budget in (15, 60, 400):
                    for settings in SETTINGS:
                        out.append(index.context(query, budget, access, settings))
    return out


def reference(corpus: Path, variant: str = "lucene") -> list[object]:
    memory = unit_store.units_of(parse_path(corpus).documents, BM25Settings(variant))
    return [
        context_for(memory, query, budget, access, settings)
        for query in QUERIES
        for access in ("public", "staff")
        for budget in (15, 60, 400)
        for settings in SETTINGS
    ]


def run(corpus: Path, index: Path, workers: int = 1, variant: str = "lucene") -> None:
    options = CorpusOptions(cache_dir=index.parent / f"{index.name}-cache", workers=workers)
    ingest(corpus, index, CHUNKER, options=options, bm25=BM25Settings(variant))


def segment_count(index_dir: Path) -> int:
    with open_index(index_dir) as index:
        folder = index.generation / unit_store.UNITS_DIR
    return len(unit_store.read_state(folder).segments)


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "variant"), [(1, "lucene"), (2, "lucene"), (3, "okapi")])
def test_any_sequence_of_ingests_assembles_the_contexts_of_a_cold_build(
    tmp_path: Path, seed: int, variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plan, "MAX_SEGMENTS", 3)  # merges within a short sequence
    monkeypatch.setattr(plan, "MERGED_TO", 2)
    rng, serial, corpus = random.Random(seed), [0], tmp_path / "c"
    corpus.mkdir()
    counts = []
    for _ in range(9):
        step(rng, corpus, serial)
        run(corpus, tmp_path / "i", variant=variant)
        counts.append(segment_count(tmp_path / "i"))
    run(corpus, tmp_path / "cold", variant=variant)
    incremental = contexts(tmp_path / "i")
    assert incremental == contexts(tmp_path / "cold")
    assert incremental == reference(corpus, variant)
    assert sum(1 for c in incremental if c) > len(incremental) // 2, "too few contexts compared"
    assert max(counts) > 1, "the sequence never made a second unit segment"
    assert max(counts) <= 3


@pytest.mark.slow
def test_a_forked_units_update_writes_the_bytes_of_a_serial_one(tmp_path: Path) -> None:
    trees = []
    for workers in (1, 2):
        rng, serial, corpus = random.Random(11), [0], tmp_path / f"c{workers}"
        corpus.mkdir()
        index = tmp_path / f"i{workers}"
        for _ in range(3):
            step(rng, corpus, serial)
            run(corpus, index, workers)
        trees.append({p.relative_to(index).as_posix(): p.read_bytes()
                      for p in index.rglob("*") if p.is_file() and p.name != ".lock"})  # fmt: skip
    assert trees[0] == trees[1]


def test_a_change_writes_one_unit_segment_and_links_the_others(tmp_path: Path) -> None:
    rng, serial, corpus = random.Random(5), [0], tmp_path / "c"
    corpus.mkdir()
    for _ in range(3):
        step(rng, corpus, serial)
    run(corpus, tmp_path / "i")
    with open_index(tmp_path / "i") as index:
        first = next((index.generation / "units").glob("useg-*"))
    inode = (first / "body" / "rows.npy").stat().st_ino
    changed = sorted(corpus.glob("*.md"))[0]
    changed.write_text("---\naccess: public\n---\n# Winter\n\nAntifreeze keeps hoses supple.\n")
    run(corpus, tmp_path / "i")
    with open_index(tmp_path / "i") as index:
        folder = index.generation / "units"
        linked = folder / first.name / "body" / "rows.npy"
        assert linked.stat().st_ino == inode
        state = unit_store.read_state(folder)
        assert [s.deleted for s in state.segments] == [1, 0]
        assert "Antifreeze keeps" in index.context("antifreeze", 30)[0].text


def test_search_verify_checks_the_unit_segments(tmp_path: Path) -> None:
    rng, serial, corpus = random.Random(9), [0], tmp_path / "c"
    corpus.mkdir()
    step(rng, corpus, serial)
    run(corpus, tmp_path / "i")
    with open_index(tmp_path / "i") as index:
        target = next((index.generation / "units").glob("useg-*")) / "passages" / "tf.npy"
    data = bytearray(target.read_bytes())
    data[-1] ^= 0xFF
    target.write_bytes(bytes(data))
    with pytest.raises(BadIndex, match=r"passages/tf\.npy does not match its checksum"):
        open_index(tmp_path / "i", verify=True)
    summary = ingest(corpus, tmp_path / "i", CHUNKER, options=CorpusOptions(workers=1))
    assert summary.damaged and summary.written
    with open_index(tmp_path / "i", verify=True) as index:
        assert index.context("warranty", 40, "staff") is not None


def as_older_layout(index_dir: Path) -> None:
    """Make the live generation's units those of the older layout: one folder of files,
    recorded in the manifest's checksums, no units.json (its name follows its manifest)."""
    generation = live_generation(index_dir)
    shutil.rmtree(generation / "units")
    (generation / "units").mkdir()
    old = b'{"source": "x.md"}\n'
    (generation / "units" / "documents.jsonl").write_bytes(old)
    data = orjson.loads((generation / "manifest.json").read_bytes())
    files = {k: v for k, v in data["files"].items() if not k.startswith("units/")}
    data["files"] = {**files, "units/documents.jsonl": hashlib.sha256(old).hexdigest()}
    manifest = orjson.dumps(data, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2) + b"\n"
    (generation / "manifest.json").write_bytes(manifest)
    name = f"gen-{hashlib.sha256(manifest).hexdigest()[:16]}"
    generation.rename(index_dir / name)
    (index_dir / "CURRENT").write_text(name + "\n")


@pytest.mark.slow
def test_units_in_the_older_layout_are_named_and_written_again(tmp_path: Path) -> None:
    rng, serial, corpus = random.Random(3), [0], tmp_path / "c"
    corpus.mkdir()
    step(rng, corpus, serial)
    run(corpus, tmp_path / "i")
    as_older_layout(tmp_path / "i")
    with open_index(tmp_path / "i") as index, pytest.raises(BadIndex, match="older layout"):
        index.context("warranty", 40)
    options = CorpusOptions(cache_dir=tmp_path / "i-cache", workers=1)
    summary = ingest(corpus, tmp_path / "i", CHUNKER, options=options)
    assert summary.written and "older layout" in (summary.rebuilt or "")
    assert contexts(tmp_path / "i") == reference(corpus)


@pytest.mark.slow
def test_tied_sections_beyond_the_cut_are_taken_in_source_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(unit_rank, "SECTIONS", 2)  # fewer sections than the ties
    corpus = tmp_path / "c"
    corpus.mkdir()
    text = "---\naccess: public\n---\n# Pump\n\nFrost pump hose.\n"
    for name in ("pd.md", "pb.md"):
        (corpus / name).write_text(text)
    run(corpus, tmp_path / "i")
    for name in ("pa.md", "pc.md", "pe.md"):
        (corpus / name).write_text(text)
        run(corpus, tmp_path / "i")
    with open_index(tmp_path / "i") as index:
        found = index.context("frost pump", 400, settings=ContextSettings("units", candidates=2))
    assert [p.source for p in found] == ["pa.md", "pb.md"]


@pytest.mark.parametrize("seed", [1, 2])
def test_a_terms_frontier_holds_its_largest_weight_at_any_statistics(seed: int) -> None:
    rng = random.Random(seed)
    texts = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 40))) for _ in range(300)]
    _, arrays = unit_segment._field_arrays(texts)
    ptr, front, front_ptr = arrays["ptr"], arrays["front"], arrays["front_ptr"]
    assert len(front) < len(arrays["rows"]) // 4, "the frontier saves nothing"
    for k1, b, avgdl in ((1.2, 0.75, 20.0), (0.5, 1.0, 3.0), (2.0, 0.1, 90.0)):
        stats = segment_search.Statistics("lucene", k1, b, 300, avgdl, 0.0, 0.25)
        norms = segment_search.row_norms(stats, arrays["dl"][arrays["rows"]])
        weights = 1.5 * segment_search.saturation(stats, norms, arrays["tf"])
        for term in range(len(ptr) - 1):
            every = slice(int(ptr[term]), int(ptr[term + 1]))
            some = front[int(front_ptr[term]) : int(front_ptr[term + 1])]
            assert weights[some].max() == weights[every].max()
