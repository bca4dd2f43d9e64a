from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.format_checks import check_document, check_offsets, kinds
from support.markdown_truth import missing

from policy_assistant.errors import DocumentError
from policy_assistant.parse.html import parse_html
from policy_assistant.records import Document, DocumentMeta

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Returns policy | Greenhaven</title>
  <style>body { color: green; }</style>
  <script>window.analytics = true;</script>
</head>
<body>
<header><a href="/">Greenhaven</a> <span>Home &amp; Garden</span></header>
<nav><ul><li><a href="/a">Shop</a></li><li>Help</li></ul></nav>
<main>
  <h1>Returns <em>policy</em></h1>
  <p>Customers may return most items
     within <strong>30&nbsp;days</strong>.<br>Keep the receipt.</p>
  <div>Loose text in a div.<p>Inner paragraph.</p>Tail text.</div>
  <h2>Exceptions</h2>
  <ul>
    <li>Cut plants</li>
    <li>Sale items
      <ol start="3"><li>Marked final</li><li>Clearance</li></ol>
      unless faulty</li>
  </ul>
  <table>
    <caption>Refund limits</caption>
    <thead><tr><th>Method</th><th>Limit</th></tr></thead>
    <tbody>
      <tr><td>Cash</td><td>$500</td></tr>
      <tr><td>Card</td><td></td></tr>
    </tbody>
  </table>
  <h3>Till commands</h3>
  <pre>
till --refund 42
  --receipt   R-1
</pre>
  <p>Use <code>List&lt;String&gt;</code> and <img src="x.png" alt="a diagram"> as shown.</p>
  <!-- a comment -->
  <p hidden>Secret draft.</p>
  <article><header><h2>News</h2></header><p>Article body.</p><footer>Posted today</footer></article>
</main>
<footer role="contentinfo">© Greenhaven 2026</footer>
</body>
</html>
"""


def parse(text: str | bytes, source: str = "web/returns.html", **meta: str) -> Document:
    data = text.encode() if isinstance(text, str) else text
    return parse_html(data, source, DocumentMeta(**meta), hashlib.sha256(data).hexdigest())


def test_blocks_are_what_the_page_shows() -> None:
    doc = parse(PAGE)
    assert kinds(doc) == [
        ("heading", "Returns policy"),
        ("paragraph", "Customers may return most items within 30 days.\nKeep the receipt."),
        ("paragraph", "Loose text in a div."),
        ("paragraph", "Inner paragraph."),
        ("paragraph", "Tail text."),
        ("heading", "Exceptions"),
        ("list_item", "Cut plants"),
        ("list_item", "Sale items"),
        ("list_item", "3. Marked final"),
        ("list_item", "4. Clearance"),
        ("list_item", "unless faulty"),
        ("paragraph", "Refund limits"),
        ("table", "Method | Limit\nCash | $500\nCard |"),
        ("heading", "Till commands"),
        ("code", "till --refund 42\n  --receipt   R-1"),
        ("paragraph", "Use List<String> and a diagram as shown."),
        ("heading", "News"),
        ("paragraph", "Article body."),
        ("paragraph", "Posted today"),
    ]
    sections = {b.text: b.section for b in doc.blocks}
    assert sections["3. Marked final"] == ("Returns policy", "Exceptions")
    assert sections["till --refund 42\n  --receipt   R-1"] == (
        "Returns policy",
        "Exceptions",
        "Till commands",
    )
    check_document(doc)


def test_chrome_is_dropped_with_a_record() -> None:
    doc = parse(PAGE)
    assert [(d.reason, d.text) for d in doc.dropped] == [
        ("page header", "Greenhaven Home & Garden"),
        ("navigation", "Shop Help"),
        ("hidden", "Secret draft."),
        ("page footer", "© Greenhaven 2026"),
    ]
    for word in ("analytics", "color", "Shop", "Secret", "©"):
        assert word not in doc.text


def test_script_and_style_in_the_body_are_dropped_and_previewed() -> None:
    script = "var x = 1;" * 50
    doc = parse(f"<body><p>Text.</p><script>{script}</script><style>p {{}}</style></body>")
    assert kinds(doc) == [("paragraph", "Text.")]
    assert [d.reason for d in doc.dropped] == ["script", "style"]
    assert doc.dropped[0].text == script[:200] + "…"


def test_title_is_catalog_else_title_element_else_first_h1_else_file_name() -> None:
    assert parse(PAGE).title == "Returns policy | Greenhaven"
    assert parse(PAGE, title="Catalog title").title == "Catalog title"
    assert parse("<p>Intro</p><h1>Main</h1>").title == "Main"
    assert parse("<p>No headings</p>").title == "returns"


def test_encodings_by_bom_meta_and_fallback() -> None:
    expected = [("paragraph", "Café")]
    assert kinds(parse("<p>Café</p>".encode())) == expected
    assert kinds(parse(b"\xef\xbb\xbf<p>Caf\xc3\xa9</p>")) == expected
    assert kinds(parse("<p>Café</p>".encode("utf-16-le").join([b"\xff\xfe", b""]))) == expected
    latin = b'<meta charset="iso-8859-1"><p>Caf\xe9</p>'
    assert kinds(parse(latin)) == expected
    # Unlabelled and not UTF-8: the HTML standard's windows-1252.
    assert kinds(parse(b"<p>Caf\xe9 \x93quoted\x94</p>")) == [("paragraph", "Café “quoted”")]


def test_bad_encodings_are_one_line_errors_naming_the_file() -> None:
    with pytest.raises(DocumentError, match=r"^web/returns\.html: unknown character encoding"):
        parse(b'<meta charset="klingon"><p>x</p>')
    with pytest.raises(DocumentError, match=r"^web/returns\.html: not utf-8 text \(byte 0xe9"):
        parse(b'<meta charset="utf-8"><p>Caf\xe9</p>')


def test_empty_and_tag_only_pages_give_no_blocks() -> None:
    for text in ("", "  \n", "<html><body></body></html>", "<!-- only a comment -->"):
        doc = parse(text)
        assert doc.blocks == () and doc.text == ""


def test_broken_markup_still_reads() -> None:
    doc = parse("<h2>Unclosed <p>First<p>Second <b>bold</i> end")
    assert [t for _, t in kinds(doc)][-2:] == ["First", "Second bold end"]
    check_document(doc)


def test_nested_table_rows_stay_in_their_cell() -> None:
    doc = parse(
        "<table><tr><th>A</th><th>B</th></tr>"
        "<tr><td>x</td><td><table><tr><td>in1</td><td>in2</td></tr></table></td></tr></table>"
    )
    assert kinds(doc) == [("table", "A | B\nx | in1 in2")]


FORMATS = Path(__file__).parent / "fixtures" / "formats"


def test_real_docbook_page_matches_its_xml_source() -> None:
    # shared-mime-info's spec, chapter 2, as Debian ships it: HTML made by DocBook's stylesheets.
    # The truth is the DocBook XML it was made from (see tests/fixtures/formats/README.md).
    data = (FORMATS / "shared-mime-info-unified-system.html").read_bytes()
    doc = parse(data, "shared-mime-info-unified-system.html")
    truth = json.loads((FORMATS / "shared-mime-info-unified-system.truth.json").read_text())
    headings = [
        (re.sub(r"^\d+(\.\d+)*\. ", "", b.text), b.level) for b in doc.blocks if b.kind == "heading"
    ]
    assert headings == [tuple(h) for h in truth["headings"]]
    table_lines = {line for b in doc.blocks if b.kind == "table" for line in b.text.split("\n")}
    assert len(truth["rows"]) > 20
    for row in truth["rows"]:
        assert " | ".join(row) in table_lines
    assert doc.title == "Unified system"
    # No letter or digit of the chapter's XML text is missing from the page's blocks.
    assert not missing(truth["text"], doc.text)
    # DocBook's navigation tables are chrome: dropped and recorded, not indexed.
    assert [d.reason for d in doc.dropped] == ["navigation", "navigation"]
    assert "Prev" not in doc.text.split()
    check_document(doc)


def test_head_is_metadata_not_text() -> None:
    doc = parse("<head><title>Only a title</title><meta name='x' content='y'></head>")
    assert doc.blocks == () and doc.title == "Only a title"


def test_xhtml_with_an_xml_declaration_reads() -> None:
    page = (
        '<?xml version="1.0" encoding="iso-8859-1"?>\n<!DOCTYPE html>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>X</title></head>'
        "<body><h1>Hi</h1><p>Caf\xe9</p></body></html>"
    ).encode("latin-1")
    assert kinds(parse(page)) == [("heading", "Hi"), ("paragraph", "Café")]


html_word = st.text(
    st.sampled_from("abcdefghijklmnopqrstuvwxyzé0123456789"), min_size=1, max_size=7
)


@st.composite
def html_fragments(draw: st.DrawFn, depth: int = 0) -> tuple[str, list[str]]:
    """Some HTML and the words a browser shows of it, in order."""
    words = draw(st.lists(html_word, min_size=1, max_size=4))
    shown = list(words)
    inline = draw(st.sampled_from(["", "b", "em", "span", "a", "code"]))
    text = " ".join(words)
    html = f"<{inline}>{text}</{inline}>" if inline else text
    block = draw(st.sampled_from(["p", "div", "h2", "h3", "li-list", "table", "pre", "blockquote"]))
    if block == "li-list":
        html = f"<ul><li>{html}</li><li>{words[0]}</li></ul>"
        shown.append(words[0])
    elif block == "table":
        html = f"<table><tr><th>{html}</th><td>{words[0]}</td></tr></table>"
        shown += ["|", words[0]]  # cells are joined by " | "
    else:
        html = f"<{block}>{html}</{block}>"
    if depth < 2 and draw(st.booleans()):
        inner, inner_shown = draw(html_fragments(depth + 1))
        html = f"<div>{html}{inner}</div>"
        shown += inner_shown
    return html, shown


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.lists(html_fragments(), min_size=1, max_size=5))
def test_every_word_of_generated_html_is_in_a_block(parts: list[tuple[str, list[str]]]) -> None:
    page = "<html><body>" + "\n".join(html for html, _ in parts) + "</body></html>"
    doc = parse(page)
    assert doc.text.split() == [w for _, shown in parts for w in shown]
    check_offsets(doc)


# The shapes of generated manuals' link bars, written from each generator's documented
# output structure: texinfo's and Sphinx's by their links alone, Javadoc's and Doxygen's by
# the class names those generators give every bar.
TEXINFO_BAR = (
    '<div><p>Next: <a href="Sorting.html" accesskey="n" rel="next">Sorting</a>, '
    'Previous: <a href="Intro.html" accesskey="p" rel="prev">Intro</a>, '
    'Up: <a href="index.html" accesskey="u" rel="up">Top</a></p></div><hr>'
)
LABEL_BAR = '<p>Next: <a href="b.html">Output</a> Up: <a href="index.html">Top</a></p>'
JAVADOC_BAR = (
    '<div><ul class="navList"><li><a href="overview-summary.html">Overview</a></li>'
    '<li><a href="package-summary.html">Package</a></li><li>Class</li>'
    '<li><a href="package-tree.html">Tree</a></li><li><a href="index-all.html">Index</a></li>'
    "</ul></div>"
)
DOXYGEN_PATH = (
    '<div class="navpath"><ul><li><a href="dir_a.html">src</a></li>'
    '<li><a href="dir_b.html">util</a></li><li><a href="file_c.html">strings.h</a></li></ul></div>'
)
SPHINX_RELATED = (
    '<div><ul><li><a href="genindex.html">index</a></li>'
    '<li><a href="next.html">next</a> |</li><li><a href="prev.html">previous</a> |</li></ul></div>'
)
BODY = "<h1>Sorting files</h1><p>The sort command orders lines; see the options below.</p>"


@pytest.mark.parametrize(
    "bar, words", [
        (TEXINFO_BAR, "Next: Sorting"), (LABEL_BAR, "Next: Output"),
        (JAVADOC_BAR, "Overview Package"), (DOXYGEN_PATH, "src util strings.h"),
        (SPHINX_RELATED, "index next | previous"),
    ],
)  # fmt: skip
def test_generated_manuals_link_bars_are_dropped_as_navigation(bar: str, words: str) -> None:
    doc = parse(f"<html><body>{bar}{BODY}{bar}</body></html>")
    assert doc.text.split() == [*["Sorting", "files"], *BODY_WORDS]
    assert [d.reason for d in doc.dropped if words in d.text] == ["navigation", "navigation"]


BODY_WORDS = ["The", "sort", "command", "orders", "lines;", "see", "the", "options", "below."]


def test_prose_with_links_and_a_long_contents_list_are_kept() -> None:
    prose = (
        '<p>See <a href="a.html">sort</a>, <a href="b.html">uniq</a> and '
        '<a href="c.html">comm</a> for the tools that read sorted input line by line.</p>'
    )
    contents = (
        "<ul>"
        + "".join(
            f'<li><a href="s{i}.html">Section {i} on sorting, merging and comparing files</a></li>'
            for i in range(12)
        )
        + "</ul>"
    )
    signature = (
        '<dl><dd><code><a href="A.html">BuildEvent.getMessage()</a> '
        '<a href="B.html">BuildEvent.getException()</a>, <a href="C.html">IOException</a></code>'
        "</dd></dl>"
    )
    doc = parse(f"<html><body><h1>Tools</h1>{prose}{contents}{signature}</body></html>")
    assert "uniq" in doc.text and "Section 11 on sorting" in doc.text
    assert "getException()" in doc.text
    assert not doc.dropped


def test_text_past_the_parsers_depth_limit_is_refused_not_lost_in_silence() -> None:
    # libxml2 stops reading at 256 open elements: the page's rest was dropped without a word
    # (or, with nothing read, "no text"), so the text that was there was never searchable.
    page = b"<p>Intro.</p>" + b"<div>" * 300 + b"deep text" + b"</div>" * 300 + b"<p>Outro.</p>"
    with pytest.raises(DocumentError, match=r"^web/returns\.html: .*nested more than 255 deep"):
        parse(page)
    shallow = b"<div>" * 200 + b"deep text" + b"</div>" * 200
    assert kinds(parse(shallow)) == [("paragraph", "deep text")]


def test_a_page_laid_out_in_a_table_keeps_its_headings_and_paragraphs() -> None:
    # Older pages (and Word's HTML) put the whole page in a table: it became one table row,
    # "Menu | Annual review Results Revenue rose. ...", with no section and no title.
    page = (
        "<table><tr><td>Menu</td><td><h1>Annual review</h1><h2>Results</h2>"
        "<p>Revenue rose.</p><p>Costs fell.</p>"
        "<table><tr><th>Year</th><th>Sales</th></tr><tr><td>2023</td><td>12</td></tr></table>"
        "</td></tr></table>"
    )
    doc = parse(page)
    assert kinds(doc) == [
        ("paragraph", "Menu"),
        ("heading", "Annual review"),
        ("heading", "Results"),
        ("paragraph", "Revenue rose."),
        ("paragraph", "Costs fell."),
        ("table", "Year | Sales\n2023 | 12"),
    ]
    assert doc.title == "Annual review"


def test_a_data_table_with_a_heading_row_stays_a_table() -> None:
    # Doxygen's member tables hold a group heading alone in a row: still a table of data.
    page = (
        '<table class="memberdecls"><tr class="heading"><td colspan="2"><h2>Public Member '
        'Functions</h2></td></tr><tr><td class="memItemLeft">void</td><td>run (int n)</td></tr>'
        "</table>"
    )
    assert kinds(parse(page)) == [("table", "Public Member Functions\nvoid | run (int n)")]
