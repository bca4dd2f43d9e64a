"""The index stage's defaults, importable without numpy (the CLI reads them for --help)."""

from __future__ import annotations

from typing import Any

VARIANTS = ("lucene", "okapi")
"""BM25 scoring variants: Elasticsearch's, and rank-bm25's BM25Okapi."""
BM25_DEFAULTS: dict[str, Any] = {"variant": "lucene", "k1": 1.2, "b": 0.75}
"""Default scoring: Elasticsearch's BM25."""
