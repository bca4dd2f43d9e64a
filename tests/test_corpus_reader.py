"""The one corpus reader: the parse cache, dispatch by extension, skips and silent successes."""

from __future__ import annotations

import shutil
import sys
import types
from pathlib import Path

import pytest
from support.corpora import write_corpus
from support.spies import SourceSpy
from typer.testing import CliRunner

from policy_assistant.chunk import make_chunker
from policy_assistant.cli import app
from policy_assistant.errors import DocumentError, PolicyAssistantError
from policy_assistant.evaluate import EvalSettings, run_eval
from policy_assistant.ingest.pipeline import ingest
from policy_assistant.inspect import inspect_document
from policy_assistant.parse import (
    Catalog,
    CorpusOptions,
    dispatch,
    parse_bytes,
    parse_path,
    read_corpus,
)
from policy_assistant.parse import cache as cache_module
from policy_assistant.parse import corpus as corpus_reader
from policy_assistant.records import Document, DocumentMeta

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def parser_spy(monkeypatch: pytest.MonkeyPatch) -> SourceSpy:
    """Record every source the corpus reader hands to a parser."""
    return SourceSpy(monkeypatch, dispatch, "parse_document")


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> SourceSpy:
    return parser_spy(monkeypatch)


FILES = {
    "catalog.toml": '["a.md"]\naccess = "public"\n',
    "a.md": "# Alpha\n\nFirst paragraph.\n",
    "b.md": "---\naccess: staff\n---\n# Beta\n\nSecond.\n",
    "sub/c.md": "# Gamma\n\nThird.\n",
}
"""Labels from the catalog, from front matter, and a document in a subfolder."""


# The parse cache.


def test_a_second_read_of_an_unchanged_corpus_parses_nothing(
    tmp_path: Path, spy: SourceSpy
) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    options = CorpusOptions(cache_dir=tmp_path / "cache")
    first = read_corpus(corpus, options)
    assert spy.take() == ["a.md", "b.md", "sub/c.md"] and first.parsed == 3
    second = read_corpus(corpus, options)
    assert spy.take() == [] and second.parsed == 0
    assert [d.to_dict() for d in second.documents] == [d.to_dict() for d in first.documents]
    assert second.warnings == first.warnings


def test_a_changed_file_is_the_only_one_parsed_again(tmp_path: Path, spy: SourceSpy) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    options = CorpusOptions(cache_dir=tmp_path / "cache")
    read_corpus(corpus, options)
    spy.take()
    (corpus / "sub" / "c.md").write_text("# Gamma\n\nThird, edited.\n")
    again = read_corpus(corpus, options)
    assert spy.take() == ["sub/c.md"]
    assert "Third, edited." in next(d for d in again.documents if d.source == "sub/c.md").text


def test_a_catalog_change_misses_the_cache_for_that_document_only(
    tmp_path: Path, spy: SourceSpy
) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    options = CorpusOptions(cache_dir=tmp_path / "cache")
    read_corpus(corpus, options)
    spy.take()
    (corpus / "catalog.toml").write_text('["a.md"]\ntitle = "Other"\n')
    again = read_corpus(corpus, options)
    assert spy.take() == ["a.md"]
    assert again.documents[0].title == "Other"


def test_a_label_change_relabels_from_the_cache_and_front_matter_still_counts(
    tmp_path: Path, spy: SourceSpy
) -> None:
    files = {**FILES, "f.md": "---\naccess: staff\n---\n# F\n\nFront matter says staff.\n"}
    corpus = write_corpus(tmp_path / "c", files)
    options = CorpusOptions(cache_dir=tmp_path / "cache")
    read_corpus(corpus, options)
    spy.take()
    catalog = '["a.md"]\naccess = "staff"\n["f.md"]\naccess = "public"\n'
    (corpus / "catalog.toml").write_text(catalog)
    again = read_corpus(corpus, options)
    assert spy.take() == []
    access = {d.source: d.access for d in again.documents}
    assert access["a.md"] == "staff" and access["f.md"] == "staff"  # staff wins


def test_a_parser_change_invalidates_every_entry(
    tmp_path: Path, spy: SourceSpy, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    options = CorpusOptions(cache_dir=tmp_path / "cache")
    read_corpus(corpus, options)
    spy.take()
    monkeypatch.setattr(cache_module, "PARSE_CACHE_VERSION", cache_module.PARSE_CACHE_VERSION + 1)
    read_corpus(corpus, options)
    assert spy.take() == ["a.md", "b.md", "sub/c.md"]
    monkeypatch.setattr(cache_module, "parser_fingerprint", lambda: "another parser")
    read_corpus(corpus, options)
    assert spy.take() == ["a.md", "b.md", "sub/c.md"]


def test_the_fingerprint_covers_the_parser_modules_and_libraries() -> None:
    cache_module.parser_fingerprint.cache_clear()
    assert len(cache_module.parser_fingerprint()) == 64
    versions = cache_module._library_versions()
    assert "pymupdf" in versions and "markdown-it-py" in versions


def test_a_damaged_cache_file_is_a_miss_and_is_repaired(tmp_path: Path, spy: SourceSpy) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    cache = tmp_path / "cache"
    first = read_corpus(corpus, CorpusOptions(cache_dir=cache))
    spy.take()
    entries = sorted(cache.rglob("*.json"))
    assert len(entries) == 3
    entries[0].write_bytes(b'{"key": "trunc')
    entries[1].write_bytes(b"")
    again = read_corpus(corpus, CorpusOptions(cache_dir=cache))
    assert len(spy.take()) == 2
    assert [d.to_dict() for d in again.documents] == [d.to_dict() for d in first.documents]
    read_corpus(corpus, CorpusOptions(cache_dir=cache))
    assert spy.take() == []


def test_cache_files_are_the_same_bytes_on_every_run(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    for name in ("one", "two"):
        read_corpus(corpus, CorpusOptions(cache_dir=tmp_path / name))

    def contents(folder: Path) -> dict[str, bytes]:
        return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*.json")}

    assert contents(tmp_path / "one") == contents(tmp_path / "two")
    assert not list((tmp_path / "one").rglob("*.tmp"))


def test_a_second_eval_on_the_bundled_corpus_parses_nothing(tmp_path: Path, spy: SourceSpy) -> None:
    settings = EvalSettings(chunkers=("fixed",), budgets=(100,))
    # One worker: the spy counts the parses of this process only.
    options = CorpusOptions(cache_dir=tmp_path / "cache", workers=1)
    questions = ROOT / "questions" / "questions.jsonl"
    first = run_eval(ROOT / "corpus", questions, settings, options=options)
    assert len(spy.take()) == 39
    second = run_eval(ROOT / "corpus", questions, settings, options=options)
    assert spy.take() == []
    assert second.to_dict() == first.to_dict()


def test_a_second_inspect_parses_nothing(tmp_path: Path, spy: SourceSpy) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    options = CorpusOptions(cache_dir=tmp_path / "cache")
    chunker = make_chunker("fixed", size=5)
    first = inspect_document("sub/c.md", chunker, corpus, options=options)
    assert spy.take() == ["sub/c.md"]
    second = inspect_document("sub/c.md", chunker, corpus, options=options)
    assert spy.take() == []
    assert second.document == first.document


def test_warnings_are_the_same_for_parse_and_ingest(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    (corpus / "empty.md").write_text("")
    expected = [
        "b.md: no access label; treated as staff (fail closed)",
        "empty.md: no access label; treated as staff (fail closed)",
        "empty.md: no text; the document gives no chunks",
        "sub/c.md: no access label; treated as staff (fail closed)",
    ]
    expected.remove("b.md: no access label; treated as staff (fail closed)")  # front matter
    assert read_corpus(corpus).warnings == expected
    first = ingest(corpus, tmp_path / "i", make_chunker("fixed"))
    again = ingest(corpus, tmp_path / "i", make_chunker("fixed"))  # nothing parsed this time
    assert again.unchanged == ["a.md", "b.md", "empty.md", "sub/c.md"]
    assert first.warnings == again.warnings == expected


# Dispatch by extension.


def test_a_format_whose_parser_is_not_installed_fails_that_file_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "policy_assistant.parse.docx", None)
    corpus = write_corpus(tmp_path / "c", FILES)
    (corpus / "memo.docx").write_bytes(b"PK\x03\x04")
    read = read_corpus(corpus)
    assert [str(f) for f in read.failures] == [
        "memo.docx: no parser for .docx in this installation"
    ]
    assert [d.source for d in read.documents] == ["a.md", "b.md", "sub/c.md"]


@pytest.mark.parametrize(
    ("suffix", "module", "function"),
    [
        (".txt", "text", "parse_text"),
        (".html", "html", "parse_html"),
        (".htm", "html", "parse_html"),
        (".docx", "docx", "parse_docx"),
        (".pptx", "pptx", "parse_pptx"),
    ],
)
def test_each_format_goes_to_its_parser_with_the_catalog_meta(
    monkeypatch: pytest.MonkeyPatch, suffix: str, module: str, function: str
) -> None:
    calls: list[tuple[bytes, str, DocumentMeta, str]] = []

    def fake(data: bytes, source: str, meta: DocumentMeta, sha256: str) -> Document:
        calls.append((data, source, meta, sha256))
        return Document(source, "T", meta.version, meta.access, meta.language, sha256, "")

    fake_module = types.ModuleType(f"policy_assistant.parse.{module}")
    setattr(fake_module, function, fake)
    monkeypatch.setitem(sys.modules, f"policy_assistant.parse.{module}", fake_module)
    source = f"docs/x{suffix}"
    catalog = Catalog({"docs/*": {"access": "public", "version": "4"}})
    doc = parse_bytes(b"bytes", source, catalog)
    ((data, seen, meta, sha256),) = calls
    assert (data, seen, meta.access, meta.version, meta.labelled) == (
        b"bytes",
        source,
        "public",
        "4",
        True,
    )
    assert doc.sha256 == sha256 and len(sha256) == 64


def test_mdx_is_read_as_markdown() -> None:
    doc = parse_bytes(b"# Title\n\nBody text.\n", "a.mdx", Catalog())
    assert [b.kind for b in doc.blocks] == ["heading", "paragraph"]


# Files that are not documents, and silent successes.


def test_files_that_are_not_documents_are_skipped_and_counted(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\ntext\n")
    (tmp_path / "sheet.xlsx").write_bytes(b"PK")
    (tmp_path / "more.XLSX").write_bytes(b"PK")
    (tmp_path / "bundle.zip").write_bytes(b"PK")
    done = runner.invoke(app, ["parse", str(tmp_path), "--json"])
    assert done.exit_code == 0, done.stderr
    assert "warning: skipped 3 files: .xlsx 2, .zip 1" in done.stderr.splitlines()


def test_include_and_exclude_on_the_command_line(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    (corpus / "drafts").mkdir()
    (corpus / "drafts" / "d.md").write_text("# D\n\nDraft.\n")
    done = runner.invoke(
        app, ["parse", str(corpus), "--json", "--exclude", "drafts", "--exclude", "b.md"]
    )
    assert done.exit_code == 0, done.stderr
    sources = [line.split('"source":"')[1].split('"')[0] for line in done.stdout.splitlines()]
    assert sources == ["a.md", "sub/c.md"]
    assert "excluded 2" in done.stderr
    only = runner.invoke(app, ["parse", str(corpus), "--json", "--include", "sub/**"])
    assert only.exit_code == 0 and only.stdout.count('"source"') == 1


def test_every_corpus_command_takes_the_reader_options() -> None:
    for command in ("parse", "chunk", "ingest", "eval", "inspect"):
        shown = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"}).stdout
        for option in ("--include", "--exclude", "--default-access", "--max-file-size"):
            assert option in shown, (command, option)


def test_an_empty_folder_is_exit_1_with_a_message(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for args in (["parse"], ["ingest", "--index", str(tmp_path / "i")]):
        done = runner.invoke(app, [*args, str(tmp_path / "empty")])
        command = args[0]
        assert done.exit_code == 1, command
        assert "no documents to read" in done.stderr


def test_ingest_of_the_catalog_itself_is_not_a_silent_success(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    index = tmp_path / "i"
    done = runner.invoke(app, ["ingest", str(corpus / "catalog.toml"), "--index", str(index)])
    assert done.exit_code == 1
    assert "no documents to read (skipped 1 file: catalog.toml 1)" in done.stderr
    assert not (index / "CURRENT").exists()


def test_a_path_of_only_non_documents_raises(tmp_path: Path) -> None:
    (tmp_path / "sheet.xlsx").write_bytes(b"PK")
    with pytest.raises(PolicyAssistantError, match=r"no documents to read \(skipped 1 file"):
        read_corpus(tmp_path)


def test_an_empty_document_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    (corpus / "empty.md").write_text("")
    done = runner.invoke(app, ["ingest", str(corpus), "--index", str(tmp_path / "i")])
    assert done.exit_code == 0, done.stderr
    assert "warning: empty.md: no text; the document gives no chunks" in done.stderr


def test_strict_stops_at_the_first_failure(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    (corpus / "bad.md").write_bytes(b"\xff")
    with pytest.raises(DocumentError, match=r"^bad\.md: "):
        corpus_reader.read_corpus(corpus, strict=True)


def test_inspect_of_a_folder_prints_the_readers_lines(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c", FILES)
    (corpus / "sub" / "sheet.xlsx").write_bytes(b"PK")
    page = tmp_path / "pages" / "index.html"
    args = ["inspect", "sub", "--corpus", str(corpus), "--html", str(page), "--quiet"]
    done = runner.invoke(app, args)
    assert done.exit_code == 0, done.stderr
    lines = done.stderr.splitlines()
    assert "warning: skipped 1 file: .xlsx 1" in lines
    assert "warning: sub/c.md: no access label; treated as staff (fail closed)" in lines
    assert page.exists()


def test_a_max_file_size_below_one_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n")
    done = runner.invoke(app, ["parse", str(tmp_path), "--max-file-size", "0"])
    assert done.exit_code == 2
    assert "--max-file-size must be above 0 (MiB), got 0" in done.stderr


def test_a_document_without_a_given_language_gets_the_one_its_text_is_in(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "catalog.toml").write_text('["given.md"]\nlanguage = "en"\naccess = "public"\n')
    french = "# Retours\n\n" + "Les clients peuvent rapporter un article dans les trente jours " * 4
    (corpus / "given.md").write_text(french)
    (corpus / "found.md").write_text(french)
    (corpus / "front.md").write_text("---\nlanguage: de\n---\n" + french)
    languages = {d.source: d.language for d in parse_path(corpus).documents}
    assert languages == {"given.md": "en", "found.md": "fr", "front.md": "de"}


def test_a_folder_s_own_catalog_is_read_not_reported_skipped(tmp_path: Path) -> None:
    read = read_corpus(write_corpus(tmp_path / "c", FILES))
    assert read.catalog.entries and not read.skipped
    assert not [line for line in read.notices if "skipped" in line]


def test_the_fingerprint_follows_the_parsers_not_the_reader(tmp_path: Path) -> None:
    package = Path(cache_module.__file__).resolve().parent.parent
    copy = tmp_path / "pkg"
    shutil.copytree(package / "parse", copy / "parse")
    for name in cache_module.SHAPING:
        shutil.copy(package / name, copy / name)
    first = cache_module.code_fingerprint(copy)
    assert first == cache_module.code_fingerprint(package)
    for name in sorted(cache_module.READER_ONLY):
        with (copy / "parse" / name).open("a") as module:
            module.write("\n# a reader change\n")
    assert cache_module.code_fingerprint(copy) == first
    for name in ("markdown.py", "dispatch.py", "discover.py"):
        with (copy / "parse" / name).open("a") as module:
            module.write("\n# a parser change\n")
        assert cache_module.code_fingerprint(copy) != first
        first = cache_module.code_fingerprint(copy)


@pytest.mark.parametrize("name", ["sentences.py", "text.py"])
def test_the_fingerprint_follows_the_sentences_and_words_the_markdown_parser_uses(
    tmp_path: Path, name: str
) -> None:
    # Whether a Markdown paragraph keeps its lines depends on its sentences and their words:
    # a change there changes a parse, so a cached one must not be read.
    package = Path(cache_module.__file__).resolve().parent.parent
    copy = tmp_path / "pkg"
    shutil.copytree(package / "parse", copy / "parse")
    for shaping in cache_module.SHAPING:
        shutil.copy(package / shaping, copy / shaping)
    first = cache_module.code_fingerprint(copy)
    with (copy / name).open("a") as module:
        module.write("\n# a splitter change\n")
    assert cache_module.code_fingerprint(copy) != first
