"""Reading order from region boxes: bands cut by full-width regions, then columns."""

from __future__ import annotations

from models.reading_order import reading_order


def test_two_columns_under_a_title_are_read_column_by_column():
    boxes = [
        (100, 1000, 950, 1400),  # 0 left column, lower
        (1050, 300, 1900, 700),  # 1 right column, upper
        (100, 100, 1900, 200),  # 2 title across the page
        (100, 300, 950, 900),  # 3 left column, upper
        (1050, 800, 1900, 1400),  # 4 right column, lower
        (100, 2800, 1900, 2850),  # 5 footer across the page
    ]
    assert reading_order(boxes, min_gap=20) == [2, 3, 0, 1, 4, 5]


def test_a_centred_title_above_a_left_heading_is_not_two_columns():
    boxes = [(200, 400, 600, 440), (800, 100, 1100, 160), (200, 500, 1900, 800)]
    assert reading_order(boxes, min_gap=20) == [1, 0, 2]
