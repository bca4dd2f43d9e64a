"""bm25, dense and hybrid side by side in eval, per question set: chunkers and the default strategy.

    python bench/eval_rankers.py            # the bundled set and every fetched external set
    python bench/eval_rankers.py --write    # and record the tables in bench/RESULTS.md

Each set is evaluated as `policy-assistant eval --retriever bm25,dense,hybrid --chunker
structure,sentence,fixed,overlapping,semantic --strategy window` would (run_eval, the same
function), with the pinned model; the full JSON report of each set goes to
build/eval-rankers/SET.json. Per set, a row per chunker and ranker: hit@5 and complete@B at 100,
200 and 400 words with their 95% intervals; for a dense or hybrid row its paired difference
from the same chunker's bm25 row; and the semantic chunker's paired difference from structure
under each ranker. heldout-rsync-man is reported apart, after the others, and decides nothing;
heldout-alice, heldout-austen and heldout-northanger, three novels, and heldout-irc, a chat log,
are never run here (eval_context measures them; heldout-northanger is the held-out one).
When questions/external/beir_set.py has written build/external/beir-layout, its nDCG@10, MRR@10
and Recall@100 per ranker follow (its queries are made mechanically: "What does FILE say about
WORD, WORD, ...?", the quoted sentence's longest words). Then, for the paraphrases bm25 was
known to miss, the rank of the first relevant structure chunk and of the first holding the quote
whole under each ranker, 100 deep, and why each is missed.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from results import parse_args, write_section

from policy_assistant.chunk import chunk_documents, make_chunker
from policy_assistant.evaluate.beir_run import run_beir_eval
from policy_assistant.evaluate.dense import EvalModel
from policy_assistant.evaluate.ir_measures import MEASURES
from policy_assistant.evaluate.metrics import holds, is_relevant
from policy_assistant.evaluate.questions import Passage, load_questions
from policy_assistant.evaluate.run import EvalSettings, run_eval
from policy_assistant.evaluate.verdict import versus_bm25
from policy_assistant.index.settings import BM25_DEFAULTS
from policy_assistant.parse import CorpusOptions, read_corpus
from policy_assistant.records import Chunk

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "build" / "models" / "all-MiniLM-L6-v2"
OUT = ROOT / "build" / "eval-rankers"
HELD_OUT = "heldout-rsync-man"
"""Reported apart; never used for a decision."""
NOT_BENCHED = ("heldout-alice", "heldout-austen", "heldout-northanger", "heldout-irc")
"""The novels and the chat log, measured by eval_context only: heldout-northanger is held out
(measured once, after the defaults are fixed); the others were, until their first
measurement."""
CHUNKERS = ("structure", "sentence", "fixed", "overlapping", "semantic")
RANKERS = ("bm25", "dense", "hybrid")
FIGURES = ("hit@k", "complete@100", "complete@200", "complete@400")
PARAPHRASES = {
    ("fhs", "q059"): (
        "time zone files (zoneinfo)",
        "no word in common with its quote ('time zone' against 'Timezone', 'zoneinfo'), so bm25 "
        "cannot score it; the quote is one row of the /usr/share table, kept whole in a chunk of "
        "some 180 words whose vector is the table's, so dense ranks it low too: a limit of "
        "chunk-level vectors over a table, not of the fusion",
    ),
    ("debian-reference", "q020"): (
        "GRUB",
        "bm25 finds the boot loader's section by 'GRUB', but the sentence that answers (it loads "
        "the kernel and initrd and hands control to them) shares no word with the question; "
        "dense reads it as the answer",
    ),
    ("gpl-3", "q017"): (
        "aggregate",
        "the answer's words (inclusion, covered work, aggregate) are not the question's "
        "(putting, disc, other programs), and the whole licence speaks of programs and the GPL: "
        "neither ranker, nor their fusion, singles out the aggregate clause",
    ),
    ("ansible-lint-rules", "q066"): (
        "do warnings make it fail",
        "'not counted as errors, so they do not influence the final outcome' shares no word "
        "with 'make ansible-lint fail'; dense takes it as the answer, and hybrid's bm25 share "
        "(other pages matching 'fail' and 'ansible-lint') holds it just below",
    ),
}
"""The paraphrase questions bm25 was known to miss: (set, question id) -> what they ask, and
why a ranker misses them (read from the texts; the ranks are measured)."""


def sets() -> list[tuple[str, Path, Path]]:
    """Return (name, corpus, questions) of the bundled set and every fetched external set."""
    found = [("bundled", ROOT / "corpus", ROOT / "questions" / "questions.jsonl")]
    for path in sorted((ROOT / "questions" / "external").glob("*.jsonl")):
        corpus = ROOT / "build" / "external" / path.stem
        if corpus.is_dir() and path.stem not in NOT_BENCHED:
            found.append((path.stem, corpus, path))
    held = [s for s in found if s[0] == HELD_OUT]
    return [s for s in found if s[0] != HELD_OUT] + held


def evaluate(name: str, corpus: Path, questions: Path) -> dict[str, Any]:
    """Run eval on one set with every ranker; keep and return its JSON report."""
    settings = EvalSettings(
        chunkers=CHUNKERS, strategies=("window",), rankers=RANKERS, model=MODEL,
        vector_cache=ROOT / "build" / "eval-vectors.npz",
    )  # fmt: skip
    options = CorpusOptions(cache_dir=ROOT / "build" / "parse-cache")
    report = run_eval(corpus, questions, settings, None, options)
    data = report.to_dict(detail=True)
    data["versus_bm25"] = {
        row: {f: d.to_dict() for f, d in figures.items()}
        for row, figures in versus_bm25(report).items()
    }
    data["warnings_seen"] = list(report.warnings)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.json").write_text(json.dumps(data, indent=1), encoding="utf-8")
    return data


def cell(figure: dict[str, float]) -> str:
    """Return `0.818 [0.745-0.882]`."""
    return f"{figure['value']:.3f} [{figure['ci_low']:.3f}-{figure['ci_high']:.3f}]"


def delta(figure: dict[str, float]) -> str:
    """Return `+0.064 [+0.009,+0.118]`."""
    return f"{figure['value']:+.3f} [{figure['ci_low']:+.3f},{figure['ci_high']:+.3f}]"


def table(name: str, data: dict[str, Any]) -> str:
    """Return one set's rows: figures, then each dense or hybrid row's difference from bm25."""
    n = data["settings"]["questions"]["count"]
    lines = [f"{name} ({n} questions)", f"{'row':<34} " + " ".join(f"{f:>22}" for f in FIGURES)]
    for row, figures in data["chunkers"].items():
        values = [figures["hit@k"], *(figures["budgets"][b]["complete"] for b in BUDGETS)]
        lines.append(f"{row:<34} " + " ".join(f"{cell(v):>22}" for v in values))
    for row, figures in data["versus_bm25"].items():
        values = [figures[f] for f in FIGURES]
        lines.append(f"{row + ' - bm25':<34} " + " ".join(f"{delta(v):>22}" for v in values))
    for ranker in RANKERS:
        a, b = (f"{c}+{ranker}" if ranker != "bm25" else c for c in ("semantic", "structure"))
        values = [paired(data, f, a, b) for f in FIGURES]
        lines.append(f"{a + ' - ' + b:<34} " + " ".join(f"{delta(v):>22}" for v in values))
    return "\n".join(lines)


def paired(data: dict[str, Any], figure: str, a: str, b: str) -> dict[str, float]:
    """Return the paired difference a - b on a figure from the report's comparisons."""
    for c in data["comparisons"]:
        if c["metric"] == figure and (c["a"], c["b"]) in ((a, b), (b, a)):
            d = c["difference"]
            if (c["a"], c["b"]) == (a, b):
                return dict(d)
            # 0.0 - x: a zero difference prints +0.000, not -0.000.
            return {"value": 0.0 - d["value"], "ci_low": 0.0 - d["ci_high"],
                    "ci_high": 0.0 - d["ci_low"]}  # fmt: skip
    raise KeyError((figure, a, b))


BUDGETS = ("100", "200", "400")


def paraphrase_lines(name: str, corpus: Path, questions: Path) -> list[str]:
    """Return, for each known paraphrase question of the set, the rank (in the first DEEP) of
    the first relevant structure chunk and of the first holding the quote whole, per ranker,
    through eval's own retrievers."""
    wanted = {qid: about for (set_name, qid), about in PARAPHRASES.items() if set_name == name}
    if not wanted:
        return []
    parsed = read_corpus(corpus, CorpusOptions(cache_dir=ROOT / "build" / "parse-cache"))
    found = load_questions(questions, list(parsed.documents), strict=False).questions
    chunks = tuple(chunk_documents(parsed.documents, make_chunker("structure")))
    model = EvalModel(MODEL, ROOT / "build" / "eval-vectors.npz")
    vectors = model.vectors(chunks)
    lines = []
    for question in (q for q in found if q.id in wanted):
        ranks = []
        for ranker in RANKERS:
            retriever = model.retriever(chunks, vectors, BM25_DEFAULTS, ranker)
            rows = [chunks[row] for row, _ in retriever.search(question, DEEP)]
            touch = first(rows, question.relevant, whole=False)
            whole = first(rows, question.relevant, whole=True)
            ranks.append(f"{ranker} {touch}/{whole}")
        label, why = wanted[question.id]
        wrapped = textwrap.fill(why, 96, initial_indent="  why: ", subsequent_indent="  ")
        lines.append(f"{name} {question.id} ({label}): {', '.join(ranks)}\n{wrapped}")
    return lines


DEEP = 100
"""How deep the paraphrase look-up searches: '-' means not in the first DEEP."""


def first(rows: list[Chunk], passages: Sequence[Passage], whole: bool) -> str:
    """Return the rank (from 1) of the first row relevant to every passage (holding each quote
    whole), or '-'."""
    for rank, chunk in enumerate(rows, 1):
        if all(holds(chunk, p) if whole else is_relevant(chunk, p) for p in passages):
            return str(rank)
    return "-"


BEIR = ROOT / "build" / "external" / "beir-layout"
"""The BEIR folder questions/external/beir_set.py writes, evaluated when present."""


def beir_table() -> str:
    """Return nDCG@10, MRR@10 and Recall@100 per ranker on the BEIR folder (structure chunks),
    and each dense or hybrid row's paired difference from bm25."""
    settings = EvalSettings(
        chunkers=("structure",), rankers=RANKERS, model=MODEL,
        vector_cache=ROOT / "build" / "eval-vectors.npz",
    )  # fmt: skip
    report = run_beir_eval(BEIR, settings)
    n = len(report.queries)
    lines = [f"beir-layout ({n} judged queries)", f"{'row':<24} " +
             " ".join(f"{m:>22}" for m in MEASURES)]  # fmt: skip
    for run in report.runs:
        cells = [cell(report.figures[run.name][m].to_dict()) for m in MEASURES]
        lines.append(f"{run.name:<24} " + " ".join(f"{c:>22}" for c in cells))
    for c in report.comparisons:
        if c.a == "structure" and c.metric == MEASURES[0]:
            pairs = {x.metric: x for x in report.comparisons if (x.a, x.b) == (c.a, c.b)}
            cells = [delta(negate(pairs[m].difference.to_dict())) for m in MEASURES]
            lines.append(f"{c.b + ' - bm25':<24} " + " ".join(f"{x:>22}" for x in cells))
    return "\n".join(lines)


def negate(d: dict[str, float]) -> dict[str, float]:
    """Return the opposite difference (0.0 - x: a zero prints +0.000)."""
    return {"value": 0.0 - d["value"], "ci_low": 0.0 - d["ci_high"], "ci_high": 0.0 - d["ci_low"]}


def main() -> None:
    """Evaluate every set, print the tables, and record them when asked."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", action="append", help="evaluate only these sets")
    args = parse_args(parser)
    blocks, paraphrases = [], []
    for name, corpus, questions in sets():
        if args.only and name not in args.only:
            continue
        data = evaluate(name, corpus, questions)
        blocks.append(table(name + (" (HELD OUT: decides nothing)" if name == HELD_OUT else ""),
                            data))  # fmt: skip
        paraphrases += paraphrase_lines(name, corpus, questions)
        print(blocks[-1], flush=True)
    if BEIR.is_dir() and not args.only:
        blocks.append(beir_table())
        print(blocks[-1], flush=True)
    text = "\n\n".join(blocks)
    found = "\n".join(paraphrases)
    print(found)
    if args.write:
        body = (
            f"Model {MODEL.name}; chunkers {', '.join(CHUNKERS)} and the strategy window "
            "(its units ranked by each ranker, as search --budget --ranker ranks them). "
            "hit@k is hit@5. beir-layout's "
            "queries are bags of the quote's longest words, made by questions/external/"
            "chroma_set.py, not questions a person asks.\n\n"
            f"```\n{text}\n```\n\nThe paraphrases bm25 was known to miss, structure chunks: "
            f"per ranker, the rank of the first relevant chunk (as hit@k counts it) / of the first "
            f"holding the quote whole, in the first {DEEP} ('-': not there).\n\n```\n{found}\n```\n"
        )
        write_section("eval_rankers", body)


if __name__ == "__main__":
    main()
