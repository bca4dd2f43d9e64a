"""The inspect page in a real browser: what it draws must be exactly what the chunkers made."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.browser import Tab

from policy_assistant.chunk import CHUNKERS, make_chunker
from policy_assistant.inspect import Inspection, write_document_page, write_pages
from policy_assistant.inspect.variants import chunk_variant, preset_settings
from policy_assistant.inspect.view import View, build_view
from policy_assistant.parse import parse_path
from policy_assistant.records import Document

WARRANTY = "policies/warranty-policy.pdf"

# Everything the page drew, read in one call.
READ_DOM = """() => {
  const all = (selector) => [...document.querySelectorAll(selector)];
  return {
    marks: all('#view button.ms').map((m) => Number(m.dataset.chunk)),
    markText: all('#view button.ms').map((m) => m.textContent),
    cuts: all('#view .cut').map((m) => Number(m.dataset.chunk)),
    ends: all('#view .me').map((m) => Number(m.dataset.chunk)),
    words: all('#view .w').map((w) => [Number(w.dataset.w), w.dataset.c, w.textContent]),
    overlap: all('#view .w.ov').length,
    uncovered: all('#view .w.un').length,
    rows: all('#chunks tbody tr').map((r) => r.cells[1].textContent),
    breaks: all('#view .pb').map((p) => p.textContent),
    tables: all('#view table.dt').map((t) => t.rows.length),
    description: document.getElementById('description').textContent,
  };
}"""


@pytest.fixture(scope="module")
def warranty(corpus_dir: Path) -> Document:
    return parse_path(corpus_dir / WARRANTY).documents[0]


@pytest.fixture(scope="module")
def page_file(warranty: Document, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("pages") / "warranty.html"
    inspection = Inspection(warranty, chunk_variant(warranty, make_chunker("structure")))
    return write_document_page(inspection, target)


def expected(doc: Document, method: str, size: int) -> tuple[View, list[Any]]:
    chunks = make_chunker(method, **preset_settings(method)[size]).chunk(doc)
    return build_view(doc, chunks), chunks


def check_drawing(dom: dict[str, Any], view: View, chunks: list[Any]) -> None:
    in_order = sorted(view.marks, key=lambda m: (m.start_at, m.number))
    assert dom["marks"] == [m.number for m in in_order]
    assert dom["markText"] == [f"⟦{m.number}" for m in in_order]
    assert dom["cuts"] == [m.number for m in in_order if m.cut]
    assert sorted(dom["ends"]) == sorted(m.number for m in view.marks if m.end_at is not None)
    assert dom["rows"] == [c.id for c in chunks]
    drawn = {index for index, _, _ in dom["words"]}
    assert drawn == set(range(len(view.layout.words))) - view.layout.hidden
    for index, covered, text in dom["words"]:
        assert covered == " ".join(map(str, view.coverage[index]))
        assert text == view.layout.word_text(view.document.text, index)
    assert dom["overlap"] == sum(len(view.coverage[i]) > 1 for i in drawn)
    assert dom["uncovered"] == sum(not view.coverage[i] for i in drawn)


def open_page(tab: Tab, path: Path) -> Any:
    tab.page.goto(path.as_uri())
    tab.page.wait_for_selector("body[data-ready=true]")
    return tab.page


def test_each_method_draws_exactly_the_chunkers_output(
    tab: Tab, page_file: Path, warranty: Document
) -> None:
    page = open_page(tab, page_file)
    check_drawing(page.evaluate(READ_DOM), *expected(warranty, "structure", 1))
    for method in CHUNKERS:
        page.get_by_role("radio", name=method, exact=True).click()
        dom = page.evaluate(READ_DOM)
        view, chunks = expected(warranty, method, 1)
        check_drawing(dom, view, chunks)
        assert dom["breaks"] == ["page 2"]
        assert sum(dom["tables"]) == 13  # the 12-row table and its header row
        assert dom["description"].startswith(f"{warranty.title} ({WARRANTY}) cut by the {method}")
    assert tab.errors == []
    assert all(url.startswith("file://") for url in tab.requests)


def test_the_size_control_switches_to_the_other_presets(
    tab: Tab, page_file: Path, warranty: Document
) -> None:
    page = open_page(tab, page_file)
    page.get_by_role("radio", name="fixed", exact=True).click()
    for size, settings in enumerate(preset_settings("fixed")):
        page.get_by_role("radio", name=f"size {settings['size']}", exact=True).click()
        check_drawing(page.evaluate(READ_DOM), *expected(warranty, "fixed", size))
    # Moving to another method keeps the rank of the size (here the largest).
    page.get_by_role("radio", name="sentence", exact=True).click()
    check_drawing(page.evaluate(READ_DOM), *expected(warranty, "sentence", 2))


def test_clicking_a_chunk_shows_its_record(tab: Tab, page_file: Path, warranty: Document) -> None:
    page = open_page(tab, page_file)
    _, chunks = expected(warranty, "structure", 1)
    chunk = chunks[2]
    page.locator('#view .w[data-c="3"]').first.click()
    record = page.locator("#record-body").inner_text()
    assert chunk.id in record
    assert f"{chunk.start}–{chunk.end}" in record
    assert page.locator("#record-text").text_content() == chunk.text
    selected = page.locator("#view .w.sel").count()
    assert selected == sum(1 for c in page.evaluate(READ_DOM)["words"] if "3" in c[1].split())
    page.locator('#chunks tr[data-chunk="1"]').click()
    assert page.locator("#record-text").text_content() == chunks[0].text


def test_a_word_in_two_chunks_shows_each_in_turn(
    tab: Tab, page_file: Path, warranty: Document
) -> None:
    page = open_page(tab, page_file)
    page.get_by_role("radio", name="overlapping", exact=True).click()
    _, chunks = expected(warranty, "overlapping", 1)
    shared = page.locator('#view .w[data-c="1 2"]').first
    shared.click()
    assert page.locator("#record-text").text_content() == chunks[0].text
    shared.click()
    assert page.locator("#record-text").text_content() == chunks[1].text


def test_the_index_page_links_pages_that_work(tab: Tab, corpus_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "site" / "index.html"
    result = write_pages("policies", make_chunker("fixed"), target, corpus_dir)
    assert result.failures == []
    page = tab.page
    page.goto(target.as_uri())
    links = page.locator("table.index a")
    assert links.count() == len(result.pages)
    page.get_by_role("link", name="Warranty Policy").click()
    page.wait_for_selector("body[data-ready=true]")
    doc = parse_path(corpus_dir / WARRANTY).documents[0]
    chunks = make_chunker("fixed").chunk(doc)
    check_drawing(page.evaluate(READ_DOM), build_view(doc, chunks), chunks)
    page.get_by_role("link", name="← all documents").click()
    assert page.url == target.as_uri()
    assert tab.errors == []


# Each figure of the record: its page, the picture's box and the overlay's box on screen.
READ_FIGURES = """() => [...document.querySelectorAll('#record-body figure.pagepic')].map((f) => {
  const img = f.querySelector('img'), box = f.querySelector('.box');
  const rect = (node) => { const r = node.getBoundingClientRect();
    return [r.left, r.top, r.width, r.height]; };
  return {page: Number(f.dataset.page), loaded: img.complete && img.naturalWidth > 0,
          img: rect(img), box: rect(box)};
})"""


def test_clicking_a_pdf_chunk_draws_its_boxes_on_its_pages(
    tab: Tab, corpus_dir: Path, warranty: Document, tmp_path: Path
) -> None:
    target = tmp_path / "warranty.html"
    variant = chunk_variant(warranty, make_chunker("structure"))
    write_document_page(Inspection(warranty, variant, corpus_dir / WARRANTY), target)
    page = open_page(tab, target)
    _, chunks = expected(warranty, "structure", 1)
    spanning = next(c for c in chunks if len(c.boxes) == 2)  # a chunk across the page break
    for chunk in (chunks[0], spanning):
        page.locator(f'#chunks tr[data-chunk="{chunk.position + 1}"]').click()
        page.wait_for_function("() => [...document.images].every((i) => i.complete)")
        figures = page.evaluate(READ_FIGURES)
        assert [f["page"] for f in figures] == [box[0] for box in chunk.boxes]
        for figure, (_, x0, y0, x1, y1) in zip(figures, chunk.boxes, strict=True):
            assert figure["loaded"]
            left, top, width, height = figure["img"]
            scale = width / 595.3  # A4 points to screen pixels
            assert abs(height / width - 841.9 / 595.3) < 0.01
            expected_box = [
                left + x0 * scale,
                top + y0 * scale,
                (x1 - x0) * scale,
                (y1 - y0) * scale,
            ]
            assert figure["box"] == pytest.approx(expected_box, abs=1.0)
    assert tab.errors == []
    assert all(url.startswith(("file://", "data:")) for url in tab.requests)
