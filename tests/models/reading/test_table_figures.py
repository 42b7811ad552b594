"""models/reading/table_figures.py: a scanned table's colons read for decimal points."""

from __future__ import annotations

from models.engine import ReadBlock
from models.reading.table_figures import decimal_points, mend_decimal_points


def _rows(*texts: tuple[str, ...]) -> list[list[dict]]:
    return [
        [{"text": t, "header": False, "rowspan": 1, "colspan": 1} for t in row] for row in texts
    ]


def _texts(rows: list[list[dict]]) -> list[list[str]]:
    return [[cell["text"] for cell in row] for row in rows]


def test_a_colon_in_a_column_of_decimals_is_its_point():
    """A scanned organ-weight table: "15.2" read "15:2" beside 12.1, 12.6 and 13.9."""
    rows = _rows(("Group", "Liver weight (g)"), ("Control", "12.1"), ("Low", "12.6"),
                 ("Mid", "13.9"), ("High", "15:2 ± 0:4"))  # fmt: skip
    assert _texts(decimal_points(rows))[4] == ["High", "15.2 ± 0.4"]
    assert rows[4][1]["text"] == "15:2 ± 0:4"  # the table given is left as it was


def test_times_ratios_and_other_columns_keep_their_colons():
    """A column of times holds no decimals; a colon whose decimals differ in number from its
    column's ("1:5" beside "4.50"), or stands in another column than the decimals, stays."""
    rows = _rows(("Train", "Leaves", "Fare"), ("A", "10:30", "4.50"), ("B", "11:45", "4.75"),
                 ("C", "12:05", "1:5"), ("D", "0.5", "2:3"))  # fmt: skip
    assert _texts(decimal_points(rows)) == _texts(rows)


def test_a_cell_spanning_columns_is_no_evidence_and_not_mended():
    rows = _rows(("12.1", "3.4"), ("12.6", "3.9"))
    rows.append([{"text": "Total 24:7", "header": False, "rowspan": 1, "colspan": 2}])
    rows.append([{"text": "13:9", "header": False, "rowspan": 1, "colspan": 1},
                 {"text": "4:1", "header": False, "rowspan": 1, "colspan": 1}])  # fmt: skip
    assert _texts(decimal_points(rows))[2:] == [["Total 24:7"], ["13.9", "4.1"]]


def test_only_tables_are_mended():
    table = ReadBlock(kind="table", text="", rows=_rows(("1.5",), ("2.5",), ("3:5",)))
    prose = ReadBlock(kind="paragraph", text="The train leaves at 10:30 and costs 4.50.")
    mended = mend_decimal_points([table, prose])
    assert _texts(mended[0].rows) == [["1.5"], ["2.5"], ["3.5"]] and mended[1] == prose
