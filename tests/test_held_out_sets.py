"""The external question sets: fetch.sh builds every one, and the three novels, heldout-alice,
heldout-austen and heldout-northanger, and the chat log heldout-irc, each held out until its
first measurement, are never taken by the bench that runs every fetched set."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXTERNAL = ROOT / "questions" / "external"
sys.path.insert(0, str(ROOT / "bench"))


def test_fetch_sh_builds_every_external_question_set() -> None:
    script = (EXTERNAL / "fetch.sh").read_text(encoding="utf-8")
    listed = re.search(r'^all="([^"]*)"', script, re.MULTILINE)
    assert listed, "fetch.sh has no default list of sets"
    for path in sorted(EXTERNAL.glob("*.jsonl")):
        assert path.stem in listed.group(1).split(), path.name
        assert re.search(rf"^\s*{re.escape(path.stem)}\) set_", script, re.MULTILINE), path.name


def test_the_rankers_bench_never_runs_the_held_out_novels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import eval_rankers

    for name in (
        "licences",
        "heldout-rsync-man",
        "heldout-alice",
        "heldout-austen",
        "heldout-northanger",
        "heldout-irc",
    ):
        (tmp_path / "questions" / "external").mkdir(parents=True, exist_ok=True)
        (tmp_path / "questions" / "external" / f"{name}.jsonl").write_text("", encoding="utf-8")
        (tmp_path / "build" / "external" / name).mkdir(parents=True)
    monkeypatch.setattr(eval_rankers, "ROOT", tmp_path)
    names = [name for name, _, _ in eval_rankers.sets()]
    assert names == ["bundled", "licences", "heldout-rsync-man"]
