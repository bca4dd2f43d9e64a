"""What a careless or hostile user did to break the corpus reader: each case is one line."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from support import hostile_files as make
from typer.testing import CliRunner

from policy_assistant.cli import app
from policy_assistant.errors import DocumentError, PolicyAssistantError, UsageError
from policy_assistant.parse import Catalog, CorpusOptions, dispatch, limits, read_corpus
from policy_assistant.parse.globs import Glob, path_selected
from policy_assistant.records import Document

runner = CliRunner()


def corpus_with(root: Path, catalog: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "catalog.toml").write_text(catalog + '["a.md"]\naccess = "public"\n')
    (root / "a.md").write_text("# A\n\nSprinklers carry a warranty.\n")
    return root


def test_hostile_globs_match_in_linear_time() -> None:
    cases = [
        (Glob("**/" * 60 + "z.md"), "d/" * 60 + "y.md"),
        (Glob("*a" * 40 + "*b"), "a" * 5_000),
        (Glob("**a" * 40 + "**b"), "a/" * 2_000),
        (Glob("**/a/" * 30 + "b"), "a/" * 1_000 + "c"),
    ]
    start = time.process_time()
    for glob, path in cases:
        assert not glob.matches(path)
        assert path_selected(path, (), (glob,))  # excluded by nothing
    assert time.process_time() - start < 2.0


def test_globs_keep_their_meaning() -> None:
    assert Glob("**/*.pdf").matches("a/b/c.pdf") and Glob("**/*.pdf").matches("c.pdf")
    assert Glob("staff/**").matches("staff/a/b.md") and not Glob("staff/**").matches("x/a")
    assert Glob("**/a/**/b").matches("x/a/y/z/b") and not Glob("**/a/**/b").matches("a/b/c")
    assert Glob("*a*a*b").matches("xaxab") and not Glob("*a*a*b").matches("x/aab")
    assert Glob("[!a]?.md").matches("bc.md") and not Glob("[!a]?.md").matches("ac.md")


def test_a_hostile_catalog_glob_does_not_hang_ingest(tmp_path: Path) -> None:
    corpus = corpus_with(tmp_path / "c", '["' + "*a" * 30 + '*b"]\naccess = "staff"\n')
    (corpus / ("a" * 200 + ".md")).write_text("# Long\n\nA long name.\n")
    start = time.monotonic()
    done = runner.invoke(app, ["ingest", str(corpus), "--index", str(tmp_path / "i"), "--quiet"])
    assert done.exit_code == 0, done.stderr
    assert time.monotonic() - start < 20


def test_a_bad_catalog_glob_is_one_line_naming_the_catalog(tmp_path: Path) -> None:
    corpus = corpus_with(tmp_path / "c", '["[z-a].md"]\naccess = "staff"\n')
    with pytest.raises(PolicyAssistantError) as caught:
        read_corpus(corpus)
    assert "catalog.toml" in str(caught.value) and "[z-a].md" in str(caught.value)
    done = runner.invoke(app, ["parse", str(corpus), "--json"])
    assert done.exit_code == 1
    assert "internal error" not in done.stderr and "catalog.toml" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_bad_exclude_glob_is_a_usage_error_naming_the_option(tmp_path: Path) -> None:
    corpus = corpus_with(tmp_path / "c")
    with pytest.raises(UsageError, match=r"--exclude: '\[z-a\]' is not a valid pattern"):
        read_corpus(corpus, CorpusOptions(exclude=("[z-a]",)))
    done = runner.invoke(app, ["parse", str(corpus), "--exclude", "[z-a]"])
    assert done.exit_code == 2 and "internal error" not in done.stderr


def test_thousands_of_unmatched_catalog_keys_are_summarised(tmp_path: Path) -> None:
    keys = "".join(f'["gone/{i}/*.md"]\naccess = "staff"\n' for i in range(5_000))
    corpus = corpus_with(tmp_path / "c", keys)
    done = runner.invoke(app, ["parse", str(corpus), "--json"])
    assert done.exit_code == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "catalog.toml" in line]
    assert len(lines) <= 6, len(lines)
    assert "and 4,995 more keys that match nothing" in lines[-1]


def test_an_excluded_folder_is_not_walked_nor_warned_about(tmp_path: Path) -> None:
    corpus = corpus_with(tmp_path / "c")
    junk = corpus / "junk"
    junk.mkdir()
    (junk / "loop.md").symlink_to("loop.md")
    (junk / "deep").mkdir()
    fd = os.open(os.fsencode(junk / "deep") + b"/caf\xe9.md", os.O_CREAT | os.O_WRONLY, 0o644)
    os.close(fd)
    read = read_corpus(corpus, CorpusOptions(exclude=("junk",)))
    assert [d.source for d in read.documents] == ["a.md"]
    assert not [n for n in read.notices if "junk" in n], read.notices


def test_an_index_inside_the_corpus_is_skipped_and_the_index_converges(tmp_path: Path) -> None:
    corpus = corpus_with(tmp_path / "c")
    index = corpus / "build" / "index"
    for _ in range(2):
        done = runner.invoke(app, ["ingest", str(corpus), "--index", str(index), "--quiet"])
        assert done.exit_code == 0, done.stderr
    listed = runner.invoke(app, ["ls", "--index", str(index), "--json"])
    assert listed.exit_code == 0, listed.stderr
    assert '"a.md"' in listed.stdout and "terms" not in listed.stdout
    assert "build/index: an index folder, not documents; skipped" in done.stderr
    assert "build/parse-cache: a cache folder, not documents; skipped" in done.stderr


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_a_text_file_with_a_utf16_or_utf32_byte_order_mark_is_read(
    tmp_path: Path, encoding: str
) -> None:
    corpus = corpus_with(tmp_path / "c")
    text = "Garden hoses\n============\n\nThe warranty covers leaks — “always”.\n"
    bom = {"utf-16-le": "\ufeff", "utf-16-be": "\ufeff"}.get(encoding, "")
    (corpus / "notes.txt").write_bytes((bom + text).encode(encoding))
    read = read_corpus(corpus)
    assert not read.failures, read.failures
    notes = next(d for d in read.documents if d.source == "notes.txt")
    assert notes.title == "Garden hoses" and "“always”" in notes.text


def busy_parse(seconds: float, sleep: float = 0.0) -> Callable[..., Document]:
    """A parser that burns `seconds` of CPU time (and sleeps `sleep`), then parses."""
    real = dispatch.parse_bytes

    def parse(data: bytes, source: str, catalog: Catalog, sha256: str | None = None) -> Document:
        time.sleep(sleep)
        start = time.process_time()
        while time.process_time() - start < seconds:
            pass
        return real(data, source, catalog, sha256)

    return parse


def test_the_parse_limit_is_cpu_time_for_every_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "DOCUMENT_CPU_LIMIT", 0.5)
    monkeypatch.setattr(dispatch, "parse_bytes", busy_parse(3.0))
    start = time.process_time()
    with pytest.raises(DocumentError) as caught:
        dispatch.parse_document(b"# A\n\ntext\n", "slow.md", Catalog())
    assert time.process_time() - start < 2.0
    assert str(caught.value) == "slow.md: parse stopped: over the 0.5 s CPU-time limit per document"


def test_waiting_on_a_loaded_machine_does_not_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "DOCUMENT_CPU_LIMIT", 0.5)
    monkeypatch.setattr(dispatch, "parse_bytes", busy_parse(0.1, sleep=1.0))
    document = dispatch.parse_document(b"# A\n\ntext\n", "slow.md", Catalog())
    assert document.title == "A"


def cpu_parse(data: bytes, source: str) -> tuple[Document | DocumentError, float]:
    start = time.process_time()
    try:
        outcome: Document | DocumentError = dispatch.parse_document(data, source, Catalog())
    except DocumentError as exc:
        outcome = exc
    return outcome, time.process_time() - start


def test_an_office_zip_bomb_is_refused_before_it_inflates() -> None:
    outcome, cpu = cpu_parse(make.docx_empty_paragraphs(300), "bomb.docx")
    assert isinstance(outcome, DocumentError), outcome
    assert str(outcome).startswith("bomb.docx: refused: its parts inflate to 287 MiB (limit")
    assert cpu < 1.0


def test_a_long_word_file_parses_in_linear_time() -> None:
    outcome, cpu = cpu_parse(make.docx_paragraphs(20_000), "long.docx")
    assert isinstance(outcome, Document) and len(outcome.blocks) == 20_000
    assert cpu < 8.0  # 32 s before styles were looked up once each


def test_a_deck_of_too_many_shapes_is_refused() -> None:
    outcome, cpu = cpu_parse(make.pptx_slide_shapes(25_000), "shapes.pptx")
    assert str(outcome) == "shapes.pptx: refused: over 20,000 shapes in one deck"
    assert cpu < 5.0


def test_a_page_of_too_many_tags_is_refused() -> None:
    outcome, _ = cpu_parse(make.html_wide_row(2_100_000), "row.html")
    assert str(outcome) == "row.html: refused: over 2,000,000 tags in one page"


def test_a_document_of_too_many_words_is_refused() -> None:
    outcome, _ = cpu_parse(b"word " * 2_100_000, "line.txt")
    assert str(outcome) == (
        "line.txt: refused: 2,100,000 words of text (limit 2,000,000 a document)"
    )
