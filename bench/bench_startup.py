"""Start-up cost of the command line: import times, and wall time beside bare Python.

Usage (from the repository root)::

    .venv/bin/python bench/bench_startup.py [--repeat 15] [--top 15]

First it builds the bundled corpus's index in a temporary folder (`policy-assistant ingest
corpus --index TMP`, not timed). Then, in one run and interleaved round by round, so that the
shared machine's load falls on all three alike, it times the wall seconds of

- `python -c pass` (bare interpreter start-up: the floor nothing can go under),
- `policy-assistant --help`,
- `policy-assistant search "sprinkler warranty" --index TMP` (one search on the bundled index),

each once as a warm-up and then --repeat times, and prints the median and the spread (min-max)
of each. The floors of issue 9 are checked against the medians and printed as PASS/FAIL lines
(never asserted in tests): `--help` within 150 ms of bare Python, and one search within 250 ms
of bare Python. The same interpreter runs all three: the entry point's script beside
sys.executable.

Last, `python -X importtime` on `--help` and on the search: the modules with the largest
cumulative import time (a package's figure includes what it imports), and the sum of every
module's own time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUERY = "sprinkler warranty"
HELP_FLOOR_MS = 150.0
SEARCH_FLOOR_MS = 250.0


def entry_point() -> str:
    """Return the installed `policy-assistant` script beside this interpreter."""
    script = Path(sys.executable).parent / "policy-assistant"
    if not script.is_file():
        sys.exit(f"{script} not found: run `make install` first")
    return str(script)


def build_index(folder: Path) -> None:
    """Ingest the bundled corpus into folder (not timed)."""
    command = [entry_point(), "ingest", str(ROOT / "corpus"), "--index", str(folder), "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"ingest failed ({done.returncode}): {done.stderr.strip()}")


def commands(index: Path) -> dict[str, list[str]]:
    """Return the three timed command lines, by label."""
    script = entry_point()
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "policy-assistant --help": [script, "--help"],
        f'policy-assistant search "{QUERY}"': [script, "search", QUERY, "--index", str(index)],
    }


def wall_ms(command: list[str]) -> float:
    """Run command once; return its wall time in ms (it must succeed)."""
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        sys.exit(f"{command[1:]} exited {done.returncode}: {done.stderr.decode()[-300:]}")
    return elapsed


def time_all(lines: dict[str, list[str]], repeat: int) -> dict[str, list[float]]:
    """Warm each command up once, then time all of them `repeat` rounds, interleaved."""
    for command in lines.values():
        wall_ms(command)
    times: dict[str, list[float]] = {label: [] for label in lines}
    for _ in range(repeat):
        for label, command in lines.items():
            times[label].append(wall_ms(command))
    return times


def import_times(command: list[str]) -> list[tuple[int, int, str]]:
    """Return (self us, cumulative us, module) per import of one run under -X importtime."""
    # The entry point is a Python script: run it with this interpreter under -X importtime.
    run = [sys.executable, "-X", "importtime", *command]
    done = subprocess.run(run, capture_output=True, text=True, check=False)
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, cumulative, name = line[len("import time:") :].split("|", 2)
        rows.append((int(own), int(cumulative), name.rstrip()))
    return rows


def print_imports(label: str, rows: list[tuple[int, int, str]], top: int) -> None:
    """Print the top modules by cumulative import time, and the total of own times."""
    total = sum(own for own, _, _ in rows) / 1000
    print(f"\n{label}: {len(rows)} modules imported, {total:.0f} ms of import time in all")
    print(f"  {'cumulative ms':>13} {'self ms':>8}  module (indent = imported by the line above)")
    for own, cumulative, name in sorted(rows, key=lambda r: -r[1])[:top]:
        print(f"  {cumulative / 1000:13.1f} {own / 1000:8.1f}  {name}")


def verdict(label: str, extra: float, floor: float) -> str:
    """Return one PASS/FAIL line for a floor on the time over bare Python."""
    word = "PASS" if extra <= floor else "FAIL"
    return f"{word} {label}: {extra:.0f} ms over bare Python (floor {floor:.0f} ms)"


def main() -> None:
    """Build the index, time the commands, check the floors, list the slowest imports."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        index = Path(tmp) / "index"
        build_index(index)
        lines = commands(index)
        times = time_all(lines, args.repeat)
        load = os.getloadavg()[0]
        print(f"{os.cpu_count()} CPUs, load average {load:.1f} over the last minute")
        print(f"wall ms, median of {args.repeat} (min-max), one warm-up each, interleaved:")
        medians = {label: statistics.median(values) for label, values in times.items()}
        for label, values in times.items():
            print(f"  {label:45} {medians[label]:7.1f}  ({min(values):.1f}-{max(values):.1f})")
        bare, help_ms, search_ms = medians.values()
        print(verdict("policy-assistant --help", help_ms - bare, HELP_FLOOR_MS))
        print(verdict("one policy-assistant search", search_ms - bare, SEARCH_FLOOR_MS))
        for label, command in list(lines.items())[1:]:
            print_imports(label, import_times(command), args.top)


if __name__ == "__main__":
    main()
