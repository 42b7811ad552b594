"""Tables drawn with rules on a born-digital page: PyMuPDF's table finder gives the grid (its
vector lines give cells and spans exactly); the page's words fill its cells, part a column the
rules do not part, and tell rules that frame a table without parting its rows (then the words
decide)."""

from __future__ import annotations

import itertools
import statistics
from collections import Counter
from collections.abc import Callable

import pymupdf

from models.engine import Word
from models.reading.layer_words import page_words
from models.reading.markers import BULLET_GLYPHS
from models.reading.params.tables import WORD_TABLES
from models.reading.params.text_layer import TEXT_LAYER, TextLayerParams
from models.reading.word_rows import is_data_row, joined_row_lines
from models.reading.word_tables import table_from_words


def _lines_at(edges: list[float], tolerance: float) -> list[float]:
    """Cell edges merged into the grid's lines (edges closer than `tolerance` are one)."""
    lines: list[float] = []
    for edge in sorted(edges):
        if not lines or edge - lines[-1] > tolerance:
            lines.append(edge)
    return lines


def _words_in(box, words: list[tuple]) -> list[tuple]:
    """The words (PyMuPDF "words" tuples) whose centre lies in box."""
    return [w for w in words if box[0] <= (w[0] + w[2]) / 2 <= box[2]
            and box[1] <= (w[1] + w[3]) / 2 <= box[3]]  # fmt: skip


def _own_table(box, words: list[tuple]):
    """The words inside `box` read as a table of their own, or None."""
    inside = [Word(text=w[4], confidence=1.0, bbox=tuple(w[:4])) for w in _words_in(box, words)]
    return table_from_words(inside, tuple(box))


def _figure_rows(box, words: list[tuple]) -> int:
    """How many rows of figures the words inside `box` make as a table of their own."""
    table = _own_table(box, words)
    return sum(is_data_row([c["text"] for c in r]) for r in table.rows) if table else 0


def _columns_agree(box, words: list[tuple], columns: int) -> bool:
    """The words inside `box`, read as a table of their own, make as many columns as the grid:
    its empty cells are the table's blanks (ICDAR us-007: effect sizes printed only where
    significant), not rules that miss the text."""
    table = _own_table(box, words)
    return table is not None and max(len(row) for row in table.rows) == columns


def _stacks_rows(table, words: list[tuple], params: TextLayerParams) -> bool:
    """A cell spanning several of the grid's rows that stacks several lines: a column ruled
    as one tall cell holding every row's label (ICDAR us-009), not a table's blanks."""
    ys = _lines_at([c[1] for c in table.cells if c] + [table.bbox[3]], params.grid_line_pt)
    for box in table.cells:
        if box is None or _spanned(ys, box[1], box[3], params) < 2:
            continue
        centres = [round((w[1] + w[3]) / 2) for w in _words_in(box, words)]
        if len(_lines_at(centres, params.grid_line_pt)) >= params.stacked_lines:
            return True
    return False


def _rows_not_ruled(rows: list, words: list[tuple], params: TextLayerParams) -> bool:
    """Rules that frame the table but do not part its printed rows (a rule under the header and
    one at the foot, as journals print them): one grid row in which three cells or more stack
    several lines that line up with the other cells' lines holds many printed rows; so does
    one in which two such cells line up into rows of figures ("20-29 | 0.2650" over "30-39 |
    0.2046": ICDAR us-033). (Two cells side by side, each a list of a few lines, are cells of
    their own.)"""
    for row in rows:
        stacks = []
        for box in row.cells:
            if box is None:
                continue
            # Centres within grid_line_pt are one line.
            centres = [round((w[1] + w[3]) / 2) for w in _words_in(box, words)]
            lines = _lines_at(centres, params.grid_line_pt)
            if len(lines) >= params.stacked_lines:
                stacks.append(lines)
        for a in stacks:
            lined_up = sum(
                sum(any(abs(y - z) <= params.lined_up_pt for z in b) for y in a)
                >= params.lined_up_share * min(len(a), len(b))
                for b in stacks
                if b is not a
            )
            if lined_up >= params.stacked_cells - 1:
                return True
            if lined_up and _figure_rows(row.bbox, words) >= params.stacked_lines:
                return True
    return False


def _cuts_phrases(table, words: list[tuple], params: TextLayerParams) -> bool:
    """Two words of one line set a word space apart in two cells of the grid ("of | items"):
    a finder that inferred its grid from the text's layout (ICDAR us-021's booktabs table,
    ruled across only) put a cell's edge there; no printed table parts a phrase. (A cell
    spanning columns holds its line whole.)"""
    cell_of = {}
    for n, box in enumerate(c for c in table.cells if c):
        for w in _words_in(box, words):
            cell_of.setdefault(w[5:8], n)
    ordered = sorted(words, key=lambda w: (w[5], w[6], w[7]))  # block, line, word number
    for a, b in itertools.pairwise(ordered):
        cells = cell_of.get(a[5:8]), cell_of.get(b[5:8])
        if (a[5], a[6]) != (b[5], b[6]) or None in cells or cells[0] == cells[1]:
            continue
        if 0 <= b[0] - a[2] < params.phrase_cut_gap_share * (a[3] - a[1]):
            return True
    return False


def _cell_holds_figures(rows: list, words: list[tuple]) -> bool:
    """A ruled cell whose words make a table of figures of their own (rows of figures in
    columns: "344 75.2 12196 17.4%" over "53 11.6 23518 22.5%"), as a statistics package rules
    a table only under its header and beside its labels: the rules do not part its rows and
    columns, the words do."""
    for row in rows:
        for box in row.cells:
            if box is None:
                continue  # covered by a spanning cell
            if _figure_rows(box, words) >= WORD_TABLES.min_rows:
                return True
    return False


def _free_stretches(inside: list[tuple]) -> list[tuple[float, float]]:
    """The stretches (x0, x1) between the words `inside` that no word covers, left to right."""
    spans = sorted((w[0], w[2]) for w in inside)
    free, reach = [], spans[0][1]
    for a, b in spans[1:]:
        if a > reach:
            free.append((reach, a))
        reach = max(reach, b)
    return free


def _lines_inside(whole: tuple, xs: list[float], params: TextLayerParams) -> list[float]:
    """The grid's column lines strictly inside a cell (`params.span_reach_pt` from its edges)."""
    reach = params.span_reach_pt
    return [x for x in xs if whole[0] + reach < x < whole[2] - reach]


def _unruled_column_gaps(
    rows: list, words: list[tuple], xs: list[float], params: TextLayerParams
) -> list[float]:
    """Where rules do not part two printed columns (a category beside its description, no rule
    between them): the middle of a vertical gap that every body cell of one grid column, three
    or more, leaves free, wider than a line is tall. A cell spanning several of the grid's
    columns (`xs`) tells nothing of one."""
    if not words:
        return []
    height = statistics.median(w[3] - w[1] for w in words)
    gaps = []
    for c in range(max((len(row.cells) for row in rows), default=0)):
        shared: list[tuple[float, float]] | None = None
        cells = 0
        for row in rows[1:]:
            box = row.cells[c] if c < len(row.cells) else None
            if box and _spanned(xs, box[0], box[2], params) > 1:
                continue
            # A bullet sits apart from its item's text: no column of its own.
            inside = [w for w in _words_in(box, words) if w[4].strip(BULLET_GLYPHS)] if box else []
            if len(inside) < params.gap_cell_min_words:
                continue
            cells += 1
            free = _free_stretches(inside)
            shared = free if shared is None else [
                (max(a, x), min(b, y)) for a, b in shared for x, y in free if min(b, y) > max(a, x)
            ]  # fmt: skip
        if cells >= params.gap_min_cells and shared:
            a, b = max(shared, key=lambda gap: gap[1] - gap[0])
            if b - a >= height:
                gaps.append((a + b) / 2)
    return gaps


def _lined_up_columns(
    whole: tuple, xs: list[float], inside: list[tuple], params: TextLayerParams
) -> list[float]:
    """The grid's column lines inside a cell that spans several columns (a table ruled across
    its rows, with upright rules in its header only) where the cell's words line up with the
    columns and read as a row of figures ("Austria 86.2 13.8 0 3,375"): the cell is a row of
    cells. A label across the table (a group's name, a note) stays one cell."""
    lines = _lines_inside(whole, xs, params)
    if not lines or any(w[0] < x < w[2] for x in lines for w in inside):
        return []
    edges = [whole[0], *lines, whole[2]]
    parts = [
        " ".join(w[4] for w in inside if a <= (w[0] + w[2]) / 2 < b)
        for a, b in itertools.pairwise(edges)
    ]
    if sum(map(bool, parts)) < 2 or not is_data_row(parts):
        return []
    return lines


def _group_heads(
    whole: tuple, xs: list[float], inside: list[tuple], params: TextLayerParams
) -> list[float]:
    """The grid's column lines inside a cell spanning several columns that fall in wide
    stretches its words leave free (`params.group_gap_share` of their height): one box ruled
    round the heads of column groups ("12/31/2009", "12/31/2010", "6/30/2011", each over its
    "$000's | %"), each head then spanning its own columns. One line a stretch, the nearest
    its middle. A label across the table keeps its word spaces and stays one cell."""
    lines = _lines_inside(whole, xs, params)
    if not lines or len(inside) < 2:
        return []
    height = statistics.median(w[3] - w[1] for w in inside)
    parts = []
    for a, b in _free_stretches(inside):
        held = [x for x in lines if a < x < b]
        if b - a >= params.group_gap_share * height and held:
            parts.append(min(held, key=lambda x: abs(x - (a + b) / 2)))
    return parts


def _spanned(lines: list[float], start: float, end: float, params: TextLayerParams) -> int:
    """How many of the grid's columns (or rows), between its `lines`, a cell from start to end
    spans: those whose middle lies in it."""
    reach = params.span_reach_pt
    return sum(
        start - reach <= (a + b) / 2 <= end + reach for a, b in zip(lines, lines[1:], strict=False)
    )


def _ruled_table(
    tables: list, region: pymupdf.Rect, page: pymupdf.Page, params: TextLayerParams
) -> list[list[dict]] | None:
    """The table drawn with rules under a table region, from PyMuPDF's table finder (its
    vector lines give cells and spans exactly); None when no single ruled table holds most of
    the region (then the words decide)."""
    area = abs(region) or 1.0
    under = [t for t in tables
             if abs(pymupdf.Rect(t.bbox) & region) >= params.ruled_region_share * area]  # fmt: skip
    if len(under) != 1:
        return None
    table = under[0]
    boxes = [c for c in table.cells if c]
    xs = _lines_at([b[0] for b in boxes] + [max(b[2] for b in boxes)], params.grid_line_pt)
    ys = _lines_at([b[1] for b in boxes] + [max(b[3] for b in boxes)], params.grid_line_pt)
    # Cell text from the page's words (extract() joins glyphs placed without space characters).
    words = page_words(page, clip=pymupdf.Rect(table.bbox))

    def text_in(box) -> str:
        inside = _words_in(box, words)
        return " ".join(w[4] for w in sorted(inside, key=lambda w: (w[5], w[6], w[7])))

    if _rows_not_ruled(table.rows, words, params) or _cell_holds_figures(table.rows, words):
        return None  # the words decide
    if _cuts_phrases(table, words, params):
        return None  # a grid inferred from the page's layout, not drawn: the words decide
    # A column the rules do not part is parted at its gap; a cell whose words cross the gap (a
    # header over both) spans both.
    splits = _unruled_column_gaps(table.rows, words, xs, params)
    xs = sorted(xs + splits)
    rows: list[list[dict]] = []
    # Each ruled cell's text, read once: for the share of cells filled, and for the cell itself
    # when no gap parts it.
    whole_texts = [text_in(box) for row in table.rows for box in row.cells if box is not None]
    sparse = sum(map(bool, whole_texts)) < params.filled_cells_share * len(whole_texts)
    agree = _columns_agree(table.bbox, words, len(xs) - 1)
    if sparse and not (agree and not _stacks_rows(table, words, params)):
        return None  # rules that do not separate the text (a spreadsheet's partial grid)
    texts = iter(whole_texts)
    for row in table.rows:
        cells = []
        for whole in row.cells:
            if whole is None:
                continue  # covered by a spanning cell
            whole_text = next(texts)
            inside = _words_in(whole, words)
            inner = [x for x in splits if whole[0] < x < whole[2]]
            if any(w[0] < x < w[2] for x in inner for w in inside):
                inner = []
            inner = (
                inner
                or _lined_up_columns(whole, xs, inside, params)
                or _group_heads(whole, xs, inside, params)
            )
            edges = [whole[0], *inner, whole[2]]
            for x0, x1 in zip(edges, edges[1:], strict=False):
                box = (x0, whole[1], x1, whole[3])
                colspan = _spanned(xs, box[0], box[2], params)
                rowspan = _spanned(ys, box[1], box[3], params)
                text = text_in(box) if inner else whole_text
                cells.append({"text": text, "header": False,
                              "rowspan": max(rowspan, 1), "colspan": max(colspan, 1)})  # fmt: skip
        rows.append(cells)
    rows = joined_row_lines(rows)
    head = 2 if len(rows) > 2 and any(c["colspan"] > 1 for c in rows[0]) else 1
    # A first row of figures is data, whatever the rules (a table with no header row).
    if not table.header.external and not is_data_row([c["text"] for c in rows[0]]):
        for row in rows[:head]:
            for cell in row:
                cell["header"] = True
    return rows


def _empty_share(rows: list[list[dict]]) -> float:
    """Share of a grid's cells that hold no text: the spacer columns and split lines of rules
    that do not part the printed cells. Each cell counts once, however far it spans (a column
    ruled as one tall cell holding every row's label is no better for being full: us-009)."""
    cells = [bool(c["text"].strip()) for row in rows for c in row]
    return cells.count(False) / len(cells) if cells else 1.0


def _words_kept(rows: list[list[dict]], region_words: Counter) -> int:
    """How many of the region's words the grid's cells hold (words outside the region, taken
    in by a grid that reaches past it, do not count)."""
    held = Counter(w for row in rows for c in row for w in c["text"].split())
    return sum((held & region_words).values())


def _best_grid(
    candidates: list[list[list[dict]] | None], region_words: Counter
) -> list[list[dict]] | None:
    """Of the grids the finder read under one region (drawn lines only, or lines and filled
    boxes; gated by the layout model's table grid, or from the drawings alone), the one that
    agrees best with the words: most of the region's words in its cells, then the smallest
    share of empty cells, then the first. A cell's background filled line by line, or a thin
    filled strip beside a column, makes rules that part no printed cell (ICDAR eu-001: "Chlorine and
    inorganic compounds / (as HCl)" two rows, a spacer column beside each); the layout
    model's grid may part a ruled cell's lines or its bullets."""
    found = [rows for rows in candidates if rows]
    if not found:
        return None
    return max(found, key=lambda rows: (_words_kept(rows, region_words), -_empty_share(rows)))


def _tables_inside(
    tables: list, region: pymupdf.Rect, page: pymupdf.Page, params: TextLayerParams
) -> list[tuple[pymupdf.Rect, list[list[dict]]]]:
    """Several ruled tables that one region took in whole, one under the other (two tables
    set close together: ICDAR eu-015's "Topic | Enquiries" tables), each read on its own;
    [] unless every one reads and together they fill most of the region."""
    rects = [(t, pymupdf.Rect(t.bbox)) for t in tables]
    inside = [(t, r) for t, r in rects if abs(r & region) >= params.table_inside_share * abs(r)]
    filled = sum(abs(rect) for _, rect in inside)
    if len(inside) < 2 or filled < params.ruled_region_share * (abs(region) or 1.0):
        return []
    found = []
    for table, rect in sorted(inside, key=lambda tr: (tr[1].y0, tr[1].x0)):
        rows = _ruled_table([table], rect, page, params)
        if not rows:
            return []
        found.append((rect, rows))
    return found


def ruled_tables_finder(
    page: pymupdf.Page, *, scale: float, params: TextLayerParams = TEXT_LAYER
) -> Callable[[tuple], list[tuple[tuple, list[list[dict]]]]]:
    """For `apply_layout`: a table region's box (in pixels at `scale` per point) -> the ruled
    tables under it (models.reading.page.PageImageAccess.ruled_tables). The page's ruled
    tables (two rows and two columns or more) are found once per way of finding them, and only
    if a region asks (`params.table_finders`); per region the grid that agrees best with the
    words is kept; where no one grid holds the region, the several it took in whole."""
    ruled: list[list] | None = None

    def ruled_tables(box) -> list[tuple[tuple, list[list[dict]]]]:
        nonlocal ruled
        if ruled is None:
            ruled = []
            for strategy, use_layout in params.table_finders:
                found = page.find_tables(strategy=strategy, use_layout=use_layout).tables
                ruled.append([t for t in found if t.row_count >= 2 and t.col_count >= 2])
        region = pymupdf.Rect(box) / scale
        words = Counter(w[4] for w in page_words(page, clip=region))
        grids = [_ruled_table(tables, region, page, params) for tables in ruled]
        best = _best_grid(grids, words)
        if best:
            return [(tuple(box), best)]
        for tables in ruled:
            several = _tables_inside(tables, region, page, params)
            if several:
                return [(tuple(rect * scale), rows) for rect, rows in several]
        return []

    return ruled_tables
