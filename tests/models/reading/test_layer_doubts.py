"""A born-digital table against PyMuPDF's table finder and the words inside its box
(models.reading.layer_doubts), on a ruled table drawn with PyMuPDF."""

from __future__ import annotations

import pymupdf

from models.engine import ReadBlock
from models.reading.layer_doubts import layer_table_doubts

ROWS = [["Method", "Recall", "Precision"]] + [
    [f"Model {k}", f"0.{80 + k}", f"0.{70 + k}"] for k in range(1, 7)
]
BOX = pymupdf.Rect(72, 100, 432, 100 + 24 * len(ROWS))


def _ruled_table(path) -> pymupdf.Page:
    doc = pymupdf.open()
    page = doc.new_page()
    for r, row in enumerate(ROWS):
        y = BOX.y0 + 24 * r
        for c, text in enumerate(row):
            page.insert_text((BOX.x0 + 120 * c + 6, y + 16), text, fontsize=10)
        page.draw_line((BOX.x0, y), (BOX.x1, y))
    page.draw_line((BOX.x0, BOX.y1), (BOX.x1, BOX.y1))
    for x in (BOX.x0, BOX.x0 + 120, BOX.x0 + 240, BOX.x1):
        page.draw_line((x, BOX.y0), (x, BOX.y1))
    doc.save(path)
    return pymupdf.open(path)[0]


def _our_table(rows: list[list[str]], box: pymupdf.Rect) -> ReadBlock:
    cells = [[{"text": text, "header": r == 0} for text in row] for r, row in enumerate(rows)]
    return ReadBlock(kind="table", rows=cells, bbox=(box.x0, box.y0, box.x1, box.y1))


def test_a_table_read_whole_is_not_doubted(tmp_path):
    page = _ruled_table(tmp_path / "table.pdf")
    assert layer_table_doubts(page, [_our_table(ROWS, BOX)], scale=1.0) == []


def test_a_table_that_lost_rows_the_finder_reads_is_doubted(tmp_path):
    page = _ruled_table(tmp_path / "table.pdf")
    found = layer_table_doubts(page, [_our_table(ROWS[:3], BOX)], scale=1.0)
    assert [f["code"] for f in found] == ["TABLE_ROWS_LOST"]
    assert found[0]["level"] == "needs_review" and "Table 1" in found[0]["message"]
    assert "second table reader" in found[0]["message"]


def test_words_inside_a_tables_box_missing_from_its_cells_are_doubted(tmp_path):
    """No ruled grid for the finder here: the words printed inside the box tell."""
    doc = pymupdf.open()
    page = doc.new_page()
    for r, row in enumerate(ROWS):
        for c, text in enumerate(row):
            page.insert_text((BOX.x0 + 120 * c + 6, BOX.y0 + 24 * r + 16), text, fontsize=10)
    doc.save(tmp_path / "bare.pdf")
    page = pymupdf.open(tmp_path / "bare.pdf")[0]
    assert layer_table_doubts(page, [_our_table(ROWS, BOX)], scale=1.0) == []
    found = layer_table_doubts(page, [_our_table(ROWS[:4], BOX)], scale=1.0)
    assert [f["code"] for f in found] == ["TABLE_ROWS_LOST"]
