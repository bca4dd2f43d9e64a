"""A benchmark writes its section of bench/RESULTS.md only when run with --write."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import results

BENCH = results.RESULTS.parent


@pytest.fixture
def results_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point write_section at a copy of nothing in tmp_path; forget any --write parsed before."""
    path = tmp_path / "RESULTS.md"
    monkeypatch.setattr(results, "RESULTS", path)
    monkeypatch.setattr(results, "_write", False)
    return path


def parsed(*argv: str) -> argparse.Namespace:
    """Parse argv as a benchmark does: its own options, and --write from results."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10)
    return results.parse_args(parser, list(argv))


def test_without_write_nothing_is_written(
    results_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = parsed("--size", "3")
    assert args.write is False and args.size == 3
    assert results.write_section("bench_demo", "```\nfigures\n```") is False
    assert not results_file.exists()
    assert "--write" in capsys.readouterr().err
    # A file already there is left byte for byte.
    results_file.write_text("# Benchmark results\n\nold figures\n", encoding="utf-8")
    assert results.write_section("bench_demo", "new figures") is False
    assert results_file.read_text(encoding="utf-8") == "# Benchmark results\n\nold figures\n"


def test_with_write_the_section_is_written_and_then_replaced(results_file: Path) -> None:
    assert parsed("--write").write is True
    assert results.write_section("bench_demo", "```\nfirst\n```") is True
    assert results.write_section("bench_other", "other") is True
    assert results.write_section("bench_demo", "```\nsecond\n```") is True
    text = results_file.read_text(encoding="utf-8")
    assert text.startswith("# Benchmark results\n")
    assert text.count("<!-- bench:bench_demo -->") == 1
    assert "## bench/bench_demo.py" in text and "second" in text and "first" not in text
    assert text.index("bench_demo") < text.index("bench_other")
    assert re.search(r"Measured \d{4}-\d\d-\d\d \d\d:\d\d UTC at commit \S+ by `", text)


def test_a_later_run_without_write_does_not_write(results_file: Path) -> None:
    parsed("--write")
    results.write_section("bench_demo", "recorded")
    parsed()
    assert results.write_section("bench_demo", "a trial run") is False
    assert "recorded" in results_file.read_text(encoding="utf-8")


def test_every_benchmark_that_writes_takes_write_from_results() -> None:
    writers = [
        p for p in sorted(BENCH.glob("*.py")) if "write_section(" in p.read_text(encoding="utf-8")
    ]
    writers = [p for p in writers if p.name != "results.py"]
    assert len(writers) >= 9, writers
    for path in writers:
        source = path.read_text(encoding="utf-8")
        assert "parse_args(parser)" in source and ".parse_args()" not in source, path.name
        for own in ('"--write"', '"--record"', '"--no-record"'):
            assert own not in source, f"{path.name} declares {own} itself"


def test_a_trial_run_of_a_benchmark_leaves_results_md_alone() -> None:
    before = results.RESULTS.read_bytes()
    done = subprocess.run(
        [
            sys.executable,
            "bench/bench_sweep.py",
            *("--words", "2000", "--questions", "10"),
            "--repeat",
            "1",
        ],
        cwd=BENCH.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "warm sweep" in done.stdout
    assert "bench/RESULTS.md left as it is (--write records bench_sweep)" in done.stderr
    assert results.RESULTS.read_bytes() == before
