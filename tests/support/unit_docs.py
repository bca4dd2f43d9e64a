"""Small documents whose units the context tests rank and assemble."""

from __future__ import annotations

from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import Document, DocumentMeta


def care_guide() -> Document:
    """Two sections: the sprinkler sentence beside a frost one, then a lone sprinkler one."""
    builder = DocumentBuilder()
    builder.heading("Winter", 1, ())
    builder.add(
        "paragraph",
        "Drain the sprinkler in autumn. Frost cracks the valve body. Store it dry.",
        (),
    )
    builder.heading("Summer", 1, ())
    builder.add(
        "paragraph",
        "Mow twice a week. The sprinkler sprinkler runs at dawn. Water the beds deeply.",
        (),
    )
    return builder.build("guides/care.md", "0" * 64, DocumentMeta(access="public"), "Care")
