"""Write a BEIR folder over the Chroma-layout set's five documents: paragraphs as documents.

Usage (from the repository root, after `questions/external/chroma_set.py` has built
build/external/chroma-layout/):

    .venv/bin/python questions/external/beir_set.py     # -> build/external/beir-layout/

Every paragraph (text between blank lines) of at least 5 words of each file becomes one corpus
entry, `_id` `<file>-p<n>` (n counts the file's paragraphs from 1), `title` the file's name and
`text` the paragraph as the file holds it. The queries are the 472 questions chroma_set.py
writes, `_id` `q<row>`; each is judged, in qrels/test.tsv, grade 2 for the paragraph holding its
quote (each paragraph holding one, for a two-sentence question) and grade 1 for the paragraphs
just before and after it in the same file (they are about the same thing, but do not answer).
Everything comes from the files' own text, so the same files give the same bytes.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from chroma_set import COUNT, SOURCES, build_rows

MIN_WORDS = 5
"""Paragraphs shorter than this are not corpus entries (a heading line, a page number)."""
_PARAGRAPH = re.compile(r"(?:[^\n]|\n(?![ \t]*\n))+")


def paragraphs(text: str) -> list[tuple[int, int]]:
    """Return the spans of a file's paragraphs of at least MIN_WORDS words."""
    spans = [m.span() for m in _PARAGRAPH.finditer(text)]
    return [(a, b) for a, b in spans if len(text[a:b].split()) >= MIN_WORDS]


def main() -> None:
    """Write corpus.jsonl, queries.jsonl and qrels/test.tsv."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path("build/external/chroma-layout"))
    parser.add_argument("--out", type=Path, default=Path("build/external/beir-layout"))
    args = parser.parse_args()
    files = sorted(args.corpus / name for name in SOURCES)
    missing = [f for f in files if not f.is_file()]
    if missing:
        sys.exit(f"beir_set.py: {missing[0]} is missing: run questions/external/chroma_set.py")
    corpus: list[str] = []
    spans: dict[str, list[tuple[int, int]]] = {}
    for f in files:
        text = f.read_text(encoding="utf-8")
        spans[f.stem] = paragraphs(text)
        for n, (a, b) in enumerate(spans[f.stem], 1):
            entry = {"_id": f"{f.stem}-p{n}", "title": f.stem, "text": text[a:b]}
            corpus.append(json.dumps(entry, ensure_ascii=False))
    queries, qrels = [], ["query-id\tcorpus-id\tscore"]
    for number, (question, refs, stem) in enumerate(build_rows(files, COUNT), 1):
        qid = f"q{number}"
        queries.append(json.dumps({"_id": qid, "text": question}, ensure_ascii=False))
        grades: dict[int, int] = {}
        for ref in refs:
            at = next(i for i, (a, b) in enumerate(spans[stem]) if a <= ref["start_index"] < b)
            grades[at] = 2
            for near in (at - 1, at + 1):
                if 0 <= near < len(spans[stem]):
                    grades.setdefault(near, 1)
        qrels += [f"{qid}\t{stem}-p{i + 1}\t{g}" for i, g in sorted(grades.items())]
    (args.out / "qrels").mkdir(parents=True, exist_ok=True)
    (args.out / "corpus.jsonl").write_text("\n".join(corpus) + "\n", encoding="utf-8")
    (args.out / "queries.jsonl").write_text("\n".join(queries) + "\n", encoding="utf-8")
    (args.out / "qrels" / "test.tsv").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    print(
        f"{args.out}: {len(corpus)} documents, {len(queries)} queries, {len(qrels) - 1} judgments",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
