"""Fetch real English text for the benchmarks: two Debian documentation packages, as paragraphs.

Usage (from the repository root)::

    .venv/bin/python bench/fetch_text.py [--out build/bench-text]

Downloads `python3.11-doc` (the Python 3.11 documentation: its reStructuredText sources,
`html/_sources/**/*.rst.txt`) and `perl-doc` (Perl's manual pages, `pod/*.pod`) with
`apt-get download`, unpacks them with `dpkg -x`, and writes `paragraphs.txt` beside them: one
paragraph per line, in sorted file order, markup stripped (reST roles, directives and heading
rules; POD commands and inline codes), code blocks kept as text. `sources.json` records each
package's version and the SHA-256 of its .deb, so a figure can name the text it was measured on.
Nothing is written into git: the default folder is under build/ (see bench/README.md for the
provenance and licences). Running it again with the files present does nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "build" / "bench-text"
PACKAGES = {
    "python3.11-doc": "usr/share/doc/python3.11/html/_sources/**/*.rst.txt",
    "perl-doc": "usr/share/perl/*/pod/*.pod",
}
"""Debian package -> the files of it that hold prose."""
MIN_WORDS = 5
"""Shorter paragraphs (titles, labels, rules) are left out."""

_REST_DROP = re.compile(r"^\s*(\.\. |[=\-~*^\"#+`:]{3,}\s*$)")
_REST_ROLE = re.compile(r":[\w:.+-]+:`([^`]*)`")
_REST_MARKS = re.compile(r"``|`_{0,2}|\*\*|(?<!\w)\*(?=\w)|(?<=\w)\*(?!\w)")
_POD_CODE = re.compile(r"[A-Z]<<+\s(.*?)\s>>+|[A-Z]<([^<>]*)>")


def rest_text(line: str) -> str | None:
    """Return a reST line without its markup, or None for a directive or a heading rule."""
    if _REST_DROP.match(line):
        return None
    line = _REST_ROLE.sub(lambda m: m.group(1).lstrip("~!"), line)
    return _REST_MARKS.sub("", line)


def pod_text(line: str) -> str | None:
    """Return a POD line without its inline codes, or None for a command line."""
    if line.startswith("="):
        return None
    for _ in range(3):  # codes nest: B<C<x>>
        line = _POD_CODE.sub(lambda m: m.group(1) or m.group(2) or "", line)
    return line


def paragraphs(path: Path) -> Iterator[str]:
    """Yield the paragraphs of one file, one line each, markup stripped."""
    clean = pod_text if path.suffix == ".pod" else rest_text
    lines: list[str] = []
    text = path.read_text(encoding="utf-8", errors="replace")
    for raw in [*text.splitlines(), ""]:
        line = clean(raw) if raw.strip() else ""
        if line is None:
            continue
        if line.strip():
            lines.append(line)
            continue
        words = " ".join(lines).split()
        lines = []
        if len(words) >= MIN_WORDS:
            yield " ".join(words)


def download(package: str, folder: Path) -> tuple[Path, str]:
    """apt-get download one package into folder; return the .deb and its version."""
    done = subprocess.run(
        ["apt-get", "download", package], cwd=folder, capture_output=True, text=True, check=False
    )
    debs = sorted(folder.glob(f"{package}_*.deb"))
    if done.returncode != 0 or not debs:
        sys.exit(
            f"apt-get download {package} failed: {done.stderr.strip()[-300:]} "
            "(run `apt-get update` once, then try again)"
        )
    version = debs[-1].name.split("_")[1]
    return debs[-1], version


def fetch(out: Path) -> Path:
    """Download, unpack and extract every package into out; return paragraphs.txt."""
    target = out / "paragraphs.txt"
    if target.is_file() and (out / "sources.json").is_file():
        return target
    out.mkdir(parents=True, exist_ok=True)
    sources: dict[str, object] = {}  # a record per package, then the total word count
    count = 0
    with tempfile.TemporaryDirectory(prefix="fetch-text-") as tmp, target.open("w") as lines:
        for package, pattern in PACKAGES.items():
            deb, version = download(package, Path(tmp))
            unpacked = Path(tmp) / package
            subprocess.run(["dpkg", "-x", str(deb), str(unpacked)], check=True)
            files = sorted(unpacked.glob(pattern))
            for path in files:
                for paragraph in paragraphs(path):
                    lines.write(paragraph + "\n")
                    count += len(paragraph.split())
            sha = hashlib.sha256(deb.read_bytes()).hexdigest()
            sources[package] = {"version": version, "deb_sha256": sha, "files": len(files)}
    sources["words"] = count
    (out / "sources.json").write_text(json.dumps(sources, indent=2, sort_keys=True) + "\n")
    return target


def main() -> None:
    """Fetch the text and say what was written."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    target = fetch(args.out)
    print(f"{target}: {(args.out / 'sources.json').read_text().strip()}")


if __name__ == "__main__":
    main()
