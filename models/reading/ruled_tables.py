"""Ruled tables: find the grid of printed lines, then put Tesseract's words into its cells.

A table is a set of long horizontal rules crossed by vertical rules. Rows lie between
consecutive horizontal rules, columns between vertical rules; a rule missing inside a row (or a
column) merges the cells on both sides into one spanning cell. The first row is a header row when
the rule under it is heavier than the others or its text is bold.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from PIL import Image

from models.engine import BBox, ReadBlock, Word
from models.reading.boxes import overlap
from models.reading.kinds import is_figure, prose_line
from models.reading.params import at_dpi
from models.reading.params.tables import RULED_TABLES, RuledTableParams
from models.reading.scan_lines import Line, ParaLines, keep_lines
from models.reading.word_rows import RULE_GLYPHS
from models.reading.word_tables import table_from_words


@dataclass
class Rule:
    """A printed rule: long dark runs in adjacent pixel rows (columns for a vertical rule)."""

    pos: float  # y for horizontal rules, x for vertical ones
    start: int
    end: int
    thickness: int


@dataclass
class Grid:
    ys: list[float]  # horizontal rules, top to bottom
    xs: list[float]  # vertical rules, left to right
    h_rules: list[Rule] = field(default_factory=list)
    v_rules: list[Rule] = field(default_factory=list)
    # Columns at a side no rule runs down (a stub column of labels left open): see _ruled_span
    # for where their rows part.
    open_columns: frozenset[int] = frozenset()

    @property
    def bbox(self) -> BBox:
        return (self.xs[0], self.ys[0], self.xs[-1], self.ys[-1])


def _long_runs(dark: np.ndarray, min_len: float) -> dict[int, list[tuple[int, int]]]:
    """Runs of True at least min_len long in each row of a 2-D mask: {row: [(x0, x1), ...]}.
    One pass over the whole mask (rows padded with False, so no run crosses a row end)."""
    height, width = dark.shape
    candidates = np.flatnonzero(dark.sum(axis=1) >= min_len)  # rows with ink enough for a rule
    if candidates.size == 0:
        return {}
    padded = np.zeros((candidates.size, width + 2), dtype=bool)
    padded[:, 1:-1] = dark[candidates]
    edges = np.flatnonzero(padded[:, 1:] != padded[:, :-1])  # starts and ends alternate
    starts, ends = edges[0::2], edges[1::2]
    keep = ends - starts >= min_len
    runs: dict[int, list[tuple[int, int]]] = {}
    for start, end in zip(starts[keep].tolist(), ends[keep].tolist(), strict=True):
        row, x0 = divmod(start, width + 1)
        runs.setdefault(int(candidates[row]), []).append((x0, end - row * (width + 1)))
    return runs


def _near(dark: np.ndarray, rows: int) -> np.ndarray:
    """The mask with each dark pixel spread `rows` pixel rows up and down: a rule a little
    askew after deskewing (or broken by a scan's noise) stays one run in some pixel row."""
    near = dark.copy()
    for k in range(1, rows + 1):
        near[k:] |= dark[:-k]
        near[:-k] |= dark[k:]
    return near


def _bridged(dark: np.ndarray, half: int) -> np.ndarray:
    """The mask closed along its rows: gaps of up to 2 * `half` pixels between dark pixels
    filled (a scan's rule cut by noise, or by a pixel of paper where it crosses another)."""
    if half <= 0:
        return dark
    grown = dark.copy()
    for k in range(1, half + 1):
        grown[:, k:] |= dark[:, :-k]
        grown[:, :-k] |= dark[:, k:]
    closed = grown.copy()
    for k in range(1, half + 1):
        closed[:, k:] &= grown[:, :-k]
        closed[:, :-k] &= grown[:, k:]
    return closed


def _rules(dark: np.ndarray, min_len: float, dpi: int, params: RuledTableParams) -> list[Rule]:
    """Horizontal rules (transpose the mask for vertical ones): long runs in adjacent rows
    that overlap merged into one rule of some thickness, its extent theirs together (a scan's
    rule, askew by a pixel or two and broken by noise, is a run in no single pixel row)."""
    askew = round(at_dpi(params.rule_askew_px, dpi))
    found: list[list[int]] = []  # [first row, last row, start, end] of each rule
    open_rules: list[list[int]] = []
    mask = _bridged(_near(dark, askew), round(at_dpi(params.rule_gap_px, dpi) / 2))
    for y, runs in sorted(_long_runs(mask, min_len).items()):
        open_rules = [r for r in open_rules if r[1] == y - 1]  # a row without runs closes them
        for x0, x1 in runs:
            hits = [r for r in open_rules if _alike(r[2], r[3], x0, x1, params)]
            if not hits:
                rule = [y, y, x0, x1]
                found.append(rule)
                open_rules.append(rule)
                continue
            rule, *others = hits  # runs of one rule in this row join its pieces
            for other in others:
                rule[0], rule[2], rule[3] = (
                    min(rule[0], other[0]),
                    min(rule[2], other[2]),
                    max(rule[3], other[3]),
                )
                found.remove(other)
                open_rules.remove(other)
            rule[1], rule[2], rule[3] = y, min(rule[2], x0), max(rule[3], x1)
    thickest = at_dpi(params.rule_max_thickness_px, dpi)
    out = []
    for first, last, start, end in _collinear_joined(found, askew, dpi, params):
        thickness = max(1, last - first + 1 - 2 * askew)  # the spread taken off again
        if thickness <= thickest:
            out.append(Rule(pos=(first + last) / 2, start=start, end=end, thickness=thickness))
        else:  # a filled box (a shaded header row between its rules): its edges part rows
            out += [
                Rule(pos=y, start=start, end=end, thickness=1)
                for y in (first + askew, last - askew)
            ]
    return out


def vertical_rules(
    gray: Image.Image, dpi: float, min_length_px: float, *, params: RuledTableParams = RULED_TABLES
) -> list[BBox]:
    """The vertical rules printed on a page image of `dpi`, `min_length_px` long or more."""
    dark = np.asarray(gray.convert("L")) < params.rule_dark_below_level
    rules = _rules(np.ascontiguousarray(dark.T), min_length_px, dpi, params)
    return [(r.pos - r.thickness / 2, r.start, r.pos + r.thickness / 2, r.end) for r in rules]


def _alike(a0: int, a1: int, b0: int, b1: int, params: RuledTableParams) -> bool:
    """Two runs of about one extent (overlapping along `rule_overlap_share` of the longer): one
    rule's; a shaded band's short runs beside a long rule crossing it are not."""
    longer = max(a1 - a0, b1 - b0)
    return min(a1, b1) - max(a0, b0) >= params.rule_overlap_share * longer


def _collinear_joined(
    rules: list[list[int]], askew: int, dpi: int, params: RuledTableParams
) -> list[list[int]]:
    """Pieces of one rule on one line, end to end (a crossing rule or the noise cut it): one."""
    near = at_dpi(params.rule_ends_tolerance_px, dpi)
    out: list[list[int]] = []
    for rule in sorted(rules, key=lambda r: (r[2], r[0])):
        mid = (rule[0] + rule[1]) / 2
        prev = next((r for r in out if abs((r[0] + r[1]) / 2 - mid) <= 2 * askew + 1
                     and rule[2] <= r[3] + near), None)  # fmt: skip
        if prev is None:
            out.append(list(rule))
        else:
            prev[0], prev[1] = min(prev[0], rule[0]), max(prev[1], rule[1])
            prev[3] = max(prev[3], rule[3])
    return out


def find_grids(
    binary: Image.Image, dpi: int, *, params: RuledTableParams = RULED_TABLES
) -> list[Grid]:
    """The grids of rules printed on a page image of `dpi`: at least `grid_min_h_rules`
    horizontal rules of about one extent, joined by vertical rules at both edges or, where no
    such grid is, between their columns only (statistical tables are often set so), inside
    the image's margins."""
    dark = np.asarray(binary.convert("L")) < params.rule_dark_below_level
    height, width = dark.shape
    h_min = max(at_dpi(params.h_rule_min_px, dpi), width // params.h_rule_min_per_width)
    v_min = max(at_dpi(params.v_rule_min_px, dpi), height // params.v_rule_min_per_height)
    h_rules = _rules(dark, h_min, dpi, params)
    # The columns as rows laid out in memory: the mask's shifts (_near, _bridged) then run over
    # contiguous rows, not strided ones (find_grids on a 300-DPI page: 0.14 -> 0.065 s).
    v_rules = _rules(np.ascontiguousarray(dark.T), v_min, dpi, params)
    grids: list[Grid] = []
    used: set[int] = set()
    # Grids ruled down both sides first; then, from the rules left, grids ruled between their
    # columns only, where no grid of the first kind lies.
    for open_sides in (False, True):
        for grid in _grids_of(h_rules, v_rules, used, dark, dpi, params, open_sides=open_sides):
            if not any(overlap(grid.bbox, other.bbox) for other in grids):
                grids.append(grid)
    if grids:
        pixels = np.asarray(binary.convert("L"), dtype=np.int16)
        grids = [_with_light_rules(grid, pixels, dpi, params) for grid in grids]
    return grids


def _with_light_rules(grid: Grid, pixels: np.ndarray, dpi: int, params: RuledTableParams) -> Grid:
    """The grid with the light rules printed inside it: a spreadsheet's gray rules between
    the rows of a group and beside its labels, black ones around the groups (ICDAR us-031a,
    whose rows of figures otherwise ran into one cell per group). Found as row_rules finds a
    region's, `light_rule_below_paper_level` darker than the grid's paper (inside a grid, a
    pixel row darker across a whole cell is a rule, not a line of text), between the grid's own
    rules: a light column rule runs down `light_rule_min_spans` rows or more, a light row
    rule across as many columns (a dash or an underline fills one cell at most), a cell left
    out of one spans it (grid_cells)."""
    x0, y0, x1, y1 = (round(v) for v in grid.bbox)
    inset = round(at_dpi(params.light_rule_inset_px, dpi))
    slack = at_dpi(params.grid_slack_px, dpi)
    found: list[Rule] = []  # down one row each, then across one column each
    for top, bottom in itertools.pairwise(round(y) for y in grid.ys):
        band = pixels[top + inset : bottom - inset, x0 + inset : x1 - inset]
        found += [
            Rule(pos=x0 + inset + x, start=top, end=bottom, thickness=thickness)
            for x, thickness in _light_lines(band.T, dpi, params)
            if not _inked(band, x, thickness, params)
        ]
    v_rules, xs = _with_light(grid.v_rules, grid.xs, found, slack, params)
    found = []
    for left, right in itertools.pairwise(round(x) for x in xs):
        strip = pixels[y0 + inset : y1 - inset, left + inset : right - inset]
        found += [
            Rule(pos=y0 + inset + y, start=left, end=right, thickness=thickness)
            for y, thickness in _light_lines(strip, dpi, params)
        ]
    h_rules, ys = _with_light(grid.h_rules, grid.ys, found, slack, params)
    return Grid(
        ys=ys,
        xs=xs,
        h_rules=h_rules,
        v_rules=v_rules,
        # The open sides are still the first and last columns' outer ones.
        open_columns=frozenset(0 if c == 0 else len(xs) - 2 for c in grid.open_columns),
    )


def _inked(band: np.ndarray, x: float, thickness: int, params: RuledTableParams) -> bool:
    """A light column rule found at `x` of a row's band is black (the grid finder's ink)
    along most of its length (`light_rule_max_ink_share`): figures one over the other ("1"
    on each row, ICDAR eu-001) joined by the gray rules between them, no rule of its own."""
    half = thickness // 2 + 1
    column = band[:, max(0, round(x) - half) : round(x) + half + 1]
    if column.size == 0:
        return False
    inked = (column.min(axis=1) < params.rule_dark_below_level).mean()
    return bool(inked >= params.light_rule_max_ink_share)


def _with_light(
    rules: list[Rule], lines: list[float], pieces: list[Rule], slack: float,
    params: RuledTableParams,
) -> tuple[list[Rule], list[float]]:  # fmt: skip
    """A grid's rules and lines (its rows' or its columns') with the light rule `pieces`
    found each inside one of its cells, joined where they line up from one to the next. One
    on a line of the grid's is that line's rule across the cells it crosses (a gray rule the
    grid finder saw dark in part); one off them, `light_rule_min_spans` long, is a line of
    its own."""
    joined: list[Rule] = []
    spans: list[int] = []
    for piece in sorted(pieces, key=lambda r: (r.start, r.pos)):
        last = next(
            (
                k
                for k in range(len(joined) - 1, -1, -1)
                if abs(joined[k].pos - piece.pos) <= slack and joined[k].end == piece.start
            ),
            None,
        )
        if last is None:
            joined.append(Rule(piece.pos, piece.start, piece.end, piece.thickness))
            spans.append(1)
        else:
            joined[last].end = piece.end
            spans[last] += 1
    rules, lines = list(rules), list(lines)
    for light, n in zip(joined, spans, strict=True):
        on_line = any(abs(light.pos - line) <= slack for line in lines)
        if not on_line and n < params.light_rule_min_spans:
            continue
        # Where the grid's own rule already runs, the light one is that rule (its edge); a
        # rule seen dark in part goes on only across the cells where it is seen.
        if not any(
            abs(r.pos - light.pos) <= slack and r.start <= light.start and light.end <= r.end
            for r in rules
        ):
            rules.append(light)
        # Pieces of one rule a cell apart, told apart by a pixel or two: one line.
        if not on_line:
            lines.append(light.pos)
    return sorted(rules, key=lambda r: r.pos), sorted(lines)


def _grids_of(
    h_rules: list[Rule], v_rules: list[Rule], used: set[int], dark: np.ndarray, dpi: int,
    params: RuledTableParams, *, open_sides: bool,
) -> list[Grid]:  # fmt: skip
    """The grids of the horizontal rules not `used` yet (which it then adds to it), the
    longest rules first: each with the rules inside its extent along most of it."""
    ends = at_dpi(params.grid_ends_tolerance_px, dpi)
    slack = at_dpi(params.grid_slack_px, dpi)
    grids: list[Grid] = []
    for i in sorted(range(len(h_rules)), key=lambda k: h_rules[k].start - h_rules[k].end):
        if i in used:
            continue
        top = h_rules[i]
        along = params.grid_rule_min_share * (top.end - top.start)
        same = [
            j
            for j, r in enumerate(h_rules)
            if j not in used
            and r.start > top.start - ends
            and r.end < top.end + ends
            and r.end - r.start >= along
        ]
        if len(same) < params.grid_min_h_rules:
            continue
        rows = _apart(sorted((h_rules[j] for j in same), key=lambda r: r.pos), slack)
        edges = (top.start, top.end)
        for run in _joined_runs(rows, v_rules, edges, slack, inner=open_sides):
            grid = _grid(run, v_rules, edges, dpi, params, open_sides=open_sides)
            if len(run) >= params.grid_min_h_rules and grid is not None:
                near = at_dpi(params.page_border_px, dpi)
                if _page_border(grid, dark, near, params):
                    continue
                if grid.open_columns and _at_image_edge(grid, dark.shape, near):
                    continue  # a scan's dark border and the lines along it, no open table
                grids.append(grid)
                top_y, bottom_y = run[0].pos - slack, run[-1].pos + slack
                used.update(j for j in same if top_y <= h_rules[j].pos <= bottom_y)
    return grids


def _page_border(grid: Grid, dark: np.ndarray, near: float, params: RuledTableParams) -> bool:
    """The grid runs along all four edges of the image (`near` pixels or closer) and its first
    and last columns are solid ink (`page_border_dark_share`): the dark margins of an inverted
    page, no table's cells (a figure's table cropped to its frame holds its labels there)."""
    x0, y0, x1, y1 = (round(v) for v in grid.bbox)
    if not all(_edges_near((x0, y0, x1, y1), dark.shape, near)):
        return False
    first, last = round(grid.xs[1]), round(grid.xs[-2])
    return all(
        band.size and band.mean() >= params.page_border_dark_share
        for band in (dark[y0:y1, x0:first], dark[y0:y1, last:x1])
    )


def _at_image_edge(grid: Grid, shape: tuple[int, ...], near: float) -> bool:
    """The grid reaches an edge of the image (`near` pixels or closer): a table ruled between
    its columns only sits inside the page's margins, where a scan's dark border does not."""
    return any(_edges_near(grid.bbox, shape, near))


def _edges_near(box: BBox, shape: tuple[int, ...], near: float) -> tuple[bool, ...]:
    """Whether the box reaches the image's left, top, right and bottom edge (`near` pixels or
    closer)."""
    height, width = shape
    x0, y0, x1, y1 = box
    return (x0 <= near, y0 <= near, x1 >= width - 1 - near, y1 >= height - 1 - near)


def _apart(rows: list[Rule], slack: float) -> list[Rule]:
    """Rules closer than `slack` are one (a shaded row's edge beside the rule it ends at)."""
    out: list[Rule] = []
    for rule in rows:
        if not out or rule.pos - out[-1].pos > slack:
            out.append(rule)
    return out


def _joined_runs(
    rows: list[Rule], v_rules: list[Rule], edges: tuple[int, int], slack: float, *, inner: bool
) -> list[list[Rule]]:
    """Rules of one extent cut where no rule down an edge (or, `inner`, any vertical rule
    between its edges: a table ruled between its columns only) joins one to the next: two
    tables of one width, one above the other, are two grids."""
    left, right = edges
    runs: list[list[Rule]] = [rows[:1]]
    for upper, lower in itertools.pairwise(rows):
        joined = any(
            (
                left - slack < v.pos < right + slack
                if inner
                else any(abs(v.pos - edge) < slack for edge in edges)
            )
            and v.start <= upper.pos + slack
            and v.end >= lower.pos - slack
            for v in v_rules
        )
        if joined:
            runs[-1].append(lower)
        else:
            runs.append([lower])
    return runs


def _grid(
    rows: list[Rule], v_rules: list[Rule], edges: tuple[int, int], dpi: int,
    params: RuledTableParams, *, open_sides: bool,
) -> Grid | None:  # fmt: skip
    """The grid of these horizontal rules with the vertical rules crossing them; None without
    `grid_min_v_rules`, two at its edges (`open_sides`: or a side without one, its column
    ending where the horizontal rules end, when `grid_min_v_rules` run its whole height)."""
    slack = at_dpi(params.grid_slack_px, dpi)
    left, right = edges
    y0 = rows[0].pos
    verticals = [
        v for v in v_rules
        if left - slack <= v.pos <= right + slack and v.start <= y0 + slack
        and v.end >= y0 + at_dpi(params.v_rule_reach_px, dpi)
    ]  # fmt: skip
    # A side without a rule down it (statistical tables are often ruled between their columns
    # only): the horizontal rules' end is that side's edge.
    unruled = [edge for edge in edges if all(abs(v.pos - edge) >= slack for v in verticals)]
    if len(verticals) < params.grid_min_v_rules or (unruled and not open_sides):
        return None
    # Without its sides a table stands on its column rules: they run its whole height (a
    # stroke or a stamp's edge between a typescript's underlines does not).
    bottom = rows[-1].pos
    if unruled and sum(v.end >= bottom - slack for v in verticals) < params.grid_min_v_rules:
        return None
    xs = sorted({round(v.pos) for v in verticals} | {round(edge) for edge in unruled})
    merged_xs: list[float] = []
    for x in xs:
        if not merged_xs or x - merged_xs[-1] > slack:
            merged_xs.append(float(x))
    # Interior verticals that start lower (spanning header cells) count too, when they run
    # along most of a row: a stamp's or a letter's stroke inside a scan's border frame, a
    # sliver of a row that is the whole page, parts no columns (typewritten-fr: a page's border
    # and a library stamp made a "table" of a typescript's lines cut in two).
    spans = list(itertools.pairwise(r.pos for r in rows))

    def along_a_row(v: Rule) -> bool:
        return any(
            min(v.end, b) - max(v.start, a) >= params.v_rule_row_share * (b - a) for a, b in spans
        )

    for v in v_rules:
        inside = (
            left + slack < v.pos < right - slack and y0 - slack <= v.start
            and v.end <= rows[-1].pos + slack and along_a_row(v)
        )  # fmt: skip
        if inside and all(abs(v.pos - x) > slack for x in merged_xs):
            merged_xs.append(float(v.pos))
    merged_xs.sort()
    widths = [b - a for a, b in itertools.pairwise(merged_xs)]
    if not widths or statistics.median(widths) < at_dpi(params.grid_min_column_px, dpi):
        return None  # the gaps between a banner's light letters, no columns
    open_columns = frozenset(
        c for c, edge in ((0, left), (len(merged_xs) - 2, right)) if edge in unruled
    )
    return Grid(ys=[r.pos for r in rows], xs=merged_xs, h_rules=rows, v_rules=v_rules,
                open_columns=open_columns)  # fmt: skip


def _has_v_rule(grid: Grid, x: float, y0: float, y1: float, slack: float, share: float) -> bool:
    along = share * (y1 - y0)
    return any(
        abs(v.pos - x) < slack and min(v.end, y1) - max(v.start, y0) >= along for v in grid.v_rules
    )


def _has_h_rule(grid: Grid, y: float, x0: float, x1: float, slack: float, share: float) -> bool:
    along = share * (x1 - x0)
    return any(
        abs(h.pos - y) < slack and min(h.end, x1) - max(h.start, x0) >= along for h in grid.h_rules
    )


def table_block(
    grid: Grid, words: list[Word], ink, dpi: int, *, params: RuledTableParams = RULED_TABLES
) -> ReadBlock:
    """The table's cells (with spans) filled with the words whose centers fall inside them
    (a page image of `dpi`)."""
    rows: list[list[dict]] = [[] for _ in range(len(grid.ys) - 1)]
    for (r, _, rowspan, colspan), inside in _words_by_cell(grid, words, dpi, params):
        # A rule read as a glyph ("|76.7") is no text.
        texts = [t for t in (w.text.strip(RULE_GLYPHS) for w in inside) if t]
        rows[r].append({"text": " ".join(texts), "header": False, "rowspan": rowspan,
                        "colspan": colspan})  # fmt: skip
    if rows and _header_row(grid, ink, dpi, params):
        for cell in rows[0]:
            cell["header"] = True
    return ReadBlock(kind="table", bbox=grid.bbox, rows=rows, text="")


def _words_by_cell(
    grid: Grid, words: list[Word], dpi: int, params: RuledTableParams
) -> list[tuple[tuple[int, int, int, int], list[Word]]]:
    """Each of the grid's cells (row, column, rowspan, colspan) with the words whose centres
    fall inside it, in the words' order (a cell's lines one after the other)."""
    out = []
    for cell in grid_cells(grid, dpi, params=params):
        r, c, rowspan, colspan = cell
        x0, y0 = grid.xs[c], grid.ys[r]
        x1, y1 = grid.xs[c + colspan], grid.ys[r + rowspan]
        inside = [
            w for w in words
            if w.bbox is not None
            and x0 <= (w.bbox[0] + w.bbox[2]) / 2 < x1 and y0 <= (w.bbox[1] + w.bbox[3]) / 2 < y1
        ]  # fmt: skip
        out.append((cell, inside))
    return out


def _labelled_boxes(grid: Grid, words: list[Word], dpi: int, params: RuledTableParams) -> bool:
    """A form's boxes: in most cells holding two lines or more (`labelled_box_share`), the
    first line's words are small print (`label_height_ratio` of the rest's height or less), a
    label over its answer. Their lines are no rows of their own."""
    multi = labelled = 0
    for _, in_cell in _words_by_cell(grid, words, dpi, params):
        inside = [w.bbox for w in in_cell if w.bbox]
        if not inside:
            continue
        first_bottom = min(inside, key=lambda b: b[1])[3]  # the topmost word's foot
        first = [b for b in inside if b[1] < first_bottom]  # the words of the cell's first line
        rest = [b for b in inside if b[1] >= first_bottom]
        if not rest:
            continue
        multi += 1
        first_h = statistics.median(b[3] - b[1] for b in first)
        rest_h = statistics.median(b[3] - b[1] for b in rest)
        labelled += first_h <= params.label_height_ratio * rest_h
    return labelled >= 2 and labelled >= params.labelled_box_share * multi


def _rules_miss_cells(grid: Grid, words: list[Word], dpi: int, params: RuledTableParams) -> bool:
    """A cell holding figures on two lines or more, or words a column's gap apart on one line
    (`cell_column_gap_heights` word heights): rules framing a block of figures without
    parting its rows, or missing a column's rule ("NA   NA" in one cell). Where each cell
    holds one line of figures and no gap, the rules part them, however many more cells the
    words would make of a label's wrapped lines (ICDAR us-031a)."""
    for _, inside in _words_by_cell(grid, words, dpi, params):
        placed = sorted((w for w in inside if w.bbox), key=lambda w: w.bbox[1])  # type: ignore[index]
        boxes = [w.bbox for w in placed]
        figures = [w.bbox for w in placed if is_figure(w.text)]
        if any(lower[1] >= upper[3] for upper, lower in itertools.pairwise(figures)):
            return True
        for a, b in itertools.combinations(boxes, 2):
            height = max(a[3] - a[1], b[3] - b[1])
            on_one_line = min(a[3], b[3]) > max(a[1], b[1])
            apart = max(a[0], b[0]) - min(a[2], b[2])
            if on_one_line and apart >= params.cell_column_gap_heights * height:
                return True
    return False


def grid_cells(
    grid: Grid, dpi: int, *, params: RuledTableParams = RULED_TABLES
) -> list[tuple[int, int, int, int]]:
    """The grid's cells as (row, column, rowspan, colspan), row by row: a rule missing along
    most of a cell's side (`cell_rule_share`) joins it to the next."""
    slack, share = at_dpi(params.grid_slack_px, dpi), params.cell_rule_share
    n_rows, n_cols = len(grid.ys) - 1, len(grid.xs) - 1
    owned: set[tuple[int, int]] = set()
    cells = []
    for r in range(n_rows):
        for c in range(n_cols):
            if (r, c) in owned:
                continue
            colspan = 1
            while c + colspan < n_cols and not _has_v_rule(
                grid, grid.xs[c + colspan], grid.ys[r], grid.ys[r + 1], slack, share
            ):
                colspan += 1
            across = _ruled_span(grid, c, colspan, slack, share)
            rowspan = 1
            while r + rowspan < n_rows and not _has_h_rule(
                grid, grid.ys[r + rowspan], *across, slack, share
            ):
                rowspan += 1
            owned.update((rr, cc) for rr in range(r, r + rowspan) for cc in range(c, c + colspan))
            cells.append((r, c, rowspan, colspan))
    return cells


def _ruled_span(
    grid: Grid, c: int, colspan: int, slack: float, share: float
) -> tuple[float, float]:
    """Where a cell's row rules are looked for: across the cell; for a cell alone in an open
    column that no rule inside the grid but one (under its head) reaches into, across its
    ruled neighbour: a stub column's labels line up with the ruled figures beside them. Where
    rules reach into it between groups of rows, a label spans its group."""
    if colspan == 1 and c in grid.open_columns and len(grid.xs) > 2:
        x0, x1 = grid.xs[c], grid.xs[c + 1]
        inner = sum(_has_h_rule(grid, y, x0, x1, slack, share) for y in grid.ys[1:-1])
        if inner <= 1:
            near = c + 1 if c == 0 else c - 1
            return grid.xs[near], grid.xs[near + 1]
    return grid.xs[c], grid.xs[c + colspan]


def unread_cells(
    grid: Grid, words: list[Word], ink, dpi: int, *, params: RuledTableParams = RULED_TABLES
) -> list[BBox]:
    """The boxes of the grid's cells that hold ink (`cell_min_ink_share` of their inside, a
    rule's width clear of their rules) but no word read surely (`cell_sure_confidence`, a
    letter or digit): a lone figure or dash Tesseract's line finder passed over or read as
    scraps ("feel" for a "1" on a shaded cell), or a whole row it lost."""
    centres = [
        ((w.bbox[0] + w.bbox[2]) / 2, (w.bbox[1] + w.bbox[3]) / 2)
        for w in words
        if w.bbox and w.confidence >= params.cell_sure_confidence and any(map(str.isalnum, w.text))
    ]
    inset = at_dpi(params.cell_inset_px, dpi)
    out = []
    for r, c, rowspan, colspan in grid_cells(grid, dpi, params=params):
        x0, y0 = grid.xs[c], grid.ys[r]
        x1, y1 = grid.xs[c + colspan], grid.ys[r + rowspan]
        if any(x0 <= x < x1 and y0 <= y < y1 for x, y in centres):
            continue
        inside = (round(x0 + inset), round(y0 + inset), round(x1 - inset), round(y1 - inset))
        if (
            inside[2] > inside[0]
            and inside[3] > inside[1]
            and ink(inside) >= params.cell_min_ink_share
        ):
            out.append((x0, y0, x1, y1))
    return out


def _header_row(grid: Grid, ink, dpi: int, params: RuledTableParams) -> bool:
    """A heavier rule under the first row, or first-row text darker than the rest."""
    thickness = sorted(h.thickness for h in grid.h_rules)
    median = thickness[len(thickness) // 2]
    heavier = params.header_rule_ratio * max(median, 1)
    slack = at_dpi(params.grid_slack_px, dpi)
    under = [h.thickness for h in grid.h_rules if abs(h.pos - grid.ys[1]) < slack]
    if len(grid.ys) > 2 and max(under, default=0) >= heavier:
        return True
    x0, x1 = grid.xs[0], grid.xs[-1]
    margin = round(at_dpi(params.cell_margin_px, dpi))  # whole pixels: a crop's box
    left, right = int(x0) + margin, int(x1) - margin
    first = ink((left, int(grid.ys[0]) + margin, right, int(grid.ys[1]) - margin))
    rest = ink((left, int(grid.ys[1]) + margin, right, int(grid.ys[-1]) - margin))
    return rest > 0 and first >= params.header_ink_ratio * rest


def row_rules(
    gray: Image.Image, box: BBox, dpi: int, *, params: RuledTableParams = RULED_TABLES
) -> list[float]:
    """Heights of the horizontal rules printed across a table region of a page image of `dpi`,
    light ones too (a scan's gray rules, which the grid finder's threshold misses): pixel rows
    of which most of the region's width (`row_rule_width_share`) is darker than the paper
    within a pixel row or two (`rule_askew_px`: a rule a little askew after deskewing lies on
    several), in runs of a few pixel rows (`row_rule_max_thickness_px`: thicker is a filled
    bar, as a reversed header row is). A rule stopping short of a column (under cells beside
    one that spans rows) does not count."""
    x0, y0, x1, y1 = (int(v) for v in box)
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(gray.width, x1), min(gray.height, y1)
    narrow = x1 - x0 < at_dpi(params.row_rules_min_width_px, dpi)
    if narrow or y1 - y0 < at_dpi(params.row_rules_min_height_px, dpi):
        return []
    pixels = np.asarray(gray.convert("L").crop((x0, y0, x1, y1)), dtype=np.int16)
    paper = np.percentile(pixels, params.paper_percentile)
    below = params.rule_below_paper_level
    return [y0 + y for y, _ in _light_rows(pixels, paper - below, dpi, params)]


def _light_rows(
    pixels: np.ndarray, level: float | np.ndarray, dpi: float, params: RuledTableParams,
    *, lighter_around: float = 0.0, medians: np.ndarray | None = None,
) -> list[tuple[float, int]]:  # fmt: skip
    """The rules across a gray crop, light ones too: pixel rows of which most of the width
    (`row_rule_width_share`) is darker than `level` (one for the crop, or one per pixel row)
    within `rule_askew_px` pixel rows, in runs at most `row_rule_max_thickness_px` thick; with
    `lighter_around`, only runs whose pixel rows just outside them, on both sides, are that
    much lighter (their `medians`, when already known): a line, not the edge of a shaded
    band. Each as (its middle row in the crop, its thickness)."""
    if pixels.size == 0:
        return []
    limit = level[:, None] if isinstance(level, np.ndarray) else level
    askew = round(at_dpi(params.rule_askew_px, dpi))
    dark = _near(pixels < limit, askew).mean(axis=1) >= params.row_rule_width_share
    if lighter_around and medians is None:
        medians = np.median(pixels, axis=1)
    thickest = at_dpi(params.row_rule_max_thickness_px, dpi)
    out: list[tuple[float, int]] = []
    start = None
    for y, on in enumerate([*dark.tolist(), False]):
        if on and start is None:
            start = y
        elif not on and start is not None:
            apart = True
            if medians is not None:
                run = float(np.min(medians[start:y]))
                sides = (medians[max(0, start - askew - 2) : start], medians[y : y + askew + 2])
                apart = all(len(side) and np.max(side) >= run + lighter_around for side in sides)
            if y - start <= thickest and apart:
                out.append(((start + y - 1) / 2, y - start))
            start = None
    return out


def _light_lines(crop: np.ndarray, dpi: float, params: RuledTableParams) -> list[tuple[float, int]]:
    """The light rules across a crop inside a grid (its rows; transpose it for its columns),
    as `_light_rows` finds them, `light_rule_below_paper_level` under the paper around each
    pixel row (the lightest row median within a rule's thickness or two: a shaded column's
    paper is its tint, not the page's) and lighter on both sides by half as much."""
    if crop.size == 0:  # a row thinner than the margins kept off its rules
        return []
    below = params.light_rule_below_paper_level
    medians = np.median(crop, axis=1)
    reach = round(at_dpi(params.row_rule_max_thickness_px, dpi))
    padded = np.pad(medians, reach, mode="edge")
    paper = np.lib.stride_tricks.sliding_window_view(padded, 2 * reach + 1).max(axis=1)
    return _light_rows(crop, paper - below, dpi, params, lighter_around=below / 2, medians=medians)


def reversed_bars(
    gray: Image.Image, dpi: int, *, params: RuledTableParams = RULED_TABLES
) -> list[BBox]:
    """Filled dark bars a line or two tall holding light text: a table's header row printed
    reversed (white on dark), which Tesseract takes for a picture and does not read. A pixel
    row belongs to a bar where a tenth of an inch around a point is two thirds dark, over an
    inch or more; the bar goes down from such a row while that stretch stays half dark (its
    letters cut it), 0.1-0.6 inch tall, four times as wide, with light pixels inside (the
    `bar_` fields of `params`)."""
    scale = 2  # measured on a half-size copy: the bars are large, and it is four times cheaper
    small = np.asarray(gray.convert("L").reduce(scale), dtype=np.uint8)
    height, width = small.shape
    dots = dpi / scale  # pixels per inch on the copy
    window = max(params.bar_window_min_px, int(params.bar_window_inch * dots))
    dark = small < params.dark_below_level
    min_length = params.bar_min_length_inch * dots
    spans: list[tuple[int, int, int] | None] = [None] * height  # per row: its bar stretch
    # Only rows an inch of dark could be a bar's (few on a page of text).
    candidates = np.flatnonzero(dark.sum(axis=1) >= min_length)
    if candidates.size == 0:
        return []
    sums = np.cumsum(np.pad(dark[candidates].astype(np.int32), ((0, 0), (1, 0))), axis=1)
    barish = (sums[:, window:] - sums[:, :-window]) >= params.bar_window_dark_share * window
    for i, y in enumerate(candidates.tolist()):
        row = barish[i]
        if row.sum() < min_length:
            continue
        edges = np.flatnonzero(np.diff(np.concatenate(([0], row.astype(np.int8), [0]))))
        starts, ends = edges[0::2], edges[1::2]
        # The bar's letters break its stretch: gaps narrower than 0.3 inch are closed.
        keep = np.concatenate(([True], starts[1:] - ends[:-1] > params.bar_letter_gap_inch * dots))
        starts, ends = starts[keep], np.concatenate((ends[np.flatnonzero(keep)[1:] - 1], ends[-1:]))
        k = int(np.argmax(ends - starts))
        if row[starts[k] : ends[k]].mean() >= params.bar_row_dark_share:
            spans[y] = (y, int(starts[k]), int(ends[k]) + window)
    bars: list[BBox] = []
    half_dark = params.bar_row_dark_share
    y = 0
    while y < height:
        span = spans[y]
        if span is None or span[2] - span[1] < min_length:
            y += 1
            continue
        _, x0, x1 = span
        # The bar goes on while its stretch stays half dark (its letters are light).
        end = y + 1
        while end < height and (small[end, x0:x1] < params.dark_below_level).mean() >= half_dark:
            end += 1
        # Its width: its widest solid row (the first may be a blurred edge).
        _, x0, x1 = max((s for s in spans[y:end] if s), key=lambda s: s[2] - s[1])
        light = (small[y:end, x0:x1] >= params.dark_below_level).mean()
        tall = end - y
        a_line_or_two = (
            params.bar_min_height_inch * dots <= tall <= params.bar_max_height_inch * dots
        )
        wide = x1 - x0 >= params.bar_min_aspect_ratio * tall
        if a_line_or_two and wide and light >= params.bar_min_light_share:
            bars.append((x0 * scale, y * scale, x1 * scale, end * scale))
        y = end
    return bars


def ruled_tables(
    binary, paragraphs: list[ParaLines], ink, dpi: int, *, grids: list[Grid] | None = None,
    params: RuledTableParams = RULED_TABLES,
) -> tuple[list[ReadBlock], list[ParaLines]]:  # fmt: skip
    """Ruled tables become table blocks; their words leave the paragraphs. `grids`: the page's
    grids when they are known (else found on `binary`)."""
    if grids is None:
        grids = find_grids(binary, dpi, params=params) if binary is not None else []
    tables: list[ReadBlock] = []
    for grid in grids:
        x0, y0, x1, y1 = grid.bbox
        taken: list[tuple[Line, list[Word]]] = []
        orders = []
        for para in paragraphs:
            for line in para:
                inside = [w for w in line.words if w.bbox and x0 <= (w.bbox[0] + w.bbox[2]) / 2
                          <= x1 and y0 <= (w.bbox[1] + w.bbox[3]) / 2 <= y1]  # fmt: skip
                if inside:
                    taken.append((line, inside))
                    orders.append(para.order)
        words = [w for _, inside in taken for w in inside]
        if not words:
            continue
        if _frames_prose(grid, taken, params):
            continue  # a newspaper's column rules, a framed page: its text stays text
        table = table_block(grid, words, ink, dpi, params=params)
        cells = [c for row in table.rows or [] for c in row]
        filled = sum(bool(c["text"].strip()) for c in cells)
        by_words = table_from_words(words, grid.bbox)
        if (
            by_words is not None
            and sum(bool(c["text"].strip()) for row in by_words.rows or [] for c in row)
            > params.words_over_grid_ratio * max(filled, 1)
            and not _labelled_boxes(grid, words, dpi, params)
            and (
                _rules_miss_cells(grid, words, dpi, params)
                or not any(is_figure(w.text) for w in words)
            )
        ):
            # Rules that frame a block of figures without separating them: the words decide.
            table = by_words
        elif filled < params.min_filled_share * len(cells):
            continue  # mostly empty cells: the rules of a frame or a form; the words stay text
        for line, inside in taken:
            line.words = [w for w in line.words if w not in inside]
        table.words = words  # the layout step may rebuild the table from them
        table.order = min(orders)
        tables.append(table)
    if not tables:
        return [], paragraphs
    return tables, keep_lines(paragraphs, lambda line: bool(line.words))


def _frames_prose(
    grid: Grid, lines: list[tuple[Line, list[Word]]], params: RuledTableParams
) -> bool:
    """Rules around columns of running text, no table: a row between two rules holds
    `frame_min_prose_lines` lines of prose or more, and prose holds a good share of the words
    (a table's row between two rules holds a line or a few, a group of a text-heavy table's
    rows fourteen (ICDAR us-015); a newspaper's column rules and the rules under its masthead
    make one row of the whole page, 64 lines of prose)."""
    prose = [inside for _, inside in lines if prose_line([w.text for w in inside])]
    total = sum(len(inside) for _, inside in lines)
    if sum(map(len, prose)) < params.frame_prose_word_share * total:
        return False
    return any(
        sum(top <= (ws[0].bbox[1] + ws[0].bbox[3]) / 2 <= bottom for ws in prose)  # type: ignore[index]
        >= params.frame_min_prose_lines
        for top, bottom in itertools.pairwise(grid.ys)
    )


def table_rules(
    gray: Image.Image, bars: list, dpi: int, *, params: RuledTableParams = RULED_TABLES
) -> Callable[[BBox], list[float]]:
    """The rules printed across a table region (row_rules), and the foot of a reversed header
    row across it: its lines are the header, however many they are."""

    def rules(box: BBox) -> list[float]:
        width = box[2] - box[0]
        feet = [bar[3] for bar in bars if min(bar[2], box[2]) - max(bar[0], box[0]) >= width / 2]
        return sorted(row_rules(gray, box, dpi, params=params) + feet)

    return rules
