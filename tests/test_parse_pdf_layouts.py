"""The PDF parser on layouts found in real PDFs nobody here wrote (Debian Reference most).

Each test rebuilds the layout that broke in a small PDF of its own and is named after
what broke.
"""

from __future__ import annotations

import pymupdf
import pytest
from support.pdf_factory import A4, MARGIN, draw_table, kinds, lines_pdf, only, parse, save

from policy_assistant.parse.pdf.lines import clean_text, join_wrapped
from policy_assistant.parse.pdf.reader import ParseStats, parse_pdf_with_stats
from policy_assistant.records import DocumentMeta

EOL_ROWS = [
    ["platform", "EOL code", "control", "decimal", "hexadecimal"],
    ["Debian (unix)", "LF", "^J", "10", "0A"],
    ["MSDOS", "CR-LF", "^M^J", "13 10", "0D 0A"],
    ["Apple Macintosh", "CR", "^M", "13", "0D"],
]
EOL_WIDTHS = [100.0, 65.0, 50.0, 60.0, 120.0]


def _page(doc: pymupdf.Document) -> pymupdf.Page:
    return doc.new_page(width=A4.width, height=A4.height)


def _text(page: pymupdf.Page, y: float, text: str, x: float = MARGIN, size: float = 10) -> None:
    page.insert_text((x, y), text, fontname="helv", fontsize=size)


def _table_rows(data: bytes) -> list[str]:
    [table] = only(parse(data), "table")
    return table.text.split("\n")


# --- tables -----------------------------------------------------------------------------


def test_table_without_outer_column_rules_keeps_its_first_and_last_columns() -> None:
    doc = pymupdf.open()
    page = _page(doc)
    _text(page, 80, "The end-of-line code depends on the platform.")
    draw_table(page, 100, EOL_ROWS, EOL_WIDTHS, style="inner")
    _text(page, 220, "Table 11.3: List of EOL styles for different platforms", x=200)
    assert _table_rows(save(doc)) == [" | ".join(row) for row in EOL_ROWS]


def test_booktabs_table_with_horizontal_rules_only_is_a_table() -> None:
    rows = [
        ["file", "content"],
        ["/var/log/dpkg.log", "Log of dpkg level activity"],
        ["/var/log/apt/term.log", "Log of generic APT activity"],
        ["/var/log/aptitude", "Log of aptitude command activity"],
    ]
    doc = pymupdf.open()
    page = _page(doc)
    _text(page, 80, "You can check package activity history in the log files.")
    draw_table(page, 100, rows, [180.0, 250.0], style="booktabs")
    _text(page, 210, "In reality, it is not so easy to read these logs.")
    document, stats = parse_pdf_with_stats(save(doc), "t.pdf", DocumentMeta(), "x")
    assert [b.kind for b in document.blocks] == ["paragraph", "table", "paragraph"]
    assert only(document, "table")[0].text.split("\n") == [" | ".join(r) for r in rows]
    assert stats == ParseStats(pages=1, table_scans=1, tables=1)


def test_notes_between_horizontal_rules_are_no_sign_of_a_table() -> None:
    doc = pymupdf.open()
    page = _page(doc)
    y = 80.0
    for word in ("Note", "Tip", "Note"):
        page.draw_line((MARGIN, y), (A4.width - MARGIN, y), width=0.5)
        _text(page, y + 14, word, size=9)
        _text(page, y + 28, f"{word}: this is a sentence of prose inside a ruled box.")
        _text(page, y + 42, "It runs on over a second line of the same box.")
        page.draw_line((MARGIN, y + 50), (A4.width - MARGIN, y + 50), width=0.5)
        y += 70
    document, stats = parse_pdf_with_stats(save(doc), "t.pdf", DocumentMeta(), "x")
    assert not only(document, "table")
    assert stats.table_scans == 0


def test_table_floating_above_a_list_stays_out_of_its_items() -> None:
    doc = pymupdf.open()
    page = _page(doc)
    end = draw_table(page, 80, [["key", "action"], ["Ctrl-U", "erase line"]], [120.0, 300.0])
    _text(page, end + 30, "Table 1.14: List of key bindings for bash", x=220)
    _text(page, end + 60, "\u2022 use PRIMARY", x=MARGIN + 14)
    _text(
        page,
        end + 75,
        "\u2022 used by X applications such as xterm and text applications in Linux console",
        x=MARGIN + 14,
    )
    assert kinds(parse(save(doc))) == [
        ("table", "key | action\nCtrl-U | erase line"),
        ("paragraph", "Table 1.14: List of key bindings for bash"),
        ("list_item", "use PRIMARY"),
        (
            "list_item",
            "used by X applications such as xterm and text applications in Linux console",
        ),
    ]


def test_text_overflowing_its_column_stays_whole_in_its_cell() -> None:
    doc = pymupdf.open()
    page = _page(doc)
    widths = [62.0, 60.0, 250.0]
    rows = [
        ["area", "count", "criteria"],
        ["non-free-firmware", "31", "not DFSG compliant, firmware required for a reasonable"],
        ["main", "67672", "DFSG compliant"],
    ]
    top, height = 100.0, 30.0
    for r in range(len(rows) + 1):
        page.draw_line((MARGIN, top + r * height), (MARGIN + sum(widths), top + r * height))
    for x in (MARGIN, MARGIN + 62, MARGIN + 122, MARGIN + 372):
        page.draw_line((x, top), (x, top + height * len(rows)))
    for r, row in enumerate(rows):
        y = top + r * height + 12
        _text(page, y, row[0], x=MARGIN + 3, size=9)
        _text(page, y, row[1], x=MARGIN + 62 + 30, size=9)
        _text(page, y, row[2].split(", ")[0], x=MARGIN + 125, size=9)
        if ", " in row[2]:
            _text(page, y + 11, row[2].split(", ")[1], x=MARGIN + 125, size=9)
    assert _table_rows(save(doc)) == [
        "area | count | criteria",
        "non-free-firmware | 31 | not DFSG compliant firmware required for a reasonable",
        "main | 67672 | DFSG compliant",
    ]


# --- lists and boxes --------------------------------------------------------------------


def test_note_box_after_a_list_is_not_part_of_the_last_item() -> None:
    # As in Debian Reference: the box is indented past the bullets, as an item's wrapped
    # lines would be; only its rules say that it is no part of the item.
    doc = pymupdf.open()
    page = _page(doc)
    _text(page, 80, "\u2022 Lock the UEFI menu")
    _text(page, 94, "\u2022 Set a password for the boot loader")
    page.draw_line((MARGIN + 8, 110), (A4.width - MARGIN, 110), width=0.5)
    _text(page, 124, "Note", x=MARGIN + 8)
    _text(page, 137, "Resetting the password is easy with the disk in hand.", x=MARGIN + 8)
    page.draw_line((MARGIN + 8, 145), (A4.width - MARGIN, 145), width=0.5)
    assert kinds(parse(save(doc))) == [
        ("list_item", "Lock the UEFI menu"),
        ("list_item", "Set a password for the boot loader"),
        ("paragraph", "Note Resetting the password is easy with the disk in hand."),
    ]


def test_item_ends_at_a_blank_line_gap_without_indent() -> None:
    doc = pymupdf.open()
    page = _page(doc)
    _text(page, 80, "\u2022 Use the stable suite", x=MARGIN)
    _text(page, 94, "\u2022 Keep backups", x=MARGIN)
    _text(page, 124, "Tip: a chroot lets you try the next release first.", x=MARGIN)
    assert kinds(parse(save(doc)))[-1] == (
        "paragraph",
        "Tip: a chroot lets you try the next release first.",
    )


# --- code -------------------------------------------------------------------------------


def test_wrapped_code_line_joins_its_line_and_loses_the_marker() -> None:
    doc = pymupdf.open()
    page = _page(doc)
    _text(page, 80, "The sources list reads as follows.")
    lines = [
        (MARGIN, 100, "deb http://deb.debian.org/debian/ bullseye main"),
        (MARGIN, 111, "deb http://security.debian.org/debian-security bullseye-security"),
        (MARGIN + 20, 122, "contrib non-free"),
        (MARGIN, 133, "deb http://deb.debian.org/debian/ bullseye-updates main"),
    ]
    for x, y, text in lines:
        page.insert_text((x, y), text, fontname="cour", fontsize=9)
    # The wrap marker: an arrow, then a glyph that extracts as U+FFFD, in other fonts.
    writer = pymupdf.TextWriter(page.rect)
    writer.append((A4.width - MARGIN - 20, 111), "\u2190", font=pymupdf.Font("helv"), fontsize=9)
    writer.append((A4.width - MARGIN - 12, 111), "\ufffd", font=pymupdf.Font("cjk"), fontsize=9)
    writer.write_text(page)
    [code] = only(parse(save(doc)), "code")
    assert code.text.split("\n") == [
        "deb http://deb.debian.org/debian/ bullseye main",
        "deb http://security.debian.org/debian-security bullseye-security contrib non-free",
        "deb http://deb.debian.org/debian/ bullseye-updates main",
    ]


def test_replacement_and_private_use_glyphs_are_dropped() -> None:
    assert clean_text("Tip \ufffd keep \ue001backups", mono=False) == "Tip keep backups"


# --- headings ---------------------------------------------------------------------------


def test_chapter_label_joins_the_chapter_title_at_its_level() -> None:
    doc = pymupdf.open()
    for number, title in ((1, "GNU/Linux tutorials"), (2, "Debian package management")):
        page = _page(doc)
        _text(page, 100, f"Chapter {number}", size=18)
        _text(page, 140, title, size=22)
        _text(page, 180, f"{number}.1 First steps", size=14)
        _text(page, 210, "Body text of the section runs here, long enough to be prose.")
    doc.set_toc(
        [
            [1, "GNU/Linux tutorials", 1],
            [2, "1.1 First steps", 1],
            [1, "Debian package management", 2],
            [2, "2.1 First steps", 2],
        ]
    )
    headings = [(b.text, b.level) for b in only(parse(save(doc)), "heading")]
    assert headings == [
        ("Chapter 1 GNU/Linux tutorials", 1),
        ("1.1 First steps", 2),
        ("Chapter 2 Debian package management", 1),
        ("2.1 First steps", 2),
    ]


# --- contents pages ---------------------------------------------------------------------


def test_contents_page_entries_are_dropped() -> None:
    doc = pymupdf.open()
    page = _page(doc)
    _text(page, 80, "Contents", size=18)
    y = 110.0
    for number, title, at in [
        ("1", "GNU/Linux tutorials", 1),
        ("1.1", "Console basics", 1),
        ("1.2", "Filesystem", 4),
        ("1.3", "Midnight Commander", 9),
        ("1.4", "The pager", 10),
        ("2", "Package management", 12),
        ("2.1", "Prerequisites", 12),
        ("2.2", "Basic operations", 15),
    ]:
        _text(page, y, number)
        leaders = " ." * 40 if "." in number else ""
        _text(page, y, f"{title}{leaders}", x=MARGIN + 30)
        _text(page, y, str(at), x=A4.width - MARGIN - 10)
        y += 16
    page = _page(doc)
    _text(page, 80, "GNU/Linux tutorials", size=18)
    _text(page, 110, "Learning a computer system is like learning a new language.")
    document = parse(save(doc))
    assert [b.text for b in document.blocks] == [
        "Contents",
        "GNU/Linux tutorials",
        "Learning a computer system is like learning a new language.",
    ]


# --- text repair ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("left", "right", "joined"),
    [
        ("the 4-", "digit PIN", "the 4-digit PIN"),
        ("a 16-", "digit number", "a 16-digit number"),
        ("the non-free-", "firmware area", "the non-free-firmware area"),
        ("Wi-", "Fi", "Wi-Fi"),
        ("Wi-", "fi", "Wi-fi"),
        ("model PW-", "2200", "model PW-2200"),
        ("garden equip-", "ment", "garden equipment"),
        ("from 2024-", "2025", "from 2024-2025"),
    ],
)
def test_line_end_hyphen_rule(left: str, right: str, joined: str) -> None:
    assert join_wrapped(left, right) == joined


def test_line_end_hyphen_after_a_digit_keeps_hyphen_and_drops_space() -> None:
    lines = [(72, 100, "Enter the 16-digit card number and the 4-"), (72, 114, "digit PIN.")]
    document = parse(lines_pdf([lines]))
    assert document.blocks[0].text == "Enter the 16-digit card number and the 4-digit PIN."
