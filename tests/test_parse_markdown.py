from __future__ import annotations

from pathlib import Path

import pytest

from policy_assistant.errors import DocumentError
from policy_assistant.parse import parse_bytes, parse_path
from policy_assistant.parse.catalog import Catalog
from policy_assistant.parse.markdown import split_front_matter

SAMPLE = """---
title: Returns policy
access: public
version: 3
---

# Returns Policy

Intro with **bold**, a [link](https://example.org) and `code`.
Second line of it.

## Refunds

- Item one
  continues here
- Item two
  1. nested a
  2. nested b

3. Third
4. Fourth

| Col A | Col B |
|---|---|
| a1 | b1 |
| a2 | b2 |

```bash
till --refund 42
```

### Deep

Deep text.

## Exchanges

Exchange text.
"""


def parse(text: str, source: str = "a.md", catalog: Catalog | None = None):  # type: ignore[no-untyped-def]
    return parse_bytes(text.encode(), source, catalog or Catalog())


def test_every_block_maps_back_to_the_text() -> None:
    doc = parse(SAMPLE)
    assert doc.blocks
    for block in doc.blocks:
        assert doc.text[block.start : block.end] == block.text


def test_blocks_are_joined_by_one_blank_line() -> None:
    doc = parse(SAMPLE)
    for before, after in zip(doc.blocks, doc.blocks[1:], strict=False):
        assert doc.text[before.end : after.start] == "\n\n"


def test_kinds_sections_and_levels() -> None:
    doc = parse(SAMPLE)
    kinds = [(b.kind, b.text) for b in doc.blocks]
    assert kinds[0] == ("heading", "Returns Policy")
    assert ("paragraph", "Intro with bold, a link and code. Second line of it.") in kinds
    assert ("list_item", "Item one continues here") in kinds
    assert ("list_item", "1. nested a") in kinds
    assert ("list_item", "3. Third") in kinds
    assert ("table", "Col A | Col B\na1 | b1\na2 | b2") in kinds
    assert ("code", "till --refund 42") in kinds
    deep = next(b for b in doc.blocks if b.text == "Deep text.")
    assert deep.section == ("Returns Policy", "Refunds", "Deep")
    exchange = next(b for b in doc.blocks if b.text == "Exchange text.")
    assert exchange.section == ("Returns Policy", "Exchanges")
    assert [b.level for b in doc.blocks if b.kind == "heading"] == [1, 2, 3, 2]
    assert all(b.pages == () for b in doc.blocks)
    assert doc.pages == ()


def test_front_matter_is_read_not_indexed() -> None:
    doc = parse(SAMPLE)
    assert doc.title == "Returns policy"
    assert doc.access == "public"
    assert doc.version == "3"
    assert "title:" not in doc.text


def test_catalog_wins_over_front_matter() -> None:
    catalog = Catalog({"a.md": {"access": "staff", "version": "9"}})
    doc = parse(SAMPLE, catalog=catalog)
    assert (doc.access, doc.version, doc.title) == ("staff", "9", "Returns policy")


def test_unlabelled_document_is_staff() -> None:
    doc = parse("# Memo\n\nDraft text.\n")
    assert doc.access == "staff"
    assert doc.title == "Memo"


def test_bad_access_label_is_an_error_naming_the_file() -> None:
    with pytest.raises(DocumentError, match=r"^a\.md: access label 'secret'"):
        parse("---\naccess: secret\n---\n# T\n")


def test_byte_order_mark_and_windows_line_endings_just_work() -> None:
    plain = parse_bytes(b"# Title\n\nline one\nline two\n", "a.md", Catalog())
    windows = parse_bytes(b"\xef\xbb\xbf# Title\r\n\r\nline one\r\nline two\r\n", "a.md", Catalog())
    assert windows.text == plain.text
    assert windows.blocks == plain.blocks


def test_not_utf8_is_a_one_line_error() -> None:
    with pytest.raises(DocumentError) as info:
        parse_bytes(b"# Title\n\ncaf\xe9\n", "notes/latin1.md", Catalog())
    assert str(info.value) == "notes/latin1.md: not UTF-8 text (byte 0xe9 at offset 12)"


def test_empty_markdown_gives_a_document_without_blocks() -> None:
    doc = parse("")
    assert doc.blocks == ()
    assert doc.text == ""


def test_front_matter_only_when_it_opens_the_file() -> None:
    fields, body = split_front_matter("# T\n\n---\nkey: v\n---\n")
    assert fields == {}
    assert body.startswith("# T")


def test_sha256_is_of_the_file_bytes() -> None:
    import hashlib

    data = SAMPLE.encode()
    assert parse_bytes(data, "a.md", Catalog()).sha256 == hashlib.sha256(data).hexdigest()


def test_parse_path_walks_sorted_and_reports_bad_files(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z.md").write_text("# Z\n\nz\n")
    (tmp_path / "a.md").write_text("# A\n\na\n")
    (tmp_path / "c.md").write_bytes(b"\xff\xfe")
    (tmp_path / "notes.xlsx").write_text("plain")
    (tmp_path / ".hidden.md").write_text("# H\n")
    result = parse_path(tmp_path)
    assert [d.source for d in result.documents] == ["a.md", "b/z.md"]
    assert [e.source for e in result.failures] == ["c.md"]
    assert "skipped 2 files: .xlsx 1, hidden 1" in result.notices


def test_link_out_of_the_corpus_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("# Secret\n")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "in.md").write_text("# In\n")
    (corpus / "escape.md").symlink_to(outside)
    result = parse_path(corpus)
    assert [d.source for d in result.documents] == ["in.md"]
    assert [str(e) for e in result.failures] == ["escape.md: link points outside the corpus"]


def test_single_file_source_is_relative_to_its_catalog_root(tmp_path: Path) -> None:
    (tmp_path / "catalog.toml").write_text('["docs/a.md"]\naccess = "public"\nversion = "2"\n')
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\ntext\n")
    result = parse_path(tmp_path / "docs" / "a.md")
    (doc,) = result.documents
    assert (doc.source, doc.access, doc.version) == ("docs/a.md", "public", "2")


def test_unlabelled_documents_are_reported(tmp_path: Path) -> None:
    (tmp_path / "catalog.toml").write_text('["a.md"]\naccess = "public"\n["gone.md"]\n')
    (tmp_path / "a.md").write_text("# A\n")
    (tmp_path / "b.md").write_text("# B\n")
    result = parse_path(tmp_path)
    assert "b.md: no access label; treated as staff (fail closed)" in result.warnings
    assert "catalog.toml: lists gone.md, which is not in the corpus" in result.notices
    assert not any(w.startswith("a.md") for w in result.warnings)


FIXTURES = Path(__file__).parent / "fixtures" / "md"


def test_real_myst_markdown_reads_as_prose() -> None:
    data = (FIXTURES / "pip-repeatable-installs.md").read_bytes()
    doc = parse_bytes(data, "pip-repeatable-installs.md", Catalog())
    texts = [b.text for b in doc.blocks]
    # A MyST target line is markup, not text.
    assert "(repeatability)=" not in doc.text
    # A {note} directive is prose, a plain fence is code.
    assert any(
        b.kind == "paragraph" and b.text.startswith("Pinning refers to using the == operator")
        for b in doc.blocks
    )
    assert any(b.kind == "code" and b.text.startswith("SomePackage == 1.2.3") for b in doc.blocks)
    # A {ref} role keeps its text and loses its markup.
    assert any("generated using pip freeze." in t for t in texts)
    assert "{ref}" not in doc.text
    assert doc.title == "Repeatable Installs"
    headings = [b.text for b in doc.blocks if b.kind == "heading"]
    assert headings[:3] == ["Repeatable Installs", "Pinning the package versions", "Hash-checking"]
    for block in doc.blocks:
        assert doc.text[block.start : block.end] == block.text
