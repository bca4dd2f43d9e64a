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

from policy_assistant.parse.pdf.rules import Box

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
        return [(_hull(boxes), list(range(len(boxes))))]
    groups: list[Group] = [(box, [index]) for index, box in enumerate(boxes)]
    while True:
        joined = _join_once(groups)
        if len(joined) == len(groups):
            return joined
        groups = joined


def near_clip(groups: list[Group], clip: Box) -> list[int]:
    """Return the indices, in order, of the paths whose group comes within MARGIN of clip."""
    return sorted(
        index for box, members in groups if _within(box, clip, MARGIN) for index in members
    )


def _join_once(groups: list[Group]) -> list[Group]:
    """Join every two groups whose boxes come within REACH: one sweep, top to bottom."""
    parent = list(range(len(groups)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    order = sorted(range(len(groups)), key=lambda i: groups[i][0][1])
    for position, i in enumerate(order):
        box = groups[i][0]
        for j in order[position + 1 :]:
            if groups[j][0][1] > box[3] + REACH:
                break
            if _within(box, groups[j][0], REACH):
                parent[find(i)] = find(j)
    joined: dict[int, Group] = {}
    for i, (box, members) in enumerate(groups):
        root = find(i)
        if root in joined:
            other, together = joined[root]
            joined[root] = (_union(other, box), together + members)
        else:
            joined[root] = (box, list(members))
    return list(joined.values())


def _within(a: Box, b: Box, reach: float) -> bool:
    """Whether two boxes (lines too: boxes without width or height) come within reach."""
    return (
        a[0] - reach <= b[2]
        and b[0] - reach <= a[2]
        and a[1] - reach <= b[3]
        and b[1] - reach <= a[3]
    )


def _union(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _hull(boxes: Sequence[Box]) -> Box:
    """Return the box round every box."""
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))  # fmt: skip
