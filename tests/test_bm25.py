from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import numpy as np
import orjson
import pytest
from rank_bm25 import BM25Okapi
from support.zipf import naive_lucene, zipf_corpus, zipf_queries

from policy_assistant.index.chunks import bm25 as bm25_module
from policy_assistant.index.chunks import bm25_build
from policy_assistant.index.chunks.bm25 import BM25Index
from policy_assistant.index.tokenize import tokenize, word_terms


@pytest.fixture(scope="module")
def corpus() -> list[list[str]]:
    return zipf_corpus()


@pytest.fixture(scope="module")
def lucene(corpus: list[list[str]]) -> BM25Index:
    return BM25Index.build(corpus)


def test_okapi_matches_rank_bm25(corpus: list[list[str]]):
    reference = BM25Okapi(corpus)
    index = BM25Index.build(corpus, variant="okapi", k1=1.5, b=0.75, epsilon=0.25)
    common = Counter(t for doc in corpus for t in set(doc)).most_common(1)[0][1]
    assert common > len(corpus) / 2  # negative idf, so the epsilon floor is exercised
    for query in zipf_queries():
        np.testing.assert_allclose(index.scores(query), reference.get_scores(query), atol=1e-9)


def test_lucene_matches_the_formula(corpus: list[list[str]], lucene: BM25Index):
    for query in zipf_queries(12):
        np.testing.assert_allclose(lucene.scores(query), naive_lucene(corpus, query), atol=1e-9)


def test_repeated_query_terms_count_per_repeat(lucene: BM25Index):
    once, twice = lucene.scores(["w5"]), lucene.scores(["w5", "w5"])
    np.testing.assert_allclose(twice, 2 * once)


def test_rebuild_writes_byte_identical_files(tmp_path: Path, corpus):
    BM25Index.build(corpus).save(tmp_path / "a")
    BM25Index.build(iter(corpus)).save(tmp_path / "b")
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "b").iterdir())
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert not any(p.suffix == ".pkl" for p in (tmp_path / "a").iterdir())


def assert_same_index(a: BM25Index, b: BM25Index, tmp_path: Path) -> None:
    a.save(tmp_path / "x")
    b.save(tmp_path / "y")
    for path in (tmp_path / "x").iterdir():
        assert path.read_bytes() == (tmp_path / "y" / path.name).read_bytes(), path.name


def test_texts_with_word_terms_build_the_token_index(tmp_path: Path):
    texts = ["The PW-2200 warranty, see pw2200.", "", "the of", "Congés payés: e-mail x86_64"]
    texts = texts * 50
    by_tokens = BM25Index.build([tokenize(t) for t in texts])
    assert_same_index(by_tokens, BM25Index.build(texts, word_terms=word_terms), tmp_path)


# Words str.split() must find: every kind of whitespace, words of 0-40 bytes around the 8-
# and 16-byte loads, non-ASCII, control bytes, NUL, lone surrogates, one word as a prefix of
# another; rows empty, blank or all one long word.
SPLIT_TEXTS = [
    "",
    "   ",
    "a",
    "abcdefgh abcdefghi abcdefghijklmnop abcdefghijklmnopq x" * 2,
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f tab\tnl\nff\x0cfs\x1cus\x1f end",
    "nbsp\xa0nel\x85ogham\u1680en\u2002thin\u2009ls\u2028ps\u2029nn\u202fmm\u205fid\u3000x",
    "Congés payés: e-mail x86_64 ﬁn 𝕊ss ß \u200bzwsp\u200b",
    "nul\x00byte a\x00 a bell\x07 \x7f del",
    "sur\ud800rogate \ud83d\ude00 pair",
    "https://example.com/a/very/long/path?query=1&other=2 " + "ü" * 20,
    "w" * 40,
]


def test_splitting_texts_as_bytes_finds_the_words_of_str_split():
    texts = SPLIT_TEXTS * 3
    found = bm25_build._split_texts(texts)
    assert found is not None
    words, ids, per_row = found
    expected = [word for text in texts for word in text.split()]
    assert [words[i] for i in ids] == expected
    assert len(set(words)) == len(words)
    assert per_row.tolist() == np.cumsum([0] + [len(t.split()) for t in texts]).tolist()


def test_the_byte_split_knows_every_whitespace_character():
    spaces = [chr(c) for c in range(0x110000) if chr(c).isspace()]
    assert [c for c in spaces if c.isascii()] == [
        chr(b) for b in range(128) if not bm25_build._SOLID[b]
    ]
    assert [c for c in spaces if not c.isascii()] == [
        chr(c) for c in range(128, 0x110000) if bm25_build._OTHER_SPACE.match(chr(c))
    ]


def test_a_hash_collision_falls_back_to_splitting_word_by_word(monkeypatch, tmp_path: Path):
    texts = SPLIT_TEXTS * 20
    expected = BM25Index.build([tokenize(t) for t in texts])
    monkeypatch.setattr(bm25_build, "_MIX", np.zeros(3, dtype=np.uint64))  # one hash for all
    assert bm25_build._split_texts(texts) is None
    assert_same_index(expected, BM25Index.build(texts, word_terms=word_terms), tmp_path)


# Builds the corpus with workers=1 and workers=2 and prints each build's file digests. It
# runs in a fresh interpreter: workers fork only when no other thread exists, and earlier
# tests in this process may have left one running (a progress bar, a browser driver).
WORKER_BUILDS = """
import hashlib, json, sys, tempfile
from pathlib import Path
from policy_assistant.index.chunks import bm25_build
from policy_assistant.index.chunks.bm25 import BM25Index
from policy_assistant.index.tokenize import word_terms
from support.zipf import zipf_corpus

class CountingPool(bm25_build.ProcessPoolExecutor):
    submitted = 0

    def submit(self, *args, **kwargs):
        CountingPool.submitted += 1
        return super().submit(*args, **kwargs)

bm25_build.ProcessPoolExecutor = CountingPool
bm25_build.BATCH_ROWS, bm25_build.PARALLEL_AFTER_BATCHES = 97, 2
texts = [" ".join(doc) for doc in zipf_corpus()]
assert bm25_build._can_fork(2), "a thread exists, so the workers would not fork"
digests = {}
with tempfile.TemporaryDirectory() as tmp:
    for workers, rows in ((1, texts), (2, iter(texts))):
        folder = Path(tmp, str(workers))
        BM25Index.build(rows, word_terms=word_terms, workers=workers).save(folder)
        digests[workers] = {
            p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()
        }
        if workers == 1:
            assert CountingPool.submitted == 0, "workers=1 used the pool"
batches = len(texts) // 97 + 1  # the last batch may be empty
assert CountingPool.submitted == batches - 2, f"pool took {CountingPool.submitted} batches"
json.dump(digests, sys.stdout)
"""


def test_worker_processes_do_not_change_the_index():
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent)}  # for support/
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(WORKER_BUILDS)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    digests = orjson.loads(done.stdout)
    assert digests["1"], "the build saved no files"
    assert digests["2"] == digests["1"]


def test_progress_reports_rows_counted(monkeypatch, corpus):
    monkeypatch.setattr(bm25_build, "BATCH_ROWS", 1000)
    seen: list[int] = []
    BM25Index.build(corpus, progress=seen.append)
    assert seen[-1] == len(corpus) and seen == sorted(seen)


def test_empty_index(tmp_path: Path):
    index = BM25Index.build([])
    assert index.num_docs == 0 and not index.scores(["a"]).size
    index.save(tmp_path / "e")
    assert (tmp_path / "e" / "terms.txt").read_bytes() == b""


def test_bad_settings_and_tokens_are_refused():
    with pytest.raises(ValueError, match="variant"):
        BM25Index.build([["a"]], variant="bm25+")
    with pytest.raises(ValueError, match="k1"):
        BM25Index.build([["a"]], k1=-1)
    with pytest.raises(ValueError, match="newline"):
        BM25Index.build([["a\nb"]])


@pytest.mark.parametrize("count", [0, 1, 2, 31, 32, 33, 100, 1000])
def test_the_term_table_finds_every_term_and_no_other(count: int) -> None:
    rng = random.Random(count)
    letters = "abcdéz"
    words = {
        "".join(rng.choice(letters[:5]) for _ in range(rng.randint(1, 6))) for _ in range(count)
    }
    terms = sorted(words)
    data = b"".join(t.encode() + b"\n" for t in terms)
    ends = np.cumsum([len(t.encode()) + 1 for t in terms])
    table = bm25_module.TermTable(data, np.concatenate([[0], ends]).astype(np.int64))
    assert [table.find(t) for t in terms] == list(range(len(terms)))
    probes = ["", "a", "zzz", "é"]
    probes += ["".join(rng.choice(letters) for _ in range(rng.randint(1, 7))) for _ in range(300)]
    for probe in probes:
        assert table.find(probe) == (terms.index(probe) if probe in words else -1), probe
