"""A scanned table's figures read with a colon for the decimal point. Tesseract now and then
reads a point as a colon ("15:2" in a column of "12.1", "12.6", "13.9"), and a screen reader
says "15 colon 2". Where the other figures of the cell's column are decimals set with a point
and as many decimals, the colon is that point. A column of times or ratios ("10:30", "1:4")
holds no such decimals and keeps its colons; so does running text (only table cells are read
here, and only on scans: a text layer's characters are the ones printed)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from models.engine import ReadBlock
from models.reading.params.tables import TABLE_FIGURES, TableFigureParams

# A figure set with a decimal point ("12.1", "-0.35", "(4.20)", "104.5%"), and one read with
# a colon there.
_WITH_POINT = re.compile(r"[-+−±(]?\d+\.(?P<decimals>\d+)[)%]?")
_WITH_COLON = re.compile(r"(?P<whole>[-+−±(]?\d+):(?P<decimals>\d+)(?P<tail>[)%]?)")


def _columns(rows: list[list[dict]]) -> list[list[tuple[int, int, int]]]:
    """Each row's cells as (cell index, first column, last column), columns counted by span."""
    out = []
    for row in rows:
        spans, col = [], 0
        for k, cell in enumerate(row):
            span = max(1, int(cell.get("colspan", 1) or 1))
            spans.append((k, col, col + span - 1))
            col += span
        out.append(spans)
    return out


def decimal_points(
    rows: list[list[dict]], *, params: TableFigureParams = TABLE_FIGURES
) -> list[list[dict]]:
    """The table's rows with each colon read for a decimal point made a point again, where the
    cell's column holds at least `params.column_min_points` figures with a point and as many
    decimals (cells spanning several columns are no evidence for one). `rows` is not changed."""
    points: dict[int, Counter] = {}
    placed = _columns(rows)
    for row, spans in zip(rows, placed, strict=True):
        for k, first, last in spans:
            if first != last:
                continue
            for token in str(row[k].get("text", "")).split():
                if match := _WITH_POINT.fullmatch(token):
                    points.setdefault(first, Counter())[len(match["decimals"])] += 1

    def mended(token: str, column: int) -> str:
        match = _WITH_COLON.fullmatch(token)
        if not match:
            return token
        if points.get(column, Counter())[len(match["decimals"])] < params.column_min_points:
            return token
        return f"{match['whole']}.{match['decimals']}{match['tail']}"

    out = []
    for row, spans in zip(rows, placed, strict=True):
        cells = []
        for k, first, last in spans:
            cell = row[k]
            text = str(cell.get("text", ""))
            if first == last and ":" in text:
                fixed = " ".join(mended(token, first) for token in text.split())
                if fixed != " ".join(text.split()):
                    cell = {**cell, "text": fixed}
            cells.append(cell)
        out.append(cells)
    return out


def mend_decimal_points(blocks: list[ReadBlock]) -> list[ReadBlock]:
    """The blocks with each table's colons read for decimal points mended (decimal_points)."""
    return [replace(b, rows=decimal_points(b.rows)) if b.rows else b for b in blocks]
