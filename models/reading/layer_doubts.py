"""Doubts about a born-digital page's tables: each table we built against PyMuPDF's table finder
(an independent reading of the same grid) and against the words printed inside its box. A
table the finder reads with more rows, or whose box holds words its cells lack, has lost rows:
the page goes to review with a finding that says which table."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

import pymupdf

from models.engine import ReadBlock
from models.reading.layer_words import page_words
from models.reading.params.doubts import DOUBTS, DoubtParams


def _finding(code: str, message: str) -> dict:
    return {"code": code, "level": "needs_review", "message": message}


def _tokens(text: str) -> Counter:
    return Counter(re.findall(r"\w+", text.casefold()))


def _cells_text(table: ReadBlock) -> str:
    return " ".join(str(c.get("text", "")) for row in table.rows or [] for c in row)


def _covered(inner: pymupdf.Rect, outer: pymupdf.Rect) -> float:
    """Share of `inner`'s area inside `outer`."""
    area = abs(inner)
    return abs(inner & outer) / area if area else 0.0


def found_tables(page: pymupdf.Page) -> list[tuple[pymupdf.Rect, list[list[str]]]]:
    """PyMuPDF's table finder on the page: each table's box (points) and its rows' cells; none
    where the finder fails (a broken drawing must not fail the page)."""
    try:
        tables = page.find_tables().tables
        return [
            (pymupdf.Rect(t.bbox), [[c or "" for c in row] for row in t.extract()]) for t in tables
        ]
    except Exception:  # the finder is a second opinion, never a reason to fail the page
        return []


def _letters(text: str) -> str:
    """Text as letters and digits only, ligatures undone: the finder runs words together."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())


def rows_lost(
    box: pymupdf.Rect,
    table: ReadBlock,
    found: list[tuple[pymupdf.Rect, list[list[str]]]],
    params: DoubtParams,
) -> int:
    """How many rows the finder reads in the table at `box` whose cells are mostly not in our
    cells, when they are several (a cell of several lines may be several rows to the finder:
    each line is in our cell, so it loses nothing)."""
    ours = _letters(_cells_text(table))
    for rect, rows in found:
        smaller = min(abs(rect), abs(box))
        if not smaller or abs(rect & box) < params.table_overlap_share * smaller:
            continue
        lost = 0
        for row in rows:
            cells = [cell for cell in map(_letters, row) if cell]
            missing = sum(cell not in ours for cell in cells)
            lost += bool(cells) and missing > params.table_row_missing_share * len(cells)
        if lost >= params.table_rows_lost_min:
            return lost
    return 0


def words_lost(box: pymupdf.Rect, table: ReadBlock, words: list[tuple], params: DoubtParams) -> int:
    """How many words printed inside the table's box its cells lack, when they are many."""
    slack = params.table_box_slack_pt
    inside = box + (-slack, -slack, slack, slack)
    centre = lambda w: pymupdf.Point((w[0] + w[2]) / 2, (w[1] + w[3]) / 2)  # noqa: E731
    printed = _tokens(" ".join(w[4] for w in words if centre(w) in inside))
    missing = sum((printed - _tokens(_cells_text(table))).values())
    total = sum(printed.values())
    if missing >= params.table_words_lost_min and missing > params.table_words_lost_share * total:
        return missing
    return 0


def layer_table_doubts(
    page: pymupdf.Page, blocks: list[ReadBlock], *, scale: float, params: DoubtParams = DOUBTS
) -> list[dict]:
    """Findings for the page's tables (boxes in pixels at `scale` per point) that lost rows."""
    tables = [b for b in blocks if b.kind == "table" and b.rows and b.bbox]
    if not tables:
        return []
    found = found_tables(page)
    words = page_words(page)
    out = []
    for number, table in enumerate(tables, 1):
        box = pymupdf.Rect(table.bbox) / scale
        lost = rows_lost(box, table, found, params)
        if lost:
            out.append(_finding(
                "TABLE_ROWS_LOST",
                f"Table {number} on this page may have lost rows: a second table reader finds "
                f"{lost} rows whose words are not in its cells. Compare its rows with the page "
                "image.",
            ))  # fmt: skip
            continue
        missing = words_lost(box, table, words, params)
        if missing:
            out.append(_finding(
                "TABLE_ROWS_LOST",
                f"Table {number} on this page may have lost rows or cells: {missing} words "
                "printed inside it are not in its cells. Compare its rows with the page image.",
            ))  # fmt: skip
    return out
