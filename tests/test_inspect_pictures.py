"""A PDF's HTML page: pictures of its pages, and each chunk's boxes to draw on them."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

from support.cli import APP, runner
from support.pdf_factory import A4, story_pdf

from policy_assistant.inspect.pictures import pictures_for
from policy_assistant.parse import parse_path

DATA_RE = re.compile(r'<script type="application/json" id="data">(.*?)</script>', re.DOTALL)
HTML = "".join(
    f"<h2>Section {n}</h2><p>Hose reels are drained before frost and kept dry in winter, "
    f"so that the seals last; section {n} says how.</p>"
    for n in range(30)
)


def corpus(tmp_path: Path) -> Path:
    """A corpus of one PDF of a few pages and one Markdown file."""
    root = tmp_path / "corpus"
    (root / "guides").mkdir(parents=True)
    (root / "guides" / "reels.pdf").write_bytes(story_pdf(HTML))
    (root / "notes.md").write_text("# Notes\n\nA page of text.\n", encoding="utf-8")
    return root


def page_data(path: Path) -> dict:
    match = DATA_RE.search(path.read_text(encoding="utf-8"))
    assert match is not None
    return json.loads(match.group(1))


def test_a_pdf_page_holds_its_pictures_and_each_chunks_boxes(tmp_path: Path) -> None:
    root = corpus(tmp_path)
    target = tmp_path / "site" / "index.html"
    result = runner.invoke(APP, ["inspect", ".", "--corpus", str(root), "--html", str(target)])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "site" / "guides" / "reels.pdf.html").read_text(encoding="utf-8")
    assert "img-src data:" in page  # the page's policy lets its own pictures show
    data = page_data(tmp_path / "site" / "guides" / "reels.pdf.html")
    document = parse_path(root / "guides" / "reels.pdf").documents[0]
    assert len(document.pages) >= 2
    assert set(data["pictures"]) == {str(n) for n in range(1, len(document.pages) + 1)}
    for picture in data["pictures"].values():
        assert (picture["w"], picture["h"]) == (A4.width, A4.height)
        header, encoded = picture["src"].split(",", 1)
        assert header == "data:image/png;base64"
        assert base64.b64decode(encoded).startswith(b"\x89PNG\r\n\x1a\n")
    for variant in data["variants"]:
        assert all(chunk["boxes"] for chunk in variant["chunks"])
        for chunk in variant["chunks"]:
            for page_number, x0, y0, x1, y1 in chunk["boxes"]:
                assert page_number in chunk["pages"]
                assert 0 <= x0 < x1 <= A4.width and 0 <= y0 < y1 <= A4.height
    # The chunks the page opens on are the document's, boxes and all.
    opened = data["variants"][data["initial"]]["chunks"]
    heads = [b for b in document.blocks if b.kind == "heading"]
    first = next(c for c in opened if c["start"] <= heads[0].start < c["end"])
    assert first["boxes"][0][0] == 1
    assert first["boxes"][0][2] <= heads[0].boxes[0][2]  # the box's top holds the heading
    notes = page_data(tmp_path / "site" / "notes.md.html")
    assert notes["pictures"] == {}
    assert all(not c["boxes"] for v in notes["variants"] for c in v["chunks"])


def test_no_pictures_of_a_file_that_changed_since_its_parse(tmp_path: Path) -> None:
    root = corpus(tmp_path)
    path = root / "guides" / "reels.pdf"
    document = parse_path(path).documents[0]
    assert len(pictures_for(path, document)) == len(document.pages)
    path.write_bytes(story_pdf(HTML + "<p>One more line.</p>"))
    assert pictures_for(path, document) == {}
