"""The eval tests' generated corpus parses, with its labels, and holds every question's quote."""

from __future__ import annotations

from pathlib import Path

from support.eval_corpus import QUESTIONS, parsed_corpus

from policy_assistant.evaluate.locate import collapse_whitespace


def test_the_corpus_parses_with_labels_and_holds_every_quote(tmp_path: Path) -> None:
    documents = {d.source: d for d in parsed_corpus(tmp_path / "c")}
    assert documents["staff/refunds.md"].access == "staff"
    assert documents["policies/garantie.md"].language == "fr"
    for question in QUESTIONS:
        for passage in question["relevant"]:
            text = collapse_whitespace(documents[passage["source"]].text)
            assert collapse_whitespace(passage["evidence"]) in text
