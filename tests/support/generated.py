"""A generated corpus of varied documents, for the tests of workers and engines."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
CORPUS = ROOT / "corpus"
WORDS = [
    "garden",
    "hose",
    "reel",
    "warranty",
    "refund",
    "receipt",
    "mower",
    "blade",
    "sprinkler",
    "nozzle",
    "compost",
    "greenhouse",
    "frame",
    "delivery",
    "courier",
    "voucher",
    "store",
    "manager",
    "till",
    "supervisor",
    "recall",
    "pallet",
    "tondeuse",
    "jardin",
    "garantie",
    "remboursement",
    "livraison",
]
BUNDLED_PDFS = ("policies/warranty-policy.pdf", "guides/lawn-mower-lm-46.pdf")


def markdown(rng: random.Random, number: int) -> str:
    """Return a Markdown document with headings, lists, a table and code, in seeded words."""

    def words(n: int) -> str:
        return " ".join(rng.choices(WORDS, k=n))

    access = rng.choice(["public", "staff"])
    parts = [f"---\naccess: {access}\nversion: '{number}'\n---\n# {words(3).title()}\n"]
    for section in range(rng.randint(1, 4)):
        parts.append(f"## Part {section} {words(2)}\n\n{words(rng.randint(5, 120))}.\n")
        if rng.random() < 0.4:
            parts.append("".join(f"- {words(rng.randint(2, 12))}\n" for _ in range(3)))
        if rng.random() < 0.3:
            rows = "".join(f"| {words(1)} | {rng.randint(1, 99)} |\n" for _ in range(4))
            parts.append(f"| item | days |\n|---|---|\n{rows}")
        if rng.random() < 0.2:
            parts.append(f"```\n{words(6)}\n```\n")
    return "\n".join(parts)


def generated_corpus(root: Path, count: int, seed: int = 7) -> Path:
    """Write `count` varied Markdown files, text and HTML files, two bundled PDFs and two bad
    files (a corrupt PDF and Markdown that is not UTF-8) under root."""
    rng = random.Random(seed)
    for i in range(count):
        folder = root / f"part-{i % 5}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"doc-{i:03d}.md").write_text(markdown(rng, i), encoding="utf-8")
    (root / "notes.txt").write_text("Plain notes.\n\nA second paragraph of notes.\n")
    (root / "page.html").write_text("<h1>Page</h1><p>A paragraph in a web page.</p>")
    for source in BUNDLED_PDFS:
        shutil.copy(CORPUS / source, root / Path(source).name)
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    (root / "part-0" / "latin1.md").write_bytes("# Caf\xe9\n".encode("latin-1"))
    (root / "catalog.toml").write_text('["page.html"]\naccess = "public"\n')
    return root
