"""Which model an ingest embeds with: the one asked for, else the index's own (sticky).

An index that was built with `--embed MODEL` keeps embedding with it, as it keeps its chunker:
a later ingest without the option resolves the recorded model again (a folder, or a name in
the local caches; nothing is downloaded). `--no-embed` drops the vectors. The dense extra
(onnxruntime, tokenizers) is imported only here, and only when an embedding is asked for.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from policy_assistant.embed.encoder import INSTALL_HINT as INSTALL
from policy_assistant.errors import BadIndex, UsageError
from policy_assistant.index.store.reader import load_manifest
from policy_assistant.index.store.vectors import Embedding

RUNTIMES = ("auto", "onnx", "numpy")
"""What may run a model (embed/encoder.py's runtimes)."""
DEFAULT_RUNTIME = "auto"
"""onnxruntime when the model folder ships an ONNX export, else the numpy forward pass."""
HINT = f"meaning-aware search: {INSTALL}, then ingest --embed MODEL"
"""The one line a user without the extra is shown by ingest."""


@dataclass(frozen=True)
class EmbedChoice:
    """The model an ingest embeds with (None: no vectors), and what it changed or kept."""

    model: str | None
    """A model folder or cache name, as recorded; None for an index without vectors."""
    runtime: str
    """auto, onnx or numpy."""
    changed: tuple[str, ...] = ()
    """What the options changed from the index, one phrase each."""
    kept: tuple[str, ...] = ()
    """What was kept from the index because no option was given."""


def sticky_embedding(
    index_dir: Path, model: str | None, runtime: str | None, drop: bool
) -> EmbedChoice:
    """Return the model to embed with: the one given, none with drop, else the index's."""
    if model is not None and drop:
        raise UsageError("--embed adds vectors and --no-embed drops them: give one")
    try:
        recorded = load_manifest(index_dir).embedding or {}
    except BadIndex:  # no index yet: nothing is changed from it
        return EmbedChoice(None if drop else model and _recorded_spec(model), runtime or "auto")
    old_model, old_runtime = recorded.get("model"), recorded.get("runtime", DEFAULT_RUNTIME)
    if drop:
        changed = (f"embedding {old_model} -> none",) if old_model else ()
        return EmbedChoice(None, DEFAULT_RUNTIME, changed)
    chosen = _recorded_spec(model) if model is not None else old_model
    chosen_runtime = runtime or (old_runtime if model is None else DEFAULT_RUNTIME)
    if chosen is None:
        return EmbedChoice(None, chosen_runtime)
    if model is None:
        return EmbedChoice(chosen, chosen_runtime, kept=(f"embedding {chosen} {chosen_runtime}",))
    before = f"{old_model} {old_runtime}" if old_model else "none"
    after = f"{chosen} {chosen_runtime}"
    changed = (f"embedding {before} -> {after}",) if before != after else ()
    return EmbedChoice(chosen, chosen_runtime, changed)


def _recorded_spec(model: str) -> str:
    """Return the model as the index records it: a folder as an absolute path, a name as is."""
    path = Path(model).expanduser()
    return str(path.resolve()) if path.is_dir() else model


def dense_missing(runtime: str = DEFAULT_RUNTIME) -> list[str]:
    """Return the dense extra's modules that cannot be imported (numpy needs no onnxruntime)."""
    wanted = ["tokenizers"] if runtime == "numpy" else ["onnxruntime", "tokenizers"]
    return [name for name in wanted if importlib.util.find_spec(name) is None]


def load_embedding(choice: EmbedChoice) -> Embedding | None:
    """Return the embedding chosen (None for none); a one-line error when the extra is missing."""
    model, runtime = choice.model, choice.runtime
    if model is None:
        return None
    missing = dense_missing(runtime)
    if missing and choice.kept:
        raise UsageError(
            f"this index embeds with {model}, which needs {' and '.join(missing)} (the dense "
            f"extra): {INSTALL}, or ingest --no-embed to drop its vectors"
        )
    if missing:
        raise UsageError(f"--embed needs {' and '.join(missing)} (the dense extra): {INSTALL}")
    from policy_assistant.embed.encoder import Encoder
    from policy_assistant.embed.model import resolve_model

    return Embedding(Encoder(resolve_model(model), runtime), model, runtime)
