"""Parse a PDF into a Document: the one module that imports pymupdf."""

from __future__ import annotations

import dataclasses
import re
import threading
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import pymupdf as _pymupdf_module

from policy_assistant.errors import DocumentError
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.parse.pdf import aligned, bounds, nearby, ocr
from policy_assistant.parse.pdf.assemble import BlockAssembler
from policy_assistant.parse.pdf.furniture import (
    drop_index_pages,
    drop_line_numbers,
    drop_outer_page_numbers,
)
from policy_assistant.parse.pdf.layout import (
    PageContent,
    drop_contents_entries,
    inner_lines,
    remove_running_lines,
)
from policy_assistant.parse.pdf.lines import (
    attach_lone_markers,
    attach_section_numbers,
    extract_lines,
    mark_wrapped_code,
    upright_share,
)
from policy_assistant.parse.pdf.order import reading_order
from policy_assistant.parse.pdf.rules import Box, TableArea, separators, table_areas
from policy_assistant.parse.pdf.structure import (
    Outline,
    Run,
    Typography,
    assign_levels,
    merge_labels,
    region_runs,
)
from policy_assistant.parse.pdf.tables import (
    Table,
    Word,
    closing_lines,
    table_from_grid,
    widen,
)
from policy_assistant.parse.pdf.titlepage import MAX_TITLE_WORDS, demote_title_page, start_title
from policy_assistant.parse.pdf.turn import as_shown, turned_pages_note
from policy_assistant.parse.pdf.words import Vocabulary
from policy_assistant.records import Document, DocumentMeta, Dropped
from policy_assistant.text import count_words

pymupdf: Any = _pymupdf_module
"""pymupdf, seen as untyped: its annotations are partial and strict mypy rejects the rest."""

# Library code must not print: find_tables advertises an add-on package on stdout, and
# MuPDF reports repairs of damaged files there too.
pymupdf.no_recommend_layout()
pymupdf.TOOLS.mupdf_display_errors(False)
pymupdf.TOOLS.mupdf_display_warnings(False)

TEXT_FLAGS = (
    pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
)
"""get_text flags: MuPDF's dict defaults less images (never read here) and less glyph IDs
for characters without Unicode (they would come out as stray letters, not as U+FFFD)."""

_NOT_A_TITLE = re.compile(
    r"^(?:untitled|title|document\d*|microsoft word\b.*|slide \d+|presentation\d*)$"
    r"|\.(?:pdf|docx?|odt|rtf|tex|dvi|ps|indd|txt|html?)$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ParseStats:
    """Counts of the work one parse did."""

    pages: int
    """Pages read."""
    table_scans: int
    """Pages on which table detection ran (only pages with signs of a table)."""
    tables: int
    """Tables found, before tables continued across pages are merged."""


def parse_pdf(data: bytes, source: str, meta: DocumentMeta, sha256: str) -> Document:
    """Parse the bytes of a PDF into a Document; DocumentError if it cannot be read."""
    return parse_pdf_with_stats(data, source, meta, sha256)[0]


def parse_pdf_with_stats(
    data: bytes, source: str, meta: DocumentMeta, sha256: str
) -> tuple[Document, ParseStats]:
    """Parse a PDF like parse_pdf, and also say how much table detection ran."""
    doc = _open(data, source)
    try:
        scans = ocr.ScanReader(meta.language, TEXT_FLAGS)
        pages, detected, notes = _read_pages(doc, source, scans)
        outline = Outline(_quietly(doc.get_toc, []))
        title = _sensible_title(_quietly(lambda: doc.metadata.get("title"), None))
    finally:
        doc.close()
    if meta.title is None and title is not None:
        meta = dataclasses.replace(meta, title=title)
    stats = ParseStats(len(pages), detected, sum(len(p.tables) for p in pages))
    document = _build(pages, outline, source, sha256, meta, notes)
    document = dataclasses.replace(document, notes=tuple(notes), ocr_pages=tuple(scans.read_pages))
    return document, stats


def text_layer_words(data: bytes) -> list[list[str]]:
    """Return the words of each page's text layer, as MuPDF gives them, for coverage checks.

    A word whose middle lies off the page is not on it: of a line cut by the page's edge,
    MuPDF keeps the letters whose ink reaches onto the page ("fi di d" of a table row that
    runs off the bottom), and its lines may leave them out.
    """
    doc = _open(data, "text layer")
    try:
        return [_on_page_words(page) for page in doc]
    finally:
        doc.close()


PICTURE_DPI = 40
"""Resolution of the page pictures `inspect --html` draws boxes on: small, the text legible."""


@dataclass(frozen=True, slots=True)
class PagePicture:
    """A small grey PNG of one PDF page, and the page's size in points (boxes' space)."""

    width: float
    """Page width, points."""
    height: float
    """Page height, points."""
    png: bytes
    """The picture, PNG."""


def page_pictures(data: bytes, pages: list[int], dpi: int = PICTURE_DPI) -> dict[int, PagePicture]:
    """Return a picture of each listed 1-based page; a page MuPDF cannot draw is left out."""
    doc = _open(data, "page pictures")
    pictures: dict[int, PagePicture] = {}
    try:
        for number in pages:
            try:
                page = doc.load_page(number - 1)
                pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
                picture = PagePicture(page.rect.width, page.rect.height, pixmap.tobytes("png"))
            except Exception:
                continue  # a picture is a view aid: a page that cannot be drawn goes without
            pictures[number] = picture
    finally:
        doc.close()
    return pictures


def _on_page_words(page: Any) -> list[str]:
    """Return the words of one page whose middle lies on it, in MuPDF's order."""
    # Text comes in the unrotated page's space, from the crop box's corner.
    width, height = page.cropbox.width, page.cropbox.height
    return [
        w[4]
        for w in page.get_text("words", flags=TEXT_FLAGS)
        if 0 <= (w[0] + w[2]) / 2 <= width and 0 <= (w[1] + w[3]) / 2 <= height
    ]


def _quietly(call: Any, default: Any) -> Any:
    """Return call(), or default if pymupdf fails on a damaged part the text can do without."""
    try:
        return call()
    except Exception:
        return default


def _open(data: bytes, source: str) -> Any:
    """Open PDF bytes, turning every way that fails into a DocumentError."""
    if not data:
        raise DocumentError(source, "not a readable PDF: the file is empty")
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:
        raise DocumentError(source, f"not a readable PDF: {exc}") from exc
    if doc.needs_pass:
        doc.close()
        raise DocumentError(source, "encrypted PDF: needs a password")
    if doc.page_count == 0:
        doc.close()
        raise DocumentError(source, "PDF has no pages")
    return doc


class PageWords:
    """A page's words, read once and only when asked for, from its text page if kept."""

    def __init__(self, page: Any, textpage: Any) -> None:
        self._page = page
        self._textpage = textpage
        self._words: list[Word] | None = None

    def __call__(self) -> list[Word]:
        """Return the page's words as get_text("words") gives them."""
        if self._words is None:
            # The text page the dict came from holds the same text: reading it again
            # costs as much as the dict itself.
            self._words = self._page.get_text("words", flags=TEXT_FLAGS, textpage=self._textpage)
            self._textpage = None
        return self._words


def _page_data(
    page: Any, number: int, notes: list[str], turned_pages: list[int]
) -> tuple[dict[str, Any], list[dict[str, Any]] | None, PageWords]:
    """Return a page's text dict, its vector drawings (None past the bounds) and words.

    A page shown turned (/Rotate 90 or 270) whose text then runs up or down the screen
    is read as it was set, unturned, where its lines are horizontal again. Text set
    turned on the sheet so that the /Rotate shows it upright (landscape slides) is read
    as shown, its lines turned by the page's rotation, without table detection (the
    rules stay in the sheet's own space): its number goes into turned_pages.
    """
    textpage = page.get_textpage(flags=TEXT_FLAGS)
    page_dict = page.get_text("dict", textpage=textpage)
    if page.rotation and upright_share(page_dict) < 0.5:
        # The words are read afresh: the page's rotation may change here.
        shown = as_shown(page_dict, tuple(page.rotation_matrix))
        turned = page.rotation
        page.set_rotation(0)
        unturned = page.get_text("dict", flags=TEXT_FLAGS)
        if upright_share(unturned) > max(upright_share(page_dict), upright_share(shown)):
            return unturned, bounds.page_drawings(page, number, notes), PageWords(page, None)
        page.set_rotation(turned)
        if upright_share(shown) > upright_share(page_dict):
            turned_pages.append(number)
            return shown, None, PageWords(page, None)
    return page_dict, bounds.page_drawings(page, number, notes), PageWords(page, textpage)


def _run_finder(page: Any, options: dict[str, Any], lines: list[Any]) -> Any:
    """Return MuPDF's table finder run with options and extra lines; None if it fails."""
    # Each table the finder makes guesses its header (Table.header) at once: it extracts
    # the table's text, looks at the lines above and draws two pixmaps, a third of the
    # finder's time on a report page. tables.py takes the first row as the header and never
    # reads that guess, so it is not made here (the finder has no option for it).
    # The swap is the class's, so one finder runs at a time: a second thread would take
    # the stand-in for the original and leave it in place.
    with _FINDER:
        table_class = pymupdf.table.Table
        guess = table_class.__dict__.get("_get_header")
        if guess is not None:
            table_class._get_header = _no_header
        try:
            return _quietly(lambda: page.find_tables(**options, add_lines=lines), None)
        finally:
            if guess is not None:
                table_class._get_header = guess


_FINDER = threading.Lock()
"""Held while the table finder runs with its header guess swapped out."""


def _no_header(table: Any, y_tolerance: float = 3) -> None:
    """Stand in for MuPDF's guess at a found table's header, which is never read here."""
    return None


class FinderPaths:
    """A page's vector paths for the table finder: fetched once, handed out by clip."""

    def __init__(self, page: Any) -> None:
        self._page = page
        self._paths: list[dict[str, Any]] | None = None
        self._groups: list[nearby.Group] = []
        self._fetched = False

    def near(self, clip: Box) -> list[dict[str, Any]] | None:
        """Return fresh copies of the paths near clip; None to let the finder fetch them."""
        if not self._fetched:
            # Fetched when the finder first runs: get_drawings is dear.
            self._fetched = True
            self._paths = _quietly(self._page.get_drawings, None)
            if self._paths is not None:
                self._groups = nearby.path_groups([tuple(p["rect"]) for p in self._paths])
        if self._paths is None:
            return None
        # Copies: the finder appends to the items of a closed path each time it runs.
        paths = self._paths
        return [
            {**paths[i], "items": list(paths[i]["items"])}
            for i in nearby.near_clip(self._groups, clip)
        ]


def _find_tables(
    page: Any, number: int, areas: list[TableArea], drawings: Any, page_words: PageWords
) -> list[Table]:
    """Return the tables MuPDF finds in a page's table areas; none where its finder fails."""
    paths = FinderPaths(page)
    tables: list[Table] = []
    # The page's words, not the box's: a clip would cut a word that runs past the box.
    for area in areas:
        if area.grid is not None:
            plain = _plain_table(area.grid, page_words(), number)
            if plain is not None:
                tables.append(plain)
                continue
        options: dict[str, Any] = {"clip": pymupdf.Rect(area.box), "paths": paths.near(area.box)}
        if not area.ruled:
            options.update(vertical_strategy="text", horizontal_strategy="text")
        finder = _run_finder(page, options, area.closing)
        if finder is None:
            continue
        extra = closing_lines([tuple(found.bbox) for found in finder.tables], drawings)
        if extra and area.ruled:
            finder = _run_finder(page, options, area.closing + extra) or finder
        for found in finder.tables:
            grid = [list(row.cells) for row in found.rows]
            # Without column rules, the text's alignment ends where the widest header does:
            # the outer columns run on to the rules' ends.
            box = tuple(found.bbox) if area.ruled else widen(grid, found.bbox, area.box)
            table = table_from_grid(grid, _area_words(page_words(), box), box, number, area.ruled)
            if table is not None:
                tables.append(table)
    return tables


def _plain_table(
    grid: tuple[tuple[float, ...], tuple[float, ...]], page_words: list[Word], number: int
) -> Table | None:
    """Return the table of a plain grid (every rule edge to edge) from its rules alone."""
    xs, ys = grid
    cells: list[list[Box | None]] = [
        [(xs[c], ys[r], xs[c + 1], ys[r + 1]) for c in range(len(xs) - 1)]
        for r in range(len(ys) - 1)
    ]
    box = (xs[0], ys[0], xs[-1], ys[-1])
    return table_from_grid(cells, _area_words(page_words, box), box, number, True)


def _area_words(page_words: list[Word], box: tuple[float, ...]) -> list[Word]:
    """Return the words of every text line that starts a word inside a box, whole lines.

    A table takes the lines it covers out of the prose, so it must account for all of
    their words: a line that runs in from outside the box (a paragraph beside a figure's
    grid) leaves words in no cell, and the grid is then no table.
    """
    lines = {(word[5], word[6]) for word in page_words if _starts_in(word, box)}
    return [word for word in page_words if (word[5], word[6]) in lines]


def _starts_in(word: Word, box: tuple[float, ...]) -> bool:
    """Whether a word starts inside a box: where its first letter and its middle height are."""
    middle = (word[1] + word[3]) / 2
    return box[0] - 1 <= word[0] + 1 <= box[2] + 1 and box[1] - 1 <= middle <= box[3] + 1


def _page_tables(
    page: Any, number: int, drawings: Any, lines: list[Any], notes: list[str], words: PageWords
) -> tuple[list[Table], bool]:
    """Return a page's tables, and whether detection ran; within the page's work bounds."""
    if drawings is None:
        return [], False
    areas = table_areas(drawings, lines)
    dense = [area for area in areas if area.cells > bounds.MAX_GRID_CELLS]
    if dense:
        cells = max(area.cells for area in dense)
        notes.append(bounds.dense_grid_note(number, cells))
        areas = [area for area in areas if area.cells <= bounds.MAX_GRID_CELLS]
    tables = _find_tables(page, number, areas, drawings, words) if areas else []
    # Rules whose finder found no table leave their area to the text's alignment.
    found = [(t.x0, t.y0, t.x1, t.y1) for t in tables]
    height = page.rect.height
    regions = aligned.candidate_regions(lines, found, height) if aligned.ENABLED else []
    if regions:
        tables += [t for r in regions if (t := aligned.aligned_table(words(), r, number))]
    return tables, bool(areas or regions)


def _read_pages(
    doc: Any, source: str, scans: ocr.ScanReader
) -> tuple[list[PageContent], int, list[str]]:
    """Read every page's lines and tables; return them, the pages that ran detection, notes."""
    pages: list[PageContent] = []
    notes: list[str] = []
    detected = block_base = 0
    clock = bounds.Deadline(source, doc.page_count)
    turned: list[int] = []
    for index in range(doc.page_count):
        clock.check(index)
        try:
            page = doc.load_page(index)
            page_dict, drawings, words = _page_data(page, index + 1, notes, turned)
            page_dict = scans.read(page, index + 1, page_dict)
            rect = page.rect
        except Exception as exc:
            raise DocumentError(source, f"not a readable PDF: page {index + 1}: {exc}") from exc
        skipped: list[str] = []
        lines = mark_wrapped_code(extract_lines(page_dict, index + 1, block_base, skipped))
        block_base += len(page_dict["blocks"])
        tables, scanned = _page_tables(page, index + 1, drawings, lines, notes, words)
        detected += scanned
        if tables:
            lines = [ln for ln in lines if not any(t.contains(ln) for t in tables)]
        content = PageContent(
            index + 1,
            rect.width,
            rect.height,
            attach_section_numbers(attach_lone_markers(lines)),
            tables,
            separators(drawings or []),
            _skipped(skipped, scans, index + 1),
        )
        pages.append(content)
    notes.extend(scans.notes())
    if turned:
        notes.append(turned_pages_note(turned))
    return pages, detected, notes


def _skipped(vertical: list[str], scans: ocr.ScanReader, page: int) -> list[Dropped]:
    """Return the records of a page's text left out: vertical lines, a text layer of noise,
    OCR text read off illustrations."""
    records = [Dropped(text, "vertical text", page) for text in vertical]
    noise = scans.garbage.get(page)
    if noise is not None:
        records.append(Dropped(noise, "unreadable text layer", page))
    records.extend(
        Dropped(text, "illustration", page) for text in scans.illustrations.get(page, ())
    )
    return records


def _sensible_title(title: str | None) -> str | None:
    """Return the PDF's own title if it reads like one rather than a file name or default."""
    if not title:
        return None
    title = " ".join(title.split())
    letters = sum(ch.isalpha() for ch in title)
    too_long = len(title) > 200 or count_words(title) > MAX_TITLE_WORDS
    if letters < 3 or too_long or _NOT_A_TITLE.search(title) or "\\" in title:
        return None
    return title


LaidOut = list[tuple[PageContent, list[Table | list[Run]]]]
"""Each page with its tables and runs of text, in reading order."""


def _lay_out(pages: list[PageContent], outline: Outline) -> LaidOut:
    """Put each page's regions in reading order and its lines into runs, levels assigned."""
    type_ = Typography.of([page.lines for page in pages])
    laid_out: LaidOut = []
    all_runs: list[Run] = []
    for page in pages:
        items: list[Table | list[Run]] = []
        for region in reading_order(page, type_.body):
            if region.table is not None:
                items.append(region.table)
            else:
                runs = region_runs(region.lines, type_, outline)
                all_runs.extend(runs)
                items.append(runs)
        laid_out.append((page, items))
    labels = {id(run) for run in merge_labels(all_runs)}
    if labels:
        all_runs = [run for run in all_runs if id(run) not in labels]
        for _, items in laid_out:
            for item in items:
                if not isinstance(item, Table):
                    item[:] = [run for run in item if id(run) not in labels]
    demote_title_page(all_runs)
    assign_levels(all_runs)
    return laid_out


def _build(
    pages: list[PageContent],
    outline: Outline,
    source: str,
    sha256: str,
    meta: DocumentMeta,
    notes: list[str],
) -> Document:
    """Lay out the pages' lines and tables as blocks and build the Document."""
    remove_running_lines(pages, Typography.of([inner_lines(page) for page in pages]).body)
    # An index first: its entries have the leaders of contents entries, and a page of them
    # is one index page, not runs of contents entries around what is left.
    drop_index_pages(pages)
    drop_contents_entries(pages)
    drop_line_numbers(pages)
    drop_outer_page_numbers(pages)
    # Laid out after that: running headers and footers would skew the share of each style.
    laid_out = _lay_out(pages, outline)
    builder = DocumentBuilder()
    assembler = BlockAssembler(builder, _vocabulary(pages))
    for page, items in laid_out:
        left = min((line.x0 for line in page.lines), default=0.0)
        assembler.start_page(page.number, left, page.separators, page.height)
        for index, item in enumerate(items):
            if isinstance(item, Table):
                assembler.add_table(item, index == 0)
            else:
                assembler.add_runs(item, index == 0)
    assembler.finish()
    if not builder.blocks:
        why = f": {notes[-1]}" if notes else ""
        raise DocumentError(source, f"PDF has no extractable text (scanned images?){why}")
    if meta.title is None:
        title = start_title(builder.blocks) or PurePosixPath(source).stem
        meta = dataclasses.replace(meta, title=title)
    document = builder.build(source, sha256, meta, PurePosixPath(source).stem)
    dropped = tuple(record for page in pages for record in page.dropped) + tuple(assembler.dropped)
    return dataclasses.replace(document, dropped=tuple(sorted(dropped, key=_page_order)))


def _vocabulary(pages: list[PageContent]) -> Vocabulary:
    """Return the words a document spells, from its lines and table cells."""
    vocabulary = Vocabulary(line.text for page in pages for line in page.lines)
    for page in pages:
        for table in page.tables:
            for row in table.rows:
                for cell in row:
                    vocabulary.add(cell)
    return vocabulary


def _page_order(record: Dropped) -> int:
    """Sort key of a dropped record: its page (the sort is stable within a page)."""
    return record.page or 0
