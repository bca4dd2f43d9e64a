"""The vector paths one run of MuPDF's table finder can use: those near its clip.

The finder joins the rectangles of all the paths it is given into groups of neighbours
(within its snap tolerance) and draws a border round each group, then keeps the edges
that fall in its clip. That join costs time in the square of the page's paths, and for a
small clip on a page of many rules most of it is spent on paths far away. A path counts
only through its own edges, or through a group whose border reaches the clip: so the
paths are grouped here, more coarsely than the finder does (boxes within reach of a
group's box join it, until no two groups come within reach), and only the groups that
come near the clip are handed over. Each of the finder's groups lies inside one of ours,
so it finds the same groups, borders and edges among what it is given.
"""

from __future__ import annotations

from collections.abc import Sequence

from policy_assistant.parse.pdf.rules import Box, chained, hull, near

REACH = 4.0
"""How near two boxes join one group (points): more than the finder's snap tolerance
(3 points, its default, which this parser keeps), so that its neighbours always join."""
MARGIN = 4.0
"""How near the clip a group must come to be handed over (points): any distance would
do, as the finder keeps no edge outside its clip; this one allows for rounding."""

MAX_PATHS = 4096
"""Paths above which they are not grouped but handed over whole, as the finder would fetch
them: grouping costs time in the square of the paths in a band (4,096: about a second)."""

Group = tuple[Box, list[int]]
"""A group's box and the indices of its paths."""


def path_groups(boxes: Sequence[Box]) -> list[Group]:
    """Group the paths' boxes until no two groups' boxes come within REACH of each other
    (above MAX_PATHS, one group of them all)."""
    if len(boxes) > MAX_PATHS:
        return [(hull(boxes), list(range(len(boxes))))]
    groups: list[Group] = [(box, [index]) for index, box in enumerate(boxes)]
    while True:
        joined = _join_once(groups)
        if len(joined) == len(groups):
            return joined
        groups = joined


def near_clip(groups: list[Group], clip: Box) -> list[int]:
    """Return the indices, in order, of the paths whose group comes within MARGIN of clip."""
    return sorted(index for box, members in groups if near(box, clip, MARGIN) for index in members)


def _join_once(groups: list[Group]) -> list[Group]:
    """Join every two groups whose boxes come within REACH, directly or in a chain."""
    joined = chained([box for box, _ in groups], REACH)
    return [
        (hull([groups[i][0] for i in found]), [m for i in found for m in groups[i][1]])
        for found in joined
    ]
