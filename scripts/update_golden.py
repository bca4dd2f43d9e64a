"""Regenerate tests/golden/: a reviewable summary of how every corpus document parses.

One JSON file per document, named after its source with "/" replaced by "__". Each block
is one line: kind, heading level, pages, section path and the first 60 characters of its
text, so a diff shows exactly which blocks a parser change moved, merged or split.

Run from the repository root:

    .venv/bin/python scripts/update_golden.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from policy_assistant.parse import parse_path
from policy_assistant.records import Document

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
GOLDEN = ROOT / "tests" / "golden"
PREVIEW = 60


def golden_name(source: str) -> str:
    """Return the golden file name for a document source."""
    return source.replace("/", "__") + ".json"


def summarize(document: Document) -> dict[str, Any]:
    """Return the reviewable summary of one parsed document."""
    blocks = []
    for block in document.blocks:
        entry: dict[str, Any] = {"kind": block.kind}
        if block.level is not None:
            entry["level"] = block.level
        entry["pages"] = list(block.pages)
        entry["section"] = list(block.section)
        entry["text"] = block.text[:PREVIEW]
        blocks.append(entry)
    summary: dict[str, Any] = {
        "source": document.source,
        "title": document.title,
        "pages": len(document.pages),
    }
    if document.dropped:
        summary["dropped"] = [
            {"reason": record.reason, "page": record.page, "text": record.text[:PREVIEW]}
            for record in document.dropped
        ]
    summary["blocks"] = blocks
    return summary


def render(summary: dict[str, Any]) -> str:
    """Return a summary as JSON with one block per line."""
    head = {k: v for k, v in summary.items() if k not in ("blocks", "dropped")}
    lines = [
        f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},"
        for key, value in head.items()
    ]
    for key in ("dropped", "blocks"):
        if key in summary:
            items = [json.dumps(item, ensure_ascii=False) for item in summary[key]]
            body = ",\n".join(f"    {item}" for item in items)
            lines.append(f'  "{key}": [\n{body}\n  ],')
    return "{\n" + "\n".join(lines)[:-1] + "\n}\n"


def parse_corpus(corpus: Path = CORPUS) -> list[Document]:
    """Parse the bundled corpus; any file that fails is an error here."""
    result = parse_path(corpus)
    if result.failures:
        problems = "; ".join(str(failure) for failure in result.failures)
        raise SystemExit(f"corpus files failed to parse: {problems}")
    return result.documents


def main() -> int:
    """Write one golden file per corpus document and remove stale ones."""
    GOLDEN.mkdir(parents=True, exist_ok=True)
    written = set()
    for document in parse_corpus():
        name = golden_name(document.source)
        (GOLDEN / name).write_text(render(summarize(document)), encoding="utf-8")
        written.add(name)
    for stale in sorted(GOLDEN.glob("*.json")):
        if stale.name not in written:
            stale.unlink()
    print(f"wrote {len(written)} golden files to {GOLDEN.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
