"""Find a sentence-embedding model on disk and describe it; nothing is ever downloaded.

A model is a folder in the Hugging Face / sentence-transformers layout: config.json,
tokenizer.json, model.safetensors and/or onnx/model*.onnx, and the sentence-transformers files
that say how token vectors become one vector (modules.json, 1_Pooling/config.json,
sentence_bert_config.json). A name such as `sentence-transformers/all-MiniLM-L6-v2` is looked
up in the caches those libraries fill (HF_HUB_CACHE, HF_HOME/hub, ~/.cache/huggingface/hub,
SENTENCE_TRANSFORMERS_HOME, ~/.cache/torch/sentence_transformers).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

from policy_assistant.errors import PolicyAssistantError

POOLING_KEYS = {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls"}
"""The pooling modes the encoder implements, by their 1_Pooling/config.json key."""


class ModelError(PolicyAssistantError):
    """A model folder is missing, incomplete or of a kind we cannot run: one line names the path."""


@dataclass(frozen=True)
class BertShape:
    """The sizes of a BERT encoder, from config.json."""

    hidden: int
    layers: int
    heads: int
    eps: float
    max_positions: int


@dataclass(frozen=True)
class ModelFolder:
    """A resolved model: where its files are and how token vectors become one vector."""

    name: str
    root: Path
    tokenizer: Path
    weights: Path | None
    onnx: tuple[Path, ...]
    pooling: str
    normalize: bool
    max_seq_length: int
    bert: BertShape

    @property
    def dimension(self) -> int:
        """Return the length of one sentence vector."""
        return self.bert.hidden


@dataclass(frozen=True)
class ModelIdentity:
    """What made a vector: small enough for index settings, enough to tell two models apart."""

    name: str
    runtime: str
    files: tuple[tuple[str, str], ...]
    pooling: str
    normalize: bool
    max_seq_length: int
    dimension: int

    def as_dict(self) -> dict[str, Any]:
        """Return the identity as plain JSON-ready values."""
        record = asdict(self)
        record["files"] = dict(self.files)
        return record

    def key(self) -> str:
        """Return a sha256 of the identity: equal keys, interchangeable vectors."""
        text = json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def resolve_model(spec: str | os.PathLike[str]) -> ModelFolder:
    """Return the model in folder `spec`, else the one named `spec` in the local caches."""
    path = Path(spec).expanduser()
    if path.is_dir():
        return _read_folder(path, path.name)
    name = str(spec)
    for candidate in _cache_candidates(name):
        if candidate.is_dir():
            return _read_folder(candidate, _full_name(name))
    where = ", ".join(str(p) for p in _cache_places(name)) or "no cache folder"
    raise ModelError(
        f"{name}: no such folder, and not in the model caches ({where}); nothing is downloaded"
    )


def _full_name(name: str) -> str:
    """Return `org/name`; a bare name is sentence-transformers', as that library assumes."""
    return name if "/" in name else f"sentence-transformers/{name}"


def _hub_roots() -> list[Path]:
    """Return the Hugging Face hub cache folders to search, the environment's first."""
    home = Path.home()
    roots = [os.environ.get("HF_HUB_CACHE", "")]
    if os.environ.get("HF_HOME"):
        roots.append(os.path.join(os.environ["HF_HOME"], "hub"))
    xdg = os.environ.get("XDG_CACHE_HOME") or str(home / ".cache")
    roots.append(os.path.join(xdg, "huggingface", "hub"))
    st_home = os.environ.get("SENTENCE_TRANSFORMERS_HOME")
    # sentence-transformers 2.3 and later keep the hub layout under their own cache folder.
    roots.append(st_home or str(home / ".cache" / "torch" / "sentence_transformers"))
    return [Path(r) for r in dict.fromkeys(roots) if r]


def _cache_places(name: str) -> list[Path]:
    """Return where model `name` would be if a library had cached it: repos and flat folders."""
    org_name = _full_name(name)
    places: list[Path] = []
    for root in _hub_roots():
        places.append(root / ("models--" + org_name.replace("/", "--")))
        # sentence-transformers before 2.3: one flat folder named org_name.
        places.append(root / org_name.replace("/", "_"))
    return places


def _cache_candidates(name: str) -> list[Path]:
    """Return the model folders to try for `name`: each hub repo's snapshots, each flat folder."""
    found: list[Path] = []
    for place in _cache_places(name):
        found.extend(snapshots(place) if place.name.startswith("models--") else [place])
    return found


def snapshots(repo: Path) -> list[Path]:
    """Return a hub repo's snapshot folders, the one refs/main names first."""
    ref = repo / "refs" / "main"
    first = [repo / "snapshots" / ref.read_text().strip()] if ref.is_file() else []
    rest = sorted((repo / "snapshots").glob("*"), key=lambda p: p.stat().st_mtime, reverse=True)
    return first + [p for p in rest if p not in first]


def _require(path: Path, why: str) -> Path:
    """Return `path`, or raise a one-line ModelError naming it and what needs it."""
    if not path.is_file():
        raise ModelError(f"{path}: missing; {why}")
    return path


def _load_json(path: Path) -> dict[str, Any]:
    """Return a JSON object from a model file, or a ModelError naming the file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"{path}: not readable JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ModelError(f"{path}: not a JSON object")
    return data


def _read_folder(root: Path, name: str) -> ModelFolder:
    """Return the model in folder `root`, checking that every file it needs is there."""
    config = _load_json(_require(root / "config.json", "the model's sizes are read from it"))
    tokenizer = _require(root / "tokenizer.json", "the encoder tokenizes with it")
    weights = root / "model.safetensors"
    onnx = tuple(sorted((root / "onnx").glob("model*.onnx")))
    if not weights.is_file() and not onnx:
        raise ModelError(f"{weights}: missing, and no onnx/model*.onnx beside it to run instead")
    bert = _bert_shape(config, root / "config.json")
    pooling, normalize = _read_modules(root)
    return ModelFolder(
        name=name,
        root=root,
        tokenizer=tokenizer,
        weights=weights if weights.is_file() else None,
        onnx=onnx,
        pooling=pooling,
        normalize=normalize,
        max_seq_length=max_length(root, bert),
        bert=bert,
    )


def _bert_shape(config: dict[str, Any], path: Path) -> BertShape:
    """Return the encoder sizes from config.json; another architecture is a ModelError."""
    if config.get("model_type") != "bert":
        raise ModelError(f"{path}: model_type {config.get('model_type')!r}; only bert runs here")
    if config.get("hidden_act", "gelu") != "gelu":
        raise ModelError(f"{path}: hidden_act {config['hidden_act']!r}; only gelu runs here")
    return BertShape(
        hidden=int(config["hidden_size"]),
        layers=int(config["num_hidden_layers"]),
        heads=int(config["num_attention_heads"]),
        eps=float(config.get("layer_norm_eps", 1e-12)),
        max_positions=int(config.get("max_position_embeddings", 512)),
    )


def _read_modules(root: Path) -> tuple[str, bool]:
    """Return (pooling, normalize) from the sentence-transformers files; mean, normalized if none.

    A module we do not implement (a Dense projection, say) is a ModelError, not a quiet
    vector of another kind.
    """
    modules_file = root / "modules.json"
    if not modules_file.is_file():
        pooling_file = root / "1_Pooling" / "config.json"
        return (_pooling_mode(pooling_file) if pooling_file.is_file() else "mean"), True
    modules = json.loads(modules_file.read_text(encoding="utf-8"))
    pooling, normalize = "mean", False
    for module in modules:
        kind = str(module.get("type", "")).rsplit(".", 1)[-1]
        if kind == "Pooling":
            pooling = _pooling_mode(_require(root / module["path"] / "config.json", "pooling"))
        elif kind == "Normalize":
            normalize = True
        elif kind != "Transformer":
            raise ModelError(f"{modules_file}: module {kind} is not supported here")
    return pooling, normalize


def _pooling_mode(path: Path) -> str:
    """Return the one pooling mode a 1_Pooling/config.json turns on."""
    on = [k for k, v in _load_json(path).items() if k.startswith("pooling_mode_") and v is True]
    if len(on) != 1 or on[0] not in POOLING_KEYS:
        raise ModelError(f"{path}: pooling {on} is not supported (one of mean, cls)")
    return POOLING_KEYS[on[0]]


def max_length(root: Path, bert: BertShape) -> int:
    """Return the truncation length: sentence_bert_config.json's, as sentence-transformers does.

    tokenizer.json may carry another (all-MiniLM-L6-v2's says 128, its tokenizer_config 512);
    the model was trained and is served at sentence_bert_config.json's 256.
    """
    for file, key in (
        ("sentence_bert_config.json", "max_seq_length"),
        ("tokenizer_config.json", "model_max_length"),
    ):
        path = root / file
        if path.is_file() and isinstance(_load_json(path).get(key), int):
            return min(int(_load_json(path)[key]), bert.max_positions)
    return bert.max_positions


def identity(model: ModelFolder, runtime: str, weights: Path) -> ModelIdentity:
    """Return the identity of `model` run by `runtime` from the file `weights`."""
    files = tuple(
        (str(p.relative_to(model.root)), file_digest(p)) for p in (model.tokenizer, weights)
    )
    return ModelIdentity(
        name=model.name,
        runtime=runtime,
        files=files,
        pooling=model.pooling,
        normalize=model.normalize,
        max_seq_length=model.max_seq_length,
        dimension=model.dimension,
    )


def file_digest(path: Path) -> str:
    """Return the sha256 of a file, computed once per (path, size, mtime)."""
    stat = path.stat()
    return _cached_digest(str(path.resolve()), stat.st_size, stat.st_mtime_ns)


@cache
def _cached_digest(path: str, size: int, mtime_ns: int) -> str:
    """Return the sha256 of a file; size and mtime only key the cache."""
    del size, mtime_ns
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
