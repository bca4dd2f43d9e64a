"""What of a unit is embedded: its text with its context, the title and the heading path.

A passage alone often lacks its subject ("It must be renewed every two years."): the title
and the headings above it carry that, so they are prepended, one short line each, before the
text. Context goes first because the model keeps only its first max_seq_length word pieces
(256 for all-MiniLM-L6-v2): a long passage loses its tail, never its context. A heading that
repeats the title, or the heading before it, is written once. Queries are embedded bare.
"""

from __future__ import annotations

from collections.abc import Sequence

SEPARATOR = " > "
"""Between the headings of one path, outermost first."""


def embedding_text(title: str | None, heading_path: Sequence[str], text: str) -> str:
    """Return the text a unit is embedded as: title, heading path, blank line, text."""
    seen = [(title or "").strip()]
    headings: list[str] = []
    for heading in (h.strip() for h in heading_path):
        if heading and heading.casefold() not in {s.casefold() for s in seen}:
            headings.append(heading)
        seen = [*seen[:1], heading]
    lines = [line for line in (seen[0], SEPARATOR.join(headings)) if line]
    return "\n".join(lines) + "\n\n" + text.strip() if lines else text.strip()
