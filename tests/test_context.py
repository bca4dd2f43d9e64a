"""The context assembler: whole units, within the budget, merged, never empty while a hit fits."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest
from support.corpora import write_pipeline_corpus
from typer.testing import CliRunner

from policy_assistant.chunk import make_chunker
from policy_assistant.cli.app import app
from policy_assistant.errors import BadIndex, UsageError
from policy_assistant.evaluate.bootstrap import Bootstrap
from policy_assistant.evaluate.questions import load_questions
from policy_assistant.evaluate.run import EvalSettings, evaluate
from policy_assistant.evaluate.strategies import CUT_BY_BUDGET, named_strategies, with_strategies
from policy_assistant.index import open_index
from policy_assistant.index.context.assembler import (
    STRATEGIES,
    ContextSettings,
    assemble,
    context_for,
)
from policy_assistant.index.context.passages import ContextPassage, pages_of
from policy_assistant.index.context.unit_rank import SegmentedUnits
from policy_assistant.index.context.units import UnitSet, build_units
from policy_assistant.index.store.units import units_of
from policy_assistant.ingest.pipeline import ingest
from policy_assistant.parse import dispatch, parse_path
from policy_assistant.parse.builder import DocumentBuilder
from policy_assistant.records import Document, DocumentMeta
from policy_assistant.text import count_words

QUERIES = (
    "is my sprinkler still under warranty after 14 months",
    "refund above the till limit",
    "how do I winterize the pressure washer pump",
    "delivery charges for large items",
    "loyalty points expire",
)


@pytest.fixture(scope="module")
def corpus(corpus_dir: Path) -> tuple[dict[str, Document], SegmentedUnits]:
    docs = parse_path(corpus_dir).documents
    return {d.source: d for d in docs}, units_of(docs)


def long_doc() -> Document:
    """Two sections of ten sentences each."""
    builder = DocumentBuilder()
    builder.heading("Frost", 1, ())
    builder.add("paragraph", " ".join(f"Frost rule {i} applies here." for i in range(10)), ())
    builder.heading("Storage", 1, ())
    builder.add("paragraph", " ".join(f"Storage rule {i} applies here." for i in range(10)), ())
    return builder.build("guides/care.md", "0" * 64, DocumentMeta(access="public"), "Care")


def unit_bounds(units: UnitSet, source: str) -> tuple[set[int], set[int]]:
    row = next(i for i, d in enumerate(units.docs) if d.source == source)
    mine = units.col("unit_doc") == row
    return set(units.col("unit_start")[mine].tolist()), set(units.col("unit_end")[mine].tolist())


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("budget", [20, 50, 100, 200, 400])
def test_contexts_fit_the_budget_and_cut_no_unit(
    corpus: tuple[dict[str, Document], SegmentedUnits], strategy: str, budget: int
) -> None:
    docs, index = corpus
    settings = ContextSettings(strategy)
    for query in QUERIES:
        units, hits, _ = index.ranked(query, 50, "staff")
        context = assemble(units, hits, budget, settings)
        assert sum(p.words for p in context) <= budget
        assert context, f"empty context for {query!r} at {budget}"
        for p in context:
            doc = docs[p.source]
            starts, ends = unit_bounds(units, p.source)
            assert p.start in starts and p.end in ends  # whole sentences, rows, lines
            assert p.text.endswith(doc.text[p.start : p.end])
            assert p.words == count_words(p.text)
            assert p.text.startswith(doc.title)  # the title is carried, and counted
            assert p.pages == pages_of(doc.pages, p.start, p.end)
        spans = sorted((p.source, p.start, p.end) for p in context)
        for a, b in pairwise(spans):
            assert a[0] != b[0] or a[2] < b[1], "overlapping passages were not merged"
        assert [p.rank for p in context] == list(range(1, len(context) + 1))


def test_a_hit_that_does_not_fit_is_skipped_not_the_end() -> None:
    builder = DocumentBuilder()
    builder.add("paragraph", "Frost " + "very " * 40 + "long sentence about frost.", ())
    builder.add("paragraph", "Frost is short.", ())
    doc = builder.build("a.md", "0" * 64, DocumentMeta(access="public"), "A")
    units = build_units([doc])
    hits = [(0, 5.0), (1, 1.0)]  # the long one ranks first
    for strategy in STRATEGIES:
        context = assemble(units, hits, 10, ContextSettings(strategy))
        assert [doc.text[p.start : p.end] for p in context] == ["Frost is short."]
    assert assemble(units, hits, 2, ContextSettings()) == []  # nothing fits: empty


def test_automerge_takes_the_whole_section_when_it_fits_and_grows_by_units_when_not() -> None:
    doc = long_doc()
    units = build_units([doc])
    first, last = units.section_range(1)  # Storage: heading + 10 sentences
    hits = [(first + 4, 3.0), (first + 6, 2.0)]
    whole = assemble(units, hits, 200, ContextSettings("automerge", share=1.0))
    assert len(whole) == 1
    assert doc.text[whole[0].start : whole[0].end].startswith("Storage\n\nStorage rule 0")
    assert whole[0].end == int(units.col("unit_end")[last])
    small = assemble(units, hits, 24, ContextSettings("automerge", share=1.0))
    assert len(small) == 1
    body = doc.text[small[0].start : small[0].end]
    assert "Storage rule 3" in body and "Storage rule 5" in body  # both hits, merged
    assert small[0].words <= 24 and "Frost" not in body


def test_window_strategy_stays_in_its_section_and_merges_touching_windows() -> None:
    doc = long_doc()
    units = build_units([doc])
    _, frost_last = units.section_range(0)
    hits = [(frost_last, 2.0), (frost_last - 2, 1.0)]
    context = assemble(units, hits, 400, ContextSettings("window", window=1))
    assert len(context) == 1
    body = doc.text[context[0].start : context[0].end]
    assert body.startswith("Frost rule 6") and body.endswith("Frost rule 9 applies here.")
    assert context[0].score == 3.0


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_sprinkler_context_holds_the_warranty_row(
    corpus: tuple[dict[str, Document], SegmentedUnits], strategy: str
) -> None:
    _, index = corpus
    units, hits, _ = index.ranked(QUERIES[0], 50)
    row = "Sprinklers and irrigation | Oscillating sprinklers, DI-100 drip kits, timers | 18 months"
    # At 50 words only automerge gets there: the DI-100 sentence ranks first, and its window
    # leaves no room for the row behind its header row.
    for budget in (50, 100, 200) if strategy == "automerge" else (100, 200):
        context = assemble(units, hits, budget, ContextSettings(strategy))
        holding = [p for p in context if row in p.text]
        assert len(holding) == 1
        assert holding[0].sections == (("Warranty Policy", "2. Warranty periods by category"),)


def test_same_input_gives_the_same_context(
    corpus: tuple[dict[str, Document], SegmentedUnits],
) -> None:
    docs, index = corpus
    again = units_of(list(docs.values())[::-1])

    def contexts(ix: SegmentedUnits) -> list[list[ContextPassage]]:
        return [context_for(ix, q, 200, None, ContextSettings()) for q in QUERIES]

    assert contexts(index) == contexts(again)


def test_bad_settings_are_usage_errors() -> None:
    units = build_units([long_doc()])
    for settings in (
        ContextSettings("nope"),
        ContextSettings(window=-1),
        ContextSettings(narrow=-1),
        ContextSettings(share=0),
        ContextSettings(candidates=0),
    ):
        with pytest.raises(UsageError):
            assemble(units, [(0, 1.0)], 100, settings)


def test_ingest_stores_units_whose_context_matches_the_one_eval_builds(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(corpus, tmp_path / "i", make_chunker("structure"), units=True)
    memory = units_of(parse_path(corpus).documents)
    with open_index(tmp_path / "i") as index:
        for query in ("sprinkler warranty", "refund code"):
            for access in ("public", "staff"):
                stored = index.context(query, 40, access)
                assert stored == context_for(memory, query, 40, access)
        assert index.context("sprinkler refund code", 400) != []
        assert all(p.access == "public" for p in index.context("sprinkler refund code", 400))
        assert any(p.access == "staff" for p in index.context("refund code 4471", 400, "staff"))
        with pytest.raises(UsageError):
            index.context("sprinkler", 100, "admin")


def test_incremental_ingest_assembles_the_contexts_of_a_cold_one(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(corpus, tmp_path / "warm", make_chunker("structure"), units=True)
    (corpus / "b.md").write_text("# Mowers\n\nLawn mowers now carry a three year warranty.\n")
    ingest(corpus, tmp_path / "warm", make_chunker("structure"), units=True)
    ingest(corpus, tmp_path / "cold", make_chunker("structure"), units=True)
    with open_index(tmp_path / "warm") as warm, open_index(tmp_path / "cold") as cold:
        assert len(list((warm.generation / "units").glob("useg-*"))) == 2
        for query in (*QUERIES, "mower warranty"):
            assert warm.context(query, 50, "staff") == cold.context(query, 50, "staff")
        assert "three year" in warm.context("mower warranty", 50)[0].text


def test_an_index_without_units_says_what_to_run_and_ingest_rebuilds_it(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(corpus, tmp_path / "i", make_chunker("structure"), units=False)
    with open_index(tmp_path / "i") as index, pytest.raises(BadIndex, match="run `policy"):
        index.context("sprinkler", 100)
    summary = ingest(corpus, tmp_path / "i", make_chunker("structure"), units=True)
    assert summary.rebuilt == "retrieval units asked for" and summary.written
    with open_index(tmp_path / "i") as index:
        assert index.context("sprinkler", 100)


def test_search_budget_prints_the_context_with_citations(tmp_path: Path) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingest(corpus, tmp_path / "i", make_chunker("structure"), units=True)
    args = ["search", "sprinkler warranty", "--index", str(tmp_path / "i"), "--budget", "30"]
    shown = CliRunner().invoke(app, args)
    assert shown.exit_code == 0, shown.output
    assert "a.md" in shown.output and "Oscillating" in shown.output
    lines = CliRunner().invoke(app, [*args, "--json"]).output.splitlines()
    passages = [json.loads(line) for line in lines]
    assert passages and sum(p["words"] for p in passages) <= 30
    assert {"source", "version", "access", "sections", "pages", "start", "end"} <= set(passages[0])
    assert all(p["access"] == "public" for p in passages)
    bad = CliRunner().invoke(app, [*args[:-1], "0"])
    assert bad.exit_code == 2
    named = CliRunner().invoke(app, [*args, "--strategy", "passages", "--json"])
    assert named.exit_code == 0 and named.output.splitlines()
    for wrong in ([*args, "--strategy", "nope"], [*args[:-2], "--strategy", "passages"]):
        refused = CliRunner().invoke(app, wrong)
        assert refused.exit_code == 2 and "strategy" in refused.output
        assert "Traceback" not in refused.output


@pytest.mark.slow
def test_strategies_are_eval_runs_with_the_chunkers_figures(corpus_dir: Path) -> None:
    docs = parse_path(corpus_dir).documents
    qset = load_questions(corpus_dir.parent / "questions" / "questions.jsonl", docs)
    settings = EvalSettings(chunkers=("structure",), budgets=(50, 100, 400))
    report = evaluate(docs, qset, settings)
    boot = Bootstrap(len(qset.questions))
    both = with_strategies(report, docs, qset, named_strategies(["window", "automerge"]), boot)
    names = [s.name for s in both.summaries]
    assert names == ["structure", "window", "automerge"]
    for summary in both.summaries[1:]:
        assert all(b.empty_contexts == 0 for b in summary.budgets)  # never empty at B >= 50
        assert summary.leaks == 0
    window = both.runs[1].outcomes
    for outcome in window:
        for b in outcome.budgets:
            assert b.words <= b.budget
            assert b.complete == (b.miss is None)
            assert b.miss in (None, CUT_BY_BUDGET, "below_budget", "not_retrieved")
    # Structure chunks run past 50 words: the first result is cut to fit, never left empty.
    at50 = both.summaries[0].budgets[0]
    assert at50.empty_contexts == 0 and at50.cut_contexts > 0
    assert any(c.a == "structure" and c.b == "window" for c in both.comparisons)
    with pytest.raises(UsageError):
        named_strategies(["nope"])


def test_units_are_on_by_default_and_an_unchanged_corpus_parses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    chunker = make_chunker("structure")
    ingest(corpus, tmp_path / "plain", chunker, units=False)
    assert not (next((tmp_path / "plain").glob("gen-*")) / "units").exists()
    ingest(corpus, tmp_path / "i", chunker)
    assert (next((tmp_path / "i").glob("gen-*")) / "units").is_dir()
    parsed: list[str] = []
    real = dispatch.parse_document
    monkeypatch.setattr(
        dispatch, "parse_document", lambda d, s, c: parsed.append(s) or real(d, s, c)
    )
    again = ingest(corpus, tmp_path / "i", chunker)
    assert (parsed, again.written) == ([], False)
    dropped = ingest(corpus, tmp_path / "i", chunker, units=False)
    assert dropped.rebuilt == "units dropped" and dropped.written
    assert not (next((tmp_path / "i").glob("gen-*")) / "units").exists()


def test_search_budget_works_after_a_plain_ingest_and_names_ingest_after_index(
    tmp_path: Path,
) -> None:
    corpus = write_pipeline_corpus(tmp_path / "c")
    ingested = CliRunner().invoke(app, ["ingest", str(corpus), "--index", str(tmp_path / "i")])
    assert ingested.exit_code == 0, ingested.output
    args = ["search", "sprinkler warranty", "--budget", "300", "--json"]
    shown = CliRunner().invoke(app, [*args, "--index", str(tmp_path / "i")])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout.splitlines()[0])["source"] == "a.md"
    chunks = CliRunner().invoke(app, ["chunk", str(corpus), "--json", "-q"]).stdout_bytes
    built = CliRunner().invoke(app, ["index", "-", "--index", str(tmp_path / "j")], input=chunks)
    assert built.exit_code == 0, built.output
    refused = CliRunner().invoke(app, [*args, "--index", str(tmp_path / "j")])
    assert refused.exit_code == 1
    assert "holds no retrieval units" in refused.stderr and "ingest CORPUS" in refused.stderr


def test_eval_strategy_compares_strategies_beside_the_chunkers(tmp_path: Path) -> None:
    args = ["eval", "--chunker", "structure", "--strategy", "window,automerge", "--quiet"]
    shown = CliRunner().invoke(app, [*args, "--budget", "50,100", "--out", str(tmp_path / "r")])
    assert shown.exit_code == 0, shown.output
    report = json.loads((tmp_path / "r").read_text())
    assert sorted(report["chunkers"]) == ["automerge", "structure", "window"]
    assert report["chunkers"]["window"]["budgets"]["50"]["empty_contexts"] == 0
    structure = report["chunkers"]["structure"]["budgets"]["50"]  # chunks over 50: cut to fit
    assert structure["empty_contexts"] == 0 and structure["cut_contexts"] > 0
    bad = CliRunner().invoke(app, ["eval", "--strategy", "nope", "--quiet"])
    assert bad.exit_code == 2 and "unknown strategy" in bad.output


def test_a_narrow_window_below_the_threshold_budget() -> None:
    doc = long_doc()
    units = build_units([doc])
    first, _ = units.section_range(0)
    hit = [(first + 5, 1.0)]  # "Frost rule 4"
    settings = ContextSettings("window", window=2, narrow_below=150)
    narrow = assemble(units, hit, 100, settings)[0]
    wide = assemble(units, hit, 150, settings)[0]
    assert doc.text[narrow.start : narrow.end].startswith("Frost rule 3")
    assert doc.text[wide.start : wide.end].startswith("Frost rule 2")
    assert doc.text[wide.start : wide.end].endswith("Frost rule 6 applies here.")


def test_search_budget_finds_a_passage_in_a_chat_log_without_punctuation(tmp_path: Path) -> None:
    # One paragraph of 400 messages and 4,000 words: one "sentence" that no budget held.
    corpus = tmp_path / "c"
    corpus.mkdir()
    lines = [f"[09:{i % 60:02d}] <ann> note {i} on the nightly build queue" for i in range(399)]
    lines.insert(200, "[12:00] <bob> the arm runner lost its cache key after the toolchain bump")
    (corpus / "chat.txt").write_text("\n".join(lines) + "\n")  # no label: staff
    ingest(corpus, tmp_path / "i", make_chunker("structure"), units=True)
    args = ["search", "arm runner cache key", "--index", str(tmp_path / "i"), "--access", "staff"]
    args += ["--json"]
    shown = CliRunner().invoke(app, [*args, "--budget", "50"])
    assert shown.exit_code == 0, shown.output
    passages = [json.loads(line) for line in shown.output.splitlines()]
    assert sum(p["words"] for p in passages) <= 50
    assert "lost its cache key" in passages[0]["text"]
