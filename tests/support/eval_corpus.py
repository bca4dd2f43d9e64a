"""A small generated corpus and questions for the eval tests (test_eval_support.py checks it)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from policy_assistant.parse import parse_path
from policy_assistant.records import Document
from support.corpora import write_corpus

CATALOG = """\
["guides/washer-a.md"]
access = "public"
["guides/washer-b.md"]
access = "public"
["policies/warranty.md"]
access = "public"
["policies/garantie.md"]
access = "public"
language = "fr"
["staff/refunds.md"]
access = "staff"
"""

WARRANTY = """\
# Warranty policy

Every product we sell carries a warranty against defects in materials and workmanship.
Keep your receipt: it is your proof of purchase.

## Warranty periods

| Product | Period |
|---|---|
| Lawn mower | 3 years |
| Sprinkler system | 2 years |
| Hose reel | 1 year |
| Greenhouse frame | 10 years |

## Exclusions

Damage caused by frost, misuse or commercial use is not covered.
Batteries are consumables and are covered for six months only.

### Claims

To claim, bring the product and the receipt to any store. We repair, replace or refund
at our choice within fourteen days of the claim.
"""

GARANTIE = """\
# Politique de garantie

## Durée

Les tondeuses sont garanties trois ans à compter de la date d'achat.
"""


def washer(model: str, pressure: str) -> str:
    """Return one of two near-identical pressure washer guides."""
    return f"""\
# Pressure washer {model}

## Setting up

Connect the garden hose to the inlet and open the tap fully before starting the motor.

## Cleaning the nozzle

Switch off and unplug the washer. Clear the {model} nozzle with the pin supplied, then
flush it with water for {pressure} seconds.
"""


REFUNDS = """\
# Refund procedure

## Manager override

A refund over 500 pounds without a receipt needs a manager override code from the duty
manager, entered at the till before the refund is processed.
"""

QUESTIONS: list[dict[str, Any]] = [
    {
        "id": "sprinkler",
        "question": "How long is the sprinkler system warranty?",
        "audience": "public",
        "relevant": [
            {
                "source": "policies/warranty.md",
                "section": "Warranty periods",
                "evidence": "Sprinkler system | 2 years",
            }
        ],
        "tags": ["table"],
    },
    {
        "id": "batteries",
        "question": "Are batteries covered by the warranty?",
        "audience": "public",
        "relevant": [
            {
                "source": "policies/warranty.md",
                "section": "Exclusions",
                "evidence": "Batteries are consumables and are covered for six months only.",
            }
        ],
    },
    {
        "id": "claim",
        "question": "What do I bring to claim on the warranty?",
        "audience": "public",
        "relevant": [
            {
                "source": "policies/warranty.md",
                "section": "Claims",
                "evidence": "bring the product and the receipt to any store",
            }
        ],
    },
    {
        "id": "nozzle-b",
        "question": "How long do I flush the PW-B nozzle?",
        "audience": "public",
        "relevant": [
            {
                "source": "guides/washer-b.md",
                "section": "Cleaning the nozzle",
                "evidence": "Clear the PW-B nozzle with the pin supplied, then\nflush it with "
                "water for 45 seconds.",
            }
        ],
    },
    {
        "id": "override",
        "question": "Who gives the override code for a refund without a receipt?",
        "audience": "staff",
        "relevant": [
            {
                "source": "staff/refunds.md",
                "evidence": "needs a manager override code from the duty manager",
            }
        ],
    },
    {
        "id": "tondeuse",
        "question": "Combien de temps les tondeuses sont-elles garanties ?",
        "audience": "public",
        "relevant": [
            {
                "source": "policies/garantie.md",
                "section": "Durée",
                "evidence": "Les tondeuses sont garanties trois ans",
            }
        ],
    },
    {
        "id": "two-documents",
        "question": "How long are lawn mowers guaranteed, in English and in French?",
        "audience": "public",
        "relevant": [
            {"source": "policies/warranty.md", "evidence": "Lawn mower | 3 years"},
            {"source": "policies/garantie.md", "evidence": "garanties trois ans"},
        ],
    },
]
"""Questions that pass validation against the corpus write_eval_corpus makes."""


def write_eval_corpus(root: Path) -> Path:
    """Write the small eval corpus (Markdown files and a catalog) under root and return root."""
    return write_corpus(
        root,
        {
            "catalog.toml": CATALOG,
            "policies/warranty.md": WARRANTY,
            "policies/garantie.md": GARANTIE,
            "guides/washer-a.md": washer("PW-A", "30"),
            "guides/washer-b.md": washer("PW-B", "45"),
            "staff/refunds.md": REFUNDS,
        },
    )


def write_questions(path: Path, questions: list[dict[str, Any]]) -> Path:
    """Write questions as JSON lines and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions))
    return path


def parsed_corpus(root: Path) -> list[Document]:
    """Write the corpus under root and return its parsed documents."""
    result = parse_path(write_eval_corpus(root))
    assert not result.failures
    return result.documents


def three_bad() -> list[dict[str, Any]]:
    """The good questions with three broken in three different ways."""
    questions = copy.deepcopy(QUESTIONS)
    questions[0]["relevant"][0]["source"] = "policies/warranty.pdf"
    questions[2]["relevant"][0]["evidence"] = "a quote nobody wrote"
    questions[4]["audience"] = "everyone"
    return questions
