"""The eval report as one self-contained page, in the inspect page's style.

`render_eval_html(report, chunks)` takes the report's JSON form (EvalReport.to_dict()) and,
optionally, the chunks by ID so each retrieved chunk's text can be shown with the evidence
highlighted in it. The page holds the chunker x budget table, a chart of hit@B and complete@B
against B (inline SVG), and per question what each chunker retrieved and why a miss missed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from policy_assistant.evaluate.budget_units import unit_label, unit_of
from policy_assistant.inspect.html import asset, fill, notes_html, script_json
from policy_assistant.inspect.summary import spec_label
from policy_assistant.inspect.svg_chart import Series, line_chart
from policy_assistant.records import Chunk

BUDGET_FIGURES = ("hit", "recall", "complete", "evidence")
"""The figures of each budget, in the order the table shows them."""
CHARTED = (("hit", "hit@B"), ("complete", "complete@B"))
"""The figures drawn against the budget."""
MARKS = {"complete": "●", "hit": "◐", "miss": "○"}
"""A question's outcome at one budget: quote whole in context, relevant only, or neither."""


def _interval(figure: Mapping[str, float]) -> str:
    return f"{figure['value']:.3f}<small>[{figure['ci_low']:.2f}, {figure['ci_high']:.2f}]</small>"


def _budgets(report: Mapping[str, Any]) -> list[int]:
    return [int(b) for b in report["settings"]["budgets"]]


def _best(runs: Mapping[str, Any], budgets: list[int]) -> dict[str, float]:
    """Return the best value of each figure over the chunkers, keyed by its name."""
    best: dict[str, float] = {}
    for run in runs.values():
        named = {"hit@k": run["hit@k"]["value"]}
        for budget in budgets:
            at = run["budgets"][str(budget)]
            named.update({f"{f}@{budget}": at[f]["value"] for f in BUDGET_FIGURES})
        for name, value in named.items():
            best[name] = max(best.get(name, value), value)
    return best


def _figure_table(report: Mapping[str, Any]) -> str:
    """Return the chunker x budget table: each figure with its interval, the best in bold."""
    runs: Mapping[str, Any] = report["chunkers"]
    budgets = _budgets(report)
    best = _best(runs, budgets)
    k = report["settings"].get("k", "k")
    head = "".join(
        f'<th scope="col">{name}</th>'
        for name in ("chunker", "chunks", f"hit@{k}", f"words in top {k}", "budget B")
    )
    head += "".join(f'<th scope="col">{f}@B</th>' for f in BUDGET_FIGURES)
    head += '<th scope="col" title="complete@B if ranking were perfect">ceiling@B</th>'
    head += '<th scope="col" title="questions whose context is empty">empty</th>'
    head += '<th scope="col" title="contexts holding the first result cut to B">cut</th>'
    head += f'<th scope="col" title="{MISS_TITLE}">miss chunk/rank</th>'
    rows = []
    for name, run in runs.items():
        span = f' rowspan="{len(budgets)}"'
        lead = (
            f'<th scope="rowgroup"{span}>{escape(spec_label(run["spec"]))}</th>'
            f'<td class="n"{span}>{run["chunks"]}</td>'
            + _cell(run["hit@k"], best["hit@k"], "hit@k", span)
            + f'<td class="n"{span}>{run["words@k_median"]["value"]:g}</td>'
        )
        for i, budget in enumerate(budgets):
            at = run["budgets"][str(budget)]
            cells = [f'<td class="n budget">{budget}</td>']
            for figure in BUDGET_FIGURES:
                named = f"{figure}@{budget}"
                cells.append(_cell(at[figure], best[named], named))
            cells += _limit_cells(at)
            first = lead if i == 0 else ""
            rows.append(f'<tr data-chunker="{escape(name)}">{first}{"".join(cells)}</tr>')
    return (
        f'<table class="figures-table" id="figures"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


MISS_TITLE = (
    "incomplete contexts: no set of the row's chunks within B holds the evidence (chunking) / "
    "one does, but ranking did not bring it (ranking)"
)
"""What the miss column counts."""


def _limit_cells(at: Mapping[str, Any]) -> list[str]:
    """Return one budget's ceiling, empty and cut contexts, and chunking/ranking misses."""
    misses = at.get("misses", {})
    split = f"{misses.get('chunking', 0)}/{misses.get('ranking', 0)}"
    ceiling = at.get("ceiling")
    return [
        f'<td class="n" data-figure="ceiling">{_interval(ceiling) if ceiling else ""}</td>',
        f'<td class="n">{at["empty_contexts"]}</td>',
        f'<td class="n">{at.get("cut_contexts", 0)}</td>',
        f'<td class="n" data-figure="misses">{split}</td>',
    ]


def _cell(figure: Mapping[str, float], best: float, name: str, span: str = "") -> str:
    mark = ' class="n best"' if figure["value"] == best else ' class="n"'
    value = figure["value"]
    return f'<td{mark}{span} data-figure="{name}" data-value="{value}">{_interval(figure)}</td>'


def charts(report: Mapping[str, Any]) -> str:
    """Return the charts of hit@B and complete@B against B, one line per chunker."""
    budgets = _budgets(report)
    out = []
    for figure, label in CHARTED:
        series = [
            Series(
                name,
                tuple(run["budgets"][str(b)][figure]["value"] for b in budgets),
                tuple(run["budgets"][str(b)][figure]["ci_low"] for b in budgets),
                tuple(run["budgets"][str(b)][figure]["ci_high"] for b in budgets),
            )
            for name, run in report["chunkers"].items()
        ]
        title = f"{label} by budget (shaded: 95% interval)"
        out.append(line_chart(figure, title, budgets, series, ("budget B (words)", label)))
    return "".join(out)


def _outcome_mark(at: Mapping[str, Any]) -> str:
    """Return ●, ◐ or ○ for one question's context at one budget."""
    if at["complete"]:
        return MARKS["complete"]
    return MARKS["hit"] if at["hit"] else MARKS["miss"]


def _chip_word(budget: int, at: Mapping[str, Any]) -> str:
    """Return a budget's outcome in a chip's title: `100: below budget (ranking miss)`."""
    word = f"{budget}: {at['miss'] or 'complete'}".replace("_", " ")
    return f"{word} ({at['limit']} miss)" if at.get("limit") else word


def _question_summary(question: Mapping[str, Any], budgets: list[int]) -> str:
    """Return the line a question shows when closed: its text and each chunker's outcomes."""
    chips = []
    for name, outcome in question["chunkers"].items():
        marks = "".join(_outcome_mark(outcome["budgets"][str(b)]) for b in budgets)
        words = ", ".join(_chip_word(b, outcome["budgets"][str(b)]) for b in budgets)
        chips.append(
            f'<span class="chip" title="{escape(name)} at {words}" '
            f'aria-label="{escape(name)}: {words}">{escape(name)} {marks}</span>'
        )
    text = question.get("question") or ""
    tags = " ".join(f'<span class="tag">{escape(t)}</span>' for t in question.get("tags", ()))
    return (
        f'<summary><span class="qid">{escape(question["id"])}</span> '
        f'<span class="audience">{escape(question["audience"])}</span> '
        f'<span class="qtext">{escape(text)}</span> {tags}'
        f'<span class="chips">{"".join(chips)}</span></summary>'
    )


def missed(question: Mapping[str, Any]) -> bool:
    """Return whether some chunker's context misses the evidence at some budget."""
    return any(
        at["miss"] is not None
        for outcome in question["chunkers"].values()
        for at in outcome["budgets"].values()
    )


def _question_list(report: Mapping[str, Any]) -> str:
    """Return every question as a closed <details>; its body is drawn when opened."""
    budgets = _budgets(report)
    items = []
    for index, question in enumerate(report["questions"]):
        miss = "true" if missed(question) else "false"
        items.append(
            f'<details class="question" data-index="{index}" data-miss="{miss}">'
            f'{_question_summary(question, budgets)}<div class="qbody"></div></details>'
        )
    return "\n".join(items)


def referenced(report: Mapping[str, Any]) -> set[str]:
    """Return the IDs of every chunk the questions name: retrieved, or holding a cut piece."""
    ids: set[str] = set()
    for question in report["questions"]:
        for outcome in question["chunkers"].values():
            ids.update(r["chunk"] for r in outcome["retrieved"])
            for at in outcome["budgets"].values():
                for passage in at["passages"]:
                    ids.update(passage["chunks"])
    return ids


def _chunk_texts(ids: Iterable[str], chunks: Mapping[str, Chunk]) -> dict[str, Any]:
    """Return what the page needs of each named chunk: offsets, prefix and body."""
    out: dict[str, Any] = {}
    for chunk_id in sorted(ids):
        chunk = chunks.get(chunk_id)
        if chunk is not None:
            cut = chunk.prefix_length
            out[chunk_id] = {
                "source": chunk.source,
                "position": chunk.position,
                "start": chunk.start,
                "end": chunk.end,
                "prefix": chunk.text[:cut],
                "body": chunk.text[cut:],
            }
    return out


def settings_line(settings: Mapping[str, Any]) -> str:
    """Return the settings that the figures depend on, in one line."""
    corpus = settings.get("corpus", {})
    questions = settings.get("questions", {})
    seed = settings.get("bootstrap", {}).get("seed", "?")
    return (
        f"corpus {corpus.get('path', '?')} ({corpus.get('documents', '?')} documents) · "
        f"questions {questions.get('path', '?')} ({questions.get('count', '?')}, sha256 "
        f"{str(questions.get('sha256', '?'))[:12]}…) · k = {settings.get('k', '?')} · "
        f"bootstrap seed {seed} · tool {settings.get('tool', {}).get('version', '?')}"
    )


def render_eval_html(
    report: Mapping[str, Any],
    chunks: Mapping[str, Chunk] | None = None,
    warnings: Sequence[str] = (),
    readings: Sequence[str] = (),
) -> str:
    """Return the eval report as one self-contained page (no network, no files beside it),
    with the warnings and reading lines the terminal gives."""
    texts = _chunk_texts(referenced(report), chunks or {})
    staff = any(c.access == "staff" for i, c in (chunks or {}).items() if i in texts)
    notes = notes_html(warnings, staff) + notes_html(readings, heading="Reading")
    data = {
        "budgets": _budgets(report),
        "specs": {name: spec_label(run["spec"]) for name, run in report["chunkers"].items()},
        "questions": report["questions"],
        "chunks": texts,
        "k": report["settings"].get("k"),
        "unit": unit_label(unit_of(report["settings"])),
    }
    count = len(report["questions"])
    return fill(
        asset("eval.html"),
        {
            "title": f"Evaluation: {count} questions, {len(report['chunkers'])} chunkers",
            "settings": escape(settings_line(report["settings"])),
            "notes": notes,
            "unit": escape(unit_label(unit_of(report["settings"]))),
            "table": _figure_table(report),
            "charts": charts(report),
            "questions": _question_list(report),
            "count": str(count),
            "missed": str(sum(missed(q) for q in report["questions"])),
            "no_texts": ""
            if texts
            else '<p class="hint">Chunk texts were not given to '
            "the page: results show their IDs only.</p>",
            "css": asset("inspect.css") + asset("eval.css"),
            "data": script_json(data),
            "js": asset("eval.js"),
        },
    )
