"""What a reader checks when it opens an index, without `--verify`: what is cheap.

The list and why each check: docs/index-format.md, "Damage and checksums". Small files are
hashed because hashing one costs little more than opening it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from policy_assistant.index.chunks.segment_build import checksum
from policy_assistant.index.store.entries import DELETED_DIR, SEGMENTS_DIR
from policy_assistant.index.store.folder import damaged
from policy_assistant.index.store.manifest import Manifest
from policy_assistant.jsonio import loads
from policy_assistant.records import ACCESS_LABELS

SMALL_FILE = 1 << 20
"""Files up to this many bytes are hashed on every open."""
ALWAYS = ("access.npy",)
"""Segment files hashed on open whatever their size: they decide who sees what."""
SELF_CHECKED = ("records.bin",)
"""Segment files whose blocks carry their own checksums, checked as they are read."""


def check_on_open(index_dir: Path, generation: Path, manifest: Manifest) -> None:
    """Raise BadIndex when the cheap checks above find the generation damaged."""
    if tuple(manifest.access_labels) != ACCESS_LABELS:
        found = ", ".join(map(str, manifest.access_labels))
        raise damaged(index_dir, f"manifest.json has access labels ({found}), not {ACCESS_LABELS}")
    check_name(index_dir, generation)
    for name, digest in manifest.files.items():
        if name.startswith((DELETED_DIR + "/", f"units/{DELETED_DIR}/")):
            check_file(index_dir, generation, name, digest)
        elif not name.startswith("units/"):  # the units' loader checks those, format first
            _check_if_small(index_dir, generation, name, digest)
    for live in manifest.segments:
        folder = f"{SEGMENTS_DIR}/{live.info.name}"
        for name, digest in segment_files(index_dir, generation, folder, live.info.sha256).items():
            if name in ALWAYS:
                check_file(index_dir, generation, f"{folder}/{name}", digest)
            elif name not in SELF_CHECKED:
                _check_if_small(index_dir, generation, f"{folder}/{name}", digest)


def segment_files(index_dir: Path, generation: Path, folder: str, sha256: str) -> dict[str, str]:
    """Check a (chunk or unit) segment folder's segment.json against its recorded SHA-256;
    return the SHA-256 of each file of the segment, by name, as segment.json records."""
    check_file(index_dir, generation, f"{folder}/segment.json", sha256)
    try:
        files = loads((generation / folder / "segment.json").read_bytes())["files"]
        return {str(name): str(digest) for name, digest in files.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise damaged(index_dir, f"{folder}/segment.json: {exc}") from exc


def _check_if_small(index_dir: Path, generation: Path, name: str, digest: str) -> None:
    """Check a file's SHA-256 when it is small; a larger one must at least be there."""
    try:
        size = os.stat(generation / name).st_size
    except OSError as exc:
        raise damaged(index_dir, f"{name}: {exc.strerror or exc}") from exc
    if size <= SMALL_FILE:
        check_file(index_dir, generation, name, digest)


def check_file(index_dir: Path, generation: Path, name: str, digest: str) -> None:
    """Raise BadIndex unless the file has this SHA-256."""
    try:
        with (generation / name).open("rb") as handle:
            found = checksum(handle)
    except OSError as exc:
        raise damaged(index_dir, f"{name}: {exc.strerror or exc}") from exc
    if found != digest:
        raise damaged(index_dir, f"{name} does not match its checksum")


def check_name(index_dir: Path, generation: Path) -> None:
    """Raise BadIndex unless the manifest's bytes hash to the generation's name, as the writer
    named it: the manifest holds the other files' checksums, so it cannot hold its own."""
    try:
        digest = hashlib.sha256((generation / "manifest.json").read_bytes()).hexdigest()
    except OSError as exc:
        raise damaged(index_dir, f"manifest.json: {exc.strerror or exc}") from exc
    if generation.name.removesuffix("-b") != f"gen-{digest[:16]}":
        raise damaged(index_dir, "manifest.json does not match the generation's name")
