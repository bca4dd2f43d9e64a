"""The table finder is handed only the paths near its clip, and finds what it finds with all."""

from __future__ import annotations

import threading
from typing import Any

import pymupdf
import pytest
from support.pdf_factory import A4, draw_table

from policy_assistant.parse.pdf import nearby, reader
from policy_assistant.parse.pdf.reader import FinderPaths

ROWS = [["Zone", "Distance", "Fee"], ["Zone 1", "25 km", "$40"], ["Zone 2", "50 km", "$80"]]


def test_boxes_join_through_a_chain_and_through_a_group_box() -> None:
    # A rule down and a rule across that meet, and a mark near neither of them but inside
    # their corner's box: the finder's group grows to that box and would take the mark.
    corner = [(0.0, 0.0, 2.0, 30.0), (3.0, 28.0, 30.0, 30.0), (25.0, 2.0, 28.0, 4.0)]
    chain = [(0.0, 100.0, 10.0, 100.0), (12.0, 100.0, 20.0, 100.0), (22.0, 100.0, 30.0, 100.0)]
    groups = nearby.path_groups(corner + chain)
    assert sorted(sorted(members) for _, members in groups) == [[0, 1, 2], [3, 4, 5]]
    assert nearby.near_clip(groups, (0.0, 90.0, 30.0, 98.0)) == [3, 4, 5]
    assert nearby.near_clip(groups, (200.0, 0.0, 300.0, 10.0)) == []


def _found(page: Any, clip: pymupdf.Rect, paths: Any) -> list[Any]:
    finder = page.find_tables(clip=clip, paths=paths)
    return [(tuple(t.bbox), [list(row.cells) for row in t.rows]) for t in finder.tables]


def test_the_finder_finds_the_same_tables_among_the_paths_near_its_clip() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=A4.width, height=A4.height)
    draw_table(page, 100, ROWS, [120, 120, 120], style="grid")
    draw_table(page, 400, ROWS, [100, 100, 100])
    paths = FinderPaths(page)
    for y0, y1 in ((96.0, 158.0), (396.0, 458.0)):
        clip = pymupdf.Rect(40, y0, 500, y1)
        near = paths.near(tuple(clip))
        assert near is not None and len(near) < len(page.get_drawings())
        assert _found(page, clip, near) == _found(page, clip, None)
        assert len(_found(page, clip, near)) == 1


def test_the_header_guess_is_back_when_two_threads_run_the_finder() -> None:
    # The second finder starts while the first runs and ends after it: without one finder
    # at a time it would save the stand-in as the original and put that back last.
    original = pymupdf.table.Table.__dict__["_get_header"]
    first_done = threading.Event()

    class Second:
        def find_tables(self, **_: object) -> str:
            first_done.wait(2)
            return "second"

    class First:
        def find_tables(self, **_: object) -> str:
            second.start()
            second.join(0.3)  # the second runs now if nothing holds it back
            return "first"

    second = threading.Thread(target=reader._run_finder, args=(Second(), {}, []))
    assert reader._run_finder(First(), {}, []) == "first"
    first_done.set()
    second.join()
    assert pymupdf.table.Table.__dict__["_get_header"] is original


def test_too_many_paths_are_handed_over_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nearby, "MAX_PATHS", 10)
    boxes = [(x * 10.0, 100.0, x * 10.0 + 2, 102.0) for x in range(11)]
    groups = nearby.path_groups(boxes)
    assert groups == [((0.0, 100.0, 102.0, 102.0), list(range(11)))]
    assert nearby.near_clip(groups, (0.0, 0.0, 1.0, 1.0)) == []
    assert nearby.near_clip(groups, (50.0, 90.0, 51.0, 110.0)) == list(range(11))
    assert len(nearby.path_groups(boxes[:10])) == 10  # apart by more than REACH
