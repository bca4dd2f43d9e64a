"""The quality readout, on hand-built documents with hand-counted answers."""

from __future__ import annotations

from support.chunk_strategies import warranty_like_document

from policy_assistant.chunk import corpus_quality, make_chunker, quality
from policy_assistant.chunk.base import NO_PREFIX, ChunkEmitter
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import Chunk, Document, DocumentMeta


def sample() -> Document:
    b = DocumentBuilder()
    b.heading("Doc", 1)  # 0..3
    b.add("paragraph", "First sentence here. Second one.")  # 5..37
    b.add("list_item", "An item of a list.")  # 39..57
    b.heading("Table", 2)  # 59..64
    b.add("table", "H1 | H2\na | b\nc | d")  # 66..84
    return b.build("s.md", "0" * 64, DocumentMeta(), "s")


def chunks_at(doc: Document, spans: list[tuple[int, int]]) -> list[Chunk]:
    emitter = ChunkEmitter(doc, {"name": "test"}, doc.blocks)
    for start, end in spans:
        emitter.emit(start, end, NO_PREFIX)
    return emitter.chunks


def test_hand_counted_readout() -> None:
    doc = sample()
    text = doc.text
    spans = [
        (0, text.index("Second") - 1),  # ends mid-paragraph, after a full stop
        (text.index("Second"), text.index("item") + 4),  # starts at a sentence: not inside
        (text.index("of a"), text.index("H2") + 2),  # inside the list item; mixes sections
        (text.index("b\nc"), len(text)),  # inside a table row (after "a |")
    ]
    readout = quality(doc, chunks_at(doc, spans))
    assert readout.chunks == 4
    assert (readout.starts_in_sentence, readout.starts_in_list_item) == (0, 1)
    assert readout.starts_in_table_row == 1
    assert (readout.tables, readout.tables_cut, readout.table_chunks) == (1, 1, 2)
    assert readout.mixed_sections == 1
    assert readout.document_words == len(text.split())
    assert readout.words_stored == sum(len(text[s:e].split()) for s, e in spans)


def test_starts_inside_a_sentence_and_at_a_row_start() -> None:
    doc = sample()
    text = doc.text
    spans = [(0, text.index("sentence") - 1), (text.index("sentence"), text.index("c |") - 1)]
    spans.append((text.index("c |"), len(text)))
    readout = quality(doc, chunks_at(doc, spans))
    assert readout.starts_in_sentence == 1
    assert readout.starts_in_table_row == 0  # "c | d" starts its row
    assert readout.starts_inside == 1


def test_warranty_readout_tells_the_textbook_lesson() -> None:
    doc = warranty_like_document()
    fixed = quality(doc, make_chunker("fixed").chunk(doc))
    overlapping = quality(doc, make_chunker("overlapping").chunk(doc))
    structure = quality(doc, make_chunker("structure").chunk(doc))
    assert fixed.tables_cut == 1 and fixed.table_chunks >= 2 and fixed.starts_in_table_row >= 1
    assert overlapping.chunks > fixed.chunks and overlapping.stored_ratio > 1.0
    assert fixed.stored_ratio == 1.0
    assert (structure.tables_cut, structure.starts_inside, structure.mixed_sections) == (0, 0, 0)
    assert fixed.mixed_sections >= 1
    assert structure.words_min <= structure.words_median <= structure.words_max


def test_corpus_readout_adds_documents_up() -> None:
    a = warranty_like_document()
    b = sample()
    chunker = make_chunker("fixed", size=20)
    chunks = chunker.chunk(a) + chunker.chunk(b)
    total = corpus_quality([a, b], chunks)
    one, two = quality(a, chunks), quality(b, chunks)
    assert total.documents == 2
    assert total.chunks == one.chunks + two.chunks == len(chunks)
    assert total.tables_cut == one.tables_cut + two.tables_cut
    assert total.words_stored == one.words_stored + two.words_stored
    assert total.words_max == max(c.words for c in chunks)
    assert set(total.to_dict()) >= {"starts_inside", "stored_ratio", "mixed_sections"}


def test_no_chunks_gives_zeros() -> None:
    readout = quality(sample(), [])
    assert (readout.chunks, readout.words_min, readout.words_median, readout.words_max) == (
        0,
        0,
        0,
        0,
    )
    assert readout.stored_ratio == 0.0
