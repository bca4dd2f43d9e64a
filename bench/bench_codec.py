"""Encode and decode 100,000 Chunk records: the hand-written pair the codec replaced, the codec,
and msgspec (when installed) as the other candidate; then `parse corpus --json` end to end.

    python bench/bench_codec.py [--before CHECKOUT]

--before runs the parse with another checkout's package too (e.g. the commit before the codec),
and checks both write the same bytes.
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from policy_assistant.records import Chunk

N = 100_000
ROOT = Path(__file__).resolve().parent.parent


def hand_to_dict(c: Chunk) -> dict[str, Any]:
    # Chunk.to_dict as it was written by hand before the codec.
    return {
        "id": c.id, "source": c.source, "title": c.title, "version": c.version,
        "access": c.access, "language": c.language, "chunker": c.chunker,
        "position": c.position, "start": c.start, "end": c.end, "pages": list(c.pages),
        "sections": [list(s) for s in c.sections], "text": c.text, "words": c.words,
        "sha256": c.sha256,
    }  # fmt: skip


def hand_from_dict(data: dict[str, Any]) -> Chunk:
    # Chunk.from_dict as it was written by hand before the codec.
    return Chunk(
        id=data["id"], source=data["source"], title=data["title"], version=data["version"],
        access=data["access"], language=data["language"], chunker=dict(data["chunker"]),
        position=data["position"], start=data["start"], end=data["end"],
        pages=tuple(data.get("pages", ())),
        sections=tuple(tuple(s) for s in data.get("sections", ())),
        text=data["text"], words=data["words"], sha256=data.get("sha256", ""),
    )  # fmt: skip


def chunks() -> list[Chunk]:
    chunker = {"name": "structure", "max_words": 300}
    return [
        Chunk(f"{i:016x}", f"dir/doc{i % 500}.md", "A title", "v1", "staff", "en", chunker,
              i % 40, 10 * i, 10 * i + 900, (1, 2), (("Policy", "Scope"), ("Policy", "Terms")),
              "word " * 150, 150, "f" * 64)
        for i in range(N)
    ]  # fmt: skip


def timed(label: str, encode: Any, decode: Any, records: list[Chunk]) -> None:
    # The best of three rounds: the machine is shared, the least disturbed round is the cost.
    best = [float("inf"), float("inf")]
    for _ in range(3):
        # The collector off while timing: else it runs at whatever moment the heap grows.
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        dicts = [encode(c) for c in records]
        middle = time.perf_counter()
        back = [decode(d) for d in dicts]
        end = time.perf_counter()
        gc.enable()
        best = [min(best[0], middle - start), min(best[1], end - middle)]
    assert back == records
    print(f"{label:<12} encode {best[0]:6.3f} s  decode {best[1]:6.3f} s")


def parse_seconds(package_root: Path, out: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(package_root)}
    run = "import sys; from policy_assistant.cli import main; main()"
    command = [sys.executable, "-c", run, "parse", str(ROOT / "corpus")]
    start = time.perf_counter()
    with out.open("wb") as handle:
        subprocess.run([*command, "--json"], env=env, stdout=handle, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, help="a checkout to time the parse against")
    args = parser.parse_args()
    from policy_assistant.codec import from_json_dict, to_json_dict

    records = chunks()
    timed("hand-written", hand_to_dict, hand_from_dict, records)
    timed("codec", to_json_dict, lambda d: from_json_dict(Chunk, d), records)
    try:
        import msgspec
    except ImportError:
        print("msgspec      not installed")
    else:
        timed("msgspec", msgspec.to_builtins, lambda d: msgspec.convert(d, Chunk), records)
    scratch = Path(tempfile.mkdtemp(prefix="bench-codec-"))
    for name, root in (("after", ROOT), ("before", args.before)):
        if root is not None:
            out = scratch / f"{name}.jsonl"
            seconds = min(parse_seconds(root, out) for _ in range(3))
            print(f"parse corpus --json ({name}): {seconds:.3f} s, {out.stat().st_size} bytes")
    if args.before is not None:
        same = (scratch / "after.jsonl").read_bytes() == (scratch / "before.jsonl").read_bytes()
        print("same bytes" if same else "BYTES DIFFER")


if __name__ == "__main__":
    main()
