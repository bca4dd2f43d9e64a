"""The Ray engine against the local pool: one generated corpus, the same warm-up, one run each.

The corpus (written once, deterministically): 2,000 generated Markdown files
(bench_ingest.write_documents, seed 2) and 50 PDFs, the bundled corpus's 15 copied in turn
into folders of their own (a PDF's source differs, so each is parsed). For each worker count
from 1 to this machine's cores, each engine runs in a fresh process of its own (forking needs
a process without Ray's threads): one untimed ingest (the warm-up: page cache, parser imports,
and for Ray the cluster started and its worker processes importing the parsers), then one timed
cold ingest into a new folder with its own new parse cache, so every file is parsed. Ray runs
on a local cluster of `workers` CPUs started in that process before the warm-up (its start is
shown apart: a joined cluster is already up). `--workers 1` locally is this process alone.

Printed per run: wall seconds, the one-minute load average just before it, files per second
per worker process, CPU seconds (this process and its forked workers; for Ray, the driver
and the CPU its workers report per batch, Ray's own daemons left out), and for Ray the
batches, the seconds its workers spent in them, and the stages (discovery, parse and chunk on
the cluster, index write on the driver). Per worker
count: the overhead, Ray's wall time over the local pool's (the floor asked for is 1.3).
`--write` records the table in bench/RESULTS.md. `--ray-address ADDR` joins an existing
cluster for the Ray runs (whatever its size; the corpus and scratch folder, under build/, must
be visible to this driver only: the driver sends the files' bytes).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RUSAGE_CHILDREN = resource.RUSAGE_CHILDREN
MARKDOWN, PDFS = 2_000, 50


def write_corpus(root: Path) -> int:
    """Write the corpus under root (once); return its file count."""
    from bench_ingest import write_documents

    if not (root / "done").exists():
        shutil.rmtree(root, ignore_errors=True)
        write_documents(root / "markdown", MARKDOWN, 2)
        bundled = sorted((ROOT / "corpus").rglob("*.pdf"))
        for number in range(PDFS):
            pdf = bundled[number % len(bundled)]
            target = root / f"pdf-{number // len(bundled):02d}" / pdf.relative_to(ROOT / "corpus")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(pdf, target)
        (root / "done").write_text("")  # not a document: skipped by discovery
    return MARKDOWN + PDFS


def cpu_seconds() -> float:
    """Return the CPU seconds of this process and of its reaped children (forked workers)."""
    own, children = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def one(
    engine: str, workers: int, corpus: Path, scratch: Path, address: str | None = None
) -> dict[str, Any]:
    """In this process: the warm-up and one timed cold ingest; return the figures (on Ray, a
    local cluster of `workers` CPUs, or the cluster at `address`, whatever its size)."""
    from policy_assistant.chunk import make_chunker
    from policy_assistant.ingest.pipeline import ingest
    from policy_assistant.parse import CorpusOptions
    from policy_assistant.procs.engine import Engine

    figures: dict[str, Any] = {"engine": engine, "workers": workers}
    if engine == "ray":
        import logging

        import ray

        began = time.perf_counter()
        size = {"num_cpus": workers} if address is None else {}
        ray.init(address=address or "local", include_dashboard=False, log_to_driver=False,
                 logging_level=logging.ERROR, **size)  # fmt: skip
        figures["ray_init_s"] = time.perf_counter() - began
        figures["workers"] = int(ray.cluster_resources().get("CPU", workers))
    chunker = make_chunker("structure")
    reports = []
    for name in ("warm-up", "timed"):
        chosen = Engine("ray") if engine == "ray" else None
        options = CorpusOptions(workers=workers, engine=chosen)
        figures["load"] = os.getloadavg()[0]
        began, cpu = time.perf_counter(), cpu_seconds()
        summary = ingest(corpus, scratch / name / "index", chunker, options=options)
        figures["wall_s"] = time.perf_counter() - began
        figures["cpu_s"] = cpu_seconds() - cpu
        figures["chunks"] = summary.chunks
        reports.append((chosen, began, time.perf_counter()))
    chosen, began, ended = reports[-1]
    if chosen is not None:
        report = chosen.report
        figures.update(
            batches=report.batches_done,
            batch_s=sum(report.batch_seconds),
            batch_cpu_s=sum(report.batch_cpu),
            files=sum(report.batch_files),
            discover_s=report.opened - began,
            parse_s=report.closed - report.opened,
            driver_cpu_s=report.driver_cpu,
            write_s=ended - report.closed,
        )
    return figures


def run(
    engine: str, workers: int, corpus: Path, scratch: Path, address: str | None = None
) -> dict[str, Any]:
    """Run `one` in a fresh process; return its figures."""
    folder = Path(tempfile.mkdtemp(dir=scratch))
    args = [sys.executable, __file__, "--one", engine, str(workers), str(corpus), str(folder)]
    args += ["--ray-address", address] if address else []
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    shutil.rmtree(folder, ignore_errors=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def line(figures: dict[str, Any], files: int) -> str:
    """Return one run's line."""
    per_worker = files / figures["wall_s"] / figures["workers"]
    cpu = figures["cpu_s"] + figures.get("batch_cpu_s", 0.0)  # Ray's workers: not our children
    text = (
        f"{figures['engine']:5} workers {figures['workers']}  wall {figures['wall_s']:6.2f} s  "
        f"load {figures['load']:4.1f}  {per_worker:6.0f} files/s per worker  CPU {cpu:5.2f} s"
    )
    if figures["engine"] == "ray":
        text += (
            f"  (ray start {figures['ray_init_s']:.1f} s apart; {figures['batches']} batches, "
            f"{figures['batch_s']:.2f} s, {figures['batch_cpu_s']:.2f} s CPU in workers; "
            f"discover {figures['discover_s']:.2f} s, "
            f"parse+chunk {figures['parse_s']:.2f} s (driver CPU {figures['driver_cpu_s']:.2f} s), "
            f"index write {figures['write_s']:.2f} s)"
        )
    return text


def main() -> None:
    """Compare the engines at 1 to this machine's cores and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", nargs=4, metavar=("ENGINE", "WORKERS", "CORPUS", "SCRATCH"))
    parser.add_argument("--max-workers", type=int, default=None)
    parser.add_argument("--ray-address", help="join this cluster for the Ray runs (its size)")
    from results import parse_args, write_section  # bench/ is on sys.path when run from it

    args = parse_args(parser)
    if args.one:
        engine, workers, corpus, scratch = args.one
        figures = one(engine, int(workers), Path(corpus), Path(scratch), args.ray_address)
        print(json.dumps(figures))
        return
    from policy_assistant.procs.pool import machine_cores

    scratch = ROOT / "build" / "bench-ray"
    scratch.mkdir(parents=True, exist_ok=True)
    files = write_corpus(scratch / "corpus")
    printed = [f"corpus: {MARKDOWN:,} Markdown files and {PDFS} PDFs; load = 1-min average"]
    print(printed[0])
    for workers in range(1, (args.max_workers or machine_cores()) + 1):
        local = run("local", workers, scratch / "corpus", scratch)
        on_ray = run("ray", workers, scratch / "corpus", scratch, args.ray_address)
        for figures in (local, on_ray):
            printed.append(line(figures, files))
            print(printed[-1])
        ratio = on_ray["wall_s"] / local["wall_s"]
        printed.append(f"      workers {workers}  overhead ray/local {ratio:.2f}x (floor 1.30x)")
        print(printed[-1], flush=True)
    write_section("bench_ray", "```\n" + "\n".join(printed) + "\n```")


if __name__ == "__main__":
    main()
