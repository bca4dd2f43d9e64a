"""Where each block, chunk and context passage is on its PDF pages (Block.boxes and kin)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pymupdf
import pytest
from typer.testing import CliRunner

from policy_assistant.boxes import page_boxes
from policy_assistant.chunk import chunk_documents, make_chunker
from policy_assistant.cli import app
from policy_assistant.parse.pdf.reader import parse_pdf
from policy_assistant.records import Block, Document, DocumentMeta, PageBox

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from bench_parse import _table, _text_page

PAGES = 3


def _handbook() -> bytes:
    """Return a generated handbook: prose, a bulleted list, and a ruled table on page 2."""
    doc = pymupdf.open()
    for number in range(1, PAGES + 1):
        page = doc.new_page(width=595, height=842)
        if number == 2:
            _table(page, 80)
            _text_page(page, number, 260)
        else:
            _text_page(page, number, 80)
    data: bytes = doc.tobytes()
    doc.close()
    return data


@pytest.fixture(scope="module")
def handbook() -> tuple[bytes, Document]:
    data = _handbook()
    return data, parse_pdf(data, "handbook.pdf", DocumentMeta(), "0")


def _holds(box: PageBox, x0: float, y0: float, x1: float, y1: float) -> bool:
    return box[1] <= x0 and box[2] <= y0 and x1 <= box[3] and y1 <= box[4]


def test_every_block_has_one_box_on_each_of_its_pages(handbook: tuple[bytes, Document]) -> None:
    _, document = handbook
    assert any(block.kind == "table" for block in document.blocks)
    for block in document.blocks:
        assert tuple(box[0] for box in block.boxes) == block.pages, block.text[:40]
        for _, x0, y0, x1, y1 in block.boxes:
            assert x0 < x1 and y0 < y1


def test_block_boxes_hold_their_words(handbook: tuple[bytes, Document]) -> None:
    data, document = handbook
    dropped = {(record.page, word) for record in document.dropped for word in record.text.split()}
    with pymupdf.open(stream=data, filetype="pdf") as pdf:
        for index, page in enumerate(pdf):
            number = index + 1
            boxes = [box for block in document.blocks for box in block.boxes if box[0] == number]
            for x0, y0, x1, y1, word, *_ in page.get_text("words"):
                if (number, word) in dropped:
                    continue  # a running head or page number: in no block
                assert any(_holds(box, x0, y0, x1, y1) for box in boxes), (number, word)


def test_a_table_block_boxes_its_rules(handbook: tuple[bytes, Document]) -> None:
    _, document = handbook
    table = next(block for block in document.blocks if block.kind == "table")
    # The generated table's rules run from (56, 80) to (536, 224).
    assert _holds(table.boxes[0], 56.5, 80.5, 535.5, 223.5)


def _covers(chunk_boxes: tuple[PageBox, ...], block: Block, pages: tuple[int, ...]) -> bool:
    by_page = {box[0]: box for box in chunk_boxes}
    return all(
        box[0] in by_page and _holds(by_page[box[0]], *box[1:])
        for box in block.boxes
        if box[0] in pages
    )


@pytest.mark.parametrize("name", ["structure", "fixed", "overlapping", "sentence"])
def test_a_chunk_s_boxes_cover_its_blocks_boxes(
    handbook: tuple[bytes, Document], name: str
) -> None:
    _, document = handbook
    chunks = chunk_documents([document], make_chunker(name))
    assert chunks
    for chunk in chunks:
        touched = [b for b in document.blocks if b.start < chunk.end and chunk.start < b.end]
        assert tuple(box[0] for box in chunk.boxes) == chunk.pages
        for block in touched:
            assert _covers(chunk.boxes, block, chunk.pages), (chunk.position, block.text[:30])


def test_boxes_are_left_out_of_json_where_there_are_none() -> None:
    block = Block("paragraph", "Text.", 0, 5)
    assert "boxes" not in block.to_dict()
    boxed = Block("paragraph", "Text.", 0, 5, (1,), boxes=((1, 1.0, 2.0, 3.0, 4.0),))
    assert Block.from_dict(json.loads(json.dumps(boxed.to_dict()))) == boxed


def test_page_boxes_join_a_page_s_areas_and_round_outwards() -> None:
    areas = [(2, 10.04, 20.06, 30.01, 40.0), (1, 5.0, 5.0, 6.0, 6.0), (2, 12.0, 10.0, 31.0, 30.0)]
    assert page_boxes(areas) == ((1, 5.0, 5.0, 6.0, 6.0), (2, 10.0, 10.0, 31.0, 40.0))


@pytest.mark.slow
def test_search_json_and_budget_passages_carry_boxes(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "handbook.pdf").write_bytes(_handbook())
    runner = CliRunner()
    index = str(tmp_path / "i")
    ingested = runner.invoke(app, ["ingest", str(corpus), "--index", index, "-q"])
    assert ingested.exit_code == 0, ingested.output
    found = runner.invoke(
        app, ["search", "warranty refund", "--index", index, "--json", "--access", "staff"]
    )
    assert found.exit_code == 0, found.output
    chunk = json.loads(found.stdout.splitlines()[0])["chunk"]
    assert [box[0] for box in chunk["boxes"]] == chunk["pages"]
    budget = ["search", "warranty refund", "--budget", "200", "--json", "--index", index]
    budget += ["--access", "staff"]
    shown = runner.invoke(app, budget)
    assert shown.exit_code == 0, shown.output
    passage = json.loads(shown.stdout.splitlines()[0])
    assert passage["boxes"] and [box[0] for box in passage["boxes"]] == passage["pages"]
