"""watch rounds: handed what changed, a round leaves the index an ingest of the corpus would.

The truth for every round is pipeline.ingest of the same corpus into a second index folder
after the same edit: both must hold the same bytes, and search must give what a cold
ingest of the final corpus into a fresh folder gives.
"""

from __future__ import annotations

import itertools
import os
import random
import shutil
from pathlib import Path

import pytest
from support.corpora import write_pipeline_corpus
from support.pipeline import STRUCTURE, parser_spy, tree_digest
from support.spies import SourceSpy

from policy_assistant.errors import BadIndex
from policy_assistant.index import open_index
from policy_assistant.index.store.build import build_index
from policy_assistant.index.store.manifest import DocumentEntry
from policy_assistant.index.store.reader import load_entries, load_manifest
from policy_assistant.ingest.pipeline import ingest
from policy_assistant.ingest.watch import Watch
from policy_assistant.parse import read_sources

pytestmark = pytest.mark.slow  # watch tests: make test-slow, make check and CI run them

WORDS = [
    "sprinkler",
    "mower",
    "warranty",
    "refund",
    "hose",
    "rake",
    "shed",
    "lawn",
    "seed",
    "gravel",
    "fence",
    "paint",
]
QUERIES = ["sprinkler warranty", "mower", "refund code", "gravel fence paint", "hose"]


def doc(rng: random.Random) -> str:
    """Return a small Markdown document of random words."""
    body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 40)))
    return f"# {rng.choice(WORDS).title()}\n\n{body}.\n"


def edit(rng: random.Random, corpus: Path) -> set[str]:
    """Add, change, remove or move a few files (or a folder); return the sources touched."""
    files = sorted(p.relative_to(corpus).as_posix() for p in corpus.rglob("*.md"))
    touched: set[str] = set()
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(["add", "change", "remove", "folder", "empty"])
        source = rng.choice(files)
        if kind == "add":
            source = f"{rng.choice(['', 'staff/', 'new/'])}n{rng.randint(0, 99)}.md"
            (corpus / source).parent.mkdir(exist_ok=True)
            (corpus / source).write_text(doc(rng))
        elif kind == "change" and (corpus / source).exists():
            (corpus / source).write_text(doc(rng))
        elif kind == "empty" and (corpus / source).exists():
            (corpus / source).write_text("")  # a document without chunks: its entry is apart
        elif (
            kind == "remove" and (corpus / source).exists() and len(list(corpus.rglob("*.md"))) > 1
        ):
            (corpus / source).unlink()  # never the last: ingest refuses a corpus of nothing
        elif kind == "folder":
            here, there = ("staff", "moved") if (corpus / "staff").is_dir() else ("moved", "staff")
            if (corpus / here).is_dir() and not (corpus / there).exists():
                shutil.move(corpus / here, corpus / there)  # a folder moved: two sources
                touched |= {here, there}
            continue
        touched.add(source)
    return touched


def hits(index_dir: Path) -> list[list[tuple[str, float]]]:
    """Return each query's ranking: chunk IDs and scores."""
    with open_index(index_dir) as index:
        return [
            [(h.chunk.id, h.score) for h in index.search(q, k=20, access="staff")] for q in QUERIES
        ]


def started(tmp_path: Path) -> tuple[Path, Watch]:
    """Return a small corpus under tmp_path and a watch of it into tmp_path/w, its ingest done."""
    corpus = write_pipeline_corpus(tmp_path / "c")
    watch = Watch(corpus, tmp_path / "w", STRUCTURE)
    watch.ingest()
    return corpus, watch


Placed = dict[str, tuple[DocumentEntry, str, int, int]]


def held(watch: Watch) -> Placed:
    """Return the entries a watch holds, with where each document's chunks sit."""
    return {s: (e, e.segment, e.first, e.words) for s, e in watch.entries.items()}


def on_disk(index_dir: Path) -> Placed:
    """Return the live generation's entries read afresh, with where the chunks sit."""
    entries = load_entries(index_dir, load_manifest(index_dir))
    return {e.source: (e, e.segment, e.first, e.words) for e in entries}


@pytest.mark.parametrize("seed", range(6))
def test_rounds_write_what_ingest_writes_and_search_as_a_cold_build(
    tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    corpus, watch = started(tmp_path)
    ingest(corpus, tmp_path / "i", STRUCTURE)
    for _ in range(14):  # past 8 segments: the merge policy's rounds are among them
        touched = edit(rng, corpus)
        done = watch.round(touched)
        again = ingest(corpus, tmp_path / "i", STRUCTURE)
        assert (done.added, done.changed, done.removed) == (
            again.added,
            again.changed,
            again.removed,
        )
        assert tree_digest(tmp_path / "w") == tree_digest(tmp_path / "i")
        assert held(watch) == on_disk(tmp_path / "w")  # what the next round builds on
    cold = ingest(corpus, tmp_path / "cold", STRUCTURE)
    assert cold.written
    assert hits(tmp_path / "w") == hits(tmp_path / "cold")


def test_a_round_parses_only_what_it_is_handed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus, watch = started(tmp_path)
    spy: SourceSpy = parser_spy(monkeypatch)
    (corpus / "b.md").write_text("# Mowers\n\nRobot mowers carry a five year warranty.\n")
    (corpus / "a.md").write_text("# Sprinklers\n\nChanged, but not handed to the round.\n")
    done = watch.round({"b.md"})
    assert spy.take() == ["b.md"]
    assert done.changed == ["b.md"] and done.written
    with open_index(tmp_path / "w") as index:
        texts = {c.source: c.text for c in index.chunks()}
    assert "Robot mowers" in texts["b.md"] and "18 month" in texts["a.md"]


def test_a_round_of_nothing_new_writes_nothing(tmp_path: Path) -> None:
    corpus, watch = started(tmp_path)
    before = tree_digest(tmp_path / "w")
    (corpus / "notes.tmp").write_text("not a document")
    os.utime(corpus / "a.md")  # touched, same bytes
    done = watch.round({"a.md", "notes.tmp", ".hidden.md", "gone.md"})
    assert not done.written and done.unchanged == ["a.md", "b.md", "staff/c.md"]
    assert tree_digest(tmp_path / "w") == before


def test_a_catalog_change_is_a_whole_ingest(tmp_path: Path) -> None:
    corpus, watch = started(tmp_path)
    catalog = (corpus / "catalog.toml").read_text().replace('"1"', '"2"', 1)
    (corpus / "catalog.toml").write_text(catalog)
    done = watch.round({"catalog.toml"})
    assert done.changed == ["a.md"]


def test_a_round_follows_another_writer(tmp_path: Path) -> None:
    corpus, watch = started(tmp_path)
    (corpus / "b.md").unlink()
    ingest(corpus, tmp_path / "w", STRUCTURE)  # another writer removes b.md
    (corpus / "a.md").write_text("# Sprinklers\n\nA new text.\n")
    done = watch.round({"a.md"})
    assert done.changed == ["a.md"] and done.removed == []
    with open_index(tmp_path / "w") as index:
        assert {c.source for c in index.chunks()} == {"a.md", "staff/c.md"}


def test_a_round_under_other_settings_ingests_the_whole_corpus(tmp_path: Path) -> None:
    corpus, watch = started(tmp_path)
    from policy_assistant.chunk import make_chunker

    ingest(corpus, tmp_path / "w", make_chunker("fixed", size=5))  # another writer's chunker
    done = watch.round({"a.md"})
    assert done.rebuilt and sorted(done.changed + done.added) == ["a.md", "b.md", "staff/c.md"]
    assert tree_digest(tmp_path / "w") != {}
    ingest(corpus, tmp_path / "cold", STRUCTURE)
    assert hits(tmp_path / "w") == hits(tmp_path / "cold")


def test_read_sources_reads_as_a_walk_would(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    (corpus / ".git").mkdir()
    (corpus / ".git" / "x.md").write_text("# hidden\n")
    (corpus / "link").symlink_to(corpus / "staff", target_is_directory=True)
    wanted = {"staff", "staff/c.md", ".git/x.md", "link/c.md", "gone.md", "a.md", "../b.md"}
    read = read_sources(corpus, wanted)
    assert [d.source for d in read.documents] == ["a.md", "staff/c.md"]


def test_build_index_is_handed_entries_in_source_order(tmp_path: Path) -> None:
    """A round hands build_index what ingest does: one entry per document, by source."""
    corpus, watch = started(tmp_path)
    seen: list[list[str]] = []

    def spy(*args: object, **kwargs: object) -> object:
        seen.append([e.source for e in kwargs["entries"]])  # type: ignore[attr-defined]
        return build_index(*args, **kwargs)  # type: ignore[arg-type]

    import policy_assistant.ingest.watch as watch_module

    real = watch_module.build_index
    watch_module.build_index = spy  # type: ignore[assignment]
    try:
        (corpus / "new.md").write_text("# New\n\nA new document.\n")
        watch.round({"new.md"})
    finally:
        watch_module.build_index = real
    assert seen == [["a.md", "b.md", "new.md", "staff/c.md"]]


def test_a_bad_file_fails_in_a_round_as_in_ingest(tmp_path: Path) -> None:
    corpus, watch = started(tmp_path)
    ingest(corpus, tmp_path / "i", STRUCTURE)
    (corpus / "bad.pdf").write_bytes(b"%PDF-1.7 not a PDF at all")
    (corpus / "a.md").write_bytes(b"# A\n\nnot UTF-8: \xff\xfe\n")
    done = watch.round({"bad.pdf", "a.md"})
    again = ingest(corpus, tmp_path / "i", STRUCTURE)
    assert [f.source for f in done.failures] == [f.source for f in again.failures] != []
    assert (done.changed, done.removed, done.warnings) == (
        again.changed,
        again.removed,
        again.warnings,
    )
    assert tree_digest(tmp_path / "w") == tree_digest(tmp_path / "i")


def test_a_round_after_the_index_was_removed_ingests_the_whole_corpus(tmp_path: Path) -> None:
    corpus, watch = started(tmp_path)
    shutil.rmtree(tmp_path / "w")
    (corpus / "a.md").write_text("# Sprinklers\n\nA new text.\n")
    done = watch.round({"a.md"})
    assert done.added == ["a.md", "b.md", "staff/c.md"] and done.written
    ingest(corpus, tmp_path / "i", STRUCTURE)
    assert tree_digest(tmp_path / "w") == tree_digest(tmp_path / "i")


def test_a_watch_warms_the_parsers_of_its_corpus_while_it_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import policy_assistant.ingest.watch as watch_module

    warmed: list[set[str | None]] = []
    monkeypatch.setattr(watch_module, "warm_parsers", warmed.append)
    corpus = write_pipeline_corpus(tmp_path / "c")
    (corpus / "d.html").write_text("<html><body><p>Hoses carry no warranty.</p></body></html>")
    Watch(corpus, tmp_path / "w", STRUCTURE).ingest()
    assert warmed == [{"html", "markdown"}]


def test_warm_parsers_imports_each_parser_and_asks_the_language_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import policy_assistant.ingest.watch as watch_module

    imported: list[str] = []
    asked: list[str] = []

    def fake_import(name: str) -> None:
        imported.append(name)
        if name.endswith("docx"):
            raise ImportError(name)  # a parser this installation lacks: skipped

    monkeypatch.setattr(watch_module.importlib, "import_module", fake_import)
    monkeypatch.setattr(watch_module, "detect_language", lambda text, default: asked.append(text))
    watch_module.warm_parsers({"markdown", "docx", "pdf", None})
    assert imported == [
        "policy_assistant.parse.docx",
        "policy_assistant.parse.markdown",
        "policy_assistant.parse.pdf.reader",
    ]
    assert len(asked) == 1 and len(asked[0]) > 40


def test_rounds_through_merges_hold_the_entries_on_disk(tmp_path: Path) -> None:
    """Past 8 segments the writer merges; the entries a watch holds still place every chunk."""
    corpus, watch = started(tmp_path)
    counts = []
    for n in range(12):
        (corpus / f"n{n}.md").write_text(f"# Note {n}\n\nSprinkler note number {n}.\n")
        watch.round({f"n{n}.md"})  # a segment a round
        assert held(watch) == on_disk(tmp_path / "w")
        assert watch.manifest is not None
        counts.append(len(watch.manifest.segments))
        assert set(watch.known) == {s.info.sha256 for s in watch.manifest.segments}
    assert any(b < a for a, b in itertools.pairwise(counts)), counts  # a merge happened
    ingest(corpus, tmp_path / "cold", STRUCTURE)
    assert hits(tmp_path / "w") == hits(tmp_path / "cold")


def test_a_failed_read_back_is_read_again_by_the_next_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import policy_assistant.ingest.watch as watch_module

    corpus, watch = started(tmp_path)
    real = watch_module.segments_entries

    def unreadable(*args: object) -> object:
        raise ValueError("not an entries file")

    monkeypatch.setattr(watch_module, "segments_entries", unreadable)
    (corpus / "a.md").write_text("# Sprinklers\n\nA new text.\n")
    with pytest.raises(BadIndex, match="damaged index"):
        watch.round({"a.md"})  # written, but its entries could not be read back
    monkeypatch.setattr(watch_module, "segments_entries", real)
    (corpus / "b.md").write_text("# Mowers\n\nAnother new text.\n")
    done = watch.round({"b.md"})
    assert done.changed == ["b.md"]
    assert held(watch) == on_disk(tmp_path / "w")
