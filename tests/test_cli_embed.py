"""`ingest --embed MODEL`: sticky like the chunker, a model change said, the extra optional.

The real-model tests need the pinned all-MiniLM-L6-v2 folder (`make model`) and the dense
extra; they skip and say so without them. The missing-extra tests hide onnxruntime and
tokenizers from the import system, as a machine without the extra would.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from support.corpora import write_pipeline_corpus
from typer.testing import CliRunner

from policy_assistant.cli import app
from policy_assistant.index import load_manifest, open_index

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "build" / "models" / "all-MiniLM-L6-v2"
MISSING = [m for m in ("onnxruntime", "tokenizers") if not importlib.util.find_spec(m)]
needs_model = pytest.mark.skipif(
    not (MODEL / "model.safetensors").is_file() or bool(MISSING),
    reason="needs build/models/all-MiniLM-L6-v2 (`make model`) and the dense extra",
)
INSTALL = "pip install 'policy-assistant[dense]'"

runner = CliRunner()


@pytest.fixture
def no_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make onnxruntime and tokenizers unimportable, as without the dense extra."""
    for name in ("onnxruntime", "tokenizers"):
        monkeypatch.setitem(sys.modules, name, None)


def ingest(corpus: Path, index: Path, *options: str) -> tuple[int, str]:
    done = runner.invoke(app, ["ingest", str(corpus), "--index", str(index), *options])
    return done.exit_code, done.stderr


@pytest.mark.usefixtures("no_extra")
def test_embed_without_the_extra_is_one_line_naming_the_install(tmp_path: Path) -> None:
    code, stderr = ingest(write_pipeline_corpus(tmp_path / "c"), tmp_path / "i", "--embed", "x")
    assert code == 2
    assert len(stderr.strip().splitlines()) == 1 and INSTALL in stderr
    assert not (tmp_path / "i" / "CURRENT").exists()


@pytest.mark.usefixtures("no_extra")
def test_a_plain_ingest_without_the_extra_says_how_to_add_meaning_aware_search(
    tmp_path: Path,
) -> None:
    code, stderr = ingest(write_pipeline_corpus(tmp_path / "c"), tmp_path / "i")
    assert code == 0
    assert [line for line in stderr.splitlines() if INSTALL in line] == [
        f"meaning-aware search: {INSTALL}, then ingest --embed MODEL"
    ]
    assert load_manifest(tmp_path / "i").embedding is None


def test_embed_and_no_embed_together_is_a_usage_error(tmp_path: Path) -> None:
    code, stderr = ingest(tmp_path, tmp_path / "i", "--embed", "x", "--no-embed")
    assert code == 2 and "--no-embed" in stderr


@pytest.mark.skipif(bool(MISSING), reason="needs the dense extra")
def test_a_model_that_is_not_there_is_one_line_and_nothing_downloads(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    code, stderr = ingest(corpus, tmp_path / "i", "--embed", "no-such-model-here")
    assert code == 1
    assert len(stderr.strip().splitlines()) == 1
    assert "no-such-model-here" in stderr and "nothing is downloaded" in stderr


@needs_model
def test_the_model_is_sticky_and_a_change_of_runtime_rebuilds_the_vectors(tmp_path: Path) -> None:
    corpus, index = write_pipeline_corpus(tmp_path / "c"), tmp_path / "i"
    code, _ = ingest(corpus, index, "--embed", str(MODEL), "--embed-runtime", "onnx")
    assert code == 0
    first = load_manifest(index).embedding
    assert first is not None and first["identity"]["runtime"] == "onnx"
    with open_index(index) as opened:
        onnx = opened.segments[0].vectors()
    assert onnx is not None and np.allclose(np.linalg.norm(onnx, axis=1), 1, atol=1e-3)

    code, stderr = ingest(corpus, index)
    assert code == 0 and "kept from the index: " in stderr and "embedding " in stderr
    assert load_manifest(index).embedding == first

    done = runner.invoke(
        app, ["ingest", str(corpus), "--index", str(index), "--embed-runtime", "numpy", "--json"]
    )
    assert done.exit_code == 0
    assert "embedding model changed" in done.stdout
    with open_index(index) as opened:
        numpy = opened.segments[0].vectors()
    assert numpy is not None and numpy.shape == onnx.shape
    # The same model by another runtime (and the onnx file quantised): close, not equal.
    assert float(np.min(np.sum(onnx * numpy, axis=1))) > 0.9

    code, _ = ingest(corpus, index, "--no-embed")
    assert code == 0 and load_manifest(index).embedding is None
