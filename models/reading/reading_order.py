"""Reading order of a page's regions from their boxes: a recursive cut of the page along its
whitespace (an XY-cut that tolerates what text wraps around).

At each level (the page, then each band, then each column):
1. Gutters: vertical stripes of whitespace between boxes that stand side by side, found on the
   boxes' x-profile (each box weighted by its height): a stripe that boxes cross for no more
   than `params.gutter_crossed_share` of the busiest x's height is still a gutter. A photo set
   across the gutter, a pull quote or a drop cap does not make two columns one.
2. Bands: a box that crosses a gutter with nothing beside it (no box at its rows whose centre
   lies left or right of it: a title, a wide figure or table, a line of authors centred over
   the columns) cuts the level into bands, read top down, each band cut again. A box that
   crosses a gutter with text beside it is wrapped by that text: it stays in the column that
   holds its centre.
3. Columns: otherwise the level is read column by column, left to right, each cut again;
   but a narrow left column of sparse boxes each at the top of a box on the right is labels
   (a manual's command names in the margin, a CV's dates, side headings): each is read
   before the boxes it heads.
4. No gutter: the level is cut into strips at rows no box crosses, strips of the same columns
   (a gap between paragraphs that both columns share) kept together; one strip is read top down.

A vertical rule printed between columns (a newspaper's: its columns stand a rule and a few
points of paper apart, too close for a gutter of whitespace) is a gutter where boxes stand on
both sides of it along its length and none crosses it there but by a sliver (`min_gap`: a
scan's line that took the rule in as a "|"); a box crossing its line above or below it (a
headline, a photo over the columns) is read as any box crossing a gutter.

Why not the engine's order: Tesseract sometimes reads two columns line by line, and the layout
model's own sorter reads rows across columns; a band-and-column order is what a reader does.
"""

from __future__ import annotations

from collections.abc import Collection

from models.engine import BBox
from models.reading.boxes import inside_share, rows_meet
from models.reading.params.reading_order import READING_ORDER, ReadingOrderParams

Item = tuple[int, BBox]
Rule = tuple[float, float, float]  # a vertical rule: x, top, bottom


def _gutters(items: list[Item], min_gap: float, params: ReadingOrderParams) -> list[tuple]:
    """(x0, x1) of the gutters between side-by-side boxes: stripes at least `min_gap` wide
    where the boxes crossing them weigh (in height) no more than a share of the columns on
    either side."""
    edges = sorted({x for _, b in items for x in (b[0], b[2])})
    # The height of the boxes covering each stripe between two neighbouring edges.
    weight = [
        sum(b[3] - b[1] for _, b in items if b[0] <= x0 and b[2] >= x1)
        for x0, x1 in zip(edges, edges[1:], strict=False)
    ]  # fmt: skip
    gutters: list[tuple] = []
    for k, x0 in enumerate(edges[:-1]):
        # Light against the busier side's columns, each side's busiest stripe: a short third
        # column is no gutter, the whitespace between it and the second is.
        sides = min(max(weight[:k], default=0.0), max(weight[k + 1 :], default=0.0))
        light = weight[k] <= params.gutter_crossed_share * sides
        if light and gutters and gutters[-1][1] == x0:
            gutters[-1] = (gutters[-1][0], edges[k + 1])  # the stripe goes on
        elif light:
            gutters.append((x0, edges[k + 1]))
    return [g for g in gutters if g[1] - g[0] >= min_gap and _parts_side_by_side(items, g)]


def _rule_gutter(items: list[Item], rule: Rule, slack: float, params: ReadingOrderParams):
    """The rule as a gutter (x - slack, x + slack) for these boxes, or None: boxes wholly on
    each side of it and close to it (`params.column_rule_reach_gaps` slacks: a column's text
    runs up to its rule; a photo's edge has no text beside it) share some rows along it, and
    the boxes crossing it there weigh light."""
    x, top, bottom = rule
    reach = params.column_rule_reach_gaps * slack
    along = [b for _, b in items if min(b[3], bottom) > max(b[1], top)]
    left = [b for b in along if x - reach <= b[2] <= x + slack]
    right = [b for b in along if x - slack <= b[0] <= x + reach]
    if not any(rows_meet(a, b) for a in left for b in right):
        return None
    crossing = sum(b[3] - b[1] for b in along if b[0] < x - slack and b[2] > x + slack)
    sides = min(sum(b[3] - b[1] for b in left), sum(b[3] - b[1] for b in right))
    return (x - slack, x + slack) if crossing <= params.gutter_crossed_share * sides else None


def _parts_side_by_side(items: list[Item], gutter: tuple) -> bool:
    """Boxes wholly left and wholly right of the stripe share some rows: two columns, not a
    heading standing apart above a paragraph."""
    left = [b for _, b in items if b[2] <= gutter[0]]
    right = [b for _, b in items if b[0] >= gutter[1]]
    return any(rows_meet(a, b) for a in left for b in right)


def _crosses(box: BBox, gutters: list[tuple]) -> bool:
    return any(box[0] < g0 and box[2] > g1 for g0, g1 in gutters)


def _alone_in_its_rows(item: Item, items: list[Item]) -> bool:
    """No other box at its rows has its centre left or right of it: nothing wraps around it."""
    box = item[1]
    return not any(
        other is not item
        and rows_meet(box, other[1])
        and not box[0] <= (other[1][0] + other[1][2]) / 2 <= box[2]
        for other in items
    )


def _top_down(items: list[Item], params: ReadingOrderParams) -> list[Item]:
    """Top down, left to right; a box lying inside another (a drop cap in its paragraph's box)
    just before it."""

    def key(item: Item) -> tuple:
        box = item[1]
        holders = [
            o[1] for o in items if o is not item and inside_share(box, o[1]) >= params.nested_share
        ]
        top = min((h[1] for h in holders), default=box[1])
        return (min(top, box[1]), not holders, box[0], box[1])

    return sorted(items, key=key)


def _bands(items: list[Item], cutters: list[Item], params: ReadingOrderParams) -> list[list[Item]]:
    """The level cut at each cutter, top down: [band, [cutter], band, ...]."""
    out: list[list[Item]] = [[]]
    for item in _top_down(items, params):
        if item in cutters:
            out += [[item], []]
        else:
            out[-1].append(item)
    return [part for part in out if part]


def _columns(items: list[Item], gutters: list[tuple]) -> list[list[Item]]:
    """Each box to the column holding its centre, columns left to right."""
    columns: list[list[Item]] = [[] for _ in range(len(gutters) + 1)]
    for item in items:
        centre = (item[1][0] + item[1][2]) / 2
        columns[sum(centre > (g0 + g1) / 2 for g0, g1 in gutters)].append(item)
    return [column for column in columns if column]


def _strips(items: list[Item], min_gap: float, params: ReadingOrderParams) -> list[list[Item]]:
    """Strips at rows no box crosses, neighbours with a gutter in common (two columns whose
    paragraphs end on one row) kept as one."""
    strips: list[list[Item]] = []
    end = float("-inf")
    for item in _top_down(items, params):
        if strips and item[1][1] < end:
            strips[-1].append(item)
            end = max(end, item[1][3])
        else:
            strips.append([item])
            end = item[1][3]
    merged = [strips[0]]
    for strip in strips[1:]:
        if (
            _gutters(merged[-1], min_gap, params)
            and _gutters(strip, min_gap, params)
            and (_gutters(merged[-1] + strip, min_gap, params))
        ):
            merged[-1] = merged[-1] + strip
        else:
            merged.append(strip)
    return merged


def _label_entry(label: BBox, entries: list[Item], params: ReadingOrderParams) -> Item | None:
    """The box beside `label` that it heads: the label's middle stands on the box's first
    line (from half a label's height above the box's top to `side_label_reach_heights` below
    it: a line number at the foot of a tall line of mathematics)."""
    height = label[3] - label[1]
    middle = (label[1] + label[3]) / 2
    return next(
        (e for e in entries
         if -height / 2 <= middle - e[1][1] <= params.side_label_reach_heights * height),
        None,
    )  # fmt: skip


def _side_labels(left: list[Item], right: list[Item], params: ReadingOrderParams) -> bool:
    """The left column is a column of labels set beside the entries they head (a manual's
    command names in the margin, a CV's dates, side headings, an algorithm's line numbers):
    a few boxes in a column narrower than the entries', sparse down it (two columns of text
    fill theirs), most at the top of a box of their own on the right (a line lost to the
    reading leaves its number alone)."""
    if len(left) < params.side_label_min:
        return False
    width = max(b[2] for _, b in left) - min(b[0] for _, b in left)
    if width > params.side_label_width_share * (
        max(b[2] for _, b in right) - min(b[0] for _, b in right)
    ):
        return False
    span = max(b[3] for _, b in left) - min(b[1] for _, b in left)
    if sum(b[3] - b[1] for _, b in left) > params.side_label_fill * span:
        return False
    entries = {e[0] for _, b in left if (e := _label_entry(b, right, params))}
    return len(entries) >= params.side_label_heading_share * len(left)


def _labelled_bands(left: list[Item], right: list[Item], params: ReadingOrderParams):
    """Each label, then the right-hand boxes from its entry (or its own top, where it heads
    none) down to the next label's; the boxes above the first label's first. The starts go
    down the page (each box in one band)."""
    labels = sorted(left, key=lambda it: it[1][1])
    starts: list[float] = []
    for _, box in labels:
        entry = _label_entry(box, right, params)
        start = min(box[1], entry[1][1]) if entry else box[1]
        starts.append(max(start, starts[-1]) if starts else start)
    parts: list[list[Item]] = [[b for b in right if b[1][1] < starts[0]]]
    for k, label in enumerate(labels):
        end = starts[k + 1] if k + 1 < len(starts) else float("inf")
        parts += [[label], [b for b in right if starts[k] <= b[1][1] < end]]
    return [part for part in parts if part]


def _order(
    items: list[Item], min_gap: float, params: ReadingOrderParams, pictures: frozenset[int],
    rules: tuple[Rule, ...],
) -> list[Item]:  # fmt: skip
    if len(items) < 2:
        return items
    # Columns are found from the text: a picture inside a column whose box reaches into the
    # gutter (a photo printed to the column's edge, the layout model's box a little wider)
    # is inside its column, and a tall one must not close the gutter (the page was then read
    # in rows: the top of both columns before the rest of the first). A picture across the
    # gutter with nothing beside it still cuts the page into bands (below).
    text = [it for it in items if it[0] not in pictures]
    gutters = (_gutters(text, min_gap, params) if len(text) < len(items) else []) or _gutters(
        items, min_gap, params
    )
    ruled = []
    for rule in rules:
        if not any(g0 - min_gap <= rule[0] <= g1 + min_gap for g0, g1 in gutters):
            gutter = _rule_gutter(text or items, rule, min_gap, params)
            ruled += [gutter] if gutter else []
    gutters = sorted(gutters + ruled)
    if gutters:
        cutters = [it for it in items if _crosses(it[1], gutters) and _alone_in_its_rows(it, items)]
        # A rule that a box with text beside it crosses (a headline over three columns, a
        # column of advertisements beside it) parts its columns a level down: this level is
        # parted first at the gutters nothing crosses.
        clear = [
            g for g in gutters if g not in ruled or not any(_crosses(b, [g]) for _, b in items)
        ]
        if cutters:
            parts = _bands(items, cutters, params)
        elif clear:
            parts = _columns(items, clear)
            if len(parts) == 2 and _side_labels(*parts, params):
                parts = _labelled_bands(*parts, params)
        else:
            parts = _strips(items, min_gap, params)
    else:
        parts = _strips(items, min_gap, params)
    if len(parts) < 2:
        return _top_down(items, params)  # one column (or nothing left to cut)
    return [item for part in parts for item in _order(part, min_gap, params, pictures, rules)]


def reading_order(
    boxes: list[BBox],
    *,
    min_gap: float,
    pictures: Collection[int] = (),
    rules: Collection[Rule] = (),
    params: ReadingOrderParams = READING_ORDER,
) -> list[int]:
    """Indices of `boxes` in reading order. `min_gap`: the narrowest gutter between columns;
    `pictures`: the indices of boxes that are pictures (text wraps around them); `rules`: the
    vertical rules printed on the page (x, top, bottom), which may part columns."""
    items = list(enumerate(boxes))
    return [i for i, _ in _order(items, min_gap, params, frozenset(pictures), tuple(rules))]
