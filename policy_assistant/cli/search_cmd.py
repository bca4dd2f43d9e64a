"""`policy-assistant search`: ranked chunks for a query, filtered by access label."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from policy_assistant.cli.common import emit_json_lines, err, guarded, out
from policy_assistant.cli.index_options import STRATEGY_NAMES, AsJson, IndexDir
from policy_assistant.errors import UsageError
from policy_assistant.index import SearchHit, open_index, resolve_index_dir
from policy_assistant.index.settings import (
    DEFAULT_ACCESS,
    DEFAULT_K,
    RankerSettings,
    parse_ranker,
)
from policy_assistant.index.tokenize import tokenize
from policy_assistant.records import ACCESS_LABELS, Chunk

if TYPE_CHECKING:
    from policy_assistant.index.context.assembler import ContextSettings
    from policy_assistant.index.context.passages import ContextPassage
_WORD = re.compile(r"\S+")
RANKER_HELP = (
    "bm25, dense or hybrid (BM25 and vectors fused); hybrid:W weighs the dense list W against "
    "BM25's 1 [default: hybrid when the index holds vectors (on the question sets measured its "
    "worst set beat both others' worst), else bm25]."
)


def register(app: typer.Typer) -> None:
    """Add the search command to the app."""
    app.command("search")(guarded(_search_command))


def _search_command(
    query: Annotated[str, typer.Argument(help="What to look for, in plain words.")],
    index: IndexDir = None,
    k: Annotated[int, typer.Option("-k", "--k", min=1, help="How many results.")] = DEFAULT_K,
    access: Annotated[
        str,
        typer.Option(
            "--access", help="public sees public chunks only; staff sees both.", show_default=True
        ),
    ] = DEFAULT_ACCESS,
    as_json: AsJson = False,
    verify: Annotated[
        bool,
        typer.Option("--verify", help="Check every index file against its checksum first."),
    ] = False,
    budget: Annotated[
        int | None,
        typer.Option(
            "--budget", min=1, help="Print the context assembled to this many words instead."
        ),
    ] = None,
    ranker: Annotated[str | None, typer.Option("--ranker", help=RANKER_HELP)] = None,
    strategy: Annotated[
        str | None,
        typer.Option(
            "--strategy",
            help=f"With --budget: how the context is assembled, one of {STRATEGY_NAMES} "
            "[default: window].",
        ),
    ] = None,
) -> None:
    """Search the index; a public search never returns a staff chunk."""
    if access not in ACCESS_LABELS:
        raise typer.BadParameter(
            f"expected one of {', '.join(ACCESS_LABELS)}", param_hint="--access"
        )
    chosen = _ranker(ranker, units=budget is not None)
    if not tokenize(query):
        raise UsageError(f"the query {query!r} has no words to search for")
    if strategy is not None and budget is None:
        raise UsageError("--strategy chooses how a context is assembled: it needs --budget")
    if budget is not None:
        settings = None
        if strategy is not None:
            from policy_assistant.evaluate.strategies import named_strategies  # only when asked

            settings = named_strategies([strategy])[0].context
        _show_context(resolve_index_dir(index), query, budget, access, as_json, settings, chosen)
        return
    with open_index(resolve_index_dir(index), verify=verify) as opened:
        hits = opened.search(query, k, access, ranker=chosen)
        if opened.notice:
            err.print(opened.notice, highlight=False, markup=False)
    if as_json:
        emit_json_lines((hit.to_dict() for hit in hits), None)
    elif hits:
        out.print(_results_table(hits, set(tokenize(query))))
    if not hits:
        _say_no_results(f"no results for {query}", access)


def _ranker(spec: str | None, units: bool) -> RankerSettings | None:
    """Return the settings --ranker names, for retrieval units when units (BadParameter if it
    names none), or None: the index's default."""
    try:
        return None if spec is None else parse_ranker(spec, units)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--ranker") from None


def _say_no_results(message: str, access: str) -> None:
    """Say on stderr that nothing was found, never whether a wider access would find some.

    Whether chunks the caller may not see match a query is itself what they may not see (a
    public caller could probe for the words of a staff document), so the note about access is
    the same whatever the index holds.
    """
    note = "" if access == ACCESS_LABELS[-1] else f" (a {access} search sees {access} chunks only)"
    err.print(f"{escape(message)} at access {access}{note}", highlight=False, soft_wrap=True)


def _show_context(
    index_dir: Path, query: str, budget: int, access: str, as_json: bool,
    settings: ContextSettings | None = None,
    ranker: RankerSettings | None = None,
) -> None:  # fmt: skip
    """Print the context assembled to budget words (settings None: the default strategy),
    passage by passage with citations."""
    with open_index(index_dir) as opened:
        passages = opened.context(query, budget, access, settings, ranker=ranker)
        if opened.notice:
            err.print(opened.notice, highlight=False, markup=False)
    if as_json:
        emit_json_lines((p.to_dict() for p in passages), None)
    elif passages:
        out.print(_context_table(passages, set(tokenize(query))))
        used = sum(p.words for p in passages)
        err.print(f"{len(passages)} passages, {used} of {budget} words", highlight=False)
    if not passages:
        _say_no_results(f"no passage for {query} fits {budget} words", access)


def _context_table(passages: list[ContextPassage], terms: set[str]) -> Table:
    """Return the passages of a context with where each comes from."""
    table = Table(show_lines=True)
    for name in ("#", "words", "source", "text"):
        table.add_column(name, justify="right" if name in ("#", "words") else "left")
    for p in passages:
        section = " > ".join(p.sections[0]) if p.sections else ""
        pages = ("p. " + ",".join(map(str, p.pages))) if p.pages else ""
        where = [p.source, f"{p.title} ({p.version})", section, pages, f"chars {p.start}-{p.end}"]
        cite = Text("\n".join(line for line in where if line))
        table.add_row(str(p.rank), str(p.words), cite, highlight(p.text, terms))
    return table


def _results_table(hits: list[SearchHit], terms: set[str]) -> Table:
    """Return the ranked hits with where each comes from and the query terms highlighted."""
    table = Table(show_lines=True, title=f"ranked by {hits[0].ranker}", title_justify="left")
    for name in ("#", "score", "source", "text"):
        table.add_column(name, justify="right" if name in ("#", "score") else "left")
    for hit in hits:
        table.add_row(
            str(hit.rank), f"{hit.score:.2f}", citation(hit.chunk), highlight(hit.chunk.text, terms)
        )
    return table


def citation(chunk: Chunk) -> Text:
    """Return where a chunk comes from: ID, source, title, section and pages."""
    section = " > ".join(chunk.sections[0]) if chunk.sections else ""
    pages = ("p. " + ",".join(map(str, chunk.pages))) if chunk.pages else ""
    lines = [chunk.id, chunk.source, chunk.title, section, pages, chunk.access]
    return Text("\n".join(line for line in lines if line))


def highlight(text: str, terms: set[str]) -> Text:
    """Return text with every word whose tokens meet the query's terms in bold."""
    styled = Text(text)
    for match in _WORD.finditer(text):
        if terms.intersection(tokenize(match.group())):
            styled.stylize("bold yellow", match.start(), match.end())
    return styled
