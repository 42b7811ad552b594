"""Reading order from region boxes: bands cut by full-width regions, then columns."""

from __future__ import annotations

from models.reading.reading_order import reading_order


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


def test_authors_centred_across_the_gutter_above_two_columns():
    """A paper's first page as OCR boxes (olmo-page-1.pdf at 300 DPI): author lines narrower
    than the page, centred over the gutter, then the abstract and the introduction in the left
    column and the text going on in the right one. The authors do not merge the columns."""
    boxes = [
        (551, 338, 1928, 413),  # 0 title, across
        (514, 567, 1142, 611),  # 1 authors, left half of a row
        (1210, 567, 1937, 611),  # 2 authors, right half
        (864, 1474, 1658, 1519),  # 3 affiliation, centred
        (703, 1526, 1790, 1740),  # 4 universities, centred over the gutter
        (657, 1843, 842, 1878),  # 5 "Abstract"
        (1276, 1846, 2191, 2283),  # 6 right column, top
        (366, 1943, 1139, 2976),  # 7 abstract text
        (1277, 2317, 2191, 2753),  # 8 right column
        (298, 3035, 640, 3070),  # 9 "1 Introduction"
        (296, 3126, 1210, 3224),  # 10 introduction text
        (1246, 3126, 2188, 3229),  # 11 right column, bottom
        (1277, 2788, 2191, 3101),  # 12 right column, above it
    ]
    assert reading_order(boxes, min_gap=25) == [0, 1, 2, 3, 4, 5, 7, 9, 10, 6, 8, 12, 11]
