"""Write a benchmark's current figures into bench/RESULTS.md, one section per script.

A section runs from `<!-- bench:NAME -->` to `<!-- /bench:NAME -->`. `write_section` replaces
it when it is there and appends it otherwise, so the file holds each benchmark's last run only,
stamped with the date (UTC), the commit and the load the machine was under.

A benchmark writes its section only when run with `--write`; without it, it prints its figures
and leaves RESULTS.md alone, so a trial run (a smaller size, a quick check) never replaces the
figures of record. A script parses its command line with `parse_args`, which adds the flag:

    from results import parse_args, write_section  # bench/ is on sys.path when a script there runs
    args = parse_args(parser)                       # parser.parse_args(), plus --write
    write_section("bench_sweep", table)             # written with --write, else skipped

Run benchmarks from the repository root (`python bench/bench_sweep.py --write`).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
"""The file every benchmark writes its section into."""

WRITE_HELP = "record the figures in bench/RESULTS.md (without it they are printed only)"
"""The help of --write, the same in every benchmark."""

_write = False
"""Whether the command line parsed last by `parse_args` asked for --write."""


def parse_args(
    parser: argparse.ArgumentParser, argv: Sequence[str] | None = None
) -> argparse.Namespace:
    """Parse argv (the command line by default) with --write added; remember whether it is given.

    `write_section` writes only after a `parse_args` that found --write, so a benchmark that
    never parses it records nothing.
    """
    global _write
    parser.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = parser.parse_args(argv)
    _write = bool(args.write)
    return args


def _commit() -> str:
    """Return the short hash of HEAD, or "unknown" outside a git checkout."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=RESULTS.parent,
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def _stamp() -> str:
    """Return the line saying when, on which commit, by which command and under what load."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    loads = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    script = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "?"
    command = " ".join(["python", f"bench/{script}", *sys.argv[1:]])
    return (
        f"Measured {now} at commit {_commit()} by `{command}`; load average {loads} "
        f"(1, 5, 15 min) on {os.cpu_count()} CPUs."
    )


def write_section(name: str, body: str) -> bool:
    """Replace (or append) the section `name` of bench/RESULTS.md with body, stamped.

    The section is headed with the script that produces it (`bench/NAME.py`); body is written
    as given (a printed table goes in a fenced block so its columns stay aligned). Without
    --write on the command line (see `parse_args`) nothing is written: it says so on stderr and
    returns False; it returns True when it wrote the section.
    """
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ValueError(f"a section name is letters, digits, '_', '.' or '-', not {name!r}")
    if not _write:
        print(f"bench/RESULTS.md left as it is (--write records {name})", file=sys.stderr)
        return False
    begin, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    section = f"{begin}\n## bench/{name}.py\n\n{_stamp()}\n\n{body.strip()}\n{end}"
    text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# Benchmark results\n"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(text):
        text = pattern.sub(lambda _: section, text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    tmp = RESULTS.with_name(f".{RESULTS.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, RESULTS)
    print(f"bench/RESULTS.md: section {name} written", file=sys.stderr)
    return True


@contextlib.contextmanager
def recording() -> Iterator[io.StringIO]:
    """Copy what is printed inside the block into a buffer, still printing it as before.

    with recording() as printed:
        main()
    write_section("bench_sweep", "```\n" + printed.getvalue() + "```")
    """
    buffer = io.StringIO()
    out = sys.stdout

    class Tee(io.TextIOBase):
        def write(self, text: str) -> int:
            buffer.write(text)
            return out.write(text)

        def flush(self) -> None:
            out.flush()

    with contextlib.redirect_stdout(Tee()):
        yield buffer
