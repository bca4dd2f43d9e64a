"""Count the words of PDFs' text layers that our parser loses: the no-silent-loss check.

    .venv/bin/python scripts/pdf_loss.py corpus tests build/x        # files or folders
    .venv/bin/python scripts/pdf_loss.py --all corpus                 # every file, not only losses

For each PDF (folders are searched for `*.pdf`, sorted), `parse.pdf_coverage.coverage` of
the parsed document against `parse.pdf.text_layer_words`: the words of the text layer, the
words found neither in a block nor in `Document.dropped` (with their pages), and the letters
and digits missing overall. One line per file that loses something (every file with
`--all`), then the totals. Output is deterministic; exit 0 when every file parsed, else 1.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from policy_assistant.errors import DocumentError
from policy_assistant.parse.pdf.coverage import Coverage, coverage
from policy_assistant.parse.pdf.reader import parse_pdf, text_layer_words
from policy_assistant.records import DocumentMeta


def pdf_files(paths: list[str]) -> list[Path]:
    """Return the PDFs named or found under the given paths, once each, sorted."""
    found: set[Path] = set()
    for name in paths:
        path = Path(name)
        found.update(sorted(path.rglob("*.pdf")) if path.is_dir() else [path])
    return sorted(found)


def measure(path: Path) -> tuple[str, Coverage | str]:
    """Parse one PDF and return its coverage, or the parse error's message."""
    data = path.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    try:
        document = parse_pdf(data, path.name, DocumentMeta(), sha)
    except DocumentError as error:
        return str(path), str(error)
    return str(path), coverage(document, text_layer_words(data))


def report_line(name: str, result: Coverage) -> str:
    """One file's line: words, lost words, missing characters, the lost words themselves."""
    lost = " ".join(f"p{page}:{word}" for page, word in result.lost[:12])
    counts = f"words {result.words}\tlost {len(result.lost)}\tmissing {result.missing_characters}"
    return f"{name}\t{counts}\t{lost}"


def main(argv: list[str] | None = None) -> int:
    """Measure every PDF given; print the files that lose words and the totals."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--all", action="store_true", help="a line for every file")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    files = pdf_files(args.paths)
    words = lost = missing = failed = 0
    with ProcessPoolExecutor(args.jobs) as pool:
        for name, result in pool.map(measure, files):
            if isinstance(result, str):
                failed += 1
                print(f"{name}\terror {result}")
                continue
            words, lost = words + result.words, lost + len(result.lost)
            missing += result.missing_characters
            if args.all or result.lost:
                print(report_line(name, result))
    print(f"files {len(files)}\twords {words}\tlost {lost}\tmissing {missing}\tfailed {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
