"""Catalog keys as globs, the [defaults] table, --default-access and the label rule."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from policy_assistant.cli import app
from policy_assistant.errors import DocumentError, PolicyAssistantError
from policy_assistant.index import open_index
from policy_assistant.parse import Catalog, CorpusOptions, load_catalog, read_corpus
from policy_assistant.parse.globs import Glob, path_selected

BUNDLED = Path(__file__).resolve().parent.parent / "corpus"
runner = CliRunner()


def toml_value(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


@pytest.mark.slow
def test_glob_catalog_labels_the_bundled_corpus_as_the_per_file_catalog_does(
    tmp_path: Path,
) -> None:
    per_file = read_corpus(BUNDLED).documents
    copy = tmp_path / "corpus"
    shutil.copytree(BUNDLED, copy)
    # The same catalog with every access label taken out, then given back by two rules only.
    tables = tomllib.loads((BUNDLED / "catalog.toml").read_text(encoding="utf-8"))
    lines = ["[defaults]", 'access = "public"', '["staff/**"]', 'access = "staff"']
    for key, fields in tables.items():
        lines.append(f"[{toml_value(key)}]")
        lines += [f"{k} = {toml_value(str(v))}" for k, v in fields.items() if k != "access"]
    (copy / "catalog.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    by_glob = {d.source: d for d in read_corpus(copy).documents}
    assert len(per_file) == len(by_glob) == 39
    for doc in per_file:
        other = by_glob[doc.source]
        assert (other.access, other.version, other.language, other.title) == (
            doc.access,
            doc.version,
            doc.language,
            doc.title,
        ), doc.source
    assert sum(d.access == "staff" for d in per_file) == 12


def test_an_exact_path_beats_any_glob() -> None:
    catalog = Catalog({"staff/**": {"access": "staff"}, "staff/open.md": {"access": "public"}})
    assert catalog.meta_for("staff/open.md").access == "public"
    assert catalog.meta_for("staff/closed.md").access == "staff"


def test_among_globs_more_literal_characters_win() -> None:
    catalog = Catalog(
        {
            "policies/**": {"version": "broad", "language": "en"},
            "policies/*.pdf": {"version": "pdf"},
            "**": {"version": "everything", "language": "fr"},
        }
    )
    assert catalog.meta_for("policies/a.pdf").version == "pdf"
    assert catalog.meta_for("policies/a.md").version == "broad"
    assert catalog.meta_for("guides/a.md").version == "everything"
    # Field by field: the most specific table that sets a field gives it.
    assert catalog.meta_for("policies/a.pdf").language == "en"


def test_equal_specificity_is_broken_by_the_key_not_the_file_order() -> None:
    one = Catalog({"a/?.md": {"version": "q"}, "a/*.md": {"version": "star"}})
    two = Catalog({"a/*.md": {"version": "star"}, "a/?.md": {"version": "q"}})
    assert Glob("a/?.md").specificity == Glob("a/*.md").specificity
    assert one.meta_for("a/x.md").version == two.meta_for("a/x.md").version == "star"


def test_globs_match_whole_paths_and_double_star_spans_folders() -> None:
    assert Glob("staff/**").matches("staff/hr/leave.md")
    assert not Glob("staff/**").matches("staffing/a.md")
    assert Glob("policies/*.pdf").matches("policies/a.pdf")
    assert not Glob("policies/*.pdf").matches("policies/old/a.pdf")
    assert Glob("**/*.pdf").matches("a.pdf") and Glob("**/*.pdf").matches("x/y/a.pdf")
    assert Glob("[!a]*.md").matches("b.md") and not Glob("[!a]*.md").matches("a.md")


def test_include_and_exclude_select_paths() -> None:
    drafts, tmp, pdf = Glob("drafts"), Glob("*.tmp"), Glob("*.pdf")
    assert not path_selected("x/drafts/a.md", (), (drafts,))
    assert not path_selected("deep/er/a.tmp", (), (tmp,))
    assert path_selected("a/b.pdf", (pdf,), ())
    assert not path_selected("a/b.md", (pdf,), ())
    assert not path_selected("a/b.pdf", (pdf,), (Glob("a/**"),))


def test_defaults_table_labels_what_no_key_does(tmp_path: Path) -> None:
    (tmp_path / "catalog.toml").write_text(
        '[defaults]\naccess = "public"\nversion = "7"\n["b.md"]\naccess = "staff"\n'
    )
    (tmp_path / "a.md").write_text("# A\n\ntext\n")
    (tmp_path / "b.md").write_text("# B\n\ntext\n")
    docs = {d.source: d for d in read_corpus(tmp_path).documents}
    assert (docs["a.md"].access, docs["a.md"].version) == ("public", "7")
    assert (docs["b.md"].access, docs["b.md"].version) == ("staff", "7")


def test_defaults_may_not_set_a_title_or_a_bad_label(tmp_path: Path) -> None:
    (tmp_path / "catalog.toml").write_text('[defaults]\ntitle = "Everything"\n')
    with pytest.raises(PolicyAssistantError, match=r"\[defaults\] has unknown fields"):
        load_catalog(tmp_path)
    (tmp_path / "catalog.toml").write_text('[defaults]\naccess = "secret"\n')
    with pytest.raises(PolicyAssistantError, match="not one of public, staff"):
        load_catalog(tmp_path)


def test_a_glob_key_that_matches_nothing_is_a_line_of_its_own(tmp_path: Path) -> None:
    (tmp_path / "catalog.toml").write_text('["pdf/r/*"]\naccess = "public"\n')
    for i in range(12):  # twelve unlabelled documents: their warnings get folded
        (tmp_path / f"d{i:02}.md").write_text(f"# D{i}\n\ntext {i}\n")
    done = runner.invoke(app, ["parse", str(tmp_path), "--json"])
    assert done.exit_code == 0, done.stderr
    lines = done.stderr.splitlines()
    assert "warning: catalog.toml: lists pdf/r/*, which matches no file in the corpus" in lines
    assert "warning: 2 more warnings like these" in lines


# The label rule: front matter and catalog combine by the more restrictive label.

FRONT = "---\naccess: {label}\n---\n# Memo\n\ntext\n"


def labelled(tmp_path: Path, catalog: str, front: str | None, **options: str) -> str:
    (tmp_path / "catalog.toml").write_text(catalog)
    body = FRONT.format(label=front) if front else "# Memo\n\ntext\n"
    (tmp_path / "a.md").write_text(body)
    read = read_corpus(tmp_path, CorpusOptions(**options))  # type: ignore[arg-type]
    return read.documents[0].access


@pytest.mark.parametrize(
    ("catalog", "front", "expected"),
    [
        ('["a.md"]\naccess = "public"\n', "staff", "staff"),  # front matter more restrictive
        ('["a.md"]\naccess = "staff"\n', "public", "staff"),  # catalog more restrictive
        ('["a.md"]\nversion = "2"\n', "public", "public"),  # listed without access
        ('["*.md"]\naccess = "public"\n', "staff", "staff"),  # a glob is the catalog too
        ('[defaults]\naccess = "staff"\n', "public", "public"),  # defaults only fill a gap
        ('[defaults]\naccess = "public"\n', "staff", "staff"),
        ("", None, "staff"),  # labelled by nothing: fail closed
    ],
)
def test_the_more_restrictive_label_wins(
    tmp_path: Path, catalog: str, front: str | None, expected: str
) -> None:
    assert labelled(tmp_path, catalog, front) == expected


def test_default_access_labels_only_what_nothing_else_does(tmp_path: Path) -> None:
    assert labelled(tmp_path, "", None, default_access="public") == "public"
    assert labelled(tmp_path, "", "staff", default_access="public") == "staff"
    assert labelled(tmp_path, '[defaults]\naccess = "staff"\n', None, default_access="public") == (
        "staff"
    )


def test_a_bad_front_matter_label_still_fails_the_document(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="access label 'secret'"):
        Catalog().meta_for("a.md", {"access": "secret"})


def test_ingest_default_access_public_makes_unlabelled_documents_searchable(
    tmp_path: Path,
) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "a.md").write_text("# Sprinklers\n\nSprinklers carry an 18 month warranty.\n")
    index = tmp_path / "i"
    done = runner.invoke(
        app, ["ingest", str(corpus), "--index", str(index), "--default-access", "public"]
    )
    assert done.exit_code == 0, done.stderr
    assert "no access label" not in done.stderr
    assert open_index(index).search("sprinkler warranty", 1, "public")
    again = runner.invoke(app, ["ingest", str(corpus), "--index", str(index)])
    assert "kept from the index: default access public" in again.stderr  # sticky, and said
    assert open_index(index).search("sprinkler", 1, "public")
    staff = ["ingest", str(corpus), "--index", str(index), "--default-access", "staff"]
    flipped = runner.invoke(app, staff)
    assert "a.md: no access label; treated as staff (fail closed)" not in flipped.stderr
    assert "settings changed" in flipped.stderr
    assert "changed" in flipped.stdout and not open_index(index).search("sprinkler", 1, "public")


def test_a_bad_default_access_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n")
    done = runner.invoke(app, ["parse", str(tmp_path), "--default-access", "admin"])
    assert done.exit_code == 2
    assert "--default-access must be public or staff" in done.stderr


def test_a_key_with_glob_characters_that_names_a_file_is_that_file(tmp_path: Path) -> None:
    (tmp_path / "catalog.toml").write_text('["notes [draft].md"]\naccess = "public"\n')
    (tmp_path / "notes [draft].md").write_text("# Draft\n\ntext\n")
    read = read_corpus(tmp_path)
    assert read.documents[0].access == "public"
    assert not [n for n in read.notices if "lists" in n]
