"""The PDF parser on the bundled corpus, on real-world manuals, and against golden files."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest
from support.pdf_factory import only, parse

from policy_assistant.records import Document

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "pdf"
CORPUS = ROOT / "corpus"
GOLDEN = ROOT / "tests" / "golden"


# --- the bundled corpus -----------------------------------------------------------------


def corpus_document(source: str) -> Document:
    path = CORPUS / source
    # The PDFs are committed: a missing one is a broken checkout, not a reason to skip.
    assert path.is_file(), f"corpus/{source} is missing: restore it, or run make corpus"
    return parse(path.read_bytes(), source)


def test_warranty_table_is_one_block_of_thirteen_rows() -> None:
    document = corpus_document("policies/warranty-policy.pdf")
    [table] = only(document, "table")
    rows = table.text.split("\n")
    assert len(rows) == 13
    assert rows[0] == "Category | Examples | Warranty period | Exceptions"
    assert (
        "Sprinklers and irrigation | Oscillating sprinklers, DI-100 drip kits, timers" in table.text
    )
    assert all(row.count(" | ") == 3 for row in rows)
    assert table.section == ("Warranty Policy", "2. Warranty periods by category")
    assert table.pages == (1,)


def test_warranty_sections_pages_and_list_across_the_page_break() -> None:
    document = corpus_document("policies/warranty-policy.pdf")
    headings = only(document, "heading")
    assert [b.level for b in headings] == [1] + [2] * 7
    assert headings[0].text == "Warranty Policy" == document.title
    assert headings[3].text == "3. What is not covered"
    items = [b for b in only(document, "list_item") if b.section[-1] == "3. What is not covered"]
    assert len(items) == 6
    assert {p for b in items for p in b.pages} == {1, 2}
    assert items[0].text.startswith("normal wear of consumable parts")
    assert items[-1].text == "cosmetic changes that do not affect how the product works."
    assert "Greenhaven Home & Garden Page" not in document.text
    assert len(document.pages) == 2


def test_lawn_mower_schedule_table_spans_both_pages() -> None:
    document = corpus_document("guides/lawn-mower-lm-46.pdf")
    [table] = only(document, "table")
    assert table.pages == (1, 2)
    assert table.text.startswith("Task | When | Part or SKU\n")
    assert "Clean air filter | Every 25 hours | Foam filter, SKU 21-0611" in table.text


def test_newsletter_reads_masthead_then_columns_in_order() -> None:
    document = corpus_document("news/spring-almanac-2025.pdf")
    texts = [b.text for b in document.blocks]
    assert texts[0] == "The Greenhaven Almanac"
    swap = next(t for t in texts if t.startswith("Our community seed swap"))
    assert "lobby from 9 am to noon." in swap
    headings = [b.text for b in only(document, "heading")]
    assert headings.index("Seed swap returns") < headings.index("Community garden grants")
    assert headings.index("Rain barrel weekend") < headings.index("Spring lawn checklist")


# --- real-world manuals -----------------------------------------------------------------


def fixture_document(name: str) -> Document:
    return parse((FIXTURES / name).read_bytes(), f"manuals/{name}")


def test_shared_mime_info_spec_has_its_outline_as_headings() -> None:
    document = fixture_document("shared-mime-info-spec.pdf")
    headings = [(b.text, b.level) for b in only(document, "heading")]
    assert ("1. Introduction", 1) in headings
    assert ("2.9. The mime.cache files", 2) in headings
    assert ("3. Contributors", 1) in headings
    assert len(document.pages) == 17
    code = " ".join(b.text for b in only(document, "code"))
    assert '<?xml version="1.0"?>' in code
    # The running header repeats the title on every page; only the title page keeps it.
    assert [b.text for b in document.blocks].count("Shared MIME-info Database") == 1
    magic = next(b for b in document.blocks if b.text.startswith("The magic data is stored"))
    assert magic.section == ("2. Unified system", "2.5. The magic files")


def test_libtasn1_manual_chapters_functions_and_no_running_heads() -> None:
    document = fixture_document("libtasn1.pdf")
    headings = {b.text: b.level for b in only(document, "heading")}
    assert headings["4 Function reference"] == 1
    assert headings["4.2 ASN.1 field functions"] == 2
    assert headings["asn1 array2tree"] == 3
    assert not any(". . ." in text for text in headings)
    assert "Chapter 2: ASN.1 structure handling" not in document.text
    definition = next(b for b in only(document, "code") if b.text.startswith("definitions_name"))
    assert "BEGIN" in definition.text


# --- golden summaries -------------------------------------------------------------------


def golden_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "update_golden", ROOT / "scripts" / "update_golden.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_corpus_parses_as_the_golden_summaries_say() -> None:
    script = golden_script()
    documents = script.parse_corpus(CORPUS)
    expected = {path.name for path in GOLDEN.glob("*.json")}
    assert len(expected) == len(documents) > 0, "tests/golden/ is missing or incomplete"
    assert {script.golden_name(d.source) for d in documents} == expected
    for document in documents:
        golden = json.loads((GOLDEN / script.golden_name(document.source)).read_text("utf-8"))
        # On a difference, review it, then run: .venv/bin/python scripts/update_golden.py
        assert script.summarize(document) == golden, document.source
