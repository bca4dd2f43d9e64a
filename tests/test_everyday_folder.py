"""A real folder of everyday formats ingests whole: every document searchable, strays skipped."""

from __future__ import annotations

import json
from pathlib import Path

import docx
import pptx
import pymupdf
from typer.testing import CliRunner

from policy_assistant.cli import app

WORDS = {
    "a.pdf": "quartzite",
    "b.md": "basalt",
    "c.txt": "dolomite",
    "d.html": "feldspar",
    "e.docx": "gneiss",
    "f.pptx": "hornfels",
}


def sentence(word: str) -> str:
    return f"The {word} samples are stored on the second shelf of the rock room."


def write_folder(root: Path) -> Path:
    root.mkdir()
    (root / "catalog.toml").write_text('[defaults]\naccess = "public"\n')
    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 72), sentence(WORDS["a.pdf"]))
    pdf.save(root / "a.pdf")
    (root / "b.md").write_text(f"# Basalt\n\n{sentence(WORDS['b.md'])}\n")
    (root / "c.txt").write_text(f"Dolomite\n========\n\n{sentence(WORDS['c.txt'])}\n")
    (root / "d.html").write_text(f"<h1>Feldspar</h1><p>{sentence(WORDS['d.html'])}</p>")
    word = docx.Document()
    word.add_heading("Gneiss", level=1)
    word.add_paragraph(sentence(WORDS["e.docx"]))
    word.save(str(root / "e.docx"))
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Hornfels"
    slide.placeholders[1].text = sentence(WORDS["f.pptx"])
    deck.save(str(root / "f.pptx"))
    (root / "stray.xlsx").write_bytes(b"PK\x03\x04 not a document we read")
    return root


def test_every_format_ingests_and_the_stray_file_is_skipped(tmp_path: Path) -> None:
    corpus = write_folder(tmp_path / "c")
    index = str(tmp_path / "i")
    done = CliRunner().invoke(app, ["ingest", str(corpus), "--index", index, "-q", "--json"])
    assert done.exit_code == 0, done.output
    assert sorted(json.loads(done.stdout)["added"]) == sorted(WORDS)
    assert ".xlsx 1" in done.stderr
    for source, word in WORDS.items():
        found = CliRunner().invoke(app, ["search", word, "--index", index, "--json", "-k", "1"])
        assert found.exit_code == 0, found.output
        hit = json.loads(found.stdout.splitlines()[0])["chunk"]
        assert (hit["source"], hit["access"]) == (source, "public")
