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


# Layout classes of magazines and papers (issue 32): a page of two columns 100-950 and
# 1050-1900, unless said otherwise.


def test_a_display_title_wider_than_a_column_does_not_merge_the_columns():
    """A magazine's title set large, left-aligned, over the gutter but short of the page's
    width: the columns under it are still read one after the other."""
    boxes = [
        (100, 100, 1300, 250),  # 0 title, over the gutter
        (100, 300, 950, 800),  # 1 left column
        (1050, 300, 1900, 800),  # 2 right column
        (100, 850, 950, 1400),  # 3 left column
        (1050, 850, 1900, 1400),  # 4 right column
    ]
    assert reading_order(boxes, min_gap=20) == [0, 1, 3, 2, 4]


def test_a_picture_set_over_the_gutter_with_text_wrapped_around_it_stays_in_its_column():
    """A photo narrower than a column, reaching over the gutter, the text of both columns
    wrapping around it: it cuts no band across the columns."""
    boxes = [
        (100, 300, 950, 700),  # 0 left column, top
        (1050, 300, 1900, 700),  # 1 right column, top
        (600, 720, 1150, 1000),  # 2 photo, mostly in the left column
        (100, 720, 580, 1000),  # 3 left column, beside the photo
        (1170, 720, 1900, 1000),  # 4 right column, beside the photo
        (100, 1020, 950, 1500),  # 5 left column, under the photo
        (1050, 1020, 1900, 1500),  # 6 right column, under the photo
    ]
    assert reading_order(boxes, min_gap=20) == [0, 3, 2, 5, 1, 4, 6]


def test_a_pull_quote_over_the_gutter_is_read_in_its_column():
    boxes = [
        (100, 300, 950, 900),  # 0 left column, top
        (1050, 300, 1900, 900),  # 1 right column, top
        (700, 920, 1300, 1080),  # 2 pull quote centred over the gutter, text on both sides
        (100, 920, 680, 1080),  # 3 left column beside it
        (1320, 920, 1900, 1080),  # 4 right column beside it
        (100, 1100, 950, 1500),  # 5 left column, bottom
        (1050, 1100, 1900, 1500),  # 6 right column, bottom
    ]
    order = reading_order(boxes, min_gap=20)
    assert order.index(0) < order.index(3) < order.index(5) < order.index(1)
    assert order.index(1) < order.index(4) < order.index(6)


def test_a_drop_cap_comes_before_its_paragraph():
    """A drop cap is a box of its own inside its paragraph's box, a few pixels lower than the
    paragraph's first line."""
    boxes = [
        (100, 303, 200, 420),  # 0 the initial
        (100, 300, 950, 900),  # 1 its paragraph
        (1050, 300, 1900, 900),  # 2 right column
    ]
    assert reading_order(boxes, min_gap=20) == [0, 1, 2]


def test_three_columns_under_a_centred_title_and_abstract():
    """A three-column paper: the title centred (narrower than the page, over both gutters),
    the abstract across, references at the foot of the third column."""
    boxes = [
        (2000, 2600, 2800, 3200),  # 0 references, third column
        (100, 1000, 900, 3200),  # 1 first column
        (1000, 1000, 1800, 3200),  # 2 second column
        (2000, 1000, 2800, 2500),  # 3 third column
        (700, 300, 2200, 420),  # 4 title
        (300, 600, 2600, 900),  # 5 abstract
        (900, 460, 2000, 520),  # 6 authors
    ]
    assert reading_order(boxes, min_gap=20) == [4, 6, 5, 1, 2, 3, 0]


def test_a_short_third_column_is_still_a_column():
    """The last column of an article runs short: the whitespace under it is no gutter, and
    its text is read after the second column's, not beside it row by row."""
    boxes = [
        (100, 300, 700, 1500),  # 0 first column
        (800, 300, 1400, 700),  # 1 second column, top
        (800, 750, 1400, 1500),  # 2 second column, bottom
        (1500, 300, 2100, 400),  # 3 third column, short
        (1500, 420, 2100, 600),  # 4 third column, short
    ]
    assert reading_order(boxes, min_gap=20) == [0, 1, 2, 3, 4]


def test_a_sidebar_beside_the_text_is_read_as_a_unit_of_its_column():
    """A boxed sidebar standing beside the text, in a column of its own: the text is read,
    then the sidebar whole."""
    boxes = [
        (1300, 300, 1900, 700),  # 0 sidebar, top right
        (100, 300, 1200, 900),  # 1 text
        (100, 950, 1200, 1500),  # 2 text
        (100, 100, 1900, 200),  # 3 title
    ]
    assert reading_order(boxes, min_gap=20) == [3, 1, 2, 0]


def test_labels_in_the_margin_are_read_before_the_entries_they_head():
    """A package manual's page, scanned (uwa-pcf.pdf p. 7): each command's name set in the left
    margin at the top of its description, the code under it wider than the description. Read
    as two columns, every name came before the first description."""
    boxes = [
        (499, 327, 954, 351),  # 0 "The length of the line for the date."
        (500, 413, 1051, 468),  # 1 its code
        (49, 331, 386, 356),  # 2 "\\uwapcf@sig@datelinelength", in the margin
        (500, 538, 892, 570),  # 3 "Generate the signature lines."
        (499, 626, 1730, 1230),  # 4 its code
        (130, 542, 465, 568),  # 5 "\\uwapcf@makesignature"
        (499, 1319, 841, 1340),  # 6 "3.11 HREO Statement"
        (498, 1396, 1135, 1427),  # 7 "The vertical space before the HREO statement."
        (161, 1400, 463, 1425),  # 8 "\\uwapcf@hreo@vspace"
        (495, 1486, 1010, 1542),  # 9 its code
    ]
    assert reading_order(boxes, min_gap=20) == [2, 0, 1, 5, 3, 4, 6, 8, 7, 9]


def test_an_algorithms_line_numbers_are_read_with_their_lines():
    """A thesis's algorithm, scanned (sphdthesis's example p. 11): each line number at the foot
    of its line (a tall line of mathematics starts well above its number), line 14 lost to the
    reading, its number alone. Read as two columns, the numbers all came first."""
    boxes = [
        (320, 1287, 348, 1305),  # 0 "10"
        (452, 1278, 959, 1313),  # 1 "if p(v) or θ(v) is specified then"
        (319, 1404, 348, 1422),  # 2 "12"
        (452, 1396, 515, 1423),  # 3 "end"
        (319, 1466, 348, 1484),  # 4 "13"
        (396, 1458, 459, 1484),  # 5 "end"
        (319, 1540, 348, 1558),  # 6 "14", its line not read
        (319, 1599, 348, 1617),  # 7 "15"
        (452, 1590, 1023, 1625),  # 8 "if p(v) or θ(v) is not specified then"
        (319, 1658, 348, 1676),  # 9 "16"
        (508, 1644, 1558, 1689),  # 10 "M ← M ∪ {p_j | ...}"
    ]
    assert reading_order(boxes, min_gap=20) == list(range(11))


def test_two_columns_whose_paragraphs_start_on_the_same_rows_are_no_labels():
    """A narrow column of paragraphs beside a wide one, each pair starting on one row: the
    narrow column fills its height; it is read whole first."""
    boxes = [(100, 100 + 300 * k, 600, 380 + 300 * k) for k in range(3)] + [
        (700, 100 + 300 * k, 1900, 380 + 300 * k) for k in range(3)
    ]
    assert reading_order(boxes, min_gap=20) == [0, 1, 2, 3, 4, 5]


def test_a_tall_photo_reaching_into_the_gutter_stays_in_its_column():
    """A magazine page: a photo inside the left column whose box reaches across the gutter to
    the right column's edge (printed to the column's edge, the model's box a little wider).
    Tall, it closed the gutter and the page was read in rows: the top of both columns before
    the rest of the left one. Columns are found from the text; the photo is in its column."""
    boxes = [
        (150, 150, 2300, 300),  # 0 headline across both columns
        (150, 400, 1200, 700),  # 1 left column, the paragraph with the drop cap
        (140, 750, 1290, 1900),  # 2 photo
        (150, 1950, 1200, 2400),  # 3 left column, under the photo
        (150, 2450, 1200, 3200),  # 4
        (1280, 400, 2300, 1200),  # 5 right column
        (1280, 1250, 2300, 2400),  # 6
        (1280, 2450, 2300, 3200),  # 7
    ]
    assert reading_order(boxes, min_gap=25, pictures=[2]) == [0, 1, 2, 3, 4, 5, 6, 7]


def test_a_photo_across_both_columns_with_nothing_beside_it_still_cuts_bands():
    boxes = [
        (150, 400, 1200, 1000),  # 0 left, above the photo
        (1280, 400, 2300, 1000),  # 1 right, above
        (150, 1050, 2300, 1800),  # 2 photo across
        (150, 1850, 1200, 2600),  # 3 left, below
        (1280, 1850, 2300, 2600),  # 4 right, below
    ]
    assert reading_order(boxes, min_gap=25, pictures=[2]) == [0, 1, 2, 3, 4]


def _newspaper_columns():
    """Four columns of a newspaper (realworld newspaper.pdf at 213 DPI, simplified): a rule
    and 20 px of paper between them, less than the narrowest gutter of whitespace (35 px);
    a line that took the rule in as a "|" reaches 10 px past it."""
    lefts = [400, 980, 1560, 2140]
    boxes, rules = [], []
    for top in (2500, 3000, 3500):
        for left in lefts:
            boxes.append((left, top, left + 560 + (10 if left == 980 else 0), top + 450))
    rules = [(left - 10, 2450, 5000) for left in lefts[1:]]
    return boxes, rules


def test_a_newspapers_column_rules_part_its_columns():
    boxes, rules = _newspaper_columns()
    title = (400, 400, 2700, 700)  # a headline over the four columns
    order = reading_order([title, *boxes], min_gap=35, rules=rules)
    columns = [[1 + row * 4 + col for row in range(3)] for col in range(4)]
    assert order == [0, *[i for column in columns for i in column]]
    # Without its rules the page is read in rows, across the columns.
    assert reading_order([title, *boxes], min_gap=35)[:5] == [0, 1, 2, 3, 4]


def test_a_headline_beside_a_column_of_advertisements_does_not_close_the_rules():
    """The headline and the photo over the four columns cross their rules (above where the
    rules begin) while the advertisements' column stands beside them: the page is parted at
    the advertisements' rule first, then the headline cuts the columns' band."""
    boxes, rules = _newspaper_columns()
    headline, photo = (400, 400, 2700, 700), (400, 800, 2700, 2400)
    adverts = [(2730, 400, 3300, 2000), (2730, 2100, 3300, 4500)]
    rules = [*rules, (2715, 400, 5000)]
    order = reading_order([headline, photo, *adverts, *boxes], min_gap=35, rules=rules)
    first = [4 + row * 4 for row in range(3)]  # the first column's boxes
    assert order[:5] == [0, 1, *first]
    assert order[-2:] == [2, 3]


def test_a_rule_inside_a_table_is_no_gutter():
    """A table region crosses its own inner rules along their length: no column is parted."""
    boxes = [(100, 100, 1900, 200), (100, 300, 1900, 1200), (100, 1300, 1900, 1500)]
    rules = [(700, 300, 1200), (1300, 300, 1200)]
    assert reading_order(boxes, min_gap=35, rules=rules) == [0, 1, 2]
