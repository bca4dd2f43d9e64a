"""Measure what our parser keeps, drops and loses on a folder of real documents.

    .venv/bin/python scripts/parse_report.py build/external/docs          # table and totals
    .venv/bin/python scripts/parse_report.py build/external/docs --json   # one JSON object

Per file, against a reader other than our parser (scripts/source_truth.py):

- source: words of the file's own text (PDF: PyMuPDF's `get_text("words")`; Markdown:
  markdown-it's tokens rendered to text by independent rules);
- blocks: words of the parsed document's text;
- lost: source words found neither in the blocks nor in `Document.dropped`; for a PDF this is
  the parser's own no-loss check, `parse.pdf_coverage.coverage` against the text layer
  (`parse.pdf.text_layer_words`), so words dropped by rule never count as lost, and its
  letters and digits missing overall are given too;
- dropped: words of `Document.dropped`, in total and by reason;
- extra: block words the source does not have (duplicated or invented text);
- headings: recall and precision of the heading blocks against the PDF outline
  (`doc.get_toc()`) or markdown-it's headings, on normalised text (no leading section
  number, letters and digits only);
- tables: table blocks (and, for Markdown, the tables markdown-it sees);
- junk: control characters, U+FFFD and private-use characters in the parsed text;
- defects (PDF): glued compounds, URLs split by a space, running lines dropped that stand on
  one page only, contents and index entries kept in blocks, blocks interleaving two
  columns (scripts/parse_defects.py says how each is counted); totals per kind.

Words are compared after NFKC, case folding and removal of every character that is not a
letter or digit (so punctuation-only words do not count); a run of up to four consecutive
words on one side that equals one word on the other counts as found, so a line-end hyphen
joined ("Ex-" "cel" -> "Excel") is not a loss. The folder's first level names the kind of
each file (e.g. `pdf-slides/x.pdf`); totals are given per kind. Output is deterministic.

A file may be expected to fail: a manifest (`--expected`, by default external/manifest.json,
the regression set's) gives it `"expect_failure": {"error": ..., "why": ...}`, the start of the
error it must fail with and the reason. Every failure is named on stderr, each said to be
expected or not. Exit 0 when every file parsed or failed as its manifest entry expects; 1 when
one failed otherwise, or parsed though expected to fail; 2 on a bad argument.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import unicodedata
from collections import Counter
from contextlib import suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from parse_defects import KINDS, count_defects
from source_truth import SourceTruth, markdown_truth, pdf_truth

from policy_assistant.errors import DocumentError
from policy_assistant.parse import (
    Catalog,
    discover,
    load_catalog,
    parse_document,
    read_file,
)
from policy_assistant.parse.pdf.coverage import coverage, normalize
from policy_assistant.parse.pdf.reader import text_layer_words
from policy_assistant.records import Document

MANIFEST = Path(__file__).resolve().parent.parent / "external" / "manifest.json"
"""The regression set's manifest: where the files expected to fail are named."""
MAX_JOIN = 4
"""Longest run of words on one side that may equal one word on the other."""
_SECTION_NUMBER = re.compile(r"^(?:(?:\d+|[A-Z])(?:\.\d+)*\.?|[IVXLC]+\.)\s+")
_KEEP_NEWLINE_TAB = {"\n", "\t"}


def norm_word(word: str) -> str:
    """Return a word as compared: NFKC, case-folded, letters and digits only."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", word).casefold() if ch.isalnum())


def norm_words(text_or_words: str | list[str]) -> list[str]:
    """Return the compared forms of a text's words, punctuation-only words left out."""
    words = text_or_words.split() if isinstance(text_or_words, str) else text_or_words
    return [n for n in (norm_word(w) for w in words) if n]


def norm_heading(text: str) -> str:
    """Return a heading as compared: no leading section number, letters and digits only.

    Spaces go too: Korean text layers often hold none where the outline has them.
    """
    text = unicodedata.normalize("NFKC", text).strip()
    text = _SECTION_NUMBER.sub("", text)
    return "".join(norm_words(text))


def _glued(words: list[str], found: list[bool], pool: Counter[str]) -> None:
    """Mark runs of unfound words whose concatenation is in `pool` as found, using it up."""
    i = 0
    while i < len(words):
        if found[i]:
            i += 1
            continue
        for k in range(MAX_JOIN, 1, -1):
            run = range(i, min(i + k, len(words)))
            if len(run) == k and not any(found[j] for j in run):
                joined = "".join(words[j] for j in run)
                if pool[joined] > 0:
                    pool[joined] -= 1
                    for j in run:
                        found[j] = True
                    i += k - 1
                    break
        i += 1


def align(source: list[str], target: list[str]) -> tuple[list[bool], list[bool]]:
    """Return, for each word of both sides, whether the other side accounts for it."""
    src_found = [False] * len(source)
    tgt_found = [False] * len(target)
    _consume(source, src_found, Counter(target))
    _consume(target, tgt_found, Counter(w for w, ok in zip(source, src_found, strict=True) if ok))
    for words, found, other, other_found in (
        (source, src_found, target, tgt_found),
        (target, tgt_found, source, src_found),
    ):
        pool = Counter(w for w, ok in zip(other, other_found, strict=True) if not ok)
        before = Counter(pool)
        _glued(words, found, pool)
        _consume(other, other_found, before - pool)
    return src_found, tgt_found


def _consume(words: list[str], found: list[bool], pool: Counter[str]) -> None:
    """Mark unfound words found while `pool` still holds them, using it up."""
    for i, word in enumerate(words):
        if not found[i] and pool[word] > 0:
            pool[word] -= 1
            found[i] = True


def junk_count(text: str) -> int:
    """Return control (but newline and tab), private-use, surrogate and U+FFFD characters."""
    return sum(
        1
        for ch in text
        if ch == "\ufffd"
        or (unicodedata.category(ch) in ("Cc", "Co", "Cs") and ch not in _KEEP_NEWLINE_TAB)
    )


def heading_scores(truth: list[str], ours: list[str]) -> tuple[float | None, float | None]:
    """Return recall (truth headings we have) and precision (our headings in the truth)."""
    want = {h for h in (norm_heading(t) for t in truth) if h}
    have = [h for h in (norm_heading(t) for t in ours) if h]
    if not want:
        return None, None
    recall = len(want & set(have)) / len(want)
    precision = sum(1 for h in have if h in want) / len(have) if have else 0.0
    return recall, precision


@dataclass
class FileReport:
    """The measurements of one file."""

    file: str
    """Path relative to the folder."""
    kind: str
    """The folder's first level (e.g. pdf-slides), or the suffix."""
    pages: int = 0
    """PDF pages."""
    source_words: int = 0
    """Words of the source's own text."""
    block_words: int = 0
    """Words of the parsed text."""
    lost: int = 0
    """Source words in neither the blocks nor the dropped records."""
    dropped: int = 0
    """Words of the dropped records."""
    dropped_by_reason: dict[str, int] = field(default_factory=dict)
    """Words dropped, by reason."""
    extra: int = 0
    """Block words the source does not account for."""
    outline: int = 0
    """Headings of the truth (PDF outline entries, Markdown heading tokens)."""
    headings: int = 0
    """Heading blocks."""
    heading_recall: float | None = None
    """Share of the truth's distinct headings among ours; None without a truth."""
    heading_precision: float | None = None
    """Share of our headings found in the truth; None without a truth."""
    tables: int = 0
    """Table blocks."""
    source_tables: int | None = None
    """Tables markdown-it sees; None for PDF."""
    missing_characters: int = 0
    """PDF: letters and digits the text layer has more often than blocks and dropped records."""
    junk: int = 0
    """Junk characters in the parsed text."""
    ocr_pages: int = 0
    """Pages whose text came from OCR."""
    lost_sample: list[str] = field(default_factory=list)
    """Up to ten lost words, in reading order, for a person to look at."""
    extra_sample: list[str] = field(default_factory=list)
    """Up to ten extra block words, in reading order."""
    worst_pages: list[list[int]] = field(default_factory=list)
    """Up to three [page, words lost, words on the page], most lost first (PDF)."""
    defects: dict[str, int] = field(default_factory=dict)
    """PDF: counts of the defects scripts/parse_defects.py looks for, by kind."""
    error: str | None = None
    """Why the file did not parse, if it did not."""
    expected_failure: str | None = None
    """Why the file is expected to fail (its manifest entry), if it is."""

    @property
    def lost_share(self) -> float:
        """Lost words over source words (0 for an empty source)."""
        return self.lost / self.source_words if self.source_words else 0.0


def measure(document: Document, truth: SourceTruth, report: FileReport) -> None:
    """Fill a report from a parsed document and the source's truth."""
    source = norm_words(truth.words)
    blocks = norm_words(document.text)
    found, block_found = align(source, blocks)
    raw = [w for w in truth.words if norm_word(w)]
    left = [w for w, ok in zip(source, found, strict=True) if not ok]
    raw_left = [w for w, ok in zip(raw, found, strict=True) if not ok]
    dropped_words = norm_words(" ".join(d.text for d in document.dropped))
    by_dropped, _ = align(left, dropped_words)
    reasons: Counter[str] = Counter()
    for record in document.dropped:
        reasons[record.reason] += len(norm_words(record.text))
    report.pages = len(document.pages)
    report.source_words, report.block_words = len(source), len(blocks)
    report.lost = by_dropped.count(False)
    report.lost_sample = [w for w, ok in zip(raw_left, by_dropped, strict=True) if not ok][:10]
    report.worst_pages = worst_pages(truth, found, by_dropped)
    report.dropped = len(dropped_words)
    report.dropped_by_reason = dict(sorted(reasons.items()))
    report.extra = block_found.count(False)
    raw_blocks = [w for w in document.text.split() if norm_word(w)]
    report.extra_sample = [w for w, ok in zip(raw_blocks, block_found, strict=True) if not ok][:10]
    ours = [b.text for b in document.blocks if b.kind == "heading"]
    report.outline, report.headings = len(truth.headings), len(ours)
    report.heading_recall, report.heading_precision = heading_scores(truth.headings, ours)
    report.tables = sum(1 for b in document.blocks if b.kind == "table")
    report.source_tables = truth.tables
    report.junk = junk_count(document.text)
    report.ocr_pages = len(document.ocr_pages)


def worst_pages(truth: SourceTruth, found: list[bool], by_dropped: list[bool]) -> list[list[int]]:
    """Return up to three [page, lost, words] for the pages that lost most words.

    Of a word that occurs more often in the source than in the blocks, the last occurrences
    count as lost, so a page's count is exact for words it alone holds (a whole page lost).
    """
    if not truth.word_pages:
        return []
    pages = [p for w, p in zip(truth.words, truth.word_pages, strict=True) if norm_word(w)]
    words = Counter(pages)
    unfound = [p for p, ok in zip(pages, found, strict=True) if not ok]
    lost = Counter(p for p, ok in zip(unfound, by_dropped, strict=True) if not ok)
    ranked = sorted(lost.items(), key=lambda item: (-item[1], item[0]))[:3]
    return [[page, count, words[page]] for page, count in ranked]


def truth_of(data: bytes, source: str) -> SourceTruth:
    """Return the second reader's view of a file, by its suffix."""
    if source.lower().endswith(".pdf"):
        return pdf_truth(data)
    return markdown_truth(data.decode("utf-8-sig").replace("\r\n", "\n"))


def report_folder(folder: Path) -> list[FileReport]:
    """Parse and measure every document under a folder, in sorted order."""
    found = discover(folder)
    catalog = load_catalog(found.root)
    reports = []
    for source, file in zip(found.sources, found.files, strict=True):
        path = Path(file)
        kind = source.split("/", 1)[0] if "/" in source else Path(source).suffix.lstrip(".")
        reports.append(report_file(path, source, catalog, FileReport(source, kind)))
    return reports


def report_file(path: Path, source: str, catalog: Catalog, report: FileReport) -> FileReport:
    """Parse and measure one file; a file either side refuses gets an error instead."""
    try:
        data = read_file(path, source)
        document = parse_document(data, source, catalog)
    except DocumentError as exc:
        report.error = exc.problem
        with suppress(RuntimeError, ValueError, UnboundLocalError):
            truth = truth_of(data, source)  # what the refusal cost, in the source's words
            report.source_words, report.pages = len(norm_words(truth.words)), truth.pages
        return report
    try:
        truth = truth_of(data, source)
    except (RuntimeError, ValueError) as exc:  # the second reader refused the file
        report.error = f"second reader failed: {exc}"
        return report
    measure(document, truth, report)
    if source.lower().endswith(".pdf"):
        pdf_coverage(document, text_layer_words(data), report)
        report.defects = count_defects(document, data)
    return report


def pdf_coverage(document: Document, page_words: list[list[str]], report: FileReport) -> None:
    """Count a PDF's lost words with the parser's own no-loss check, page by page."""
    found = coverage(document, page_words)
    on_page = Counter(p for p, words in enumerate(page_words, 1) for w in words if normalize(w))
    lost = Counter(page for page, _ in found.lost)
    ranked = sorted(lost.items(), key=lambda item: (-item[1], item[0]))[:3]
    report.source_words = found.words
    report.lost = len(found.lost)
    report.lost_sample = [word for _, word in found.lost[:10]]
    report.worst_pages = [[page, count, on_page[page]] for page, count in ranked]
    report.missing_characters = found.missing_characters


def totals(reports: list[FileReport]) -> dict[str, Any]:
    """Return sums over reports, and mean heading scores over files that have a truth."""
    ok = [r for r in reports if r.error is None]
    failed = [r for r in reports if r.error is not None]
    scored = [r for r in ok if r.heading_recall is not None]
    source = sum(r.source_words for r in ok)
    lost = sum(r.lost for r in ok)
    out: dict[str, Any] = {
        "files": len(reports),
        "failed": len(failed),
        "failed_source_words": sum(r.source_words for r in failed),
        "pages": sum(r.pages for r in ok),
        "source_words": source,
        "block_words": sum(r.block_words for r in ok),
        "lost": lost,
        "lost_share": round(lost / source, 6) if source else 0.0,
        "dropped": sum(r.dropped for r in ok),
        "dropped_by_reason": dict(sorted(_reasons(ok).items())),
        "extra": sum(r.extra for r in ok),
        "tables": sum(r.tables for r in ok),
        "missing_characters": sum(r.missing_characters for r in ok),
        "junk": sum(r.junk for r in ok),
        "files_with_junk": sum(1 for r in ok if r.junk),
        "files_with_outline": len(scored),
        "heading_recall_mean": _mean([r.heading_recall for r in scored]),
        "heading_precision_mean": _mean([r.heading_precision for r in scored]),
        "defects": {kind: sum(r.defects.get(kind, 0) for r in ok) for kind in KINDS},
    }
    return out


def _reasons(reports: list[FileReport]) -> Counter[str]:
    """Return the words dropped by each reason over reports."""
    total: Counter[str] = Counter()
    for report in reports:
        total.update(report.dropped_by_reason)
    return total


def _mean(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return round(sum(present) / len(present), 4) if present else None


def by_kind(reports: list[FileReport]) -> dict[str, dict[str, Any]]:
    """Return totals per kind, in sorted order."""
    kinds = sorted({r.kind for r in reports})
    return {k: totals([r for r in reports if r.kind == k]) for k in kinds}


def as_json(reports: list[FileReport]) -> str:
    """Return the whole report as one JSON object, keys sorted."""
    files = [dict(asdict(r), lost_share=round(r.lost_share, 6)) for r in reports]
    for entry in files:
        for key in ("heading_recall", "heading_precision"):
            if entry[key] is not None:
                entry[key] = round(entry[key], 4)
    body = {"files": files, "kinds": by_kind(reports), "total": totals(reports)}
    return json.dumps(body, indent=1, sort_keys=True, ensure_ascii=False)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


HEADER = (
    f"{'file':<52} {'pages':>5} {'source':>7} {'blocks':>7} {'lost':>6} {'lost%':>6} "
    f"{'dropped':>7} {'extra':>6} {'toc':>4} {'heads':>5} {'h-rec':>5} {'h-prec':>6} "
    f"{'tables':>6} {'junk':>5} {'glued':>5} {'url':>4} {'furn':>4} {'toc+':>4} {'intl':>4}"
)
"""The table's columns; the last five are the defects of scripts/parse_defects.py."""
_DEFECT_WIDTHS = (5, 4, 4, 4, 4)


def row(name: str, r: dict[str, Any]) -> str:
    """Return one line of the table from a report's (or a total's) fields."""
    share = r["lost"] / r["source_words"] if r["source_words"] else 0.0
    recall = r.get("heading_recall", r.get("heading_recall_mean"))
    precision = r.get("heading_precision", r.get("heading_precision_mean"))
    tables = str(r["tables"])
    if r.get("source_tables") is not None:
        tables = f"{r['tables']}/{r['source_tables']}"
    return (
        f"{name[:52]:<52} {r['pages']:>5} {r['source_words']:>7} {r['block_words']:>7} "
        f"{r['lost']:>6} {100 * share:>5.1f}% {r['dropped']:>7} {r['extra']:>6} "
        f"{r.get('outline', r.get('files_with_outline', 0)):>4} {r.get('headings', ''):>5} "
        f"{_pct(recall):>5} {_pct(precision):>6} {tables:>6} {r['junk']:>5} "
        + _defect_cells(r.get("defects") or {})
    ) + (f"  {r['failed']} failed ({r['failed_source_words']} words)" if r.get("failed") else "")


def _defect_cells(defects: dict[str, int]) -> str:
    """Return the defect counts as table cells; '-' where not counted (Markdown)."""
    return " ".join(
        f"{defects.get(kind, '-'):>{width}}"
        for kind, width in zip(KINDS, _DEFECT_WIDTHS, strict=True)
    )


def as_table(reports: list[FileReport]) -> str:
    """Return the per-file table, then totals per kind and overall."""
    lines = [HEADER]
    for r in reports:
        if r.error:
            lines.append(f"{r.file[:52]:<52} {r.pages:>5} {r.source_words:>7} FAILED: {r.error}")
        else:
            lines.append(row(r.file, asdict(r)))
    lines += ["", "by kind (toc: files with an outline; h-rec, h-prec: means over them)", HEADER]
    lines += [row(kind, t) for kind, t in by_kind(reports).items()]
    total = totals(reports)
    lines += ["", row("TOTAL", total)]
    reasons = ", ".join(f"{reason} {n}" for reason, n in total["dropped_by_reason"].items())
    lines += [f"words dropped, by reason: {reasons or 'none'}"]
    lines += [f"PDF letters and digits missing overall: {total['missing_characters']}"]
    defects = ", ".join(f"{kind} {n}" for kind, n in total["defects"].items())
    lines += [f"PDF defects: {defects}"]
    return "\n".join(lines)


@dataclass(frozen=True)
class ExpectedFailure:
    """A file a manifest expects the parser to refuse."""

    error: str
    """The start of the error it must fail with."""
    why: str
    """Why it is expected to fail (what the file is there to test)."""


def expected_failures(manifest: Path) -> dict[str, ExpectedFailure]:
    """Return the files a manifest expects to fail, by name relative to the folder.

    A manifest has the form of external/manifest.json: `files`, each with a `name` and, for a
    file that must fail, `"expect_failure": {"error": ..., "why": ...}`.
    """
    files = json.loads(manifest.read_text(encoding="utf-8")).get("files", [])
    return {
        entry["name"]: ExpectedFailure(
            entry["expect_failure"]["error"], entry["expect_failure"]["why"]
        )
        for entry in files
        if "expect_failure" in entry
    }


def failures(
    reports: list[FileReport], expected: dict[str, ExpectedFailure]
) -> list[tuple[str, bool]]:
    """Mark the reports expected to fail; return a line for each failure, and whether expected.

    A failure is expected when the manifest names the file and its error starts with the
    manifest's. A file expected to fail that parsed is not as expected either (the manifest is
    out of date, or the parser now takes what it must refuse). In the order of the reports.
    """
    lines = []
    for r in reports:
        want = expected.get(r.file)
        if want is not None and r.error is not None and r.error.startswith(want.error):
            r.expected_failure = want.why
            lines.append((f"{r.file}: {r.error}: failed as expected ({want.why})", True))
        elif r.error is not None:
            lines.append((f"{r.file}: {r.error}: FAILED, not expected", False))
        elif want is not None:
            lines.append((f"{r.file}: parsed, though expected to fail ({want.error})", False))
    return lines


def main(argv: list[str] | None = None) -> int:
    """Print the report for a folder; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="folder of .pdf and .md files")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument(
        "--expected",
        type=Path,
        metavar="MANIFEST",
        help="manifest naming the files expected to fail (default: external/manifest.json)",
    )
    args = parser.parse_args(argv)
    if not args.folder.is_dir():
        parser.error(f"{args.folder}: not a folder")
    manifest = args.expected or MANIFEST
    if args.expected is not None and not manifest.is_file():
        parser.error(f"{manifest}: no such file")
    expected = expected_failures(manifest) if manifest.is_file() else {}
    reports = report_folder(args.folder)
    lines = failures(reports, expected)
    print(as_json(reports) if args.json else as_table(reports))
    for line, _ in lines:
        print(line, file=sys.stderr)
    unexpected = sum(1 for _, ok in lines if not ok)
    if lines:
        print(
            f"{len(lines) - unexpected} failed as expected, {unexpected} not as expected "
            f"(expected failures from {os.path.relpath(manifest)}); exit {int(bool(unexpected))}",
            file=sys.stderr,
        )
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
