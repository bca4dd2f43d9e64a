"""`eval --budget-unit tokens`: budgets in cl100k_base tokens, from a file on the machine."""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.cli import APP, runner
from support.eval_corpus import QUESTIONS, write_eval_corpus, write_questions

from policy_assistant.errors import UsageError
from policy_assistant.evaluate import EvalSettings, budget_units, run_eval
from policy_assistant.evaluate.budget_units import ENCODING_FILE, budget_sizes, encoding

pytest.importorskip("tiktoken", reason="the tokens extra is not installed")


@pytest.fixture
def fresh() -> Iterator[None]:
    """Forget the loaded encoding (ours and tiktoken's), so the next use loads it again."""
    import tiktoken.registry

    encoding.cache_clear()
    saved = dict(tiktoken.registry.ENCODINGS)
    tiktoken.registry.ENCODINGS.clear()
    yield
    encoding.cache_clear()
    tiktoken.registry.ENCODINGS.update(saved)


def test_token_ids_are_cl100k_bases_as_openai_publishes_them() -> None:
    # The examples of OpenAI's cookbook ("How to count tokens with tiktoken"), not our output.
    assert encoding().encode("tiktoken is great!") == [83, 1609, 5963, 374, 2294, 0]
    assert encoding().encode("hello world") == [15339, 1917]


def test_the_encoding_loads_with_the_network_cut_off(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the encoding tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert len(encoding().encode("tiktoken is great!")) == 6


def test_a_missing_file_is_a_usage_error_saying_what_and_where(
    fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    bogus = tmp_path / ENCODING_FILE
    bogus.write_bytes(b"not the encoding")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(budget_units, "candidate_folders", lambda: [tmp_path])
    with pytest.raises(
        UsageError, match=r"needs the cl100k_base encoding file.*TIKTOKEN_CACHE_DIR"
    ):
        encoding()
    assert bogus.read_bytes() == b"not the encoding", "a wrong file is left alone, not replaced"
    corpus, questions = (
        write_eval_corpus(tmp_path / "c"),
        write_questions(tmp_path / "q.jsonl", QUESTIONS),
    )
    result = runner.invoke(
        APP,
        ["eval", "--corpus", str(corpus), "--questions", str(questions), "-q",
         "--budget-unit", "tokens"],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "never downloaded" in result.stderr and "Traceback" not in result.output


def test_without_tiktoken_the_error_names_the_extra(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "tiktoken", None)
    with pytest.raises(UsageError, match=r"tokens extra: pip install 'policy-assistant\[tokens\]'"):
        encoding()


def test_the_cache_variable_is_put_back_after_loading(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    encoding()
    import os

    assert "TIKTOKEN_CACHE_DIR" not in os.environ


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("tokens")
    return write_eval_corpus(root / "corpus"), write_questions(root / "q.jsonl", QUESTIONS)


def evaluate(paths: tuple[Path, Path], *args: str) -> Any:
    corpus, questions = paths
    common = ["eval", "--corpus", str(corpus), "--questions", str(questions), "-q"]
    return runner.invoke(APP, [*common, *args])


@pytest.mark.slow
def test_contexts_are_packed_in_tokens_of_each_chunks_whole_text(
    paths: tuple[Path, Path],
) -> None:
    settings = EvalSettings(chunkers=("fixed:size=20",), budgets=(30, 60), budget_unit="tokens")
    report = run_eval(*paths, settings)
    assert report.settings["budget_unit"]["name"] == "tokens"
    assert report.settings["budget_unit"]["encoding"] == "cl100k_base"
    checked = 0
    for outcome in report.runs[0].outcomes:
        tokens = [len(encoding().encode_ordinary(r.chunk.text)) for r in outcome.retrieved]
        assert tokens != [r.chunk.words for r in outcome.retrieved]
        for at in outcome.budgets:
            if at.cut:  # the first result alone is over B: its first sentences, in tokens
                assert tokens[0] > at.budget >= at.words > 0 and at.packed == 1
                checked += 1
                continue
            assert at.words == sum(tokens[: at.packed]) <= at.budget
            if at.packed < len(tokens):
                assert sum(tokens[: at.packed + 1]) > at.budget, "the next result would not fit"
            checked += 1
    assert checked == 2 * len(QUESTIONS)


def test_words_stay_the_default_and_the_report_says_so(paths: tuple[Path, Path]) -> None:
    words = evaluate(paths, "--chunker", "fixed:size=20", "--json")
    assert words.exit_code == 0, words.output
    assert json.loads(words.stdout)["settings"]["budget_unit"] == {"name": "words"}
    table = evaluate(paths, "--chunker", "fixed:size=20", "--budget-unit", "tokens")
    assert table.exit_code == 0, table.output
    assert "cl100k_base tokens, prefixes included" in table.stdout


def test_a_chunks_size_in_tokens_differs_from_its_words() -> None:
    from policy_assistant.records import Chunk

    text = "Internationalisation isn't tokenised word-for-word: 1234567 digits."
    chunk = Chunk("c", "s", "t", "1", "public", "en", {}, 0, 0, 0, (), (), text, 7)
    assert budget_sizes([chunk], "words") == [7]
    assert budget_sizes([chunk], "tokens") == [len(encoding().encode_ordinary(text))] != [7]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--budget-unit", "pages"], "--budget-unit takes words or tokens, got 'pages'"),
        (["--budget-unit", "tokens", "--strategy", "units"], "packs budgets in words only"),
    ],
)
def test_bad_units_are_usage_errors(
    paths: tuple[Path, Path], args: list[str], message: str
) -> None:
    result = evaluate(paths, *args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_explain_counts_each_context_in_the_runs_unit(paths: tuple[Path, Path]) -> None:
    tokens = evaluate(paths, "--chunker", "fixed:size=20", "--budget-unit", "tokens",
                      "--explain", "sprinkler")  # fmt: skip
    assert tokens.exit_code == 0, tokens.output
    assert " tokens; hit " in tokens.stdout and " words; hit " not in tokens.stdout
    words = evaluate(paths, "--chunker", "fixed:size=20", "--explain", "sprinkler")
    assert " words; hit " in words.stdout and " tokens; hit " not in words.stdout


def test_counts_kept_by_text_are_the_encoders_and_can_be_forgotten() -> None:
    from policy_assistant.evaluate.budget_units import forget_token_counts, token_counts

    texts = ["one text", "another, longer text here", "one text"]
    want = [len(encoding().encode_ordinary(t)) for t in texts]
    forget_token_counts()
    assert token_counts(texts) == want
    assert token_counts(texts[::-1]) == want[::-1]
    forget_token_counts()
    assert token_counts(texts[:1]) == want[:1]


def test_the_file_is_read_from_the_folder_the_user_names_first(
    fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    shipped = budget_units.encoding_folder() / ENCODING_FILE
    named, old, default = tmp_path / "named", tmp_path / "old", tmp_path / "tmp"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(named))
    monkeypatch.setenv("DATA_GYM_CACHE_DIR", str(old))
    monkeypatch.setattr(budget_units.tempfile, "gettempdir", lambda: str(default))
    folders = budget_units.candidate_folders()
    assert folders[:3] == [named, old, default / "data-gym-cache"]
    for folder in (default / "data-gym-cache", old, named):  # each one found before the next
        folder.mkdir(parents=True)
        (folder / ENCODING_FILE).write_bytes(shipped.read_bytes())
        assert budget_units.encoding_folder() == folder
    (named / ENCODING_FILE).write_bytes(b"a damaged copy")
    assert budget_units.encoding_folder() == old, "a file whose digest differs is passed over"
    assert encoding().encode("hello world") == [15339, 1917]
