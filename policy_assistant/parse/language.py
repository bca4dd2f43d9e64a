"""Detect a document's language when neither the catalog nor the front matter gives one.

Scripts decide first, with no model: text whose letters are mostly Hangul is Korean ("ko");
mostly Han and kana is Japanese ("ja") when a tenth or more of those are kana, else Chinese
("zh"). Other text goes to py3langid (langid.py's model, shipped inside the wheel: nothing is
fetched at run time), on at most SAMPLE_CHARACTERS characters taken evenly from the text. The
answer is the ISO 639-1 code when the model is at least MIN_CONFIDENCE sure; text with fewer
than MIN_LETTERS letters, or an unsure model, gives `default`. The model loads once per
process, on the first text that needs it: unpacking its LZMA file takes about 0.45 s (3.0 s
on the shared 2-core machine at a load average of 9), so a read with a parse cache keeps the
unpacked arrays there and later processes map them (0.05 s). This is the only py3langid import.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import unicodedata
from array import array
from functools import cache
from pathlib import Path
from typing import Any

MIN_LETTERS = 40
"""Fewer letters than this say too little: the default is kept."""

MIN_CONFIDENCE = 0.6
"""Lowest normalized probability of the model's answer that replaces the default."""

SAMPLE_CHARACTERS = 20_000
"""Characters of a long text the model reads, in five even slices: enough, and fast."""

_HAN = ("CJK UNIFIED", "CJK COMPATIBILITY IDEOGRAPH")
_MODEL_ALIASES = {"wuu": "zh", "yue": "zh", "nb": "no", "nn": "no"}


def detect_language(text: str, default: str) -> str:
    """Return the ISO 639-1 code of text's language, or `default` when the text cannot tell."""
    letters = [c for c in text[: SAMPLE_CHARACTERS * 5] if c.isalpha()]
    if len(letters) < MIN_LETTERS:
        return default
    by_script = _script_language(letters)
    if by_script:
        return by_script
    language, confidence = _identifier().classify(_sample(text))
    if float(confidence) < MIN_CONFIDENCE:
        return default
    return _MODEL_ALIASES.get(str(language), str(language))


def _script_language(letters: list[str]) -> str | None:
    """Return "ko", "ja" or "zh" when the letters are mostly of those scripts."""
    han = kana = hangul = 0
    for char in letters:
        if char.isascii():
            continue
        name = unicodedata.name(char, "")
        if name.startswith(_HAN):
            han += 1
        elif name.startswith(("HIRAGANA", "KATAKANA", "HALFWIDTH KATAKANA")):
            kana += 1
        elif name.startswith("HANGUL"):
            hangul += 1
    half = len(letters) / 2
    if hangul > half:
        return "ko"
    if han + kana > half:
        return "ja" if kana * 10 >= han + kana else "zh"
    return None


def _sample(text: str) -> str:
    if len(text) <= SAMPLE_CHARACTERS:
        return text
    step = len(text) // 5
    size = SAMPLE_CHARACTERS // 5
    return "\n".join(text[i * step : i * step + size] for i in range(5))


MODEL_FOLDER: Path | None = None
"""Where the model is kept unpacked between processes (use_model_folder), or nowhere."""
_ARRAYS = ("nb_ptc", "nb_pc", "nb_classes", "tk_nextmove", "tk_row", "tk_output")


def use_model_folder(folder: Path | None) -> None:
    """Keep the unpacked model under folder (the parse cache's), so that the next process
    maps it instead of unpacking it: 0.5 s of LZMA on every ingest that detects a language."""
    global MODEL_FOLDER
    MODEL_FOLDER = folder


@cache
def _identifier() -> Any:
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier  # heavy: when needed

    kept = _kept_folder(MODEL_DIR / MODEL_FILE)
    if kept is not None and kept.is_dir():
        try:
            return _mapped(LanguageIdentifier, kept)
        except (OSError, ValueError, KeyError):
            shutil.rmtree(kept, ignore_errors=True)  # damaged: unpacked again below
    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    if kept is not None:
        _unpack(identifier, kept)
    return identifier


def _kept_folder(model: Path) -> Path | None:
    """Return where this model file's unpacked arrays are kept (named by its bytes' hash)."""
    if MODEL_FOLDER is None:
        return None
    try:
        digest = hashlib.sha256(model.read_bytes()).hexdigest()[:24]
    except OSError:
        return None
    return MODEL_FOLDER / "models" / f"py3langid-{digest}"


def _mapped(identifier: Any, folder: Path) -> Any:
    """Return an identifier over the arrays kept in folder (the big table memory-mapped)."""
    import numpy as np  # py3langid's own dependency, loaded with it

    arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r") for name in _ARRAYS}
    nextmove, row = _stdlib(arrays["tk_nextmove"]), _stdlib(arrays["tk_row"])
    classes, output = arrays["nb_classes"].tolist(), arrays["tk_output"].tolist()
    ptc, pc = arrays["nb_ptc"], np.asarray(arrays["nb_pc"])
    return identifier(ptc, pc, classes, nextmove, output, norm_probs=True, tk_row=row)


_TYPECODES = {2: "H", 4: "I", 8: "Q"}


def _stdlib(values: Any) -> array[int]:
    """Return an unsigned integer array as the stdlib array py3langid indexes (one copy)."""
    out = array(_TYPECODES[values.dtype.itemsize])
    out.frombytes(memoryview(values).cast("B"))
    return out


def _unpack(identifier: Any, folder: Path) -> None:
    """Write the identifier's arrays into folder, whole or not at all (renamed into place)."""
    import numpy as np  # py3langid's own dependency, loaded with it

    tmp = folder.with_name(f".{folder.name}.{os.getpid()}.tmp")
    try:
        tmp.mkdir(parents=True, exist_ok=True)
        for name in _ARRAYS:
            value = getattr(identifier, name)
            if isinstance(value, array):
                value = np.frombuffer(value, dtype=f"u{value.itemsize}")
            np.save(tmp / f"{name}.npy", np.asarray(value), allow_pickle=False)
        tmp.rename(folder)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)  # another process won, or no room: only slower
