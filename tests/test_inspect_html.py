from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.inspect_helpers import chunks_between, make_doc

from policy_assistant.chunk import CHUNKERS, make_chunker
from policy_assistant.inspect import html as html_module
from policy_assistant.inspect import view as view_module
from policy_assistant.inspect.html import (
    IndexEntry,
    page_data,
    render_document_page,
    render_index_page,
)
from policy_assistant.inspect.layout import Layout, build_layout
from policy_assistant.inspect.variants import (
    SCALES,
    Variant,
    chunk_variant,
    preset_settings,
    preset_variants,
)
from policy_assistant.parse import parse_path
from policy_assistant.records import Document

DATA_RE = re.compile(r'<script type="application/json" id="data">(.*?)</script>', re.DOTALL)


def embedded(page: str) -> dict:
    match = DATA_RE.search(page)
    assert match is not None
    return json.loads(match.group(1))


def test_every_method_has_three_sizes_scaled_from_its_defaults() -> None:
    for method in CHUNKERS:
        sizes = preset_settings(method)
        assert len(sizes) == len(SCALES) == 3
        defaults = CHUNKERS[method]().settings()
        assert sizes[1] == defaults
        key = "size" if "size" in defaults else "max_words"
        assert sizes[0][key] < sizes[1][key] < sizes[2][key]
        make_chunker(method, **sizes[0])  # every preset is valid


def test_the_page_holds_the_real_chunkers_output_as_spans() -> None:
    doc = make_doc()
    variants = preset_variants(doc)
    data = page_data(doc, variants)
    assert len(data["variants"]) == 3 * len(CHUNKERS)
    for entry, variant in zip(data["variants"], variants, strict=True):
        again = make_chunker(
            variant.method, **{k: v for k, v in variant.spec.items() if k != "name"}
        )
        chunks = again.chunk(doc)
        assert [(c["id"], c["start"], c["end"]) for c in entry["chunks"]] == [
            (c.id, c.start, c.end) for c in chunks
        ]
        for record, chunk in zip(entry["chunks"], chunks, strict=True):
            assert record["prefix"] + doc.text[record["start"] : record["end"]] == chunk.text


def test_the_page_is_self_contained_and_embeds_the_text_once() -> None:
    doc = make_doc()
    page = render_document_page(doc, preset_variants(doc))
    assert "default-src 'none'" in page
    assert not re.search(r"(src|href)=|<link|@import|url\(", page)
    assert "http://" not in page and "https://" not in page
    assert page.count("Never use a pressure washer up close.") == 1
    assert embedded(page)["text"] == doc.text


def test_text_that_looks_like_markup_cannot_break_out_of_the_data() -> None:
    tricky = make_doc("Wash it. </script><script>alert(1)</script> <!-- done.")
    page = render_document_page(tricky, [chunk_variant(tricky, make_chunker("fixed", size=5))])
    assert "<script>alert(1)" not in page
    assert "<!-- done" not in page
    assert embedded(page)["text"] == tricky.text


def test_the_initial_chunking_opens_the_page() -> None:
    doc = make_doc()
    chosen = Variant(
        "hand", {"name": "hand", "size": 0}, tuple(chunks_between(doc, [("Care", "up")]))
    )
    variants = preset_variants(doc, [chosen])
    page = render_document_page(doc, variants, initial=len(variants) - 1)
    data = embedded(page)
    assert data["initial"] == len(variants) - 1
    assert data["variants"][-1]["specLabel"] == "hand (size 0)"
    assert "hand (size 0)" in page  # drawn in the page before any script runs


def test_an_index_variant_is_kept_beside_the_presets_even_with_the_same_spec() -> None:
    doc = make_doc()
    chunker = make_chunker("structure")
    indexed = Variant("structure", chunker.spec(), tuple(chunker.chunk(doc)), origin="index")
    variants = preset_variants(doc, [indexed, chunk_variant(doc, chunker)])
    assert len(variants) == 3 * len(CHUNKERS) + 1
    assert variants[-1].label.endswith("(index)")


def test_the_index_page_links_every_document() -> None:
    doc = make_doc()
    other = Document(**{**doc.to_dict(), "source": "a & b/<odd>.md", "blocks": doc.blocks})
    page = render_index_page(
        "corpus", [IndexEntry(doc, "guides/deck.md.html", 4), IndexEntry(other, "x.html", 2)], {}
    )
    assert 'href="guides/deck.md.html"' in page
    assert "a &amp; b/&lt;odd&gt;.md" in page
    assert "<script" not in page


RECORD_BYTES = 600
"""Most page bytes one chunk of a further chunking may add: its offsets, ID, pages, sections,
prefix, and the first words the text description quotes (about 500 on the bundled corpus)."""


def test_twelve_chunkings_share_one_text_and_one_layout(
    corpus_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = parse_path(corpus_dir / "policies" / "returns-policy.md").documents[0]
    variants = preset_variants(doc)
    layouts: list[Document] = []

    def counted(d: Document) -> Layout:
        layouts.append(d)
        return build_layout(d)

    monkeypatch.setattr(html_module, "build_layout", counted)
    monkeypatch.setattr(view_module, "build_layout", counted)
    page = render_document_page(doc, variants)
    assert len(layouts) == 1  # one layout; each chunking is drawn over it from offsets
    data = embedded(page)
    assert [v["method"] for v in data["variants"]] == [m for m in CHUNKERS for _ in SCALES]
    paragraphs = [b.text for b in doc.blocks if b.kind == "paragraph" and len(b.text) > 80]
    assert len(paragraphs) >= 3
    assert all(page.count(text) == 1 for text in paragraphs)  # no chunking copies the text


def test_each_further_chunking_adds_only_records_per_chunk(corpus_dir: Path) -> None:
    doc = parse_path(corpus_dir / "policies" / "returns-policy.md").documents[0]
    variants = preset_variants(doc)
    one = len(render_document_page(doc, variants[:1]).encode())
    twelve = len(render_document_page(doc, variants).encode())
    further = sum(len(v.chunks) for v in variants[1:])
    assert further > 0
    assert twelve - one <= RECORD_BYTES * further
    # The bound is tight enough to see a copy of the text per chunking, had the page one.
    assert RECORD_BYTES * further < twelve - one + 11 * len(doc.text.encode())
