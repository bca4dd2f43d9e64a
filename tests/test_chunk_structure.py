"""The structure-aware chunker: sections, tables, long blocks, and the prefix."""

from __future__ import annotations

import itertools

import pytest
from support.chunk_strategies import TABLE_ROWS, warranty_like_document

from policy_assistant.chunk import make_chunker, quality
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import Chunk, Document, DocumentMeta
from policy_assistant.sentences import sentence_spans
from policy_assistant.text import count_words

TABLE_HEADER = " | ".join(TABLE_ROWS[0])
TABLE_HEADING = "2. Warranty periods by category"


def build(blocks: list[tuple[str, str, int]], title: str | None = None) -> Document:
    b = DocumentBuilder()
    for kind, text, level in blocks:
        if kind == "heading":
            b.heading(text, level)
        else:
            b.add(kind, text)
    return b.build("doc.md", "0" * 64, DocumentMeta(title=title), "fallback")


def body(doc: Document, chunk: Chunk) -> str:
    return doc.text[chunk.start : chunk.end]


@pytest.mark.parametrize("cap", [100, 200, 400])
def test_the_warranty_table_stays_whole_with_title_and_heading_on_top(cap: int) -> None:
    doc = warranty_like_document()
    chunks = make_chunker("structure", max_words=cap).chunk(doc)
    table = next(b for b in doc.blocks if b.kind == "table")
    holders = [c for c in chunks if c.start < table.end and c.end > table.start]
    assert len(holders) == 1
    (chunk,) = holders
    assert chunk.start <= table.start and table.end <= chunk.end
    assert chunk.text.startswith("Warranty Policy\n")
    assert chunk.text.index(TABLE_HEADING) < chunk.text.index(TABLE_HEADER)
    readout = quality(doc, chunks)
    assert (readout.tables_cut, readout.starts_inside, readout.mixed_sections) == (0, 0, 0)


def test_a_table_above_the_limit_is_split_between_rows_repeating_the_header() -> None:
    rows = [TABLE_HEADER] + [f"Item {i} | plain words here | {i} years | none" for i in range(40)]
    doc = build([("heading", "Table", 1), ("table", "\n".join(rows), 0)])
    table = doc.blocks[1]
    limit = 60
    chunks = make_chunker("structure", max_words=50, max_table_words=limit).chunk(doc)
    assert len(chunks) > 2
    row_starts = {table.start + sum(len(r) + 1 for r in rows[:i]) for i in range(len(rows))}
    for i, chunk in enumerate(chunks):
        assert chunk.start in row_starts | {doc.blocks[0].start}
        assert doc.text[chunk.end : chunk.end + 1] in ("\n", "")
        table_words = count_words(body(doc, chunk)) - (1 if i == 0 else 0)
        if i > 0:
            assert chunk.text[: chunk.prefix_length].endswith(f"\n\n{TABLE_HEADER}\n")
            table_words += count_words(TABLE_HEADER)
        assert table_words <= limit
    assert "".join(body(doc, c) + "\n" for c in chunks[1:]) == doc.text[chunks[1].start :] + "\n"
    assert chunks[0].text.startswith("Table\n\n" + TABLE_HEADER)


def test_a_header_taking_over_half_the_table_limit_is_not_repeated() -> None:
    header = " | ".join(f"column{i}" for i in range(20))  # 39 words
    rows = [header] + [f"row {i} | x" for i in range(30)]
    doc = build([("heading", "T", 1), ("table", "\n".join(rows), 0)])
    chunks = make_chunker("structure", max_words=30, max_table_words=60).chunk(doc)
    assert len(chunks) > 2
    assert all(c.prefix_length == 0 or header not in c.text[: c.prefix_length] for c in chunks)
    assert all(count_words(body(doc, c)) <= 61 for c in chunks)


def test_a_table_within_the_limit_is_never_split_even_past_the_cap() -> None:
    rows = [TABLE_HEADER] + [f"Item {i} | words | {i} years | none" for i in range(30)]
    doc = build(
        [("heading", "T", 1), ("paragraph", "Intro here.", 0), ("table", "\n".join(rows), 0)]
    )
    chunks = make_chunker("structure", max_words=40, max_table_words=800).chunk(doc)
    assert [body(doc, c) for c in chunks] == ["T\n\nIntro here.", "\n".join(rows)]
    assert chunks[1].text == "T\n\n" + "\n".join(rows)


def long_paragraph(sentences: int, words: int = 9) -> str:
    return " ".join(
        f"Sentence {i} " + " ".join(f"w{i}x{j}" for j in range(words - 2)) + "."
        for i in range(sentences)
    )


def test_a_block_longer_than_the_cap_is_split_between_sentences() -> None:
    paragraph = long_paragraph(30)
    doc = build([("heading", "Guide", 1), ("heading", "Care", 2), ("paragraph", paragraph, 0)])
    chunks = make_chunker("structure", max_words=50).chunk(doc)
    block = doc.blocks[2]
    starts = {s for s, _ in sentence_spans(doc.text, block.start, block.end)}
    ends = {e for _, e in sentence_spans(doc.text, block.start, block.end)}
    assert len(chunks) > 3
    assert all(c.words <= 50 for c in chunks)
    assert chunks[0].start == doc.blocks[0].start  # the headings travel with the first sentences
    for chunk in chunks[1:]:
        assert chunk.start in starts
    for chunk in chunks:
        assert chunk.end in ends
    # Packed greedily: the next sentence would not have fitted.
    for chunk, following in itertools.pairwise(chunks):
        assert chunk.words + count_words(body(doc, following).split(".")[0] + ".") > 50


def test_a_sentence_longer_than_the_cap_is_split_between_words() -> None:
    words = " ".join(f"w{i}" for i in range(300))
    doc = build([("heading", "Long", 1), ("paragraph", words + ".", 0)])
    chunks = make_chunker("structure", max_words=40).chunk(doc)
    assert all(c.words <= 40 for c in chunks)
    assert [w for c in chunks for w in body(doc, c).split()] == doc.text.split()


def test_a_longer_section_is_split_between_blocks() -> None:
    paras = [("paragraph", long_paragraph(2, 10), 0) for _ in range(6)]
    doc = build([("heading", "Doc", 1), *paras])
    chunks = make_chunker("structure", max_words=70).chunk(doc)
    block_ends = {b.end for b in doc.blocks}
    block_starts = {b.start for b in doc.blocks}
    assert len(chunks) > 1
    assert all(c.start in block_starts and c.end in block_ends for c in chunks)


def test_prefix_title_then_heading_path_on_continuing_chunks() -> None:
    paragraph = long_paragraph(12)
    doc = build(
        [
            ("heading", "Pressure Washer PW-3100", 1),
            ("heading", "Maintenance", 2),
            ("heading", "Nozzles", 3),
            ("paragraph", paragraph, 0),
        ]
    )
    chunks = make_chunker("structure", max_words=40).chunk(doc)
    assert chunks[0].prefix_length == 0  # the body opens with the title heading itself
    assert body(doc, chunks[0]).startswith("Pressure Washer PW-3100\n\nMaintenance\n\nNozzles")
    for chunk in chunks[1:]:
        assert chunk.text.startswith("Pressure Washer PW-3100\nMaintenance > Nozzles\n\n")
        assert chunk.sections == (("Pressure Washer PW-3100", "Maintenance", "Nozzles"),)


def test_a_section_opening_with_its_heading_gets_the_title_and_the_parent_path() -> None:
    doc = build(
        [
            ("heading", "Guide", 1),
            ("heading", "Parts", 2),
            ("paragraph", "About parts.", 0),
            ("heading", "Pump", 3),
            ("paragraph", "About the pump.", 0),
        ],
        title="The PW-2200 guide",
    )
    chunks = make_chunker("structure").chunk(doc)
    assert [c.text for c in chunks] == [
        "The PW-2200 guide\n\nGuide\n\nParts\n\nAbout parts.",
        "The PW-2200 guide\nGuide > Parts\n\nPump\n\nAbout the pump.",
    ]


def test_two_guides_with_the_same_text_get_different_chunks_that_name_the_model() -> None:
    def guide(model: str) -> Document:
        b = DocumentBuilder()
        b.heading("Care and use", 1)
        b.heading("Cleaning", 2)
        b.add("paragraph", long_paragraph(20))
        return b.build(f"guides/{model}.md", "0" * 64, DocumentMeta(title=f"{model} guide"), model)

    a = make_chunker("structure", max_words=60).chunk(guide("PW-2200"))
    b = make_chunker("structure", max_words=60).chunk(guide("PW-3100"))
    assert all(c.text.startswith("PW-2200 guide\n") for c in a)
    assert all(c.text.startswith("PW-3100 guide\n") for c in b)
    assert not {c.id for c in a} & {c.id for c in b}


def test_the_prefix_gives_way_under_a_tiny_cap() -> None:
    doc = build(
        [("heading", "A rather long title of words", 1), ("paragraph", long_paragraph(3), 0)]
    )
    chunks = make_chunker("structure", max_words=6).chunk(doc)
    assert all(c.words <= 6 for c in chunks)
    assert all(c.prefix_length == 0 for c in chunks[1:])


def test_repeated_identical_text_gets_distinct_ids() -> None:
    doc = build(
        [
            ("heading", "N", 1),
            ("paragraph", "Same.", 0),
            ("heading", "N", 1),
            ("paragraph", "Same.", 0),
        ]
    )
    chunks = make_chunker("structure").chunk(doc)
    assert len(chunks) == 2 and chunks[0].text == chunks[1].text
    assert chunks[0].id != chunks[1].id


def test_blocks_before_the_first_heading_form_their_own_section() -> None:
    doc = build([("paragraph", "Preamble.", 0), ("heading", "Title", 1), ("paragraph", "Body.", 0)])
    chunks = make_chunker("structure").chunk(doc)
    assert [body(doc, c) for c in chunks] == ["Preamble.", "Title\n\nBody."]
    assert chunks[0].sections == ((),)


@pytest.mark.parametrize("name", ["structure", "sentence"])
def test_a_chat_log_without_punctuation_is_chunked_between_lines(name: str) -> None:
    # One paragraph, one "sentence" of 900 words: its chunks were cut every N words,
    # mid-message ("harvests" / "line 239 about ...").
    lines = [f"{('ann', 'bob')[i % 2]}: build {i} failed on the arm runner" for i in range(100)]
    doc = build([("paragraph", "\n".join(lines), 0)])
    chunks = make_chunker(name, max_words=50).chunk(doc)
    assert len(chunks) > 1
    for chunk in chunks:
        assert all(line in lines for line in body(doc, chunk).split("\n")), body(doc, chunk)
