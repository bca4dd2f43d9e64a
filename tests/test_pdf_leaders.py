"""Leaders found from the text's last dot are those a search of the whole text finds."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from policy_assistant.parse.pdf import layout

SEARCHED = re.compile(rf"(?:\.\s?){{4,}}\s*{layout._PAGES}?$")
"""The search the leaders were found by before: leaders, then a page number or none."""
SEARCHED_PAGED = re.compile(rf"(?:\.\s?){{4,}}\s*{layout._PAGES}$")
"""...and leaders, then a page number."""
TEXTS = st.text(alphabet=". \t\n\u00a00129,-–ivxcTo", max_size=24)


@given(TEXTS)
def test_leaders_are_found_as_the_search_finds_them(text: str) -> None:
    assert layout._leaders(text) == bool(SEARCHED.search(text))
    assert layout._leaders(text, paged=True) == bool(SEARCHED_PAGED.search(text))


def test_leaders_of_entries_and_of_table_rows() -> None:
    assert layout._leaders("Introduction . . . . . 12", paged=True)
    assert layout._leaders("Index..........iv")
    assert layout._leaders("Overview.......")
    assert not layout._leaders("Overview.......", paged=True)
    assert not layout._leaders("Total.............. 10 690 561 7 389 208")
    assert not layout._leaders("See p. 12")
