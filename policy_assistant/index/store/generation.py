"""What a writer puts into a new generation folder besides its segments, and hard-linking."""

from __future__ import annotations

import errno
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from policy_assistant.index.store.documents import DocumentEntry
from policy_assistant.index.store.manifest import Manifest


@dataclass
class Generation:
    """What a new generation holds besides the segments written into its segments/ folder."""

    manifest: Manifest
    """Its manifest, segments and statistics filled in, files not yet."""
    empty: Sequence[DocumentEntry]
    """The entries of documents without chunks (those of the others are in their segments)."""
    deleted: dict[str, npt.NDArray[np.bool_]] = field(default_factory=dict)
    """Deletion masks by segment name, for the segments with deleted rows."""
    reuse: dict[str, Path] = field(default_factory=dict)
    """Segments of an older generation to hard-link, by name: their folder there."""


MakeGeneration = Callable[[Path], Generation]
"""Writes the new segments into the folder it is given and says what else goes in."""


def link_tree(source: Path, target: Path) -> None:
    """Hard-link every file of a segment folder into target (a copy across file systems)."""
    target.mkdir()
    for path in sorted(source.iterdir()):
        if path.is_dir():  # a unit segment's fields
            link_tree(path, target / path.name)
            continue
        try:
            os.link(path, target / path.name)
        except OSError as exc:
            if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK):
                raise
            shutil.copy2(path, target / path.name)
