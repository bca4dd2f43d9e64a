from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.eval_corpus import QUESTIONS, parsed_corpus, write_questions

from policy_assistant.errors import QuestionsError
from policy_assistant.evaluate.locate import CollapsedText, collapse_whitespace
from policy_assistant.evaluate.questions import load_questions
from policy_assistant.records import Block, Document


@pytest.fixture
def documents(tmp_path: Path) -> list[Document]:
    return parsed_corpus(tmp_path / "corpus")


def load(tmp_path: Path, documents: list[Document], questions: list[dict[str, Any]]) -> Any:
    return load_questions(write_questions(tmp_path / "q.jsonl", questions), documents)


def broken(index: int, **changes: Any) -> list[dict[str, Any]]:
    """Return the good questions with the first passage of one changed; None drops a field."""
    questions = copy.deepcopy(QUESTIONS)
    passage = questions[index]["relevant"][0]
    passage.update(changes)
    for key in [k for k, v in changes.items() if v is None]:
        del passage[key]
    return questions


def test_every_quote_is_located_at_its_exact_span(
    tmp_path: Path, documents: list[Document]
) -> None:
    loaded = load(tmp_path, documents, QUESTIONS)
    texts = {d.source: d.text for d in documents}
    assert [q.id for q in loaded.questions] == [q["id"] for q in QUESTIONS]
    for question in loaded.questions:
        for passage in question.relevant:
            start, end = passage.evidence_span
            found = texts[passage.source][start:end]
            assert collapse_whitespace(found) == collapse_whitespace(passage.evidence)
            if passage.section_span:
                assert passage.section_span[0] <= start and end <= passage.section_span[1]


def test_a_quote_copied_across_a_line_break_still_matches(
    tmp_path: Path, documents: list[Document]
) -> None:
    loaded = load(tmp_path, documents, QUESTIONS)
    nozzle = next(q for q in loaded.questions if q.id == "nozzle-b")
    assert "\n" in nozzle.relevant[0].evidence
    assert nozzle.relevant[0].source == "guides/washer-b.md"


def test_a_section_runs_to_the_next_heading_of_the_same_or_a_higher_level(
    tmp_path: Path, documents: list[Document]
) -> None:
    loaded = load(tmp_path, documents, QUESTIONS)
    warranty = next(d for d in documents if d.source == "policies/warranty.md")
    batteries = next(q for q in loaded.questions if q.id == "batteries")
    start, end = batteries.relevant[0].section_span or (0, 0)
    section = warranty.text[start:end]
    assert section.startswith("Exclusions")
    assert "### Claims" not in section and "To claim, bring the product" in section  # subsection
    assert end == len(warranty.text)


def test_section_names_ignore_case_and_spacing_and_a_path_picks_one(
    tmp_path: Path, documents: list[Document]
) -> None:
    questions = broken(1, section="  exclusions ")
    assert load(tmp_path, documents, questions).questions[1].relevant[0].section_span
    questions = broken(1, section="Warranty policy > Exclusions")
    assert load(tmp_path, documents, questions).questions[1].relevant[0].section_span


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"source": "policies/warranty.pdf"}, "unknown source 'policies/warranty.pdf'"),
        ({"section": "Warranty length"}, "no section 'Warranty length' in policies/warranty.md"),
        ({"evidence": "Sprinkler system | 5 years"}, "not found in policies/warranty.md"),
        ({"section": "Exclusions"}, "but not in the section named"),
        ({"source": "staff/refunds.md", "section": None}, "cannot be answered from staff"),
    ],
)
def test_each_problem_is_an_error_naming_the_question(
    tmp_path: Path, documents: list[Document], changes: dict[str, Any], message: str
) -> None:
    questions = broken(0, **changes)
    with pytest.raises(QuestionsError) as caught:
        load(tmp_path, documents, questions)
    text = str(caught.value)
    assert "line 1: question 'sprinkler': relevant[1]: " in text
    assert message in text


def test_a_near_miss_source_or_section_is_suggested(
    tmp_path: Path, documents: list[Document]
) -> None:
    with pytest.raises(QuestionsError, match=r"did you mean policies/warranty\.md"):
        load(tmp_path, documents, broken(0, source="policies/warranty.pdf"))
    with pytest.raises(QuestionsError, match="did you mean 'Warranty periods'"):
        load(tmp_path, documents, broken(0, section="Warranty period"))


def test_a_quote_found_twice_must_be_made_unique(tmp_path: Path, documents: list[Document]) -> None:
    questions = broken(0, evidence="years", section=None)
    with pytest.raises(QuestionsError, match=r"occurs 3 times in policies/warranty\.md"):
        load(tmp_path, documents, questions)


def test_an_ambiguous_section_must_be_given_as_a_path(tmp_path: Path) -> None:
    text = "Guide\n\nA\n\nSetup\n\none\n\nB\n\nSetup\n\ntwo"
    heads = [("Guide", 1, ()), ("A", 2, ("Guide",)), ("Setup", 3, ("Guide", "A"))]
    heads += [("B", 2, ("Guide",)), ("Setup", 3, ("Guide", "B"))]
    blocks: list[Block] = []
    at = 0
    for title, level, parents in heads:
        at = text.index(title, at)
        blocks.append(Block("heading", title, at, at + len(title), (), (*parents, title), level))
    doc = Document("g.md", "Guide", "1", "public", "en", "0", text, (), tuple(blocks))
    question = {"id": "q", "question": "?", "audience": "public"}
    passage = {"source": "g.md", "section": "Setup", "evidence": "two"}
    with pytest.raises(QuestionsError, match=r"ambiguous.*Guide > A > Setup; Guide > B > Setup"):
        load(tmp_path, [doc], [{**question, "relevant": [passage]}])
    passage["section"] = "B > Setup"
    loaded = load(tmp_path, [doc], [{**question, "relevant": [passage]}])
    start, end = loaded.questions[0].relevant[0].evidence_span
    assert text[start:end] == "two"


def test_every_problem_is_listed_at_once_with_its_line(
    tmp_path: Path, documents: list[Document]
) -> None:
    questions = copy.deepcopy(QUESTIONS)
    questions[1]["audience"] = "everyone"
    questions[2]["relevant"] = []
    questions[3]["colour"] = "blue"
    questions[4]["id"] = questions[0]["id"]
    path = write_questions(tmp_path / "q.jsonl", questions)
    path.write_text(path.read_text() + "{not json\n\n[1, 2]\n")
    with pytest.raises(QuestionsError) as caught:
        load_questions(path, documents)
    text = str(caught.value)
    assert "6 problems" in text
    assert "line 2: question 'batteries': audience 'everyone' is not one of public, staff" in text
    assert "line 3: question 'claim': relevant must be a non-empty list" in text
    assert "line 4: question 'nozzle-b': unknown fields ['colour']" in text
    assert "line 5: question 'sprinkler': id already used on line 1" in text
    assert "line 8: not valid JSON" in text
    assert "line 10: expected a JSON object" in text


def test_an_empty_file_or_a_missing_file_is_an_error(
    tmp_path: Path, documents: list[Document]
) -> None:
    with pytest.raises(QuestionsError, match="no questions"):
        load(tmp_path, documents, [])
    with pytest.raises(QuestionsError, match="cannot read"):
        load_questions(tmp_path / "missing.jsonl", documents)


def test_the_file_hash_identifies_the_questions(tmp_path: Path, documents: list[Document]) -> None:
    first = load(tmp_path, documents, QUESTIONS).sha256
    assert load(tmp_path, documents, QUESTIONS).sha256 == first
    assert load(tmp_path, documents, QUESTIONS[:-1]).sha256 != first


words = st.text(alphabet="ab", min_size=1, max_size=3)
gaps = st.sampled_from([" ", "  ", "\n", "\n\n", "\t ", " \u00a0"])


@given(st.lists(st.tuples(words, gaps), min_size=1, max_size=12), st.data())
def test_collapsed_matches_map_back_to_the_original_text(
    parts: list[tuple[str, str]], data: st.DataObject
) -> None:
    text = "".join(w + g for w, g in parts).strip()
    collapsed = CollapsedText.of(text)
    tokens = text.split()
    i = data.draw(st.integers(0, len(tokens) - 1))
    j = data.draw(st.integers(i + 1, len(tokens)))
    quote = " ".join(tokens[i:j])
    spans = collapsed.find_all(quote)
    assert spans
    for start, end in spans:
        assert collapse_whitespace(text[start:end]) == quote
        assert not text[start].isspace() and not text[end - 1].isspace()


@given(st.text(alphabet=st.sampled_from("ab \n\t\u00a0"), max_size=40))
def test_every_collapsed_offset_maps_to_the_character_it_came_from(text: str) -> None:
    expected: list[int] = []  # the obvious way: walk the text, one space per whitespace run
    for i, char in enumerate(text):
        if not (char.isspace() and i > 0 and text[i - 1].isspace()):
            expected.append(i)
    collapsed = CollapsedText.of(text)
    assert len(collapsed.text) == len(expected)
    assert [collapsed.original_offset(i) for i in range(len(expected))] == expected
