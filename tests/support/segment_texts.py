"""The texts of a unit segment's units, from which the tests' fake vectors are made."""

from __future__ import annotations

from typing import Any


def segment_texts(segment: Any) -> list[str]:
    """Return each unit's own text of a UnitSegment, in row order."""
    columns, texts = segment.columns, []
    for row in range(len(columns["unit_start"])):
        doc = int(columns["unit_doc"][row])
        start, end = int(columns["unit_start"][row]), int(columns["unit_end"][row])
        texts.append(segment.text(doc)[start:end])
    return texts
