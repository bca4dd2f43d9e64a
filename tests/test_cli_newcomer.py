"""What a newcomer trips over at the command line: typos, many-line errors, odd file names."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from policy_assistant.cli import app
from policy_assistant.cli.common import error

runner = CliRunner()


def test_a_mistyped_command_suggests_the_nearest() -> None:
    result = runner.invoke(app, ["serch", "mowers"])
    assert result.exit_code == 2
    assert "Did you mean 'search'" in result.stderr, result.stderr


def test_an_error_of_several_lines_prints_each_line_escaped(capsys) -> None:
    error("2 problems:\nline 3: no answer\nline 9: a \x1b[31mname")
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["error: 2 problems:", "  line 3: no answer", "  line 9: a \\x1b[31mname"]


def test_a_long_list_of_problems_is_summarised(capsys) -> None:
    error("\n".join(["40 problems:"] + [f"question {i}: unknown source" for i in range(40)]))
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 9 and lines[-1].strip() == "and 33 more"


def test_ls_escapes_control_characters_in_names(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    try:
        (corpus / "bad\x1b[2Jname.md").write_text("---\naccess: public\n---\n# T\n\nWords.\n")
    except OSError:
        pytest.skip("this file system refuses control characters in names")
    index = str(tmp_path / "i")
    assert runner.invoke(app, ["ingest", str(corpus), "--index", index, "-q"]).exit_code == 0
    listed = runner.invoke(app, ["ls", "--index", index])
    assert listed.exit_code == 0 and "\x1b" not in listed.stdout
    assert "bad\\x1b[2Jname.md" in listed.stdout


def test_chunk_refuses_its_own_output_as_documents(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "a.md").write_text("---\naccess: public\n---\n# T\n\nOne short line.\n")
    chunks = tmp_path / "chunks.jsonl"
    made = runner.invoke(app, ["chunk", str(corpus), "--out", str(chunks), "-q"])
    assert made.exit_code == 0, made.stderr
    again = runner.invoke(app, ["chunk", str(chunks)])
    assert again.exit_code == 1
    lines = again.stderr.strip().splitlines()
    assert len(lines) == 1 and "is a chunk record" in lines[0], again.stderr
    table = runner.invoke(app, ["chunk", str(corpus)])
    assert "1 chunk (" in table.stdout and "1 chunks" not in table.stdout


def test_an_unwritable_path_is_named_not_its_temporary_file(tmp_path: Path, monkeypatch) -> None:
    import errno
    import tempfile

    from policy_assistant.atomic import atomic_write_bytes

    def refuse(*args: object, dir: str = "", **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", f"{dir}/.out.json.x1.tmp")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(PermissionError) as caught:
        atomic_write_bytes(tmp_path / "out.json", b"{}")
    assert caught.value.filename == str(tmp_path / "out.json")
