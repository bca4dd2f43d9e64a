from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from test_pipeline import write_corpus
from typer.testing import CliRunner

from policy_assistant.cli import app
from policy_assistant.index import load_manifest, open_index

runner = CliRunner()


def test_ingest_then_search_public_and_staff(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c")
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
    corpus = write_corpus(tmp_path / "c")
    index = str(tmp_path / "i")
    runner.invoke(app, ["ingest", str(corpus), "--index", index])
    shown = runner.invoke(app, ["search", "mower warranty", "--index", index, "-k", "1"])
    assert shown.exit_code == 0
    assert "b.md" in shown.stdout and "Mowers" in shown.stdout


def test_query_without_hits_exits_0_and_says_so(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c")
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
    corpus = write_corpus(tmp_path / "c")
    env = {"POLICY_ASSISTANT_INDEX": str(tmp_path / "env-index")}
    assert runner.invoke(app, ["ingest", str(corpus)], env=env).exit_code == 0
    assert load_manifest(tmp_path / "env-index").documents


def test_bad_access_and_bad_chunker_settings_are_usage_errors(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c")
    bad_access = runner.invoke(app, ["search", "x", "--access", "admin"])
    assert bad_access.exit_code == 2
    bad_overlap = runner.invoke(
        app, ["ingest", str(corpus), "--chunker", "overlapping", "--size", "10", "--overlap", "10"]
    )
    assert bad_overlap.exit_code == 2
    assert "--overlap must be smaller than --size" in bad_overlap.stderr


def test_a_bad_file_exits_1_and_the_others_are_searchable(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c")
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


def test_an_ingest_killed_at_random_points_leaves_the_old_or_the_new_index(tmp_path: Path) -> None:
    corpus, index = tmp_path / "c", tmp_path / "i"
    _many_documents(corpus, 400, "oldmarker")
    script = [
        sys.executable,
        "-m",
        "policy_assistant",
        "ingest",
        str(corpus),
        "--index",
        str(index),
        "-q",
    ]
    subprocess.run(script, check=True, capture_output=True)
    old = {c.id for c in open_index(index).chunks()}
    _many_documents(corpus, 400, "newmarker")
    rng = random.Random(7)
    seen = set()
    for _ in range(6):
        proc = subprocess.Popen(script, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.2, 1.6))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        with open_index(index) as opened:
            ids = {c.id for c in opened.chunks()}
            assert len(opened) == len(ids)
            if ids == old:
                seen.add("old")
            else:
                assert all("newmarker" in c.text for c in opened.chunks())
                seen.add("new")
    subprocess.run(script, check=True, capture_output=True)
    assert all("newmarker" in c.text for c in open_index(index).chunks())
