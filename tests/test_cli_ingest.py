from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.corpora import write_pipeline_corpus
from typer.testing import CliRunner

from policy_assistant.chunk import make_chunker
from policy_assistant.cli import app
from policy_assistant.index import load_manifest, open_index
from policy_assistant.ingest.pipeline import ingest

runner = CliRunner()


def test_ingest_then_search_public_and_staff(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    index = str(tmp_path / "i")
    done = runner.invoke(app, ["ingest", str(corpus), "--index", index, "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["added"] == ["a.md", "b.md", "staff/c.md"]
    public = runner.invoke(app, ["search", "sprinkler refund code", "--index", index, "--json"])
    assert public.exit_code == 0
    assert {json.loads(x)["chunk"]["access"] for x in public.stdout.splitlines()} == {"public"}
    staff = runner.invoke(
        app, ["search", "sprinkler refund code", "--index", index, "--access", "staff", "--json"]
    )
    first = json.loads(staff.stdout.splitlines()[0])
    assert (first["rank"], first["chunk"]["source"]) == (1, "staff/c.md")


def test_search_table_shows_where_each_result_comes_from(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    index = str(tmp_path / "i")
    runner.invoke(app, ["ingest", str(corpus), "--index", index])
    shown = runner.invoke(app, ["search", "mower warranty", "--index", index, "-k", "1"])
    assert shown.exit_code == 0
    assert "b.md" in shown.stdout and "Mowers" in shown.stdout


def test_query_without_hits_exits_0_and_says_so(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    index = str(tmp_path / "i")
    runner.invoke(app, ["ingest", str(corpus), "--index", index])
    shown = runner.invoke(app, ["search", "zeppelin", "--index", index])
    assert shown.exit_code == 0
    assert shown.stdout == ""
    assert "no results for zeppelin" in shown.stderr


def test_search_without_an_index_says_what_to_run(tmp_path: Path) -> None:
    shown = runner.invoke(app, ["search", "x", "--index", str(tmp_path / "none")])
    assert shown.exit_code == 1
    assert "run `policy-assistant ingest" in shown.stderr
    assert len(shown.stderr.strip().splitlines()) == 1


def test_index_folder_from_the_environment(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    env = {"POLICY_ASSISTANT_INDEX": str(tmp_path / "env-index")}
    assert runner.invoke(app, ["ingest", str(corpus)], env=env).exit_code == 0
    assert load_manifest(tmp_path / "env-index").documents


def test_bad_access_and_bad_chunker_settings_are_usage_errors(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    bad_access = runner.invoke(app, ["search", "x", "--access", "admin"])
    assert bad_access.exit_code == 2
    bad_overlap = runner.invoke(
        app, ["ingest", str(corpus), "--chunker", "overlapping", "--size", "10", "--overlap", "10"]
    )
    assert bad_overlap.exit_code == 2
    assert "--overlap must be smaller than --size" in bad_overlap.stderr


def test_a_bad_file_exits_1_and_the_others_are_searchable(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    (corpus / "x.pdf").write_bytes(b"PK")
    index = str(tmp_path / "i")
    done = runner.invoke(app, ["ingest", str(corpus), "--index", index])
    assert done.exit_code == 1
    assert "error: x.pdf: " in done.stderr
    assert open_index(Path(index)).search("mowers", 1, "public")


def _many_documents(root: Path, count: int, marker: str) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "catalog.toml").write_text("")
    for i in range(count):
        body = " ".join(f"{marker} word{(i * 7 + j) % 997}" for j in range(120))
        (root / f"d{i:04d}.md").write_text(f"---\naccess: public\n---\n# Doc {i}\n\n{body}\n")


def _ingest_command(corpus: Path, index: Path) -> list[str]:
    return [sys.executable, "-m", "policy_assistant", "ingest", str(corpus), "--index", str(index)]


def _row_ids(index: Path) -> list[str]:
    """The live generation's chunk IDs in row order, its files checked whole."""
    with open_index(index, verify=True) as opened:
        ids = [c.id for c in opened.chunks()]
        assert opened.manifest.rows == len(ids) == sum(e.chunks for e in opened.manifest.documents)
        return ids


def _mid_write(index: Path, pid: int) -> bool:
    """Whether a killed writer left signs of an unfinished write: its temporary folder, a
    generation besides the live one, or trash."""
    names = [p.name for p in index.iterdir()]
    generations = [n for n in names if n.startswith("gen-")]
    return f".tmp-{pid}" in names or len(generations) > 1 or any(".trash-" in n for n in names)


@pytest.mark.slow
def test_an_ingest_killed_at_random_points_leaves_the_old_or_the_new_index(tmp_path: Path) -> None:
    corpora = {marker: tmp_path / marker for marker in ("old", "new")}
    for marker, root in corpora.items():
        _many_documents(root, 150, f"{marker}marker")
    index = tmp_path / "i"
    ingest(corpora["new"], tmp_path / "ref", make_chunker("structure"))  # the command's default
    start = time.monotonic()
    subprocess.run(_ingest_command(corpora["old"], index), check=True, capture_output=True)
    whole_run = time.monotonic() - start
    expected = {"old": _row_ids(index), "new": _row_ids(tmp_path / "ref")}
    rng = random.Random(7)
    live, mid_write, outcomes = "old", 0, []
    for attempt in range(6):
        target = "new" if live == "old" else "old"  # every run has a whole index to write
        proc = subprocess.Popen(
            _ingest_command(corpora[target], index),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if attempt % 2:  # aimed: kill as soon as the writer has started its generation
            tmp, deadline = index / f".tmp-{proc.pid}", time.monotonic() + 30
            while not tmp.exists() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.001)
            time.sleep(rng.uniform(0, 0.005))
        else:
            time.sleep(rng.uniform(0.3, 1.1) * whole_run)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        mid_write += _mid_write(index, proc.pid)
        ids = _row_ids(index)
        assert ids in (expected[live], expected[target])  # one whole generation, never a mix
        live = target if ids == expected[target] else live
        outcomes.append(live)
    assert mid_write >= 1, outcomes  # else no kill tested what this test is named after
    subprocess.run(_ingest_command(corpora["new"], index), check=True, capture_output=True)
    assert _row_ids(index) == expected["new"]
    assert not _mid_write(index, 0) and not list(index.glob(".tmp-*"))
