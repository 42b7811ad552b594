"""Tables drawn with rules on a born-digital page, read from PyMuPDF's table finder
(models.reading.layer_tables)."""

from __future__ import annotations

import pymupdf

from models.reading.layer_tables import ruled_table_finder

COLUMNS = [72, 200, 300, 400, 500]  # the rules' x
ROWS = [
    ["Country", "Domestic", "Imported", "Total"],
    ["Austria", "86.2", "13.8", "3,375"],
    ["Belgium", "0", "100.0", "3,973"],
    ["Cyprus", "81.0", "3.8", "158"],
]


def _ruled_across(tmp_path, *, head_verticals: bool = True, rows=ROWS) -> pymupdf.Page:
    """A table ruled across every row, its upright rules in the header row only: the table
    finder reads each body row as one cell across the table."""
    doc = pymupdf.open()
    page = doc.new_page()
    top, pitch = 100, 20
    for r, row in enumerate(rows):
        y = top + r * pitch
        for c, text in enumerate(row):
            page.insert_text((COLUMNS[c] + 4, y + 14), text, fontsize=10)
    for r in range(len(rows) + 1):
        page.draw_line((COLUMNS[0], top + r * pitch), (COLUMNS[-1], top + r * pitch))
    for x in COLUMNS if head_verticals else [COLUMNS[0], COLUMNS[-1]]:
        page.draw_line((x, top), (x, top + pitch))
    for x in (COLUMNS[0], COLUMNS[-1]):
        page.draw_line((x, top), (x, top + len(rows) * pitch))
    doc.save(tmp_path / "ruled.pdf")
    return pymupdf.open(tmp_path / "ruled.pdf")[0]


def _texts(rows) -> list[list[str]]:
    return [[c["text"] for c in row] for row in rows]


def test_a_body_row_of_figures_across_the_grid_is_a_cell_per_column(tmp_path):
    rows = ruled_table_finder(_ruled_across(tmp_path), scale=1.0)((60, 90, 510, 190))
    assert rows is not None
    assert _texts(rows) == ROWS
    assert all(c["colspan"] == 1 for row in rows for c in row)
    assert all(c["header"] for c in rows[0]) and not any(c["header"] for c in rows[1])


def test_a_first_row_of_figures_in_a_ruled_table_is_no_header(tmp_path):
    page = _ruled_across(tmp_path, rows=ROWS[1:])
    rows = ruled_table_finder(page, scale=1.0)((60, 90, 510, 170))
    assert rows is not None
    assert not any(c["header"] for row in rows for c in row)


def test_figures_ruled_only_beside_their_labels_are_read_from_the_words(tmp_path):
    """A statistics package's table: boxes around the header, the body and the total, parted
    only between the labels and the figures; the grid's body cell holds rows of figures in
    columns of their own. The rules do not part them: the words decide (None)."""
    doc = pymupdf.open()
    page = doc.new_page()
    lines = [("", ["Freq.", "Percent", "Mean"]), ("kept", ["344", "75.2", "12196"]),
             ("sold some", ["53", "11.6", "23518"]), ("sold all", ["61", "13.2", "9187"]),
             ("Total", ["458", "100.0", "13153"])]  # fmt: skip
    for (label, figures), y in zip(lines, [112, 133, 145, 157, 172], strict=True):
        page.insert_text((76, y), label, fontsize=10)
        for c, text in enumerate(figures):
            page.insert_text((240 + 70 * c, y), text, fontsize=10)
    for top, bottom in ((100, 121), (121, 161), (161, 176)):
        page.draw_rect((72, top, 230, bottom), width=0.4)
        page.draw_rect((230, top, 480, bottom), width=0.4)
    doc.save(tmp_path / "stata.pdf")
    page = pymupdf.open(tmp_path / "stata.pdf")[0]
    assert ruled_table_finder(page, scale=1.0)((60, 90, 490, 180)) is None
