from __future__ import annotations

import json
from pathlib import Path

from support.corpora import write_pipeline_corpus
from typer.testing import CliRunner

from policy_assistant.cli import app
from policy_assistant.index import load_manifest
from policy_assistant.ingest.pipeline import sticky_settings

runner = CliRunner()


def ingest(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["ingest", *args, "-q", "--json"])


def test_an_index_keeps_its_settings_and_only_given_options_change_them(tmp_path: Path) -> None:
    corpus, index = str(write_pipeline_corpus(tmp_path / "c")), str(tmp_path / "i")
    first = ingest(
        corpus, "--index", index, "--chunker", "fixed", "--size", "80", "--bm25", "okapi"
    )
    assert first.exit_code == 0, first.output
    again = ingest(corpus, "--index", index)
    assert json.loads(again.stdout)["written"] is False
    assert "settings changed" not in again.stderr
    manifest = load_manifest(tmp_path / "i")
    assert (manifest.chunker, manifest.bm25.variant) == ({"name": "fixed", "size": 80}, "okapi")
    smaller = ingest(corpus, "--index", index, "--size", "60")
    assert "settings changed: size 80 -> 60" in smaller.stderr
    assert load_manifest(tmp_path / "i").chunker == {"name": "fixed", "size": 60}
    assert load_manifest(tmp_path / "i").bm25.variant == "okapi"


def test_a_new_chunker_starts_from_its_own_defaults(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    runner.invoke(
        app, ["ingest", str(corpus), "--index", str(tmp_path / "i"), "--chunker", "fixed"]
    )
    sticky = sticky_settings(tmp_path / "i", "overlapping", {"overlap": 10}, None)
    assert (sticky.chunker, sticky.chunker_settings) == ("overlapping", {"overlap": 10})
    assert sticky.changed == ("chunker fixed -> overlapping",)
    fresh = sticky_settings(tmp_path / "none", None, {}, None)
    assert (fresh.chunker, fresh.bm25.variant, fresh.changed) == ("structure", "lucene", ())


def test_a_first_ingest_reports_no_change_of_settings(tmp_path: Path) -> None:
    corpus = str(write_pipeline_corpus(tmp_path / "c"))
    first = ingest(corpus, "--index", str(tmp_path / "i"), "--chunker", "fixed", "--size", "80")
    assert first.exit_code == 0, first.output
    assert "settings changed" not in first.stderr
    fresh = sticky_settings(tmp_path / "none", "fixed", {"size": 80}, "okapi")
    assert (fresh.chunker, fresh.bm25.variant, fresh.changed) == ("fixed", "okapi", ())
