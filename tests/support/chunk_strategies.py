"""Hypothesis strategies for Documents with blocks, and a hand-built warranty-like policy.

Every document is assembled by DocumentBuilder, so offsets, sections and page starts are the
ones the parsers produce.
"""

from __future__ import annotations

from hypothesis import strategies as st

from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import Document, DocumentMeta

SPECIAL_WORDS = (
    "e.g.", "i.e.", "approx.", "No.", "Mr.", "M.", "2.5", "kW", "PW-3100", "1.", "|", "(see",
    "p.", "12)", "garantie", "été", "l'hiver", "«", "»", "end.", "why?", "yes!", "wait…",
)  # fmt: skip
"""Words that exercise the sentence splitter and the word definition."""

SEPARATORS = (" ", " ", " ", " ", "  ", "\t", "\xa0", "\n")
"""Whitespace between words: mostly spaces, some of every other kind a word must survive."""

word = st.one_of(
    st.sampled_from(SPECIAL_WORDS),
    st.text(st.characters(exclude_categories=("Z", "C")), min_size=1, max_size=9),
)


@st.composite
def phrase(draw: st.DrawFn, min_words: int = 1, max_words: int = 12) -> str:
    """Words joined by assorted whitespace."""
    words = draw(st.lists(word, min_size=min_words, max_size=max_words))
    out = words[0]
    for w in words[1:]:
        out += draw(st.sampled_from(SEPARATORS)) + w
    return out


@st.composite
def sentence(draw: st.DrawFn) -> str:
    """A phrase with a capital start and sentence-ending punctuation, sometimes."""
    text = draw(phrase())
    end = draw(st.sampled_from(("", ".", ".", "?", "!", " !", '."')))
    return draw(st.sampled_from(("", "The ", "A ", "Le "))) + text + end


@st.composite
def paragraph(draw: st.DrawFn) -> str:
    """One to eight sentences."""
    return " ".join(draw(st.lists(sentence(), min_size=1, max_size=8)))


@st.composite
def table(draw: st.DrawFn) -> str:
    """A pipe table: a header row and up to 30 rows of the same number of cells."""
    columns = draw(st.integers(1, 5))
    rows = draw(st.integers(1, 30))
    lines = []
    for _ in range(rows + 1):
        cells = draw(st.lists(phrase(1, 4), min_size=columns, max_size=columns))
        lines.append(" | ".join(c.replace("\n", " ") for c in cells))
    return "\n".join(lines)


@st.composite
def code(draw: st.DrawFn) -> str:
    """A few lines of code-like text."""
    lines = draw(st.lists(phrase(1, 6), min_size=1, max_size=6))
    return "\n".join(line.replace("\n", " ") for line in lines)


block_spec = st.one_of(
    st.tuples(st.just("heading"), phrase(1, 6), st.integers(1, 4)),
    st.tuples(st.just("paragraph"), paragraph(), st.just(0)),
    st.tuples(st.just("paragraph"), paragraph(), st.just(0)),
    st.tuples(st.just("list_item"), sentence(), st.just(0)),
    st.tuples(st.just("table"), table(), st.just(0)),
    st.tuples(st.just("code"), code(), st.just(0)),
)


@st.composite
def documents(draw: st.DrawFn, max_blocks: int = 14) -> Document:
    """A document of random blocks, maybe paged, with random metadata."""
    builder = DocumentBuilder()
    paged = draw(st.booleans())
    page = 1
    if paged:
        builder.begin_page(page)
    for kind, text, level in draw(st.lists(block_spec, max_size=max_blocks)):
        if paged and draw(st.integers(0, 3)) == 0:
            page += 1
            builder.begin_page(page)
        pages = (page,) if paged else ()
        if kind == "heading":
            builder.heading(text.replace("\n", " "), level, pages)
        else:
            builder.add(kind, text, pages)
    meta = DocumentMeta(
        title=draw(st.none() | phrase(1, 5)),
        version=draw(st.sampled_from(("unversioned", "2025.1"))),
        access=draw(st.sampled_from(("public", "staff"))),
        language=draw(st.sampled_from(("en", "fr"))),
    )
    source = draw(st.sampled_from(("a.md", "policies/b.pdf", "guides/c d.md")))
    return builder.build(source, "0" * 64, meta, fallback_title="fallback title")


TABLE_ROWS = (
    ("Category", "Examples", "Warranty period", "Exceptions"),
    ("Hand tools", "Spades, forks, pruners", "Lifetime", "Blade wear and sharpening"),
    ("Corded power tools", "Hedge trimmers, edgers", "2 years", "Cutting lines and blades"),
    ("Cordless tools", "GH-40V range", "3 years; batteries 2 years", "Batteries charged wrongly"),
    ("Petrol mowers", "LM-46 and LM-53", "2 years", "Blades, belts and spark plugs"),
    ("Pressure washers", "PW-2200 and PW-3100", "2 years", "Nozzles, hoses and pump seals"),
    ("Garden furniture", "Teak and steel sets", "5 years frames", "Cushions and covers: 1 year"),
    ("Greenhouses", "GH-810 and GH-1210", "10 years frame", "Glass breakage after delivery"),
    ("Barbecues", "GG-500 gas grill", "5 years burners", "Grates, paint and igniters"),
    ("Irrigation kits", "DI-100 drip kit", "1 year", "Emitters blocked by hard water"),
    ("Sheds", "Timber and metal sheds", "10 years rot", "Felt roofing and paint finish"),
    ("Houseplants", "All indoor plants", "30 days", "Plants not cared for as labelled"),
)
"""A 12-row, 4-column table of about 200 words, like the bundled warranty policy's."""

EXCLUSIONS = (
    "normal wear of consumable parts such as blades, cutting lines, filters and plugs;",
    "damage from accidents, misuse, or neglect of the care guide for the product;",
    "damage from frost, flooding or storms, unless the category row says otherwise;",
    "products used for hire or commercial work, except as shown in the table;",
    "repairs or modifications made by anyone other than an authorised service centre;",
    "cosmetic changes that do not affect how the product works.",
)


def warranty_like_document() -> Document:
    """Return a 2-page policy: 7 sections, a 12-row table, a list across the page break."""
    b = DocumentBuilder()
    b.begin_page(1)
    b.heading("Warranty Policy", 1, (1,))
    b.add("paragraph", "Version 2025.2, effective 1 March 2025. It applies to every store.", (1,))
    b.heading("1. About this warranty", 2, (1,))
    b.add(
        "paragraph",
        "Every product we sell is covered for defects in materials and workmanship for the "
        "period shown below, counted from the date on your receipt. The warranty is in addition "
        "to your rights under the Returns Policy. Once the 30-day return window has closed, a "
        "faulty product is handled under this warranty, e.g. a pump that fails after 40 days.",
        (1,),
    )
    b.heading("2. Warranty periods by category", 2, (1,))
    b.add("table", "\n".join(" | ".join(row) for row in TABLE_ROWS), (1,))
    b.heading("3. What is not covered", 2, (1,))
    b.add("paragraph", "The warranty does not cover:", (1,))
    for i, item in enumerate(EXCLUSIONS):
        if i == 3:
            b.begin_page(2)
        b.add("list_item", item, (1,) if i < 3 else (2,))
    b.heading("4. What the warranty covers", 2, (2,))
    b.add(
        "paragraph",
        "We will repair the product, replace it with the same or an equivalent model, or refund "
        "the price you paid. A repaired or replacement product is covered for the rest of the "
        "original period or 90 days, whichever is longer.",
        (2,),
    )
    b.heading("5. How to make a claim", 2, (2,))
    b.add(
        "paragraph",
        "Bring the product and proof of purchase to any store, or call Customer Care on "
        "1-800-555-0147, extension 220. For large items such as sheds we arrange a collection.",
        (2,),
    )
    b.heading("6. Repair, replacement or refund", 2, (2,))
    b.add("paragraph", "Repairs are completed within 15 business days. Then we refund.", (2,))
    b.heading("7. Your statutory rights", 2, (2,))
    b.add("paragraph", "This warranty does not limit your legal warranties.", (2,))
    meta = DocumentMeta(version="2025.2", access="public", language="en", labelled=True)
    return b.build("policies/warranty-policy.pdf", "0" * 64, meta, "warranty-policy")
