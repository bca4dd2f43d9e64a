"""Damage, leftovers and disks that refuse writes: ingest repairs, search says one line."""

from __future__ import annotations

import errno
import os
import random
import shutil
from contextlib import suppress
from pathlib import Path

import numpy as np
import orjson
import pytest
from support.corpora import write_pipeline_corpus
from support.pipeline import STRUCTURE, tree_digest
from typer.testing import CliRunner

from policy_assistant.cli import app
from policy_assistant.errors import BadIndex
from policy_assistant.index import FORMAT_VERSION, index_lock, open_index
from policy_assistant.index.context.unit_segment import UNIT_SEGMENT_FORMAT
from policy_assistant.index.store import reader
from policy_assistant.ingest.pipeline import ingest
from policy_assistant.parse import CorpusOptions

runner = CliRunner()


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, Path]:
    """A corpus and its index, ingested once."""
    corpus, index_dir = write_pipeline_corpus(tmp_path / "c"), tmp_path / "i"
    ingest(corpus, index_dir, STRUCTURE)
    return corpus, index_dir


def live(index_dir: Path) -> Path:
    return index_dir / (index_dir / "CURRENT").read_text().strip()


def search_cli(index_dir: Path, query: str, access: str = "public"):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["search", query, "--index", str(index_dir), "--access", access])


def assert_one_line_error(result, *fragments: str) -> None:  # type: ignore[no-untyped-def]
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def assert_ingest_repairs(corpus: Path, index_dir: Path) -> None:
    """Ingest rebuilds the damaged index, says so in one warning, and search works again."""
    summary = ingest(corpus, index_dir, STRUCTURE)
    assert summary.written
    damage = [w for w in summary.warnings if "old index is unusable" in w]
    assert len(damage) == 1 and "\n" not in damage[0]
    assert "policy-assistant ingest" not in damage[0]  # we are that ingest
    with open_index(index_dir, verify=True) as index:
        assert [h.chunk.source for h in index.search("mowers", 1)] == ["b.md"]


def segment_file(generation: Path, name: str) -> Path:
    return next(generation.glob(f"segments/seg-*/{name}"))


def _bad_record_block(generation: Path) -> None:
    path = segment_file(generation, "records.bin")
    data = bytearray(path.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 8] = b"\x00" * 8  # same length: offsets agree
    path.write_bytes(bytes(data))


DAMAGE = {
    "bad block in records.bin": _bad_record_block,
    "truncated records.bin": lambda g: segment_file(g, "records.bin").write_bytes(b"x"),
    "missing blocks.npy": lambda g: segment_file(g, "blocks.npy").unlink(),
    "truncated access.npy": lambda g: segment_file(g, "access.npy").write_bytes(b"\x93NUMPY"),
    "missing rows.npy": lambda g: segment_file(g, "rows.npy").unlink(),
    "truncated manifest.json": lambda g: (g / "manifest.json").write_bytes(b'{"format_v'),
    "missing generation": shutil.rmtree,
    "invalid bytes in CURRENT": lambda g: (g.parent / "CURRENT").write_bytes(b"\xff\xfe\x00gen"),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_damage_is_one_line_in_search_and_ingest_rebuilds(built, damage: str) -> None:
    corpus, index_dir = built
    DAMAGE[damage](live(index_dir))
    every_row = search_cli(index_dir, "sprinkler mowers warranty refund code", "staff")
    assert_one_line_error(every_row, "damaged index", "policy-assistant ingest")
    assert_ingest_repairs(corpus, index_dir)


def test_bad_document_entries_stop_search_and_ingest_rebuilds(built) -> None:
    corpus, index_dir = built
    (entries,) = live(index_dir).glob("segments/seg-*/entries.json")
    entries.write_bytes(b"{not json\n")
    # search never reads the entries, but a small file is checked when the index opens
    assert_one_line_error(search_cli(index_dir, "mowers"), "entries.json")
    assert_one_line_error(runner.invoke(app, ["ls", "--index", str(index_dir)]), "entries.json")
    assert_ingest_repairs(corpus, index_dir)


def test_a_bad_record_block_is_reported_by_row_when_that_row_is_returned(built) -> None:
    corpus, index_dir = built
    with open_index(index_dir) as index:
        row = next(r for r in range(len(index)) if index.chunk(r).source == "b.md")
    _bad_record_block(live(index_dir))
    assert_one_line_error(search_cli(index_dir, "mowers"), f"records.bin row {row}")
    with pytest.raises(BadIndex, match="checksum"):
        open_index(index_dir, verify=True)  # what ingest checks before it reuses anything
    assert_ingest_repairs(corpus, index_dir)


def test_a_zeroed_access_array_never_lets_public_search_see_staff(built, monkeypatch) -> None:
    _, index_dir = built
    access = segment_file(live(index_dir), "access.npy")
    np.save(access, np.zeros_like(np.load(access)))
    assert_one_line_error(search_cli(index_dir, "refund code 4471"), "access.npy does not match")
    # past the check on open, each result's label is still checked against its record
    monkeypatch.setattr(reader, "check_on_open", lambda *args: None)
    with open_index(index_dir) as index, pytest.raises(BadIndex, match=r"access\.npy disagrees"):
        index.search("refund code 4471", k=3)  # only staff/c.md holds these terms
    with pytest.raises(BadIndex, match=r"access\.npy does not match its checksum"):
        open_index(index_dir, verify=True)


def test_verify_finds_one_flipped_byte_in_any_file(built) -> None:
    _, index_dir = built
    generation = live(index_dir)
    manifest = orjson.loads((generation / "manifest.json").read_bytes())
    on_disk = sorted(
        p.relative_to(generation).as_posix()
        for p in generation.rglob("*")
        if p.is_file() and p.name != "manifest.json"
    )
    # segment files are checked through their segment.json, whose SHA-256 the manifest holds
    # (a unit segment's, units.json holds)
    in_segments = ("segments/", "units/useg-")
    assert sorted(manifest["files"]) == [n for n in on_disk if not n.startswith(in_segments)]
    assert len(on_disk) > len(manifest["files"]) + 10
    open_index(index_dir, verify=True).close()
    for name in on_disk:
        path = generation / name
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0x01
        path.write_bytes(bytes(data))
        with pytest.raises(BadIndex, match=rf"{name} does not match its checksum"):
            open_index(index_dir, verify=True)
        data[len(data) // 2] ^= 0x01
        path.write_bytes(bytes(data))


def test_verify_refuses_a_manifest_without_checksums(built) -> None:
    _, index_dir = built
    path = live(index_dir) / "manifest.json"
    path.write_bytes(orjson.dumps(orjson.loads(path.read_bytes()) | {"files": {}}))
    with pytest.raises(BadIndex, match="no file checksums"):
        open_index(index_dir, verify=True)


def test_an_ingest_with_nothing_to_write_removes_what_killed_writers_left(built) -> None:
    corpus, index_dir = built
    generation = live(index_dir)
    (index_dir / ".tmp-99999" / "bm25").mkdir(parents=True)
    (index_dir / ".tmp-99999" / "chunks.jsonl").write_text("partial")
    (index_dir / ".trash-gen-00000000000000aa").mkdir()
    shutil.copytree(generation, index_dir / "gen-0123456789abcdef")  # a stale whole copy
    shutil.copytree(generation, index_dir / f"{generation.name}-b")
    (index_dir / ".CURRENT.tmp").write_text("gen-0123456789abcdef\n")
    (index_dir / "notes.txt").write_text("not ours")
    summary = ingest(corpus, index_dir, STRUCTURE)
    assert not summary.written and summary.unchanged == ["a.md", "b.md", "staff/c.md"]
    names = sorted(p.name for p in index_dir.iterdir())
    assert names == sorted([".lock", "CURRENT", generation.name, "notes.txt"])


def test_leftovers_stay_while_current_is_unreadable_then_go_with_the_rebuild(built) -> None:
    corpus, index_dir = built
    stale = index_dir / "gen-0123456789abcdef"
    shutil.copytree(live(index_dir), stale)
    (index_dir / "CURRENT").write_bytes(b"\xff")
    (index_dir / ".tmp-99999").mkdir()
    with index_lock(index_dir):  # which generation is live is unknown: both stay
        assert stale.exists() and not (index_dir / ".tmp-99999").exists()
    summary = ingest(corpus, index_dir, STRUCTURE)
    assert summary.written and not stale.exists()
    assert sorted(p.name for p in index_dir.iterdir()) == [".lock", "CURRENT", live(index_dir).name]


def _failing(error: int):  # type: ignore[no-untyped-def]
    def fail(*args: object, **kwargs: object) -> None:
        raise OSError(error, os.strerror(error))

    return fail


DISK_ERRORS = {
    "disk full at fsync": ("os.fsync", errno.ENOSPC),
    "disk full writing an array": ("numpy.save", errno.ENOSPC),
    "out of inodes": ("pathlib.Path.mkdir", errno.ENOSPC),
    "quota exceeded": ("pathlib.Path.write_bytes", errno.EDQUOT),
    "read-only file system": ("pathlib.Path.mkdir", errno.EROFS),
}


@pytest.mark.parametrize("case", DISK_ERRORS)
def test_a_write_the_disk_refuses_is_one_line_and_the_old_index_stays(
    built, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    corpus, index_dir = built
    before = tree_digest(index_dir)
    (corpus / "b.md").write_text("# Mowers\n\nLawn mowers now carry a three year warranty.\n")
    target, error = DISK_ERRORS[case]
    monkeypatch.setattr(target, _failing(error))
    result = runner.invoke(app, ["ingest", str(corpus), "--index", str(index_dir), "-q"])
    monkeypatch.undo()
    assert_one_line_error(result, f"cannot write the index at {index_dir}", os.strerror(error))
    assert "the old index is unchanged" in result.stderr
    assert tree_digest(index_dir) == before
    assert sorted(p.name for p in index_dir.iterdir()) == [".lock", "CURRENT", live(index_dir).name]


def test_a_read_only_index_folder_is_read_and_refuses_writes_in_one_line(
    built, monkeypatch: pytest.MonkeyPatch
) -> None:
    """EROFS simulated by os.open: every open for writing inside the index folder fails."""
    corpus, index_dir = built
    before = tree_digest(index_dir)
    real_open, inside = os.open, str(index_dir)

    def read_only_open(path, flags, *args, **kwargs):  # type: ignore[no-untyped-def]
        writing = flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT)
        if writing and os.fspath(path).startswith(inside):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only_open)
    monkeypatch.setattr("pathlib.Path.mkdir", _failing(errno.EROFS))
    unchanged = runner.invoke(app, ["ingest", str(corpus), "--index", str(index_dir), "-q"])
    assert unchanged.exit_code == 0, unchanged.output  # nothing to write: the lock reads
    (corpus / "a.md").write_text("# Sprinklers\n\nSprinklers carry a 24 month warranty.\n")
    changed = runner.invoke(app, ["ingest", str(corpus), "--index", str(index_dir), "-q"])
    monkeypatch.undo()
    assert_one_line_error(changed, "cannot write the index at", "Read-only file system")
    assert tree_digest(index_dir) == before


@pytest.fixture
def immutable(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Make paths immutable with chattr +i (root ignores permission bits); undo after."""
    chattr = shutil.which("chattr")
    made: list[Path] = []

    def make(path: Path) -> None:
        if chattr is None or os.system(f"{chattr} +i '{path}' 2>/dev/null") != 0:
            pytest.skip("chattr +i is not available here (needs root on ext4/xfs/btrfs)")
        made.append(path)

    yield make
    for path in reversed(made):
        os.system(f"{chattr} -i '{path}'")


def test_an_immutable_index_folder_ingests_unchanged_and_refuses_changes(built, immutable):
    """A real read-only folder: chattr +i on the folder and its lock file."""
    corpus, index_dir = built
    before = tree_digest(index_dir)
    immutable(index_dir / ".lock")
    immutable(index_dir)
    unchanged = runner.invoke(app, ["ingest", str(corpus), "--index", str(index_dir), "-q"])
    assert unchanged.exit_code == 0, unchanged.output
    (corpus / "a.md").write_text("# Sprinklers\n\nSprinklers carry a 24 month warranty.\n")
    changed = runner.invoke(app, ["ingest", str(corpus), "--index", str(index_dir), "-q"])
    assert_one_line_error(changed, "cannot write the index at", "Operation not permitted")
    assert tree_digest(index_dir) == before


@pytest.mark.slow
def test_random_bytes_in_any_file_give_index_errors_never_a_traceback(built) -> None:
    """Seeded: a few random bytes in one file; search either works or raises BadIndex,
    and verify=True always notices."""
    _, index_dir = built
    generation = live(index_dir)
    rng = random.Random(14)
    for path in sorted(p for p in generation.rglob("*") if p.is_file()):
        original = path.read_bytes()
        for _ in range(12):
            data = bytearray(original)
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            path.write_bytes(bytes(data))
            with suppress(BadIndex), open_index(index_dir) as index:
                for query in ("sprinkler warranty", "mowers", "refund code 4471"):
                    index.search(query, 5, "staff")
                    index.search(query, 5)
            if bytes(data) != original:
                with pytest.raises(BadIndex):
                    open_index(index_dir, verify=True)
        path.write_bytes(original)


@pytest.mark.slow
@pytest.mark.parametrize("version", [1, 3])
def test_an_index_of_an_older_format_is_rebuilt_by_ingest(built, version: int) -> None:
    """Format 1 had no checksums; format 3 kept every entry in one documents.jsonl."""
    corpus, index_dir = built
    path = live(index_dir) / "manifest.json"
    old = orjson.loads(path.read_bytes())
    if version == 1:
        del old["files"]
    path.write_bytes(orjson.dumps(old | {"format_version": version}))
    found = search_cli(index_dir, "mowers")
    assert_one_line_error(found, f"in format {version}", f"reads format {FORMAT_VERSION}")
    summary = ingest(corpus, index_dir, STRUCTURE)
    assert summary.written and summary.added == ["a.md", "b.md", "staff/c.md"]
    assert any(f"format {version}" in w for w in summary.warnings)
    open_index(index_dir, verify=True).close()


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_a_flipped_byte_is_found_beside_the_read_and_rebuilt(built, workers: int) -> None:
    # The checksums are checked in a forked child while the corpus is read (workers 2), or
    # in this process first (workers 1); either way the damage is found and rebuilt.
    corpus, index_dir = built
    _bad_record_block(live(index_dir))
    summary = ingest(corpus, index_dir, STRUCTURE, options=CorpusOptions(workers=workers))
    assert summary.written
    assert [w for w in summary.warnings if "old index is unusable" in w]
    with open_index(index_dir, verify=True) as index:
        assert [h.chunk.source for h in index.search("mowers", 1)] == ["b.md"]


def test_units_of_another_version_are_named_so_and_rebuilt(built) -> None:
    corpus, index_dir = built
    path = live(index_dir) / "units" / "units.json"
    path.write_bytes(orjson.dumps({**orjson.loads(path.read_bytes()), "format": 1}))
    result = runner.invoke(app, ["search", "mowers", "--index", str(index_dir), "--budget", "50"])
    assert_one_line_error(result, "was written by another version", "units.json is in format 1")
    assert "damaged" not in result.stderr
    assert_ingest_repairs(corpus, index_dir)


@pytest.mark.parametrize("where", ["units.json", "segment.json"])
def test_unit_segments_of_another_version_are_named_so_and_rebuilt(built, where: str) -> None:
    # units.json says which format its segments are in, so ingest rebuilds them; a segment
    # read in another format is named so by search, never "damaged".
    corpus, index_dir = built
    units = live(index_dir) / "units"
    other = UNIT_SEGMENT_FORMAT - 1
    if where == "units.json":
        path = units / "units.json"
        changed = {"segment_format": other}
    else:
        (path,) = units.glob("useg-*/segment.json")
        changed = {"format": other}
    path.write_bytes(orjson.dumps({**orjson.loads(path.read_bytes()), **changed}))
    result = runner.invoke(app, ["search", "mowers", "--index", str(index_dir), "--budget", "50"])
    assert_one_line_error(result, "was written by another version", f"format {UNIT_SEGMENT_FORMAT}")
    assert "damaged" not in result.stderr
    assert_ingest_repairs(corpus, index_dir)


def test_open_index_takes_a_str_as_a_library_caller_passes_it(built) -> None:
    _, index_dir = built
    with open_index(str(index_dir)) as index:
        assert [h.chunk.source for h in index.search("mowers", 1)] == ["b.md"]
    with pytest.raises(BadIndex, match="no index"):
        open_index(str(index_dir.parent / "none"))
