"""A plain search notices the damage that is cheap to find when the index opens."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import orjson
import pytest

from policy_assistant.chunk import make_chunker
from policy_assistant.errors import BadIndex
from policy_assistant.index import open_index
from policy_assistant.ingest.pipeline import ingest

STRUCTURE = make_chunker("structure")


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    """An index of two ingests: a.md replaced in the second, so a deletion mask exists."""
    corpus = tmp_path / "c"
    (corpus / "staff").mkdir(parents=True)
    (corpus / "a.md").write_text("---\naccess: public\n---\n# Mowers\n\nMowers: two years.\n")
    (corpus / "b.md").write_text("---\naccess: public\n---\n# Hoses\n\nHoses: one year.\n")
    (corpus / "staff" / "c.md").write_text("---\naccess: staff\n---\n# Codes\n\nCode 4471.\n")
    ingest(corpus, tmp_path / "i", STRUCTURE)
    (corpus / "a.md").write_text("---\naccess: public\n---\n# Mowers\n\nMowers: three years.\n")
    ingest(corpus, tmp_path / "i", STRUCTURE)
    return tmp_path / "i"


def live(index_dir: Path) -> Path:
    return index_dir / (index_dir / "CURRENT").read_text().strip()


def first_segment_file(index_dir: Path, name: str) -> Path:
    return sorted(live(index_dir).glob(f"segments/seg-*/{name}"))[0]


def flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-2] ^= 0x01
    path.write_bytes(bytes(data))


def change_a_term(index_dir: Path) -> None:
    path = first_segment_file(index_dir, "terms.txt")
    lines = path.read_bytes().split(b"\n")
    lines[1] = bytes(reversed(lines[1]))
    path.write_bytes(b"\n".join(lines))


def clear_a_mask(index_dir: Path) -> None:
    (mask,) = live(index_dir).glob("deleted/seg-*.npy")
    np.save(mask, np.zeros_like(np.load(mask)))


def reverse_labels(index_dir: Path) -> None:
    """Reverse the manifest's labels and rename its generation to match, as a writer would."""
    path = live(index_dir) / "manifest.json"
    data = orjson.loads(path.read_bytes())
    data = orjson.dumps({**data, "access_labels": data["access_labels"][::-1]})
    path.write_bytes(data)
    name = f"gen-{hashlib.sha256(data).hexdigest()[:16]}"
    path.parent.rename(index_dir / name)
    (index_dir / "CURRENT").write_text(name + "\n")


DAMAGE = {
    "flipped tf.npy": lambda i: flip(first_segment_file(i, "tf.npy")),
    "a terms.txt line": change_a_term,
    "entries.json": lambda i: flip(first_segment_file(i, "entries.json")),
    "cleared deletion mask": clear_a_mask,
    "reversed access labels": reverse_labels,
    "edited manifest": lambda i: flip(live(i) / "manifest.json"),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_plain_search_notices_cheap_damage(index_dir: Path, damage: str) -> None:
    with open_index(index_dir) as index:
        assert [h.chunk.source for h in index.search("mowers", 3)] == ["a.md"]
    DAMAGE[damage](index_dir)
    with pytest.raises(BadIndex, match="damaged index"), open_index(index_dir) as index:
        index.search("mowers two years code 4471", 5)


def test_reversed_labels_are_named_as_such(index_dir: Path) -> None:
    reverse_labels(index_dir)
    with pytest.raises(BadIndex, match=r"access labels \(staff, public\)"):
        open_index(index_dir)
