from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.format_checks import check_document
from support.markdown_truth import missing, visible_text

from policy_assistant.errors import DocumentError
from policy_assistant.parse import parse_bytes, parse_path
from policy_assistant.parse.catalog import Catalog
from policy_assistant.parse.markdown import parse_markdown, split_front_matter

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
    (tmp_path / "c.md").write_bytes(b"\xff\xfd")
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


# --- fidelity: no text lost to markup (issue 10 item 10) ------------------------------------


def texts(markdown: str, source: str = "a.md") -> list[str]:
    return [b.text for b in parse(markdown, source).blocks]


@pytest.mark.parametrize(
    ("markdown", "expected"),
    [
        ("The <unk> token and List<String>.", "The <unk> token and List<String>."),
        ("2<sup>7</sup> = 128 and H<sub>2</sub>O", "2^7 = 128 and H2O"),
        ("one<br>two<br/>three", "one\ntwo\nthree"),
        ("hard  \nbreak and back\\\nslash", "hard\nbreak and back\nslash"),
        (r"\*not emphasis\* \# \[x\] a\_b", "*not emphasis* # [x] a_b"),
        ("&amp; &eacute; &#169; &lt;tag&gt;", "& é © <tag>"),
        ("<b>bold</b> <span class='x'>span</span> <!-- hidden --> end", "bold span end"),
        ('see <img src="d.png" alt="the diagram"> here', "see the diagram here"),
        ("![alt words](x.png)", "alt words"),
    ],
)
def test_inline_html_escapes_and_entities_keep_their_text(markdown: str, expected: str) -> None:
    assert texts(markdown) == [expected]


def test_table_cells_with_inline_html_stay_apart_and_on_one_line() -> None:
    table = "| a<br>b | <b>x</b> |\n|---|---|\n| 2<sup>3</sup> | <unk> |\n"
    assert texts(table) == ["a b | x\n2^3 | <unk>"]


def test_html_blocks_are_read_as_html() -> None:
    doc = parse(
        '<div align="center">\n<h1>Project</h1>\n<p>Tag <b>line</b></p>\n'
        "<script>track()</script>\n</div>\n\nAfter.\n"
    )
    assert [(b.kind, b.text, b.section) for b in doc.blocks] == [
        ("heading", "Project", ("Project",)),
        ("paragraph", "Tag line", ("Project",)),
        ("paragraph", "After.", ("Project",)),
    ]
    assert [(d.reason, d.text) for d in doc.dropped] == [("script", "track()")]


def test_a_block_of_tags_that_are_not_html_is_text() -> None:
    assert texts("Before.\n\n<unk>\n\n<PAD> <EOS>\n") == ["Before.", "<unk>", "<PAD> <EOS>"]


def test_only_bare_names_in_braces_are_myst_directives() -> None:
    fence = "```{ .dockerfile .annotate }\n# install\nRUN make\n```\n\nAfter.\n"
    doc = parse(fence)
    assert [(b.kind, b.text) for b in doc.blocks] == [
        ("code", "# install\nRUN make"),
        ("paragraph", "After."),
    ]
    doc = parse("```{warning} Mind the gap\n:class: tip\nDo **not** run.\n```\n")
    assert [(b.kind, b.text) for b in doc.blocks] == [
        ("paragraph", "Mind the gap"),
        ("paragraph", "Do not run."),
    ]
    assert [(d.reason, d.text) for d in doc.dropped] == [("directive option", ":class: tip")]
    doc = parse("```{code-block} python\n:linenos:\nprint(1)\n```\n")
    assert [(b.kind, b.text) for b in doc.blocks] == [("code", "print(1)")]


def test_heading_attribute_lists_are_stripped() -> None:
    doc = parse("# Setup { #setup }\n\n## Run {#run .wide data-x=1}\n\n## Braces {kept}\n")
    assert [b.text for b in doc.blocks] == ["Setup", "Run", "Braces {kept}"]
    assert doc.blocks[1].section == ("Setup", "Run")


def test_text_nested_past_the_limit_is_kept_and_its_markers_recorded() -> None:
    doc = parse("> " * 5000 + "deep\n\nAfter.\n")
    assert [b.text for b in doc.blocks] == ["deep", "After."]
    assert [r.reason for r in doc.dropped] == ["nesting past the limit"]
    assert doc.dropped[0].text.startswith("> > >")
    lists = parse("- " * 30 + "inner item\n")
    assert [b.text for b in lists.blocks] == ["inner item"]


def test_nesting_within_the_limit_is_read_as_markdown() -> None:
    doc = parse("> " * 5 + "- quoted item\n")
    assert [(b.kind, b.text) for b in doc.blocks] == [("list_item", "quoted item")]
    assert doc.dropped == ()


def test_container_markers_are_dropped_and_contents_kept() -> None:
    doc = parse(
        "::: tip Be careful\nKeep gloves on.\n:::\n\n:::{note}\nMyST colon fence.\n:::\n\n"
        "```\n:::\n```\n"
    )
    assert [(b.kind, b.text) for b in doc.blocks] == [
        ("paragraph", "Be careful"),
        ("paragraph", "Keep gloves on."),
        ("paragraph", "MyST colon fence."),
        ("code", ":::"),
    ]
    assert [d.text for d in doc.dropped] == ["::: tip Be careful", ":::", ":::{note}", ":::"]


MDX = """---
title: Install
---
import { Tabs, Tab } from "@/components"
export const meta = {
  draft: false,
}

# Install

<Tabs items={["pip", "uv"]}>
<Tab
  value="pip">
Run `pip install tool`.
</Tab>
</Tabs>
{/* a JSX comment */}

<Note type="warn" />

Done.
"""


def test_mdx_reads_as_markdown_with_jsx_and_esm_dropped() -> None:
    # parse_markdown directly: the dispatch of .mdx to it is wired in parse/__init__.py.
    doc = parse_markdown(MDX.encode(), "docs/install.mdx", Catalog(), "0" * 64)
    assert [(b.kind, b.text) for b in doc.blocks] == [
        ("heading", "Install"),
        ("paragraph", "Run pip install tool."),
        ("paragraph", "Done."),
    ]
    assert [d.reason for d in doc.dropped] == [
        "mdx import/export",
        "mdx component",
        "mdx component",
        "mdx component",
        "mdx component",
        "mdx comment",
        "mdx component",
    ]
    assert doc.dropped[0].text.endswith("draft: false,\n}")
    assert doc.title == "Install"


def test_jsx_lines_in_plain_markdown_are_left_alone() -> None:
    assert "import" in parse("import this\n", "a.md").text


@pytest.mark.parametrize(
    ("markdown", "title"),
    [
        ("# First\n\nBody.\n", "First"),
        ("Intro paragraph.\n\n# Later heading\n", "a"),
        ("Body text\n\nmore body\n===\n", "a"),  # an accidental setext heading near the end
        ("# " + " ".join(["word"] * 21) + "\n\nBody.\n", "a"),
        ("# 保証規定\n\n本文。\n", "保証規定"),
        ("# " + "保証期間は購入日から十八か月で延長はできません" + "\n\n本文。\n", "a"),  # 22 words
        ("## Second level first\n\nBody.\n", "Second level first"),
    ],
)
def test_title_is_a_leading_short_heading_else_the_file_name(markdown: str, title: str) -> None:
    assert parse(markdown).title == title


# --- the invariant: every character of the text a reader sees ends up in a block ----------

plain = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyzé0123456789"), min_size=1, max_size=7)


@st.composite
def decorated(draw: st.DrawFn) -> tuple[str, str]:
    """A word as written in Markdown, and as a reader sees it."""
    w = draw(plain)
    forms = [
        (w, w),
        (f"*{w}*", w),
        (f"**{w}**", w),
        (f"`{w}`", w),
        (f"\\*{w}", f"*{w}"),
        (f"<b>{w}</b>", w),
        (f"{w}<sup>2</sup>", f"{w}^2"),
        ("<unk>", "<unk>"),
        (f"List<{w.capitalize()}X>", f"List<{w.capitalize()}X>"),
        ("&amp;", "&"),
        (f"[{w}](https://example.org/{w})", w),
    ]
    return draw(st.sampled_from(forms))


@st.composite
def markdown_documents(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A Markdown document and the words a reader sees in it, in order."""
    source: list[str] = []
    seen: list[str] = []
    for _ in range(draw(st.integers(1, 8))):
        words = draw(st.lists(decorated(), min_size=1, max_size=8))
        line = " ".join(w for w, _ in words)
        kind = draw(st.sampled_from(["paragraph", "heading", "item", "code", "quote"]))
        if kind == "code":
            code = " ".join(draw(st.lists(plain, min_size=1, max_size=5)))
            source.append(f"```\n{code}\n```")
            seen.extend(code.split())
            continue
        prefix = {"paragraph": "", "heading": "## ", "item": "- ", "quote": "> "}[kind]
        source.append(prefix + line)
        seen.extend(" ".join(v for _, v in words).split())
    return "\n\n".join(source) + "\n", seen


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(markdown_documents())
def test_every_visible_word_of_generated_markdown_is_in_a_block(
    case: tuple[str, list[str]],
) -> None:
    markdown, seen = case
    doc = parse(markdown)
    assert doc.text.split() == seen
    assert not missing(visible_text(markdown), doc.text)


REAL = [
    FIXTURES / "pip-repeatable-installs.md",
    Path(__file__).parent / "fixtures" / "formats" / "pymdownx-caret.md",
    Path(__file__).parent / "fixtures" / "formats" / "pymdownx-striphtml.md",
]


def kept_text(path: Path) -> str:
    doc = parse_bytes(path.read_bytes(), path.name, Catalog())
    for block in doc.blocks:
        assert doc.text[block.start : block.end] == block.text
    return doc.text + "\n" + "\n".join(d.text for d in doc.dropped)


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_markdown_loses_no_character(path: Path) -> None:
    assert not missing(visible_text(path.read_text(encoding="utf-8")), kept_text(path))


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_chunker_invariants_hold_on_real_markdown(path: Path) -> None:
    check_document(parse_bytes(path.read_bytes(), path.name, Catalog()))


def test_real_markdown_sdist_loses_no_character() -> None:
    # The 56 Markdown files of pymdown-extensions' sdist, fetched by
    # tests/fixtures/formats/fetch.sh into a scratch folder outside git.
    folder = Path(os.environ.get("POLICY_ASSISTANT_REAL_MD", "build/real-md"))
    files = sorted(folder.rglob("*.md")) if folder.is_dir() else []
    if not files:
        pytest.skip(f"no fetched Markdown in {folder}: run tests/fixtures/formats/fetch.sh")
    losses = {
        p.name: missing(visible_text(p.read_text(encoding="utf-8")), kept_text(p)) for p in files
    }
    assert {name: lost for name, lost in losses.items() if lost} == {}


def test_a_chat_log_without_punctuation_keeps_its_lines() -> None:
    # No blank line and no sentence end: one paragraph whose only structure is its lines.
    lines = [
        f"{('ann', 'bob')[i % 2]}: the nightly build {i} failed on the arm runner"
        for i in range(40)
    ]
    doc = parse("\n".join(lines) + "\n", "chat.md")
    assert [b.text for b in doc.blocks] == ["\n".join(lines)]


def test_wrapped_prose_still_reads_as_one_line() -> None:
    doc = parse("Refunds are paid within 14 days.\nThe receipt is needed\nfor every refund.\n")
    assert [b.text for b in doc.blocks] == [
        "Refunds are paid within 14 days. The receipt is needed for every refund."
    ]


def test_control_characters_go_as_in_plain_text() -> None:
    # An IRC or terminal log keeps its colour codes: they reached the search table raw, where
    # a terminal obeys them, and hid the word they wrap from search.
    doc = parse("Second \x1b[31mred\x1b[0m para\x07 with \x03color\x00.\n", "log.md")
    assert [b.text for b in doc.blocks] == ["Second [31mred[0m para with color."]


def test_raw_html_past_the_parsers_depth_limit_is_refused_not_lost_in_silence() -> None:
    deep = "<div>" * 300 + "deep words" + "</div>" * 300
    with pytest.raises(DocumentError, match=r"^deep\.md: .*nested more than 255 deep"):
        parse(f"# T\n\nIntro.\n\n{deep}\n\nOutro.\n", "deep.md")
