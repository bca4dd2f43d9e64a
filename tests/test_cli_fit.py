"""Every table fits the terminal from 60 columns up without cutting a number or a path."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import APP, runner
from typer.testing import CliRunner

from policy_assistant.cli import app

ROOT = Path(__file__).resolve().parents[1]
CORPUS = str(ROOT / "corpus")
QUESTIONS = str(ROOT / "questions" / "questions.jsonl")
WIDTHS = (60, 80, 120)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("fit") / "i"
    done = CliRunner().invoke(app, ["ingest", CORPUS, "--index", str(folder), "-q"])
    assert done.exit_code == 0, done.output
    return str(folder)


def render(width: int, args: list[str]) -> str:
    result = CliRunner(env={"COLUMNS": str(width)}).invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.stdout


COMMANDS = {
    "parse": ["parse", CORPUS],
    "chunk": ["chunk", f"{CORPUS}/policies/warranty-policy.pdf", "-q"],
    "ingest": ["ingest", CORPUS, "-q", "--index", "{index}"],
    "search": ["search", "sprinkler warranty", "--index", "{index}"],
    "ls": ["ls", "--index", "{index}"],
    "eval": ["eval", "--corpus", CORPUS, "--questions", QUESTIONS, "-q", "--chunker", "fixed"],
    "inspect": ["inspect", "policies/warranty-policy.pdf", "--corpus", CORPUS, "-q"],
}
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_tables_fit_and_cut_nothing(index: str, name: str, width: int) -> None:
    args = [a.format(index=index) for a in COMMANDS[name]]
    text = render(width, args)
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= width
    wide = render(200, args)
    # Every number of the wide rendering is still whole somewhere in the narrow one.
    numbers = set(NUMBER.findall(wide))
    assert numbers
    assert numbers <= set(NUMBER.findall(text))


@pytest.mark.parametrize("width", (100, 104, 107))
def test_the_budget_table_never_breaks_an_interval_just_above_the_narrow_width(
    width: int,
) -> None:
    args = [*COMMANDS["eval"][:-2], "--chunker", "structure", "--chunker", "fixed"]
    text = render(width, args)
    assert max(len(line) for line in text.splitlines()) <= width
    # An interval cut across two lines leaves a line ending in "[0.4" or starting with "5]".
    assert not re.search(r"\[\d\.\d{0,2}\s*│", text)
    assert set(NUMBER.findall(render(200, args))) <= set(NUMBER.findall(text))


BOX_LEFT = "│┃┏┡├└┗┣┢"
BOX_RIGHT = "│┃┓┩┤┘┛┫┪"


def table_lines(text: str) -> list[str]:
    """Return the lines of bordered tables: those that start with a box character."""
    return [line for line in text.splitlines() if line[:1] in BOX_LEFT]


def k_table_lines(text: str) -> list[str]:
    """Return the lines of eval's equal-k table, between its title and the next title."""
    after = text.split("At equal k", 1)[1]
    return table_lines(after.split("At equal budgets", 1)[0])


def test_eval_at_60_columns_keeps_the_chunker_names_and_the_borders() -> None:
    args = [*COMMANDS["eval"][:-2], "--chunker", "structure,fixed"]
    text = render(60, args)
    assert max(len(line) for line in text.splitlines()) <= 60
    rows = k_table_lines(text)
    assert rows
    assert any("structure" in line for line in rows), "\n".join(rows)
    assert any(" fixed " in line for line in rows), "\n".join(rows)
    assert all(line.rstrip()[-1] in BOX_RIGHT for line in table_lines(text))


@pytest.mark.parametrize("budget", ([], ["--budget", "100"]), ids=("ranked", "context"))
@pytest.mark.parametrize("query", ("sprinkler warranty", "how long do I have to return a mower"))
def test_search_at_80_columns_closes_its_borders(index: str, query: str, budget: list[str]) -> None:
    text = render(80, ["search", query, "--index", index, *budget])
    lines = table_lines(text)
    assert lines
    assert max(len(line) for line in text.splitlines()) <= 80
    assert all(line.rstrip()[-1] in BOX_RIGHT for line in lines), "\n".join(lines)


def test_ls_puts_the_title_under_the_source(index: str) -> None:
    text = render(120, ["ls", "--index", index])
    assert "\\n" not in text
    assert any(
        "Home Composting Guide" in line and "guides/" not in line for line in text.splitlines()
    )


def test_a_message_on_stderr_is_one_line_at_any_width() -> None:
    # A notice that names a command to run must stay copyable: the terminal wraps it, not rich.
    script = (
        "from policy_assistant.cli.common import err\n"
        "hint = \"pip install 'policy-assistant[dense]'\"\n"
        "err.print('ranked by bm25: ' + 'word ' * 30 + hint, markup=False)\n"
    )
    env = {**os.environ, "COLUMNS": "40"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("\n") == 1 and "pip install 'policy-assistant[dense]'" in done.stderr


def test_a_short_file_name_leaves_the_citation_words_whole(tmp_path: Path) -> None:
    # A source shorter than the citation's other words ("(unversioned)", "1200-1460") must
    # not set the column's width: it folded them to "(unve / rsion / ed)".
    corpus = tmp_path / "c"
    corpus.mkdir()
    prose = " ".join(f"Trial {i} of the cohort showed an effect of the drug." for i in range(40))
    (corpus / "a.txt").write_text(f"Title\n\n{prose}\n")
    index = str(tmp_path / "i")
    done = runner.invoke(APP, ["ingest", str(corpus), "--index", index, "-q"])
    assert done.exit_code == 0, done.output
    args = ["search", "trial 17 cohort", "--index", index, "--access", "staff", "--budget", "50"]
    text = CliRunner(env={"COLUMNS": "120"}).invoke(APP, args).stdout
    assert "(unversioned)" in text, text
