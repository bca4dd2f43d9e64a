"""OCR of scanned pages: a page the test renders to an image and wraps in a PDF."""

from __future__ import annotations

import random

import pymupdf
import pytest
from support.ocr_pages import CSS, HTML, needs_tesseract
from support.pdf_factory import parse, save, story_pdf

from policy_assistant.errors import DocumentError
from policy_assistant.parse.pdf import ocr as pdf_ocr
from policy_assistant.parse.pdf.coverage import coverage, normalize
from policy_assistant.parse.pdf.reader import parse_pdf, text_layer_words
from policy_assistant.records import DocumentMeta


def scanned(html: str = HTML, pages: int = 1) -> tuple[bytes, list[str]]:
    """Render pages of html to images and wrap each in a PDF page without a text layer."""
    source = pymupdf.open("pdf", story_pdf(html * pages, css=CSS))
    words = [w[4] for page in source for w in page.get_text("words")]
    out = pymupdf.open()
    for page in source:
        pixmap = page.get_pixmap(dpi=200)
        target = out.new_page(width=page.rect.width, height=page.rect.height)
        target.insert_image(target.rect, pixmap=pixmap)
    return save(out), words


@needs_tesseract
def test_a_scanned_page_is_read_through_ocr() -> None:
    data, words = scanned()
    document = parse(data)
    assert document.ocr_pages == (1,)
    text = normalize(document.text)
    found = [word for word in words if normalize(word) and normalize(word) in text]
    assert len(found) >= 0.9 * len([w for w in words if normalize(w)])
    assert "warranty" in document.text
    assert document.notes == ("mostly images: 1 of 1 pages are scans",)
    # OCR text comes in a glyph-less font MuPDF calls monospaced: it is prose, not code.
    assert [b.kind for b in document.blocks] == ["heading", "paragraph", "paragraph"]


@needs_tesseract
def test_ocr_is_deterministic() -> None:
    data, _ = scanned()
    assert parse(data).to_dict() == parse(data).to_dict()


@needs_tesseract
def test_french_pages_use_the_french_language_data() -> None:
    assert pdf_ocr.tesseract_language("fr") == "fra"
    assert pdf_ocr.tesseract_language("xx") == "eng"


def test_a_page_with_text_is_not_ocrd() -> None:
    document = parse(story_pdf(HTML * 4))
    assert document.ocr_pages == ()
    assert document.notes == ()


def test_with_ocr_off_the_scanned_pages_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf_ocr, "ENABLED", False)
    page_with_text = pymupdf.open("pdf", story_pdf(HTML * 4))
    image_pages = pymupdf.open("pdf", scanned(pages=1)[0])
    page_with_text.insert_pdf(image_pages)
    document = parse(save(page_with_text))
    assert document.ocr_pages == ()
    assert document.notes == (
        "page 2: scanned (an image, under 50 words), not OCR'd: OCR is switched off",
    )


def test_without_tesseract_an_image_only_pdf_fails_in_one_line_naming_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pdf_ocr, "tessdata", lambda: None)
    data, _ = scanned(pages=1)
    with pytest.raises(DocumentError) as caught:
        parse_pdf(data, "scans/reel.pdf", DocumentMeta(), "x")
    message = str(caught.value)
    assert "\n" not in message and "scans/reel.pdf" in message
    assert "page 1: scanned" in message and "Tesseract is not installed" in message


def junk_over_scan(seed: int = 7) -> bytes:
    """A scanned page (an image of real text) under an invisible text layer of noise."""
    data, _ = scanned()
    doc = pymupdf.open("pdf", data)
    page = doc[0]
    rng = random.Random(seed)
    letters = "bcdfghjklmnpqrstvwxzaeiou"
    for row in range(30):
        words = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 8))) for _ in range(9)]
        page.insert_text((60, 80 + 20 * row), " ".join(words), fontsize=10, render_mode=3)
    return save(doc)


def test_noise_is_told_from_words() -> None:
    assert pdf_ocr.is_garbage(junk_text())
    assert not pdf_ocr.is_garbage(" ".join([HTML] * 2))
    french = (
        "Retournez le produit dans les trente jours avec le ticket de caisse et la boîte. "
        "Le remboursement est fait sur la carte qui a servi au paiement, dans un délai de dix"
        " jours ouvrés après la réception du colis par le magasin."
    )
    assert not pdf_ocr.is_garbage(french)
    assert not pdf_ocr.is_garbage("qzx vbn")  # too few words to judge


def junk_text() -> str:
    rng = random.Random(3)
    return " ".join("".join(rng.choice("kqzxvbnmtrp") for _ in range(5)) for _ in range(60))


@needs_tesseract
def test_a_text_layer_of_noise_over_a_scan_is_ocrd() -> None:
    document = parse(junk_over_scan())
    assert document.ocr_pages == (1,)
    assert "warranty" in document.text
    assert not pdf_ocr.is_garbage(document.text)


@pytest.mark.slow
def test_without_ocr_a_text_layer_of_noise_is_left_out_and_recorded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pdf_ocr, "ENABLED", False)
    doc = pymupdf.open("pdf", story_pdf(HTML * 4))
    doc.insert_pdf(pymupdf.open("pdf", junk_over_scan()))
    data = save(doc)
    document = parse(data)
    assert all(block.pages == (1,) for block in document.blocks)
    (record,) = [r for r in document.dropped if r.page == 2]
    assert record.reason == "unreadable text layer"
    assert "page" in document.notes[-1] and "2: text layer is not words" in document.notes[-1]
    found = coverage(document, text_layer_words(data))
    assert found.lost == ()


def test_a_picture_with_a_real_caption_is_not_noise(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf_ocr, "ENABLED", False)
    doc = pymupdf.open("pdf", story_pdf(HTML * 4))
    picture = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 40, 40), False)
    picture.clear_with(120)
    doc[0].insert_image(pymupdf.Rect(400, 700, 500, 780), pixmap=picture)
    document = parse(save(doc))
    assert document.dropped == () and document.notes == ()


@needs_tesseract
def test_a_pdf_of_images_passes_with_a_note_saying_so() -> None:
    data, _ = scanned(pages=3)
    document = parse(data)
    assert document.ocr_pages
    assert document.notes[0] == (
        f"mostly images: {len(document.ocr_pages)} of {len(document.pages)} pages are scans"
    )


HUNGARIAN = (
    "Ez a program minden szót elválaszt, amelyet beírunk a terminálban. Ha hibás "
    "elválasztást találunk, könnyen megállapítható, melyik minta okozta. Egy üres sor után "
    "a program kilép. Az elválasztási minták fájlját bárki letöltheti, és saját céljaira "
    "használhatja, mert szabad licenc alatt áll. Tapasztalataink szerint egy hosszabb "
    "szövegben csak néhány hiba marad, ezeket kézzel javítjuk ki. Az ábrán látható "
    "ablakban futtattuk."
)
"""Prose in a language whose common words the noise test does not list (written for
this test): to that test it reads as noise, as the huhyphn manual's pages did."""


def _beside_a_screenshot(text: str) -> bytes:
    """A page with a screenshot at the top and text set below it, not over it."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    screenshot = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 300, 200), False)
    screenshot.clear_with(90)
    page.insert_image(pymupdf.Rect(110, 60, 480, 330), pixmap=screenshot)
    page.insert_textbox(pymupdf.Rect(72, 360, 523, 760), text, fontname="helv", fontsize=11)
    return save(doc)


def test_prose_beside_a_picture_is_text_in_any_language() -> None:
    # The regression: the huhyphn manual's pages with a screenshot lost 25 Hungarian
    # words; their prose was taken for OCR noise and read through OCR, accents lost.
    assert pdf_ocr.is_garbage(HUNGARIAN)
    data = _beside_a_screenshot(HUNGARIAN)
    document = parse(data)
    assert document.ocr_pages == () and document.notes == () and document.dropped == ()
    assert " ".join(document.text.split()) == HUNGARIAN
    assert coverage(document, text_layer_words(data)).lost == ()


def test_a_caption_beside_a_picture_keeps_its_text_layer() -> None:
    # Under 50 words and an image: taken for a scan before, and OCR'd or noted as one.
    caption = "3. ábra. A program futása a terminálban, a minták egy tabulátorral beljebb."
    document = parse(_beside_a_screenshot(caption))
    assert document.ocr_pages == () and document.notes == ()
    assert document.text == caption


def test_text_lying_on_the_image_is_what_a_scan_has() -> None:
    data, _ = scanned()
    doc = pymupdf.open("pdf", data)
    doc[0].insert_text((60, 100), "Scanned by the front desk", fontsize=9, render_mode=3)
    page = doc[0]
    page_dict = page.get_text("dict")
    boxes = [tuple(info["bbox"]) for info in page.get_image_info()]
    assert pdf_ocr.on_images(page_dict, boxes) == 1.0
    assert pdf_ocr.on_images(page_dict, []) == 0.0


def test_labels_of_a_figure_over_a_picture_keep_their_text_layer() -> None:
    # kotex-chapstyfig and oblivoir-simpledoc: a chapter-style diagram, most of its labels
    # set over the picture and some beside it, was taken for a scan and OCR'd in English:
    # the Korean label and the Korean prose below the figure were lost.
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    picture = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 300, 300), False)
    picture.clear_with(220)
    page.insert_image(pymupdf.Rect(160, 60, 520, 420), pixmap=picture)
    on = [
        "chapterheadstart = 50pt",
        "printchapternum",
        "chaptitlefont = bfseries",
        "afterchaptertitle = 40pt",
        "memendofchapterhook",
        "afterchapternum = 20pt",
        "chapnamefont = chaptername",
        "clearforchapter = cleartorecto",
    ]
    for number, label in enumerate(on):
        page.insert_text((180, 90 + 40 * number), label, fontsize=9)
    for number, label in enumerate(["prechapternum", "printchaptertitle"]):
        page.insert_text((60, 200 + 60 * number), label, fontsize=9)
    data = save(doc)
    page_dict = pymupdf.open("pdf", data)[0].get_text("dict")
    share = pdf_ocr.on_images(page_dict, [(160, 60, 520, 420)])
    assert 0.75 < share < 0.9  # most labels on the picture, as in the chapter-style figure
    document = parse(data)
    assert document.ocr_pages == () and document.notes == ()
    assert coverage(document, text_layer_words(data)).lost == ()


NOISE = (
    "«POAH «3E*»CM tanntxim. inc. … FRG&t OSZ H. the ^iW »a of 1l1 ;vVm a%e in "
    "TtHe rn«l BDm* and 0f3 c» W# to iiI fi| nnr. L~ a"
)
"""A bad OCR layer: symbols and mixed case in words, with common words here and there."""


def noise_over_scan(noise: str = NOISE) -> bytes:
    """A scanned page under an invisible text layer of symbol-heavy noise."""
    data, _ = scanned()
    doc = pymupdf.open("pdf", data)
    for row in range(12):
        doc[0].insert_text((60, 80 + 20 * row), noise, fontsize=10, render_mode=3)
    return save(doc)


def test_symbol_heavy_noise_with_common_words_is_garbage() -> None:
    assert pdf_ocr.is_garbage(" ".join([NOISE] * 3))
    # Cyrillic noise: the common words of no listed language say nothing of it.
    assert pdf_ocr.is_garbage(" ".join(["«ПОАН «3Е*»СМ таннтхим. FRG&т ОSZ H. ^iW »a"] * 4))
    # OCR'd technical prose, with names, versions and figures, is words.
    prose = (
        "Install the GH-40V charger (model 2024/B) on a dry wall; see section 3.2, page 14. "
        "The x86_64 build needs 4 GB of memory and version 2.14 or later of the driver."
    )
    assert not pdf_ocr.is_garbage(" ".join([prose] * 3))
    russian = "Сначала проверьте шланг и катушку, затем уберите их в сухой сарай до весны."
    assert not pdf_ocr.is_garbage(" ".join([russian] * 4))


def test_without_ocr_a_symbol_heavy_text_layer_is_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pdf_ocr, "ENABLED", False)
    doc = pymupdf.open("pdf", story_pdf(HTML * 4))
    doc.insert_pdf(pymupdf.open("pdf", noise_over_scan()))
    document = parse(save(doc))
    assert all(block.pages == (1,) for block in document.blocks)
    assert {r.reason for r in document.dropped if r.page == 2} == {"unreadable text layer"}


def cjk_scan() -> bytes:
    """A scan of a Chinese line whose PDF keeps a short text layer of it, as a scanner's
    own OCR leaves it: under MIN_WORDS words over a full-page image."""
    line = "保修期为十八个月"
    source = pymupdf.open()
    page = source.new_page()
    page.insert_text((72, 100), line, fontname="china-s", fontsize=24)
    pixmap = page.get_pixmap(dpi=150)
    out = pymupdf.open()
    target = out.new_page(width=page.rect.width, height=page.rect.height)
    target.insert_image(target.rect, pixmap=pixmap)
    target.insert_text((72, 100), line, fontname="china-s", fontsize=24, render_mode=3)
    return save(out)


@needs_tesseract
@pytest.mark.skipif(
    pdf_ocr.script_language("CJK") is not None, reason="Chinese Tesseract data is installed"
)
def test_a_scan_in_a_script_without_tesseract_data_keeps_its_layer_and_says_so() -> None:
    document = parse(cjk_scan())
    assert "保修期为十八个月" in document.text  # never English OCR junk in its place
    assert document.ocr_pages == ()
    (note,) = [n for n in document.notes if "Cjk script" in n]
    assert "tesseract-ocr-chi-sim" in note and "kept, not OCR'd" in note


def test_the_script_of_a_layer_is_its_letters_majority() -> None:
    assert pdf_ocr.layer_script("保修期为十八个月 DI-100") == "CJK"
    assert pdf_ocr.layer_script("Гарантия 18 месяцев") == "CYRILLIC"
    assert pdf_ocr.layer_script("Warranty: 18 months, garantie") is None
    assert pdf_ocr.layer_script("1234 — 5678") is None


def cjk_page_image() -> bytes:
    """A scanned page of Chinese with no text layer at all."""
    source = pymupdf.open()
    page = source.new_page()
    for i in range(6):
        page.insert_text(
            (72, 100 + 40 * i),
            "保修期为十八个月，请保留收据以便维修。",
            fontname="china-s",
            fontsize=20,
        )
    out = pymupdf.open()
    target = out.new_page(width=page.rect.width, height=page.rect.height)
    target.insert_image(target.rect, pixmap=page.get_pixmap(dpi=150))
    return save(out)


@needs_tesseract
@pytest.mark.skipif(
    pdf_ocr.script_language("CJK") is not None
    or not pdf_ocr.tessdata()
    or not (pdf_ocr.Path(pdf_ocr.tessdata() or "") / "osd.traineddata").is_file(),
    reason="needs Tesseract's script detection and no Chinese data",
)
def test_a_scan_with_no_layer_is_not_ocrd_with_another_scripts_data() -> None:
    with pytest.raises(DocumentError, match="tesseract-ocr-chi-sim"):
        parse(cjk_page_image())  # no text at all: the note is the error, never English junk


def test_a_scanned_page_with_a_long_japanese_text_layer_keeps_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A scanner's own OCR leaves a text layer over the page image. Japanese sets no spaces:
    # seven lines are 119 words, not the seven whitespace runs that once made the page
    # look like a scan under 50 words, to be read again (or noted as unread).
    monkeypatch.setattr(pdf_ocr, "ENABLED", False)
    line = "保証期間は購入日から十八か月です。"
    source = pymupdf.open()
    page = source.new_page()
    for i in range(7):
        page.insert_text((72, 100 + 30 * i), line, fontname="japan", fontsize=14)
    pixmap = page.get_pixmap(dpi=100)
    out = pymupdf.open()
    target = out.new_page(width=page.rect.width, height=page.rect.height)
    target.insert_image(target.rect, pixmap=pixmap)
    for i in range(7):
        target.insert_text((72, 100 + 30 * i), line, fontname="japan", fontsize=14, render_mode=3)
    document = parse(save(out))
    assert document.ocr_pages == () and document.notes == ()
    assert document.text.count(line) == 7
