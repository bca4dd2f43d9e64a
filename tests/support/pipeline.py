"""Helpers of the ingest pipeline tests: the structure chunker, an index's digest, a parser spy."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from policy_assistant.chunk import make_chunker
from policy_assistant.parse import dispatch
from support.spies import SourceSpy

STRUCTURE = make_chunker("structure")


def tree_digest(index_dir: Path) -> dict[str, str]:
    return {
        p.relative_to(index_dir).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(index_dir.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


def parser_spy(monkeypatch: pytest.MonkeyPatch) -> SourceSpy:
    """Record every source the corpus reader hands to a parser."""
    return SourceSpy(monkeypatch, dispatch, "parse_document")
