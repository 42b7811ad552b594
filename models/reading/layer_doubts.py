"""Doubts about a born-digital page's tables: each table we built against PyMuPDF's table finder
(an independent reading of the same grid) and against the words printed inside its box. A
table the finder reads with more rows, or whose box holds words its cells lack, has lost rows:
the page goes to review with a finding that says which table."""

from __future__ import annotations

import re
from collections import Counter

import pymupdf

from models.engine import ReadBlock
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


def found_tables(page: pymupdf.Page) -> list[tuple[pymupdf.Rect, int]]:
    """PyMuPDF's table finder on the page: each table's box (points) and row count; none where
    the finder fails (a broken drawing must not fail the page)."""
    try:
        return [(pymupdf.Rect(t.bbox), t.row_count) for t in page.find_tables().tables]
    except Exception:  # the finder is a second opinion, never a reason to fail the page
        return []


def rows_lost(
    box: pymupdf.Rect, rows: int, found: list[tuple[pymupdf.Rect, int]], params: DoubtParams
) -> int | None:
    """The finder's row count of the table at `box`, when it reads that many more rows."""
    for rect, count in found:
        smaller = min(abs(rect), abs(box))
        same = smaller and abs(rect & box) >= params.table_overlap_share * smaller
        if same and count - rows >= params.table_rows_lost_min:
            return count
    return None


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
    words = page.get_text("words", sort=False)
    out = []
    for number, table in enumerate(tables, 1):
        box = pymupdf.Rect(table.bbox) / scale
        rows = len(table.rows or [])
        theirs = rows_lost(box, rows, found, params)
        if theirs is not None:
            out.append(_finding(
                "TABLE_ROWS_LOST",
                f"Table {number} on this page may have lost rows: we read {rows} rows, a "
                f"second table reader reads {theirs}. Compare its rows with the page image.",
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
