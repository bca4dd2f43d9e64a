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
from support.zipf import zipf_corpus

from policy_assistant.index.chunks import bm25_build
from policy_assistant.index.chunks.bm25_build import count_postings
from policy_assistant.index.chunks.bm25_files import TermTable
from policy_assistant.index.settings import BM25Settings
from policy_assistant.index.tokenize import tokenize


@pytest.fixture(scope="module")
def corpus() -> list[list[str]]:
    return zipf_corpus()


Counted = tuple[bytes, dict]


def tokens(rows) -> Counted:
    """Count token lists (tokens hold no whitespace), each token its own term."""
    return count_postings((" ".join(row) for row in rows), analyze=lambda w: (w,), workers=0)


def test_a_recount_gives_the_same_postings(corpus):
    assert_same_postings(tokens(corpus), tokens(iter(corpus)))


def test_postings_are_the_corpus_counts(corpus):
    data, arrays = tokens(corpus)
    terms = data.decode().split("\n")[:-1]
    assert terms == sorted({t for row in corpus for t in row}, key=str.encode)
    assert arrays["dl"].tolist() == [len(row) for row in corpus]
    counts = [Counter(row) for row in corpus]
    for i in range(0, len(terms), 97):
        start, stop = arrays["ptr"][i], arrays["ptr"][i + 1]
        rows = arrays["rows"][start:stop].tolist()
        assert rows == [r for r, c in enumerate(counts) if terms[i] in c]
        assert arrays["tf"][start:stop].tolist() == [counts[r][terms[i]] for r in rows]


def assert_same_postings(a: Counted, b: Counted) -> None:
    assert a[0] == b[0]
    assert a[1].keys() == b[1].keys()
    for name, array in a[1].items():
        assert array.dtype == b[1][name].dtype and array.tolist() == b[1][name].tolist(), name


def test_texts_with_word_terms_count_as_their_token_lists():
    texts = ["The PW-2200 warranty, see pw2200.", "", "the of", "Congés payés: e-mail x86_64"]
    texts = texts * 50
    assert_same_postings(tokens([tokenize(t) for t in texts]), count_postings(texts, workers=0))


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


def test_a_hash_collision_falls_back_to_splitting_word_by_word(monkeypatch):
    texts = SPLIT_TEXTS * 20
    expected = tokens([tokenize(t) for t in texts])
    monkeypatch.setattr(bm25_build, "_MIX", np.zeros(3, dtype=np.uint64))  # one hash for all
    assert bm25_build._split_texts(texts) is None
    assert_same_postings(expected, count_postings(texts, workers=0))


# Builds the corpus with workers=1 and workers=2 and prints each build's file digests. It
# runs in a fresh interpreter: workers fork only when no other thread exists, and earlier
# tests in this process may have left one running (a progress bar, a browser driver).
WORKER_BUILDS = """
import hashlib, json, sys
from policy_assistant.index.chunks import bm25_build
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
for workers, rows in ((1, texts), (2, iter(texts))):
    data, arrays = bm25_build.count_postings(rows, workers=workers)
    digests[workers] = {"terms": hashlib.sha256(data).hexdigest()} | {
        name: hashlib.sha256(array.tobytes()).hexdigest() + str(array.dtype)
        for name, array in arrays.items()
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
    assert digests["1"]["rows"], "the build counted nothing"
    assert digests["2"] == digests["1"]


def test_no_rows_count_to_nothing():
    data, arrays = tokens([])
    assert data == b"" and arrays["ptr"].tolist() == [0] and not arrays["dl"].size


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="variant"):
        BM25Settings("bm25+")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="k1"):
        BM25Settings(k1=-1)


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
    table = TermTable(data, np.concatenate([[0], ends]).astype(np.int64))
    assert [table.find(t) for t in terms] == list(range(len(terms)))
    probes = ["", "a", "zzz", "é"]
    probes += ["".join(rng.choice(letters) for _ in range(rng.randint(1, 7))) for _ in range(300)]
    for probe in probes:
        assert table.find(probe) == (terms.index(probe) if probe in words else -1), probe
