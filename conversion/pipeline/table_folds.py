"""A table folded into column groups is one table: its groups' rows one after the other.

A page saves room by setting a long two- or three-column list as groups side by side under the
same heads: a grading scale as four "Note | ≥P." groups (schule's exam class), a model's
settings as "Parameter | Value | Parameter | Value". Read as one grid, a row runs across the
groups ("sehr gut plus, 14, gut, 11, befriedigend minus, 8"): a reader hears four unrelated
grades as one row, and the text's order is lost. Unfolded, the table is one group wide, its
head once, its rows group after group (the first group's rows, then the second's).

Folded, only when the evidence is plain: the head row's cells make two or more identical groups
(text alike, none empty) of two columns or more, every row a plain grid (no merged cells), and
each group opens with a column of labels (words, no figures: a group of "Mean | SD" figures
under two samples' heads is two measures of one row, which the row ties together).
"""

from __future__ import annotations

from conversion.pipeline.assemble_params import ASSEMBLE, AssembleParams
from models.engine import ReadBlock
from models.reading.kinds import is_figure


def _text(cell: dict) -> str:
    return " ".join(str(cell.get("text", "")).split())


def _plain_grid(rows: list[list[dict]]) -> bool:
    """Rows of one length, no cell merged."""
    return all(
        len(row) == len(rows[0])
        and all(int(c.get("rowspan", 1) or 1) == int(c.get("colspan", 1) or 1) == 1 for c in row)
        for row in rows
    )


def _labels(rows: list[list[dict]], column: int, params: AssembleParams) -> bool:
    """The body's cells in `column` are labels: some text, most of it no figure."""
    texts = [_text(row[column]) for row in rows[1:] if _text(row[column])]
    words = [t for t in texts if not is_figure(t)]
    return bool(texts) and len(words) > params.fold_label_share * len(texts)


def _fold_width(rows: list[list[dict]], params: AssembleParams) -> int | None:
    """The width of a folded table's groups, or None when the table is not folded."""
    columns = len(rows[0])
    head = [_text(c).casefold() for c in rows[0]]
    for width in range(params.fold_min_columns, columns // params.fold_min_groups + 1):
        if columns % width:
            continue
        groups = [head[start : start + width] for start in range(0, columns, width)]
        if not all(groups[0]) or any(group != groups[0] for group in groups):
            continue
        if all(_labels(rows, start, params) for start in range(0, columns, width)):
            return width
    return None


def unfolded_rows(
    rows: list[list[dict]], *, params: AssembleParams = ASSEMBLE
) -> list[list[dict]] | None:
    """A folded table's rows one group wide: the head once, then each group's rows, empty ones
    left out (the last group is often shorter); None when the table is not folded. Spacer
    columns (empty in every row, set between the groups) do not count."""
    if len(rows) < 2 or not rows[0] or not _plain_grid(rows):
        return None
    filled = [c for c in range(len(rows[0])) if any(_text(row[c]) for row in rows)]
    grid = [[row[c] for c in filled] for row in rows]
    width = _fold_width(grid, params) if grid[0] else None
    if width is None:
        return None
    body = [
        row[start : start + width]
        for start in range(0, len(grid[0]), width)
        for row in grid[1:]
        if any(_text(c) for c in row[start : start + width])
    ]
    return [grid[0][:width], *body]


def unfold_tables(blocks: list[ReadBlock], *, params: AssembleParams = ASSEMBLE) -> list[ReadBlock]:
    """The page's blocks, each folded table unfolded (in place)."""
    for block in blocks:
        if block.kind == "table" and block.rows:
            block.rows = unfolded_rows(block.rows, params=params) or block.rows
    return blocks
