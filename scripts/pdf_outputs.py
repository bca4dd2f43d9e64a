"""Fingerprint what our parser makes of PDFs, to check that a change leaves it as it was.

    .venv/bin/python scripts/pdf_outputs.py corpus tests > before.tsv    # files or folders
    .venv/bin/python scripts/pdf_outputs.py corpus tests --tables DIR    # also each file's tables

For each PDF (folders are searched for `*.pdf`, sorted): the SHA-256 of its
`Document.to_dict()` as canonical JSON (orjson, sorted keys), its table blocks and their
SHA-256, one tab-separated line per file. With `--tables DIR`, the text of every table
block goes to `DIR/<n>.txt`, one file per PDF in the order listed, for `diff -r` between
two runs. Output is deterministic; exit 0 when every file parsed, else 1.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import orjson
from pdf_loss import pdf_files

from policy_assistant.errors import DocumentError
from policy_assistant.parse.pdf.reader import parse_pdf
from policy_assistant.records import DocumentMeta


def fingerprint(path: Path) -> tuple[str, str, list[str]]:
    """Parse one PDF; return its document's SHA-256 (or the error) and its tables' texts."""
    data = path.read_bytes()
    try:
        document = parse_pdf(data, path.name, DocumentMeta(), hashlib.sha256(data).hexdigest())
    except DocumentError as error:
        return str(path), f"error: {error}", []
    canonical = orjson.dumps(document.to_dict(), option=orjson.OPT_SORT_KEYS)
    tables = [f"p{b.pages}\n{b.text}" for b in document.blocks if b.kind == "table"]
    return str(path), hashlib.sha256(canonical).hexdigest(), tables


def main(argv: list[str] | None = None) -> int:
    """Print one line per PDF: path, document hash, table count, tables' hash."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--tables", type=Path, help="write each file's table texts here")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    files = pdf_files(args.paths)
    failed = 0
    if args.tables:
        args.tables.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(args.jobs) as pool:
        for number, (name, digest, tables) in enumerate(pool.map(fingerprint, files)):
            failed += digest.startswith("error")
            joined = "\n\n".join(tables)
            table_hash = hashlib.sha256(joined.encode()).hexdigest()[:16]
            print(f"{name}\t{digest}\t{len(tables)} tables\t{table_hash}")
            if args.tables:
                (args.tables / f"{number:03d}.txt").write_text(f"{name}\n\n{joined}\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
