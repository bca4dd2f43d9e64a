"""Line-level Markdown clean-up before markdown-it reads it: container markers and MDX syntax.

Lines inside code fences are never touched. Each dropped line (or ESM block) is recorded in
Document.dropped with its reason, so nothing leaves the text silently.
"""

from __future__ import annotations

import re

from policy_assistant.records import Dropped

_ELEMENT_NAMES = """a abbr acronym address area article aside audio b base bdi bdo big blink
    blockquote body
    br button canvas caption center cite code col colgroup data datalist dd del details dfn
    dialog dir div dl dt em embed fieldset figcaption figure font footer form frame frameset h1
    h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input ins kbd label legend li link
    main map mark marquee math menu meta meter nav nobr noscript object ol optgroup option
    output p param picture pre progress q rp rt ruby s samp script search section select slot
    small source span strike strong style sub summary sup svg table tbody td template textarea
    tfoot th thead time title tr track tt u ul var video wbr"""
HTML_ELEMENTS = frozenset(_ELEMENT_NAMES.split())
"""Names of HTML elements (current and legacy): a tag naming none of these is text."""

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_CONTAINER = re.compile(r" {0,3}:{3,}(.*)")
_ESM = re.compile(r"(?:import|export)\b")
_JSX_LINE = re.compile(r"\s*</?[A-Z][\w.]*(?:\s[^<>]*)?/?>\s*")
_JSX_OPEN = re.compile(r"\s*<[A-Z][\w.]*(?:\s[^<>]*)?")
_JSX_COMMENT = re.compile(r"\s*\{/\*.*\*/\}\s*")


def preprocess(text: str, mdx: bool) -> tuple[str, list[Dropped]]:
    """Return text without container markers (and, for MDX, ESM and JSX-only lines)."""
    lines = text.split("\n")
    out: list[str] = []
    dropped: list[Dropped] = []
    fence: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and _closes(fence, opening.group(1), line[opening.end() :]):
                fence = None
            out.append(line)
        elif opening:
            fence = opening.group(1)
            out.append(line)
        elif (used := _mdx_syntax(lines, i, dropped) if mdx else 0) > 0:
            out.extend([""] * used)
            i += used
            continue
        elif container := _CONTAINER.fullmatch(line):
            dropped.append(Dropped(line.strip(), "container marker"))
            title = _container_title(container.group(1))
            out.extend([title, ""] if title else [""])
        else:
            out.append(line)
        i += 1
    return "\n".join(out), dropped


def _closes(fence: str, marker: str, rest: str) -> bool:
    return marker[0] == fence[0] and len(marker) >= len(fence) and not rest.strip()


def _container_title(rest: str) -> str:
    """Return the custom title of `::: tip Title` or `:::{note} Title`, without the type."""
    rest = rest.strip()
    if rest.startswith("{"):
        return rest.partition("}")[2].strip()
    return rest.partition(" ")[2].strip()


def _mdx_syntax(lines: list[str], i: int, dropped: list[Dropped]) -> int:
    """Return how many lines from i are MDX syntax (recorded as dropped), else 0."""
    line = lines[i]
    if _ESM.match(line):
        end = i
        while end < len(lines) and lines[end].strip():
            end += 1  # an ESM block runs to the next blank line
        dropped.append(Dropped("\n".join(lines[i:end]), "mdx import/export"))
        return end - i
    if _JSX_COMMENT.fullmatch(line):
        dropped.append(Dropped(line.strip(), "mdx comment"))
        return 1
    if _JSX_LINE.fullmatch(line):
        dropped.append(Dropped(line.strip(), "mdx component"))
        return 1
    if _JSX_OPEN.fullmatch(line):
        end = i + 1
        while end < len(lines) and lines[end].strip() and ">" not in lines[end]:
            end += 1  # a component's attributes over several lines, up to its ">"
        if end < len(lines) and lines[end].rstrip().endswith(">"):
            dropped.append(Dropped("\n".join(lines[i : end + 1]), "mdx component"))
            return end + 1 - i
    return 0
