"""Measure how many pages holding a table set with whitespace yield a table, before and after.

    .venv/bin/python scripts/whitespace_tables.py build/external/docs
    .venv/bin/python scripts/whitespace_tables.py build/external/docs --json

The truth is external/whitespace-tables.json: pages marked by hand. Each listed PDF is parsed
twice in this run, with the whitespace-table finder off (`pdf_aligned.ENABLED = False`, the
parser before it) and on; a truth page *yields a table* when a table block lies on it. Every
other PDF under the folder is parsed both ways too, and the tables the finder adds there are
listed: on pages nobody marked they are the finder's false alarms unless a person reading
them says otherwise. Exit 0, or 1 when a listed file is missing, 2 on a bad argument.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from policy_assistant.errors import DocumentError
from policy_assistant.parse.pdf import aligned as pdf_aligned
from policy_assistant.parse.pdf.reader import parse_pdf
from policy_assistant.records import DocumentMeta

TRUTH = Path(__file__).resolve().parent.parent / "external" / "whitespace-tables.json"


def table_pages(data: bytes, name: str, enabled: bool) -> dict[int, list[str]]:
    """Return, per page, the first lines of the table blocks on it."""
    pdf_aligned.ENABLED = enabled
    try:
        document = parse_pdf(data, name, DocumentMeta(), "0")
    finally:
        pdf_aligned.ENABLED = True
    pages: dict[int, list[str]] = {}
    for block in document.blocks:
        if block.kind == "table":
            for page in block.pages:
                pages.setdefault(page, []).append(block.text.split("\n", 1)[0][:80])
    return pages


def measure(folder: Path, truth: dict[str, Any]) -> dict[str, Any]:
    """Return the per-file rows, the totals, and the tables added on unmarked pages."""
    rows, added, missing = [], [], []
    for path in sorted(folder.rglob("*.pdf")):
        name = path.relative_to(folder).as_posix()
        data = path.read_bytes()
        try:
            before, after = table_pages(data, name, False), table_pages(data, name, True)
        except DocumentError:
            continue  # refused either way: parse_report lists it
        marked = truth.get(name, {}).get("pages", [])
        if marked:
            rows.append(
                {
                    "file": name,
                    "pages": marked,
                    "before": [p for p in marked if p in before],
                    "after": [p for p in marked if p in after],
                }
            )
        for page in sorted(after):
            extra = len(after[page]) - len(before.get(page, []))
            if page not in marked and extra > 0:
                added.append({"file": name, "page": page, "tables": extra, "first": after[page]})
    missing = sorted(set(truth) - {row["file"] for row in rows})
    pages = sum(len(row["pages"]) for row in rows)
    totals = {
        "truth_pages": pages,
        "before": sum(len(row["before"]) for row in rows),
        "after": sum(len(row["after"]) for row in rows),
        "tables_added_on_unmarked_pages": sum(entry["tables"] for entry in added),
    }
    return {"files": rows, "total": totals, "added_elsewhere": added, "missing": missing}


def as_text(result: dict[str, Any]) -> str:
    """Return the measurement as a table a person can read."""
    lines = [f"{'file':52} {'marked':>6} {'before':>6} {'after':>6}"]
    for row in result["files"]:
        lines.append(
            f"{row['file'][:52]:52} {len(row['pages']):6} {len(row['before']):6} "
            f"{len(row['after']):6}"
        )
    total = result["total"]
    share = (lambda n: f"{100 * n / total['truth_pages']:.0f}%") if total["truth_pages"] else str
    lines.append(
        f"{'TOTAL':52} {total['truth_pages']:6} {total['before']:6} {total['after']:6}"
        f"   ({share(total['before'])} -> {share(total['after'])})"
    )
    lines.append(f"\ntables added on pages not marked: {total['tables_added_on_unmarked_pages']}")
    for entry in result["added_elsewhere"]:
        lines.append(f"  {entry['file']} page {entry['page']}: {entry['first']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the measurement; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the fetched documents (build/external/docs)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args(argv)
    if not args.folder.is_dir():
        parser.error(f"{args.folder}: not a folder")
    truth = json.loads(TRUTH.read_text(encoding="utf-8"))["files"]
    result = measure(args.folder, truth)
    print(json.dumps(result, indent=1, ensure_ascii=False) if args.json else as_text(result))
    for name in result["missing"]:
        print(f"{name}: listed in the truth but not in {args.folder}", file=sys.stderr)
    return 1 if result["missing"] else 0


if __name__ == "__main__":
    sys.exit(main())
