"""What a context budget counts: words (the default) or tokens of tiktoken's `cl100k_base`.

Words are those of `text.count_words` over a chunk's whole text, prefix included, as every
chunk's `words` field counts them. Tokens are `cl100k_base` tokens of the same text, counted by
tiktoken (`pip install 'policy-assistant[tokens]'`), the one module that imports it.

tiktoken downloads an encoding's file at first use, which eval never does: the file must
already be on the machine, where tiktoken's own cache keeps it (as ENCODING_FILE). It is looked
for, in this order, in the folder `$TIKTOKEN_CACHE_DIR` names (tiktoken's variable: any folder
the user chooses), in `$DATA_GYM_CACHE_DIR` (tiktoken's older name for it), in tiktoken's default
cache (`data-gym-cache` in the temporary folder, where a `tiktoken.get_encoding("cl100k_base")`
run with the network on leaves it), and in the copy llama-index-core ships (MIT; it comes with
the `peers` and `dev` extras, which is how tests and CI have it). Each candidate is checked
against ENCODING_SHA256, the digest shipped here, before tiktoken is pointed at its folder.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from importlib import metadata, util
from pathlib import Path
from typing import Any

from policy_assistant.errors import UsageError
from policy_assistant.records import Chunk
from policy_assistant.text import count_words

WORDS = "words"
"""Budgets in words of the chunk's text, prefix included."""
TOKENS = "tokens"
"""Budgets in tokens of ENCODING."""
BUDGET_UNITS = (WORDS, TOKENS)
"""Every unit `--budget-unit` takes; the first is the default."""
ENCODING = "cl100k_base"
"""The tokenizer budgets in tokens count with."""
ENCODING_FILE = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"
"""The name tiktoken's cache gives the encoding's file (SHA-1 of its download address)."""
ENCODING_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
"""SHA-256 of the file, as tiktoken itself checks it."""
CACHE_VARIABLE = "TIKTOKEN_CACHE_DIR"
"""tiktoken's environment variable naming its cache folder."""
OLD_CACHE_VARIABLE = "DATA_GYM_CACHE_DIR"
"""The variable tiktoken reads when CACHE_VARIABLE is not set."""
DEFAULT_CACHE = "data-gym-cache"
"""tiktoken's cache folder, in the temporary folder, when neither variable is set."""


def check_unit(unit: str) -> None:
    """Raise UsageError unless the unit is known and, for tokens, its tokenizer can load."""
    if unit not in BUDGET_UNITS:
        raise UsageError(f"--budget-unit takes {' or '.join(BUDGET_UNITS)}, got {unit!r}")
    if unit == TOKENS:
        encoding()


COUNT_CACHE_LIMIT = 1 << 18
"""Texts whose token counts are kept; past it the cache starts again."""
_token_counts: dict[str, int] = {}


def budget_sizes(chunks: Sequence[Chunk], unit: str) -> list[int]:
    """Return each chunk's size in the unit: its words, or its text's tokens."""
    if unit == WORDS:
        return [c.words for c in chunks]
    return token_counts([c.text for c in chunks])


def measure_of(unit: str) -> Callable[[str], int]:
    """Return what counts the unit in one text: words, or cl100k_base tokens."""
    if unit == WORDS:
        return count_words
    return lambda text: token_counts([text])[0]


def token_counts(texts: Sequence[str]) -> list[int]:
    """Return the cl100k_base tokens of each text, each distinct text encoded once.

    Variants of one sweep share many chunk texts, and the reading lines ask again for sizes
    the scoring already counted, so counts are kept by text.
    """
    missing = [t for t in dict.fromkeys(texts) if t not in _token_counts]
    if missing:
        batch = encoding().encode_ordinary_batch(missing, num_threads=os.cpu_count() or 1)
        counts = [len(tokens) for tokens in batch]
        if len(_token_counts) + len(missing) > COUNT_CACHE_LIMIT:
            _token_counts.clear()
        _token_counts.update(zip(missing, counts, strict=True))
    return [_token_counts[t] for t in texts]


def unit_settings(unit: str) -> dict[str, Any]:
    """Return the unit as the report records it: its name, and for tokens the tokenizer."""
    if unit == WORDS:
        return {"name": WORDS}
    return {"name": TOKENS, "encoding": ENCODING, "tiktoken": metadata.version("tiktoken")}


def unit_of(settings: dict[str, Any]) -> str:
    """Return the unit a report's settings record (words for a report from before the option)."""
    return str(settings.get("budget_unit", {}).get("name", WORDS))


def unit_label(unit: str) -> str:
    """Return how a table names the unit: `words`, or `cl100k_base tokens`."""
    return WORDS if unit == WORDS else f"{ENCODING} tokens"


def forget_token_counts() -> None:
    """Drop the kept token counts (a benchmark's next run then counts every text again)."""
    _token_counts.clear()


@cache
def encoding() -> Any:
    """Return tiktoken's cl100k_base, loaded from a file on this machine, never downloaded."""
    try:
        import tiktoken
    except ImportError:
        raise UsageError(
            "--budget-unit tokens needs the tokens extra: pip install 'policy-assistant[tokens]' "
            "(tiktoken is not installed)"
        ) from None
    folder = encoding_folder()
    with _cache_folder(folder):
        return tiktoken.get_encoding(ENCODING)


def encoding_folder() -> Path:
    """Return a folder holding cl100k_base's file, checked; UsageError says where to put one."""
    for folder in candidate_folders():
        path = folder / ENCODING_FILE
        if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == ENCODING_SHA256:
            return folder
    raise UsageError(
        f"--budget-unit tokens needs the {ENCODING} encoding file, which is never downloaded: "
        f"put the file ({ENCODING}.tiktoken, SHA-256 {ENCODING_SHA256[:12]}...) in a folder as "
        f"{ENCODING_FILE} and set {CACHE_VARIABLE} to that folder, or fill tiktoken's cache "
        f'once with the network on: python -c "import tiktoken; '
        f"tiktoken.get_encoding('{ENCODING}')\""
    )


def candidate_folders() -> list[Path]:
    """Return where the encoding file may be: tiktoken's cache folders, then llama-index-core's."""
    folders = [
        Path(os.environ[name])
        for name in (CACHE_VARIABLE, OLD_CACHE_VARIABLE)
        if os.environ.get(name)
    ]
    folders.append(Path(tempfile.gettempdir()) / DEFAULT_CACHE)
    spec = util.find_spec("llama_index.core") if util.find_spec("llama_index") else None
    for location in (spec.submodule_search_locations or []) if spec else []:
        folders.append(Path(location) / "_static" / "tiktoken_cache")
    return folders


@contextmanager
def _cache_folder(folder: Path) -> Iterator[None]:
    """Point tiktoken's cache at `folder` while the encoding loads, then put it back."""
    before = os.environ.get(CACHE_VARIABLE)
    os.environ[CACHE_VARIABLE] = str(folder)
    try:
        yield
    finally:
        if before is None:
            del os.environ[CACHE_VARIABLE]
        else:
            os.environ[CACHE_VARIABLE] = before
