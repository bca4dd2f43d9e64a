"""Hostile corpus trees: each case is one line on stderr, and the rest of the corpus is indexed."""

from __future__ import annotations

import os
import random
import signal
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

import pytest
from typer.testing import CliRunner, Result

from policy_assistant.cli import app
from policy_assistant.index import open_index
from policy_assistant.parse import printable, read_corpus
from policy_assistant.parse.discover import MAX_DEPTH, suffix_of

runner = CliRunner()
GOOD = "# Sprinklers\n\nOscillating sprinklers carry an 18 month warranty.\n"


def good_corpus(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "catalog.toml").write_text('["good.md"]\naccess = "public"\n')
    (root / "good.md").write_text(GOOD)
    return root


@pytest.fixture
def deadline() -> Iterator[None]:
    """Fail (rather than hang the suite) when a read blocks for more than 20 seconds."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError("the reader blocked")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def ingest(corpus: Path, index: Path, *extra: str) -> Result:
    return runner.invoke(app, ["ingest", str(corpus), "--index", str(index), "--quiet", *extra])


def assert_good_indexed(index: Path) -> None:
    with open_index(index) as opened:
        assert {c.source for c in opened.chunks()} == {"good.md"}


def lines_about(stderr: str, needle: str) -> list[str]:
    return [line for line in stderr.splitlines() if needle in line]


def test_a_symlink_loop_is_one_warning_and_the_rest_indexed(tmp_path: Path) -> None:
    corpus = good_corpus(tmp_path / "c")
    (corpus / "loop-a.md").symlink_to("loop-b.md")
    (corpus / "loop-b.md").symlink_to("loop-a.md")
    (corpus / "self").symlink_to("self")
    done = ingest(corpus, tmp_path / "i")
    assert done.exit_code == 0, done.stderr
    assert lines_about(done.stderr, "loop-a.md") == ["warning: loop-a.md: symlink loop; skipped"]
    assert lines_about(done.stderr, "self") == ["warning: self: symlink loop; skipped"]
    assert_good_indexed(tmp_path / "i")


def test_a_file_name_with_non_utf8_bytes_is_one_warning(tmp_path: Path) -> None:
    corpus = good_corpus(tmp_path / "c")
    fd = os.open(os.fsencode(corpus) + b"/caf\xe9.md", os.O_CREAT | os.O_WRONLY, 0o644)
    os.write(fd, GOOD.encode())
    os.close(fd)
    done = ingest(corpus, tmp_path / "i")
    assert done.exit_code == 0, done.stderr
    expected = "warning: caf\\xe9.md: name is not valid UTF-8; skipped (rename it)"
    assert lines_about(done.stderr, "caf") == [expected]
    assert_good_indexed(tmp_path / "i")


@contextmanager
def inside(folder: Path) -> Iterator[None]:
    """Work relative to `folder`: a 10,000-deep path is longer than any the OS takes whole."""
    home = os.open(".", os.O_RDONLY)
    try:
        os.chdir(folder)
        yield
    finally:
        os.fchdir(home)
        os.close(home)


def make_chain(top: Path, depth: int) -> None:
    """Make top/d/d/.../d/deep.md with `depth` folders."""
    with inside(top):
        for _ in range(depth):
            os.mkdir("d")
            os.chdir("d")
        Path("deep.md").write_text(GOOD)


def remove_chain(top: Path, depth: int) -> None:
    """Remove the chain bottom up without recursion (shutil.rmtree would recurse 10,000 deep)."""
    with inside(top):
        for _ in range(depth):
            os.chdir("d")
        os.unlink("deep.md")
        for _ in range(depth):
            os.chdir("..")
            os.rmdir("d")


# Issue 14 reported a chain 10,000 deep; what broke was Python's recursion limit (os.walk
# recurses, about 1,000 levels) and the OS's PATH_MAX (4,096 bytes). 2,100 levels of "d/" pass
# both, at a fifth of the cost of 10,000 on a slow disk; the walk stops at MAX_DEPTH either way.
CHAIN_DEPTH = 2_100


@pytest.mark.slow
def test_a_folder_chain_past_path_max_and_recursion_is_one_warning(
    tmp_path: Path,
) -> None:
    corpus = good_corpus(tmp_path / "c")
    (corpus / "chain").mkdir()
    make_chain(corpus / "chain", CHAIN_DEPTH)
    try:
        done = ingest(corpus, tmp_path / "i")
    finally:
        remove_chain(corpus / "chain", CHAIN_DEPTH)
    assert done.exit_code == 0, done.stderr
    (line,) = lines_about(done.stderr, "chain/")
    assert line.endswith(f"folders nested more than {MAX_DEPTH} deep; not read")
    assert_good_indexed(tmp_path / "i")


def test_a_fifo_named_md_does_not_hang(tmp_path: Path, deadline: None) -> None:
    corpus = good_corpus(tmp_path / "c")
    os.mkfifo(corpus / "x.md")
    done = ingest(corpus, tmp_path / "i")
    assert done.exit_code == 0, done.stderr
    assert lines_about(done.stderr, "x.md") == [
        "warning: x.md: a FIFO, not a regular file; skipped"
    ]
    assert_good_indexed(tmp_path / "i")


def test_a_catalog_that_is_a_fifo_does_not_hang(tmp_path: Path, deadline: None) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "good.md").write_text(GOOD)
    os.mkfifo(corpus / "catalog.toml")
    read = read_corpus(corpus)
    assert [d.source for d in read.documents] == ["good.md"]
    assert "catalog.toml: a FIFO, not a regular file; not read, so it labels nothing" in (
        read.notices
    )


def test_dev_zero_linked_as_md_is_refused_not_read(tmp_path: Path, deadline: None) -> None:
    corpus = good_corpus(tmp_path / "c")
    (corpus / "x.md").symlink_to("/dev/zero")
    done = ingest(corpus, tmp_path / "i")
    assert done.exit_code == 1
    assert lines_about(done.stderr, "x.md") == ["error: x.md: link points outside the corpus"]
    assert_good_indexed(tmp_path / "i")


def test_a_character_device_named_md_is_not_read(tmp_path: Path, deadline: None) -> None:
    corpus = good_corpus(tmp_path / "c")
    try:
        os.mknod(corpus / "x.md", stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero's numbers
    except PermissionError as exc:
        pytest.skip(f"mknod is not permitted here ({exc.strerror}), so no device can be made")
    done = ingest(corpus, tmp_path / "i")
    assert done.exit_code == 0, done.stderr
    assert lines_about(done.stderr, "x.md") == [
        "warning: x.md: a character device, not a regular file; skipped"
    ]
    assert_good_indexed(tmp_path / "i")


def test_a_file_over_the_size_limit_fails_alone(tmp_path: Path) -> None:
    corpus = good_corpus(tmp_path / "c")
    (corpus / "huge.md").write_bytes(b"# Huge\n\n" + b"word " * 300_000)
    done = ingest(corpus, tmp_path / "i", "--max-file-size", "1")
    assert done.exit_code == 1
    assert lines_about(done.stderr, "huge.md") == [
        "error: huge.md: 1.4 MiB, over the limit of 1 MiB (--max-file-size)"
    ]
    assert_good_indexed(tmp_path / "i")


def test_a_newline_or_escape_sequence_in_a_file_name_is_escaped_on_stderr(tmp_path: Path) -> None:
    corpus = good_corpus(tmp_path / "c")
    (corpus / "evil\n\x1b[2Jname.md").write_bytes(b"\xff not utf-8")
    done = ingest(corpus, tmp_path / "i")
    assert done.exit_code == 1
    assert "\x1b" not in done.stderr
    (line,) = lines_about(done.stderr, "evil")
    assert line.startswith("error: evil\\n\\x1b[2Jname.md: not UTF-8 text")
    assert_good_indexed(tmp_path / "i")


def test_printable_escapes_controls_and_undecodable_bytes_only() -> None:
    assert printable("a\nb\rc\td\x1b[0m\x7f\x9b") == "a\\nb\\rc\\td\\x1b[0m\\x7f\\x9b"
    assert printable(os.fsdecode(b"caf\xe9")) == "caf\\xe9"
    assert printable("café/ok name.md") == "café/ok name.md"
    assert printable("invoice\u202egpj.md") == "invoice\\u202egpj.md"
    assert printable(printable("a\nb")) == printable("a\nb")


def test_a_symlinked_folder_inside_the_corpus_gives_a_warning(tmp_path: Path) -> None:
    corpus = good_corpus(tmp_path / "c")
    (corpus / "real").mkdir()
    (corpus / "real" / "r.md").write_text("# R\n\nReal.\n")
    (corpus / "alias").symlink_to("real", target_is_directory=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (corpus / "away").symlink_to(outside, target_is_directory=True)
    read = read_corpus(corpus)
    assert "alias: a symlinked folder; not followed" in read.notices
    assert "away: a symlinked folder, pointing outside the corpus; not followed" in read.notices
    assert [d.source for d in read.documents] == ["good.md", "real/r.md"]


def test_a_catalog_linking_out_of_the_corpus_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.toml"
    outside.write_text('["good.md"]\naccess = "public"\n')
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "good.md").write_text(GOOD)
    (corpus / "catalog.toml").symlink_to(outside)
    done = ingest(corpus, tmp_path / "i")
    assert done.exit_code == 0, done.stderr
    assert lines_about(done.stderr, "catalog.toml: links") == [
        "warning: catalog.toml: links outside the corpus; not read, so it labels nothing"
    ]
    # Refused, so it labels nothing: the document stays staff (fail closed).
    assert "good.md: no access label; treated as staff (fail closed)" in done.stderr
    with open_index(tmp_path / "i") as opened:
        assert [c.access for c in opened.chunks()] == ["staff"]


def test_a_broken_link_is_a_warning(tmp_path: Path) -> None:
    corpus = good_corpus(tmp_path / "c")
    (corpus / "gone.md").symlink_to("nowhere.md")
    read = read_corpus(corpus)
    assert "gone.md: broken link (No such file or directory); skipped" in read.notices
    assert [d.source for d in read.documents] == ["good.md"]


# A seeded generator of hostile trees: every mix gives one line per bad entry, no traceback,
# the good documents indexed, and an exit code of 1 exactly when a document could not be read.

FAILING = {"ctrl", "linkout"}
"""Kinds that are documents which should have been read: they make the exit code 1."""


def plant(corpus: Path, outside: Path, kind: str, token: str) -> None:
    """Add one hostile entry of `kind` whose name holds `token`."""
    base = corpus / token
    if kind == "loop":
        Path(f"{base}-loop.md").symlink_to(f"{token}-loop.md")
    elif kind == "broken":
        Path(f"{base}-broken.md").symlink_to("nowhere.md")
    elif kind == "badname":
        fd = os.open(os.fsencode(base) + b"-\xff.md", os.O_CREAT | os.O_WRONLY, 0o644)
        os.close(fd)
    elif kind == "fifo":
        os.mkfifo(f"{base}-fifo.md")
    elif kind == "deep":
        Path(f"{base}-deep", *["d"] * (MAX_DEPTH + 2)).mkdir(parents=True)
    elif kind == "ctrl":
        Path(f"{base}-\x1b[1m\n.md").write_bytes(b"\xff")
    elif kind == "symdir":
        Path(f"{base}-dir").symlink_to("docs", target_is_directory=True)
    elif kind == "linkout":
        Path(f"{base}-out.md").symlink_to(outside)
    elif kind == "empty":
        Path(f"{base}-empty.md").write_text("")


KINDS = ("loop", "broken", "badname", "fifo", "deep", "ctrl", "symdir", "linkout", "empty")


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_mixed_hostile_trees_give_one_line_each_and_index_the_rest(
    tmp_path: Path, seed: int, deadline: None
) -> None:
    rng = random.Random(seed)
    corpus = tmp_path / "c"
    (corpus / "docs").mkdir(parents=True)
    (corpus / "catalog.toml").write_text('[defaults]\naccess = "public"\n')
    outside = tmp_path / "outside.md"
    outside.write_text(GOOD)
    good = {f"docs/g{i}.md" for i in range(rng.randint(1, 4))}
    for source in good:
        (corpus / source).write_text(f"# Doc\n\nText of {source} about sprinklers.\n")
    kinds = rng.sample(KINDS, rng.randint(2, len(KINDS)))
    tokens = {kind: f"hx{n:02}x" for n, kind in enumerate(kinds)}
    for kind, token in tokens.items():
        plant(corpus, outside, kind, token)
    (corpus / "stray.xlsx").write_bytes(b"PK")
    start = time.monotonic()
    done = ingest(corpus, tmp_path / "i")
    assert time.monotonic() - start < 20
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
    assert "Traceback" not in done.output and "\x1b" not in done.stderr
    assert done.exit_code == (1 if FAILING & set(kinds) else 0), done.stderr
    for kind, token in tokens.items():
        assert len(lines_about(done.stderr, token)) == 1, (kind, done.stderr)
    assert any("skipped" in line and ".xlsx 1" in line for line in done.stderr.splitlines())
    with open_index(tmp_path / "i") as opened:
        assert {c.source for c in opened.chunks()} == good


@pytest.mark.parametrize(
    "name",
    [
        "a.md",
        "A.MD",
        "dir.d/file",
        "dir/.hidden",
        "..md",
        "...",
        "a.",
        "a..b",
        ".a.b",
        "x/y.tar.gz",
        "noext",
        "dir.md/",
        "d/.",
        "d/..",
        "a/b/c.Pdf",
        "\u00e9t\u00e9.Markdown",
    ],
)
def test_suffix_of_agrees_with_splitext(name: str) -> None:
    expected = os.path.splitext(name)[1].lower()
    assert suffix_of(name) == ("" if expected == "." else expected)
