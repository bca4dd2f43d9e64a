"""The index stage's defaults, importable without numpy (the CLI reads them for --help)."""

from __future__ import annotations

from typing import Any

from policy_assistant.records import ACCESS_LABELS

VARIANTS = ("lucene", "okapi")
"""BM25 scoring variants: Elasticsearch's, and rank-bm25's BM25Okapi."""
BM25_DEFAULTS: dict[str, Any] = {"variant": "lucene", "k1": 1.2, "b": 0.75}
"""Default scoring: Elasticsearch's BM25."""
DEFAULT_K = 5
"""Results a search returns when the caller does not say."""
DEFAULT_ACCESS = ACCESS_LABELS[0]
"""What a caller that names no access level sees: the least restricted label (fail closed)."""
