"""Tables from word positions: rows, columns from the gaps, spans, header cells (key/value
tables: test_kv_tables.py)."""

from __future__ import annotations

import math

import pymupdf

from models.engine import Word
from models.reading.params.tables import WordTableParams
from models.reading.textlayer import text_layer_reading
from models.reading.word_tables import notes_top, table_from_words, table_of_figures
from tests.conftest import CORPUS

CHAR = 20  # width of one character, in pixels
ROW = 60  # height of one table row


def _cells(
    rows: list[list[tuple[int, str]]], *, char: int = CHAR, space: int = CHAR, pitch: int = ROW
) -> list[Word]:
    """Words at (column x, text) on each row, `pitch` apart, each 30 high, `char` a letter
    and `space` apart (a text of several words keeps its spacing)."""
    words = []
    for r, row in enumerate(rows):
        y = 100 + r * pitch
        for x, text in row:
            for part in text.split():
                words.append(Word(part, 95.0, (x, y, x + char * len(part), y + 30)))
                x += char * len(part) + space
    return words


def _texts(block):
    return [[c["text"] for c in row] for row in block.rows]


BUDGET = [
    [(100, "Item"), (400, "Budget"), (600, "Spent")],
    [(100, "Staff"), (400, "812"), (600, "798")],
    [(100, "Energy"), (400, "365"), (600, "402")],
    [(100, "Repairs"), (400, "214"), (600, "236")],
]


def test_unruled_table_rows_columns_and_header_row():
    words = _cells(BUDGET)
    table = table_from_words(words, (90, 90, 800, 400))
    assert table is not None
    assert _texts(table) == [["Item", "Budget", "Spent"], ["Staff", "812", "798"],
                             ["Energy", "365", "402"], ["Repairs", "214", "236"]]  # fmt: skip
    assert all(c["header"] for c in table.rows[0])
    # A text first column beside figures holds the row headers.
    assert [row[0]["header"] for row in table.rows[1:]] == [True, True, True]
    assert not any(c["header"] for row in table.rows[1:] for c in row[1:])


def test_a_rule_read_as_a_glyph_leaves_a_scans_words_and_a_drawn_bracket_stays():
    """A scan's vertical rule read at a word's edge ("|812", "798[") is no text; in a text
    layer's glyphs "[ams]" and "Yes!" are the cell's text."""
    rows = [list(row) for row in BUDGET]
    rows[1] = [(100, "Staff"), (400, "|812"), (600, "798[")]
    rows[2] = [(100, "Energy"), (400, "[ams]"), (600, "Yes!")]
    words = _cells(rows)
    read = table_from_words(words, (90, 90, 800, 400))
    drawn = table_from_words(words, (90, 90, 800, 400), drawn=True)
    assert read is not None and drawn is not None
    assert _texts(read)[1:3] == [["Staff", "812", "798"], ["Energy", "ams", "Yes"]]
    assert _texts(drawn)[1:3] == [["Staff", "|812", "798["], ["Energy", "[ams]", "Yes!"]]


def test_a_first_row_whose_answers_recur_below_is_no_header():
    """A questionnaire's rows (question, "yes", "no"): its first row is a row like the rest,
    not the header of the columns (pdfjs issue9972-2 had "Did you eat anything before going
    to bed?" over every question)."""
    questions = ["Did you eat before bed?", "Did you drink coffee?", "Did you read a book?",
                 "Did you watch television?"]  # fmt: skip
    words = _cells([[(100, q), (700, "yes"), (800, "no")] for q in questions])
    table = table_from_words(words, (90, 90, 900, 400))
    assert table is not None and _texts(table)[0] == [questions[0], "yes", "no"]
    assert not any(c["header"] for row in table.rows for c in row)


def test_a_region_of_lines_of_one_phrase_each_is_no_table():
    """The model boxed a whole form as a table (pdfjs bug1669099: its title, sentences and
    check-box lines, a few labelled boxes among them): the lines stay text."""
    lines = [[(100, "Application for membership")], [(100, "I wish to join the club.")],
             [(140, "Full membership for 42 a month.")], [(140, "Reduced membership for 23.")],
             [(100, "First name"), (700, "Last name")], [(100, "Street and number")],
             [(100, "Please pay the fee by bank transfer to the account below.")],
             [(100, "Date"), (700, "Signature")], [(100, "Remarks:")]]  # fmt: skip
    assert table_from_words(_cells(lines), (90, 90, 1500, 700)) is None


def test_a_table_reader_runs_with_other_thresholds():
    """The thresholds are an argument: a table of four rows is none where five are needed."""
    words = _cells(BUDGET)
    assert table_from_words(words, (90, 90, 800, 400), params=WordTableParams(min_rows=5)) is None


def test_words_of_one_cell_stay_together_and_a_group_label_spans_its_columns():
    words = _cells([
        [(400, "First half"), (800, "Second half")],
        [(100, "Service"), (400, "Spring"), (600, "Summer"), (800, "Autumn"), (1000, "Winter")],
        [(100, "Swimming pool"), (400, "2210"), (600, "5630"), (800, "1875"), (1000, "1320")],
        [(100, "Museum"), (400, "1540"), (600, "2890"), (800, "1765"), (1000, "1190")],
        [(100, "Library"), (400, "4120"), (600, "3980"), (800, "4410"), (1000, "4725")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 1200, 420))
    assert table is not None
    first = table.rows[0]
    # The stub's head stands beside both rows of heads (session 47: it spans them).
    assert [(c["text"], c["colspan"], c["rowspan"]) for c in first] == [
        ("Service", 1, 2), ("First half", 2, 1), ("Second half", 2, 1)
    ]  # fmt: skip
    assert [c["text"] for c in table.rows[2]] == ["Swimming pool", "2210", "5630", "1875", "1320"]
    assert all(c["header"] for c in table.rows[1])  # the row under a group label is a header


def test_a_label_centred_on_two_header_rows_spans_both():
    words = _cells([
        [(400, "First half"), (800, "Second half")],
        [(400, "Spring"), (600, "Summer"), (800, "Autumn"), (1000, "Winter")],
        [(100, "Library"), (400, "4120"), (600, "3980"), (800, "4410"), (1000, "4725")],
        [(100, "Museum"), (400, "1540"), (600, "2890"), (800, "1765"), (1000, "1190")],
    ])  # fmt: skip
    service = Word("Service", 95.0, (100, 130, 240, 160))  # between the two header rows
    table = table_from_words([service, *words], (90, 90, 1200, 360))
    assert table is not None
    assert table.rows[0][0]["text"] == "Service" and table.rows[0][0]["rowspan"] == 2
    assert [c["text"] for c in table.rows[1]] == ["Spring", "Summer", "Autumn", "Winter"]


def test_ruling_glyphs_are_no_text():
    words = _cells([
        [(100, "Region"), (400, "|"), (420, "Sales")],
        [(100, "North"), (400, "|"), (420, "1,200")],
        [(100, "South"), (400, "|"), (420, "980")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 800, 300))
    assert table is not None
    assert "|" not in str(_texts(table))


def test_prose_is_no_table():
    words = _cells([
        [(100, "This is one line of ordinary running text in a column")],
        [(100, "and the next line continues the same sentence further")],
        [(100, "until the paragraph ends.")],
    ])  # fmt: skip
    assert table_from_words(words, (90, 90, 1300, 300)) is None


def test_figures_right_aligned_under_a_left_aligned_header_and_a_title_row():
    """A spreadsheet: "Year" printed left, the years right-aligned well to its right, and a
    title row across the table; the header still heads its column."""
    words = _cells([
        [(100, "Number of freshwater ducks per year")],
        [(100, "Year"), (420, "Freshwater Ducks")],
        [(260, "2019"), (700, "120")],
        [(260, "2020"), (700, "135")],
        [(260, "2021"), (700, "150")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 900, 420))
    assert table is not None
    assert _texts(table)[1:] == [["Year", "Freshwater Ducks"], ["2019", "120"], ["2020", "135"],
                                 ["2021", "150"]]  # fmt: skip


def test_a_sparse_first_column_of_row_labels_keeps_its_own_column():
    """Row labels printed once over several lines each (a clinical table: "Lymphatic system"
    beside four lines of findings) cover their column in few rows, no more than a spanning
    header may cover a gap; the empty stretch between them and the next column still parts
    them."""
    rows = [[(400, "Childhood"), (900, "Adulthood")]]
    for group in ("Bone", "Renal", "Cardiac", "Lymphatic", "Skin", "Eyes"):
        rows.append([(100, group), (400, f"{group} finding one"), (900, "adult finding")])
        rows += [[(430, "- more findings here")] for _ in range(4)]
    rows.append([(400, "Urinary tract infections")])
    table = table_from_words(_cells(rows), (90, 90, 1300, 100 + len(rows) * ROW))
    assert table is not None
    texts = _texts(table)
    assert texts[0] == ["", "Childhood", "Adulthood"]
    assert [row[0] for row in texts[1:7]] == ["Bone", "Renal", "Cardiac", "Lymphatic", "Skin",
                                             "Eyes"]  # fmt: skip
    assert texts[1][1].startswith("Bone finding one") and texts[1][2] == "adult finding"


def test_lines_between_two_rules_are_one_row_when_one_column_wraps():
    """A label centred beside a description of three lines, rules printed between the rows:
    the label, the description and the value are one row (without the rules the label sat
    on the description's middle line and the rows came apart)."""
    words = _cells([
        [(100, "Category"), (400, "Description"), (1200, "Value")],
        [(400, "If Y, then the product contains")],
        [(100, "Halogen Free"), (400, "no halogen and no lead at all;"), (1200, "Y")],
        [(400, "see appendix C.")],
        [(400, "If Y, then the product does not")],
        [(100, "REACH"), (400, "use any substance of high concern;"), (1200, "N")],
        [(400, "see appendix D.")],
    ])  # fmt: skip
    rules = [100 + ROW * r - 15 for r in (1, 4)]  # under the header, between the two rows
    table = table_from_words(words, (90, 90, 1400, 520), rules=rules)
    assert table is not None
    assert _texts(table) == [
        ["Category", "Description", "Value"],
        ["Halogen Free", "If Y, then the product contains no halogen and no lead at all; see "
         "appendix C.", "Y"],
        ["REACH", "If Y, then the product does not use any substance of high concern; see "
         "appendix D.", "N"],
    ]  # fmt: skip
    without = table_from_words(words, (90, 90, 1400, 520))
    assert without is not None and len(without.rows) > 3


def test_rules_around_rows_of_several_columns_keep_the_rows():
    """A rule only under the header (and at the foot): the body's lines stack in every column,
    they are rows of their own."""
    table = table_from_words(_cells(BUDGET), (90, 90, 800, 400), rules=[145, 345])
    assert table is not None
    assert _texts(table)[1:] == [["Staff", "812", "798"], ["Energy", "365", "402"],
                                 ["Repairs", "214", "236"]]  # fmt: skip


def test_a_cell_set_between_two_rows_spans_them():
    """ "1500 ppm Total" printed centred on two rows, in a column the other rows leave empty:
    one cell spanning both rows, in its own column (not joined to the column beside it)."""
    words = _cells([
        [(100, "Substance"), (500, "Limit"), (800, "Total")],
        [(100, "Bromine"), (500, "900 ppm")],
        [(100, "Chlorine"), (500, "900 ppm")],
        [(100, "Antimony"), (500, "900 ppm")],
    ])  # fmt: skip
    # Between Bromine's row and Chlorine's, its words set wide apart (letter-spaced type).
    total = [Word("1500", 95.0, (800, 190, 880, 220)), Word("ppm", 95.0, (920, 190, 980, 220))]
    table = table_from_words([*words, *total], (90, 90, 1100, 400))
    assert table is not None
    texts = _texts(table)
    assert texts[1] == ["Bromine", "900 ppm", "1500 ppm"]
    assert table.rows[1][2]["rowspan"] == 2
    assert texts[2] == ["Chlorine", "900 ppm"]  # its third slot is the cell above
    assert texts[3] == ["Antimony", "900 ppm", ""]
    assert all("between" not in c for row in table.rows for c in row)


def test_a_row_of_its_own_between_rows_is_no_spanning_cell():
    """A subheading row a full row's pitch from the rows around it stays a row."""
    words = _cells([
        [(100, "Substance"), (500, "Limit"), (800, "Note")],
        [(100, "Bromine"), (500, "900 ppm")],
        [(800, "Group two")],
        [(100, "Chlorine"), (500, "900 ppm")],
        [(100, "Antimony"), (500, "900 ppm")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 1100, 420))
    assert table is not None
    assert not any(c["rowspan"] > 1 for row in table.rows[1:] for c in row)


def test_a_word_read_twice_is_read_once():
    words = _cells([
        [(100, "Substance"), (500, "Limit")],
        [(100, "Bromine"), (500, "900 ppm")],
        [(100, "Chlorine"), (500, "900 ppm Total")],
    ])  # fmt: skip
    # Tesseract read "Tot" from the same ink as "Total", in another block.
    total = next(w for w in words if w.text == "Total")
    tot = Word("Tot", 60.0, (total.bbox[0] - 10, total.bbox[1], total.bbox[0] + 50, total.bbox[3]))
    table = table_from_words([*words, tot], (90, 90, 1100, 300))
    assert table is not None
    assert _texts(table)[2] == ["Chlorine", "900 ppm Total"]


def test_a_first_row_of_figures_is_data_not_a_header():
    """A table without a header row: its first row of figures is a body row (numbers are
    data), and no row becomes the header."""
    words = _cells([
        [(100, "Staff"), (400, "812"), (600, "798")],
        [(100, "Energy"), (400, "365"), (600, "402")],
        [(100, "Repairs"), (400, "214"), (600, "236")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 800, 300))
    assert table is not None
    assert not any(c["header"] for row in table.rows for c in row[1:])
    assert [row[0]["header"] for row in table.rows] == [True, True, True]  # row headers


def test_a_years_row_over_figures_is_the_header():
    words = _cells([
        [(400, "2019"), (600, "2018")],
        [(100, "Revenue"), (400, "1,204"), (600, "1,130")],
        [(100, "Costs"), (400, "(812)"), (600, "(790)")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 800, 300))
    assert [c["text"] for c in table.rows[0] if c["header"]] == ["2019", "2018"]


def test_header_cells_stacked_over_several_lines_are_one_cell_each():
    """ "Weight / Relative / to / Controls (%)" over four lines beside a one-line head is one
    header row: each column's lines joined into one cell, the figures under it."""
    words = _cells([
        [(100, "Treatment"), (400, "Dose"), (700, "Weight")],
        [(400, "(mg)"), (700, "Relative")],
        [(700, "to")],
        [(700, "Controls (%)")],
        [(100, "Saline"), (400, "0"), (700, "100.0")],
        [(100, "Drug A"), (400, "10"), (700, "92.4")],
        [(100, "Drug B"), (400, "50"), (700, "81.7")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 1000, 560))
    assert table is not None
    assert _texts(table) == [
        ["Treatment", "Dose (mg)", "Weight Relative to Controls (%)"],
        ["Saline", "0", "100.0"], ["Drug A", "10", "92.4"], ["Drug B", "50", "81.7"],
    ]  # fmt: skip
    assert all(c["header"] for c in table.rows[0])
    assert not any(c["header"] for row in table.rows[1:] for c in row[1:])


def test_a_caption_taken_into_the_region_is_the_tables_caption_not_its_first_row():
    words = _cells([[(100, "Table 2. Budget and spending of the year")], *BUDGET])
    table = table_from_words(words, (90, 90, 900, 400))
    assert table is not None
    assert table.text == "Table 2. Budget and spending of the year"
    assert _texts(table)[0] == ["Item", "Budget", "Spent"]
    assert all(c["header"] for c in table.rows[0])


def test_a_caption_whose_label_hangs_in_its_own_column_is_the_caption():
    """ "Table 8:", a tab, then the caption's text and its wrapped line under the text, not the
    label (ICDAR eu-013): the caption, not a first row cut into the table's columns. A "Table
    2" cell set apart from one or two heads is a column head, not a caption."""
    hanging = [[(100, "Table 8:"), (400, "Budget and spending of the year")],
               [(400, "(end of January)")]]  # fmt: skip
    table = table_from_words(_cells([*hanging, *BUDGET]), (90, 90, 1100, 500))
    assert table is not None
    assert table.text == "Table 8: Budget and spending of the year (end of January)"
    assert _texts(table)[0] == ["Item", "Budget", "Spent"]
    heads = [[(100, "Table 2"), (400, "Budget"), (600, "Spent")], *BUDGET[1:]]
    table = table_from_words(_cells(heads), (90, 90, 800, 400))
    assert table is not None
    assert table.text == ""
    assert _texts(table)[0] == ["Table 2", "Budget", "Spent"]
    worded = [[(100, "Table 2"), (400, "Budget this year"), (900, "Spent this year")],
              [(100, "Staff"), (400, "812"), (900, "798")],
              [(100, "Energy"), (400, "365"), (900, "402")]]  # fmt: skip
    table = table_from_words(_cells(worded), (90, 90, 1300, 400))
    assert table is not None
    assert _texts(table)[0] == ["Table 2", "Budget this year", "Spent this year"]
    two = [[(100, "Table 2"), (400, "Budget")], *[row[:2] for row in BUDGET[1:]]]
    table = table_from_words(_cells(two), (90, 90, 800, 400))
    assert table is not None
    assert _texts(table)[0] == ["Table 2", "Budget"]


def test_a_tight_body_row_whose_words_line_up_with_the_columns_is_a_cell_per_column():
    """A row set tighter than a cell's gap (a long label ending close to its figure) is still
    a cell per column where its words line up with the columns: not one cell spanning them."""
    words = _cells([*BUDGET, [(100, "Heat-pumps"), (325, "1000"), (600, "236")]])
    table = table_from_words(words, (90, 90, 800, 400))
    assert table is not None
    assert _texts(table)[-1] == ["Heat-pumps", "1000", "236"]


def test_a_full_row_under_the_header_is_a_row_of_its_own_not_a_header_line():
    """ "Lowest | $9,594 or less | ..." under a row of years fills every column: a body row,
    not a second line of the years' header cells."""
    words = _cells([
        [(400, "1994"), (800, "1997")],
        [(100, "Lowest"), (400, "$9,594 or less"), (800, "$22,400 or less")],
        [(100, "Lower"), (400, "$9,595-$17,992"), (800, "$22,401-$29,992")],
        [(100, "Upper"), (400, "$17,993-$25,771"), (800, "$29,993-$40,888")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 1200, 400))
    assert _texts(table)[:2] == [
        ["", "1994", "1997"],
        ["Lowest", "$9,594 or less", "$22,400 or less"],
    ]
    assert [c["header"] for c in table.rows[0]] == [False, True, True]


def test_header_cells_set_bottom_aligned_are_one_cell_each():
    """ "Number / of items" and "Percent / of items" set on the stub head's line ("Item
    Format"): the bottom line fills every column, yet it is the last line of the stacked
    header cells (ICDAR us-021), not a row of its own."""
    words = _cells([
        [(700, "Number"), (1000, "Percent")],
        [(100, "Item Format"), (700, "of items"), (1000, "of items")],
        [(100, "Total"), (700, "135"), (1000, "100")],
        [(100, "Multiple choice"), (700, "74"), (1000, "55")],
        [(100, "Constructed response"), (700, "61"), (1000, "45")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 1300, 400))
    assert table is not None
    assert _texts(table)[:2] == [
        ["Item Format", "Number of items", "Percent of items"],
        ["Total", "135", "100"],
    ]
    assert all(c["header"] for c in table.rows[0])


def test_group_labels_over_a_full_line_of_heads_stay_a_row_of_their_own():
    """A country over each group of three columns ("Finland" over "Female | Male | Total")
    fills few of the columns the line below fills: two header rows, not stacked cells."""
    words = _cells([
        [(600, "Finland"), (1300, "Sweden")],
        [(100, "Year"), (400, "Female"), (600, "Male"), (800, "Total"),
         (1100, "Female"), (1300, "Male"), (1500, "Total")],
        [(100, "1995"), (400, "59.0"), (600, "64.2"), (800, "61.6"),
         (1100, "49.7"), (1300, "70.5"), (1500, "60.1")],
        [(100, "2000"), (400, "64.2"), (600, "70.1"), (800, "67.2"),
         (1100, "70.9"), (1300, "74.8"), (1500, "72.9")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 1700, 400))
    assert table is not None
    assert _texts(table)[1] == ["Year", "Female", "Male", "Total", "Female", "Male", "Total"]
    assert "Finland" in _texts(table)[0]


def test_a_label_wrapped_round_its_figure_is_one_cell():
    """A topic wrapped over three lines with its count set on the middle one (ICDAR eu-015):
    each line goes on from the one above (a comma at its end, or lower case at the start), so
    the three are one label beside one figure; a group's name over its rows stays a row."""
    words = _cells([
        [(100, "Topic"), (1000, "Enquiries")],
        [(100, "Purposes of reading")],
        [(100, "Literary experience"), (1000, "72")],
        [(100, "Other policies including Competition,")],
        [(100, "Regional policy, Culture and"), (1000, "4.330")],
        [(100, "maritime affairs")],
        [(100, "Export Helpdesk"), (1000, "169")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 1200, 520))
    assert table is not None
    assert _texts(table)[1:] == [
        ["Purposes of reading", ""],
        ["Literary experience", "72"],
        ["Other policies including Competition, Regional policy, Culture and maritime affairs",
         "4.330"],
        ["Export Helpdesk", "169"],
    ]  # fmt: skip


def test_columns_numbered_in_order_are_a_header_row():
    words = _cells([
        [(100, "Lead"), (400, "1"), (600, "2"), (800, "3"), (1000, "4")],
        [(100, "Asian"), (400, "2.6"), (600, "5.0"), (800, "5.7"), (1000, "7.0")],
        [(100, "Black"), (400, "3.1"), (600, "4.2"), (800, "6.0"), (1000, "6.9")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 1200, 300))
    assert all(c["header"] for c in table.rows[0])


def test_units_centred_across_the_figures_span_columns_and_stay_rows_of_their_own():
    """A unit or group name centred over the figures ("Enrollment in thousands"), alone on
    its row, crosses the column gaps: rows of several phrases alone say where the columns
    part, and the unit's row is not taken for a wrapped line of the row above (ICDAR us-019:
    "2008-09 2009-10" one column, the unit joined to "Actual")."""
    words = _cells([
        [(100, "Source"), (400, "2007"), (600, "2008"), (800, "2009")],
        [(450, "Enrollment in thousands")],
        [(100, "Actual"), (400, "49,293"), (600, "49,266"), (800, "49,373")],
        [(450, "Projected enrollment in thousands")],
        [(100, "Model A"), (400, "49,644"), (600, "49,825"), (800, "50,067")],
        [(100, "Model B"), (400, "49,470"), (600, "49,623"), (800, "49,788")],
        [(100, "Model C"), (400, "49,312"), (600, "49,265"), (800, "49,386")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 1200, 600))
    assert table is not None
    texts = _texts(table)
    assert texts[2] == ["Actual", "49,293", "49,266", "49,373"]
    assert texts[3][1:] == ["Projected enrollment in thousands"]
    assert table.rows[3][1]["colspan"] > 1
    assert texts[-1] == ["Model C", "49,312", "49,265", "49,386"]


def _line(y: float, cells: list[tuple[int, str]]) -> list[Word]:
    """Words at (column x, text) on one line at height y."""
    out = []
    for x, text in cells:
        for part in text.split():
            out.append(Word(part, 95.0, (x, y, x + CHAR * len(part), y + 30)))
            x += CHAR * (len(part) + 1)
    return out


def test_a_label_wrapping_beside_figures_set_between_its_lines_is_one_row():
    """A label of two lines, its figures set once between them (centred on the label): one
    row, the label's lines one cell, not two rows with the figures spanning both (ICDAR
    us-023: "Between-state income inequality (Gini / index)")."""
    line = _line
    words = [
        *line(100, [(100, "Measure"), (600, "1997"), (800, "1998"), (1000, "1999")]),
        *line(150, [(100, "Median income"), (600, "49,497"), (800, "51,295"), (1000, "52,587")]),
        *line(200, [(100, "Income inequality (Gini")]),
        *line(217, [(600, "0.0628"), (800, "0.0636"), (1000, "0.0612")]),
        *line(234, [(100, "index)")]),
        *line(290, [(100, "Mortality"), (600, "7108.3"), (800, "6960.6"), (1000, "6920.0")]),
    ]
    table = table_from_words(words, (90, 90, 1200, 330))
    assert table is not None
    assert _texts(table) == [
        ["Measure", "1997", "1998", "1999"],
        ["Median income", "49,497", "51,295", "52,587"],
        ["Income inequality (Gini index)", "0.0628", "0.0636", "0.0612"],
        ["Mortality", "7108.3", "6960.6", "6920.0"],
    ]
    assert all(c["rowspan"] == 1 for row in table.rows for c in row)


def test_two_items_sharing_figures_set_between_them_stay_two_rows():
    """Two items (each a capital first) beside figures set once between them: the figures
    span both rows; the second item is no line of the first."""
    words = [
        *_line(100, [(100, "Substance"), (600, "Limit"), (800, "Level"), (1000, "Unit")]),
        *_line(150, [(100, "Lead"), (600, "0.1"), (800, "0.2"), (1000, "ppm")]),
        *_line(200, [(100, "Cadmium")]),
        *_line(217, [(600, "0.01"), (800, "0.02"), (1000, "ppm")]),
        *_line(234, [(100, "Mercury")]),
        *_line(290, [(100, "Chromium"), (600, "0.1"), (800, "0.3"), (1000, "ppm")]),
    ]
    table = table_from_words(words, (90, 90, 1200, 330))
    assert table is not None
    texts = _texts(table)
    assert texts[2][0] == "Cadmium" and texts[3] == ["Mercury"]
    assert table.rows[2][1]["rowspan"] == 2


# Words Tesseract read in a scanned ruled table (ICDAR 2013 eu-004, page 2, rasterized by
# bench/structure_corpus.scan): (text, x0, y0, x1, y1) per row, the table below it taken in
# (rows left out that the crash did not need).
SCANNED_RETAIL = [
    [
        ("Number", 965, 351, 1081, 374),
        ("of", 1090, 350, 1119, 374),
        ("inhabitants", 1175, 350, 1334, 374),
        ("Retail", 1410, 346, 1496, 384),
    ],
    [
        ("retail", 953, 389, 1026, 413),
        ("outlets", 1036, 389, 1130, 413),
        ("per", 1187, 396, 1233, 419),
        ("outlet", 1243, 389, 1323, 413),
        ("sales", 1422, 389, 1488, 412),
    ],
    [("627:2", 1001, 607, 1081, 633), ("91", 1238, 607, 1268, 633), ("311", 1429, 607, 1478, 632)],
    [("440.2", 1000, 653, 1081, 678), ("89", 1239, 653, 1272, 678), ("89", 1439, 652, 1472, 678)],
    [("123.3", 1005, 698, 1080, 724), ("125", 1233, 698, 1280, 724), ("61", 1438, 698, 1469, 723)],
    [("110", 1019, 744, 1068, 770), ("92", 1238, 744, 1272, 769), ("33", 1439, 743, 1471, 769)],
    [("170.7", 1006, 790, 1081, 815), ("61", 1238, 789, 1268, 815), ("25", 1439, 789, 1471, 815)],
    [("130.4", 1005, 835, 1082, 861), ("76", 1238, 835, 1273, 860), ("26", 1439, 835, 1473, 860)],
    [("52.8", 1011, 881, 1071, 906), ("167", 1233, 881, 1281, 906), ("29", 1438, 880, 1472, 906)],
    [("371", 1011, 926, 1072, 952), ("214", 1229, 926, 1282, 951), ("31", 1439, 926, 1469, 952)],
    [("40.9", 1010, 972, 1073, 998), ("128", 1233, 972, 1281, 997), ("28", 1438, 971, 1472, 997)],
    [
        ("Say:", 1011, 1018, 1072, 1043),
        ("162", 1233, 1017, 1282, 1043),
        ("22", 1439, 1017, 1473, 1042),
    ],
    [
        ("35.9", 1011, 1063, 1073, 1089),
        ("101", 1233, 1063, 1278, 1088),
        ("12", 1443, 1063, 1473, 1088),
    ],
    [
        ("3236.5", 993, 1109, 1090, 1135),
        ("115", 1234, 1109, 1281, 1134),
        ("1565", 1424, 1108, 1490, 1134),
    ],
    [
        ("Retail", 901, 1412, 992, 1438),
        ("Food", 1024, 1412, 1080, 1438),
        ("Outlets", 1091, 1411, 1202, 1438),
        ("across", 1213, 1419, 1308, 1437),
        ("the", 1319, 1411, 1366, 1437),
        ("member", 1377, 1411, 1506, 1437),
    ],
    [
        ("inhabitants", 1008, 1496, 1182, 1537),
        ("number", 1249, 1500, 1372, 1525),
        ("of", 1381, 1499, 1413, 1525),
        ("food", 1422, 1499, 1489, 1525),
    ],
    [
        ("per", 1021, 1550, 1072, 1576),
        ("outlet", 1082, 1543, 1170, 1569),
        ("outlets", 1263, 1543, 1364, 1568),
        ("1992/3", 1377, 1542, 1475, 1568),
    ],
    [("1996/7", 1047, 1585, 1145, 1611), ("(000)**", 1313, 1585, 1426, 1616)],
    [("476", 1068, 1813, 1122, 1838), ("177", 1348, 1813, 1396, 1838)],
    [("2500", 1060, 1858, 1132, 1884), ("21", 1353, 1858, 1384, 1883)],
    [("769", 1069, 1904, 1122, 1930), ("37", 1353, 1904, 1386, 1929)],
    [("588", 1069, 1949, 1121, 1975), ("54", 1353, 1949, 1388, 1975)],
    [("344", 1070, 1995, 1122, 2021), ("53", 1353, 1995, 1386, 2020)],
    [("1428", 1065, 2041, 1130, 2066), ("14", 1357, 2040, 1387, 2065)],
    [("1111", 1065, 2087, 1128, 2111), ("Ali", 1358, 2081, 1382, 2122)],
]


def test_a_column_no_phrase_is_centred_in_is_dropped_not_a_crash():
    """Phrases crossing two column cuts leave a column with no phrase's middle in it (the
    second table's wider header under the first's figures): it goes, the table is read."""
    words = [Word(t, 95.0, (a, b, c, d)) for row in SCANNED_RETAIL for t, a, b, c, d in row]
    table = table_from_words(words, (940, 340, 1545, 1240))
    assert table is not None
    assert ["627:2", "91"] in [row[:2] for row in _texts(table)]


def test_header_lines_going_on_in_lower_case_are_one_header_row():
    """A header's second line fills every column, but each of its cells goes on from the line
    above ("retail outlets" under "Number of"): the lines are one header row, not a row each
    (ICDAR eu-004's retail table)."""
    words = _cells([
        [(100, "Number of"), (500, "Inhabitants"), (850, "Retail")],
        [(100, "retail outlets"), (500, "per outlet"), (850, "sales")],
        [(100, "415.3"), (500, "196"), (850, "313")],
        [(100, "343.4"), (500, "169"), (850, "292")],
        [(100, "289.9"), (500, "202"), (850, "233")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 1100, 500))
    assert _texts(table)[0] == [
        "Number of retail outlets",
        "Inhabitants per outlet",
        "Retail sales",
    ]
    assert all(c["header"] for c in table.rows[0])


def _set_tight(rows: list[list[tuple[int, str]]]) -> list[Word]:
    """Words as type sets them: word spaces a fifth of a word's height, not a letter wide."""
    return _cells(rows, char=15, space=6, pitch=40)


def test_header_cells_of_narrow_columns_set_close_are_a_cell_each():
    """ICDAR us-009: "Total Costs" ends 24 px before "Exclusions &" begins (its words stand
    6 px apart), closer than a cell's gap: a column's cut in that wide space parts them, and
    the header's lines join per column, not as one cell spanning two columns."""
    first, second = 300, 300 + 15 * len("Total") + 6 + 15 * len("Costs") + 24
    words = _set_tight([
        [(second, "Less:")],
        [(first, "Total Costs"), (second, "Exclusions &")],
        [(100, "Category"), (first, "All Funds"), (second, "Unallowables")],
        [(100, "Salaries"), (first + 60, "1,314"), (second + 60, "373")],
        [(100, "Benefits"), (first + 60, "352"), (second + 60, "99")],
        [(100, "Travel"), (first + 60, "94"), (second + 60, "20")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 700, 400))
    assert table is not None
    assert _texts(table)[0] == [
        "Category", "Total Costs All Funds", "Less: Exclusions & Unallowables"
    ]  # fmt: skip
    assert _texts(table)[1] == ["Salaries", "1,314", "373"]


def test_a_heading_over_two_columns_keeps_its_word_spaces_wherever_the_cut_falls():
    """A group's name centred over two columns, its words a word space apart, spans both."""
    words = _set_tight([
        [(330, "Spending in thousands")],
        [(100, "Service"), (300, "Spring"), (500, "Summer")],
        [(100, "Pool"), (300, "2210"), (500, "5630")],
        [(100, "Museum"), (300, "1540"), (500, "2890")],
        [(100, "Library"), (300, "4120"), (500, "3980")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 700, 400))
    assert table is not None
    assert [(c["text"], c["colspan"]) for c in table.rows[0]] == [
        ("Service", 1),
        ("Spending in thousands", 2),
    ]


def test_a_cut_falls_in_the_wide_space_of_a_phrase_crossing_the_gap():
    """ICDAR us-020: "exclusion rate" and "before substitution" head two columns set close,
    read as one phrase across the gap between their figures (one row in five may cross
    it); the cut goes in the space
    between the two heads (the widest stretch no word covers), not mid-gap through "rate",
    and parts them."""
    rate_end = 380 + 15 * len("exclusion") + 6 + 15 * len("rate")
    words = _set_tight([
        [(100, "Country"), (380, "exclusion rate"), (rate_end + 20, "before substitution")],
        [(100, "Austria"), (400, "5"), (720, "100")],
        [(100, "Belgium"), (400, "7"), (720, "96")],
        [(100, "Canada"), (400, "4"), (720, "98")],
        [(100, "Denmark"), (400, "6"), (720, "97")],
        [(100, "Estonia"), (400, "3"), (720, "99")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 1000, 400))
    assert table is not None
    assert _texts(table)[0] == ["Country", "exclusion rate", "before substitution"]
    assert _texts(table)[1] == ["Austria", "5", "100"]


def test_header_cells_of_five_lines_are_one_cell_each():
    """ICDAR us-020's heads stack five lines ("Combined / weighted school / participation /
    and student / response rate") over figures: one header row."""
    words = _set_tight([
        [(600, "Combined")],
        [(300, "Percentage"), (600, "weighted school")],
        [(300, "of desired"), (600, "participation")],
        [(300, "population"), (600, "and student")],
        [(100, "Country"), (300, "coverage"), (600, "response rate")],
        [(100, "Austria"), (320, "100"), (620, "98")],
        [(100, "Belgium"), (320, "99"), (620, "96")],
        [(100, "Canada"), (320, "100"), (620, "93")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 1000, 500))
    assert table is not None
    assert _texts(table)[0] == [
        "Country", "Percentage of desired population coverage",
        "Combined weighted school participation and student response rate",
    ]  # fmt: skip
    assert _texts(table)[1] == ["Austria", "100", "98"]


def test_lines_of_figures_in_columns_are_a_table_without_a_region():
    """ICDAR eu-026's scan: a booktabs table the layout model read as text, Tesseract as one
    paragraph of its rows: its lines part into columns of figures, so it is a table."""
    words = _cells([
        [(500, "Freq."), (700, "Percent"), (900, "Mean Loss")],
        [(100, "kept the assets"), (500, "344"), (700, "75.2"), (900, "12196")],
        [(100, "sold some"), (500, "53"), (700, "11.6"), (900, "23518")],
        [(100, "sold all"), (500, "60"), (700, "13.2"), (900, "9126")],
    ])  # fmt: skip
    table = table_of_figures(words, (90, 90, 1100, 400))
    assert table is not None
    assert _texts(table)[1] == ["kept the assets", "344", "75.2", "12196"]


def test_prose_and_a_list_of_labelled_values_are_no_table_of_figures():
    prose = _cells([
        [(100, "In 2009 some 344 households kept their assets and 53 sold some")],
        [(100, "of them, while 60 sold all, at an average loss of 12196 Euros.")],
        [(100, "The fraction of wealth lost was 17.4 % for those who kept them.")],
    ])  # fmt: skip
    assert table_of_figures(prose, (90, 90, 1500, 300)) is None
    pairs = [("Reign", "959"), ("Born", "943"), ("Died", "975"), ("Age", "32")]
    labelled = _cells([[(100, label), (500, value)] for label, value in pairs])
    assert table_of_figures(labelled, (90, 90, 700, 400)) is None


def test_a_wide_table_on_a_scan_read_as_scanned_keeps_its_rows():
    """A wide table of figures, its rows sloping up 0.9 degrees to the right (a scan read as
    scanned, not deskewed: ICDAR us-033's): the right ends stand nearly a row higher than
    the left. Its words turned level first, each row is one row again."""
    labels = ["0-4", "5-9", "10-14", "15-19", "20-29", "30-39", "40-49", "50-59"]
    rows = [[(100, label)] + [(400 + 260 * c, f"{r + 1},{c + 1}00,{r}{c}8") for c in range(9)]
            for r, label in enumerate(labels)]  # fmt: skip
    slope = math.tan(math.radians(0.9))
    words = [Word(w.text, w.confidence, (w.bbox[0], w.bbox[1] - slope * w.bbox[0],
                                         w.bbox[2], w.bbox[3] - slope * w.bbox[0]))
             for w in _cells(rows, pitch=50)]  # fmt: skip
    table = table_from_words(words, (80, 0, 2900, 600))
    assert table is not None
    assert _texts(table) == [[label] + [f"{r + 1},{c + 1}00,{r}{c}8" for c in range(9)]
                             for r, label in enumerate(labels)]  # fmt: skip


def test_figures_set_a_character_apart_are_columns_and_a_spaced_number_is_one():
    """A monospaced table (ICDAR us-033, Courier) sets its columns of figures one character
    apart, closer than a phrase's gap: each figure is its own cell; "1 087 948", a number set
    with spaces, stays one."""
    rows = [
        [(100, "Age"), (400, "Male"), (620, "Female"), (840, "Total")],
        [(100, "1-2"), (300, "2,586,688 2,568,738"), (840, "5,155,426")],
        [(100, "3-5"), (300, "3,867,692 3,576,723"), (840, "7,444,415")],
        [(100, "6-11"), (300, "7,808,033 7,401,349"), (840, "15,209,382")],
    ]
    table = table_from_words(_cells(rows), (90, 90, 1100, 400))
    assert table is not None
    assert _texts(table)[1:] == [["1-2", "2,586,688", "2,568,738", "5,155,426"],
                                 ["3-5", "3,867,692", "3,576,723", "7,444,415"],
                                 ["6-11", "7,808,033", "7,401,349", "15,209,382"]]  # fmt: skip
    spaced = [[(100, "Staff"), (400, "1 087 948")], [(100, "Energy"), (400, "2 568 738")],
              [(100, "Repairs"), (400, "3 576 723")]]  # fmt: skip
    table = table_from_words(_cells(spaced), (90, 90, 800, 400))
    assert table is not None
    assert [row[1]["text"] for row in table.rows] == ["1 087 948", "2 568 738", "3 576 723"]


def test_rows_that_lost_their_first_cell_are_no_text_wrapped_into_one_row():
    """A scanned font list whose short codes ("fx", "g0") Tesseract dropped as noise: each row
    after them fills every column but the first, as a wrapped line would; joined one after
    the other they made one row of thirty names. Text wraps so once; the rows stay rows."""
    rows = [
        [(100, "Code"), (300, "Name"), (600, "Family")],
        [(100, "fa"), (300, "formata"), (600, "Formata")],
        [(100, "fc"), (300, "freestyl"), (600, "FreeStyle")],
        [(300, "futurans"), (600, "Futura")],
        [(300, "felixttl"), (600, "Felix")],
        [(300, "flyer"), (600, "Flyer")],
        [(300, "gando"), (600, "Gando")],
    ]
    table = table_from_words(_cells(rows), (90, 90, 900, 600))
    assert table is not None
    assert [row[-1]["text"] for row in table.rows][-3:] == ["Felix", "Flyer", "Gando"]


def test_a_born_digital_tables_brackets_stay_in_its_cells():
    """REVTeX's command summary, p. 5 (a two-column table of macros and their use): its cells
    came out "Requires amsfonts or amssymb]." and "\\begin{table}[<placement>", the brackets
    taken for ruling lines read as glyphs, which a text layer's glyphs never are."""
    with pymupdf.open(CORPUS / "texlive" / "revtex-summary-p5.pdf") as doc:
        reading = text_layer_reading(doc[0], page_number=5, dpi=150)
    (table,) = [b for b in reading.blocks if b.kind == "table"]
    cells = [c["text"] for row in table.rows for c in row]
    assert "Math fraktur font. Requires [amsfonts] or [amssymb]." in cells
    assert "\\begin{table}[<placement>]" in cells


def test_columns_of_figures_a_narrow_space_apart_part_where_only_figures_stand_close():
    """A monospaced table's columns of figures set one space apart in their widest rows, the
    space narrower than a column gap (ICDAR us-033's "Other" group, "1,249,752 1,364,492"):
    two columns, as in its narrower rows. Columns that only line up close, each row's
    figures far apart, are no such evidence: one column, as before; nor a note's number in
    brackets after a figure (ICDAR us-009's "10,000 (1)"), nor a footnote's lone digit."""
    rows = [
        [(100, "Age"), (400, "Male"), (620, "Female"), (840, "Total")],
        [(100, "1-2"), (400, "446,166"), (620, "312,164"), (840, "8,002,463")],
        [(100, "12-19"), (380, "1,249,752 1,364,492"), (840, "28,381,514")],
        [(100, "20-29"), (380, "1,967,497 1,614,120"), (840, "39,174,269")],
        [(100, "70-79"), (400, "229,588"), (620, "235,166"), (840, "13,864,305")],
    ]
    table = table_from_words(_cells(rows, space=12), (90, 90, 1200, 450))
    assert table is not None
    assert [len(row) for row in _texts(table)] == [4] * 5
    assert _texts(table)[2] == ["12-19", "1,249,752", "1,364,492", "28,381,514"]
    apart = [[(100, "1-2"), (380, "1,249,752"), (840, "8,002,463")],
             [(100, "3-5"), (572, "1,364,492"), (840, "9,174,269")],
             [(100, "6-11"), (380, "1,967,497"), (840, "3,864,305")]]  # fmt: skip
    table = table_from_words(_cells(apart, space=12), (90, 90, 1200, 450))
    assert table is not None
    assert [len(row) for row in _texts(table)] == [3] * 3
    noted = [[(100, "Staff"), (380, "10,000 (1)"), (840, "8,002,463")],
             [(100, "Rent"), (380, "12,000 (2)"), (840, "9,174,269")],
             [(100, "Travel"), (380, "94,000"), (840, "3,864,305")]]  # fmt: skip
    table = table_from_words(_cells(noted, space=12), (90, 90, 1200, 450))
    assert table is not None
    assert [row[1] for row in _texts(table)] == ["10,000 (1)", "12,000 (2)", "94,000"]
    marked = [[(100, "Staff"), (380, "10,000 1"), (840, "8,002,463")],
              [(100, "Rent"), (380, "12,000 2"), (840, "9,174,269")],
              [(100, "Travel"), (380, "94,000"), (840, "3,864,305")]]  # fmt: skip
    table = table_from_words(_cells(marked, space=12), (90, 90, 1200, 450))
    assert table is not None
    assert [len(row) for row in _texts(table)] == [3] * 3


def test_notes_at_a_tables_foot_start_at_the_first_notes_line():
    """A note, its wrapped line and a second note: their top. A row headed "Source" beside
    its figures (no colon), or a note with a row of figures under it, is no foot of notes."""
    notes = [*BUDGET, [(100, "NOTE: Detail may not sum to totals because")],
             [(100, "of rounding.")], [(100, "SOURCE: The annual accounts")]]  # fmt: skip
    assert notes_top(_cells(notes)) == 100 + 4 * ROW
    headed = [*BUDGET, [(100, "Source"), (400, "1,204"), (600, "1,310")]]
    assert notes_top(_cells(headed)) is None
    above = [*BUDGET[:2], [(100, "Note: estimated")], *BUDGET[2:]]
    assert notes_top(_cells(above)) is None


def _flush_right(rows: list[list[tuple[int, str]]]) -> list[list[tuple[int, str]]]:
    """Rows of (right edge, text) as _cells' (left edge, text): cells set flush right."""
    return [[(right - CHAR * len(text), text) for right, text in row] for row in rows]


def _borrowing_table(unit: str | None = None) -> list[Word]:
    """A statistical table's heads (ICDAR us-002, made again): a group's head ("Amount
    borrowed") centred over five columns, read across three of them, whose heads stack two
    lines: set flush right over their figures one word space apart ("Less than $10,000–
    $15,000–" on one line), ranges broken after their dash ("$10,000–" / "14,999"); the
    stub's and two other columns' heads stacked beside the group, bottom-aligned; `unit`: a
    second line of the group's head, centred under its first."""
    rights = (620, 820, 1080, 1260, 1440, 1620, 1860)
    heads = _flush_right([
        [(620, "Percent")],
        list(zip(rights, ["who", "Average", "Less than", "$10,000–", "$15,000–", "$30,000–",
                          "$55,000"], strict=True)),
        list(zip(rights, ["borrowed", "amount", "$10,000", "14,999", "29,999", "54,999",
                          "or more"], strict=True)),
    ])  # fmt: skip
    heads[0].append((1230, "Amount borrowed"))
    heads[2] = [(100, "Student group"), *heads[2]]
    if unit is not None:
        heads.insert(1, [(1380 - CHAR * len(unit) // 2, unit)])
    figures = [("44.8", "$33,200", "23.2", "10.3", "27.0", "20.1", "19.4"),
               ("44.4", "31,200", "25.5", "10.2", "26.9", "19.3", "18.1")]  # fmt: skip
    rows = [list(zip(rights, figures[k % 2], strict=True)) for k in range(10)]
    body = [[(100, f"Group {k}"), *row] for k, row in enumerate(_flush_right(rows))]
    return _cells(heads + body)


def test_a_groups_head_over_stacked_heads_makes_two_header_rows():
    """The group's head spans all five columns under it (it is centred on their heads), its
    columns' heads each one cell of their two lines, the ranges' lines heads and no data; the
    other columns' heads span both rows. Without it the three lines stayed three rows (the
    two lower ones taken for data), "Less than $10,000–" one cell across two columns, and
    the group's head over three of its columns."""
    table = table_from_words(_borrowing_table(), (90, 90, 1900, 1000))
    assert table is not None
    cells = [[(c["text"], c["rowspan"], c["colspan"], c["header"]) for c in row]
             for row in table.rows[:3]]  # fmt: skip
    assert cells[0] == [
        ("Student group", 2, 1, True), ("Percent who borrowed", 2, 1, True),
        ("Average amount", 2, 1, True), ("Amount borrowed", 1, 5, True),
    ]  # fmt: skip
    assert [c[0] for c in cells[1]] == [
        "Less than $10,000", "$10,000– 14,999", "$15,000– 29,999", "$30,000– 54,999",
        "$55,000 or more",
    ]  # fmt: skip
    heads = ["Group 0", "44.8", "$33,200", "23.2", "10.3", "27.0", "20.1", "19.4"]
    assert [c[0] for c in cells[2]] == heads


def test_a_groups_heads_second_line_read_across_fewer_columns_goes_on_with_it():
    """ "(dollars)", centred under "Amount borrowed", crosses two of the three columns the
    first line crosses: one head of two lines over the group's five columns."""
    table = table_from_words(_borrowing_table("(dollars)"), (90, 90, 1900, 1100))
    assert table is not None
    assert [(c["text"], c["colspan"]) for c in table.rows[0]][-1] == (
        "Amount borrowed (dollars)", 5,
    )  # fmt: skip


def test_groups_heads_on_different_lines_and_wrapped_each_span_their_columns():
    """One group's head wrapped over two lines ("Average amount" / "(by borrowers)"), another
    group's head on the second of them, heads under them hyphenated at a line's end (ICDAR
    us-002's second table): one head per group, each over its columns, "Undergraduate" whole.
    The lines over the last one fill half its columns, but span them all: heads over it."""
    rights = (750, 1050, 1300, 1550)
    bottom = ["graduate", "Some", "graduate", "None"]
    heads = [
        [(1205, "Average amount")],
        [(620, "Percent who borrowed"), (1205, "(by borrowers)")],
        _flush_right([[(750, "Under-"), (1300, "Under-")]])[0],
        [(100, "Student group"), *_flush_right([list(zip(rights, bottom, strict=True))])[0]],
    ]
    rows = [list(zip(rights, ["31.4", "23.7", "$9,600", "$36,900"], strict=True))] * 10
    body = [[(100, f"Group {k}"), *row] for k, row in enumerate(_flush_right(rows))]
    table = table_from_words(_cells(heads + body), (90, 90, 1700, 1000))
    assert table is not None
    cells = [[(c["text"], c["rowspan"], c["colspan"]) for c in row] for row in table.rows[:2]]
    assert cells == [
        [("Student group", 2, 1), ("Percent who borrowed", 1, 2),
         ("Average amount (by borrowers)", 1, 2)],
        [("Undergraduate", 1, 1), ("Some", 1, 1), ("Undergraduate", 1, 1), ("None", 1, 1)],
    ]  # fmt: skip


_US002_ROWS = [  # (top, [(left, right, word)]) in points, from the PDF's text layer
    (213, [(247.4, 277.4, "Percent"), (400.7, 433.0, "Amount"), (435.5, 473.7, "borrowed")]),
    (
        225,
        [
            (260.4, 277.3, "who"),
            (294.2, 327.8, "Average"),
            (335.8, 354.0, "Less"),
            (356.5, 373.6, "than"),
            (376.8, 414.5, "$10,000–"),
            (417.8, 455.5, "$15,000–"),
            (458.8, 496.5, "$30,000–"),
            (501.5, 534.2, "$55,000"),
        ],
    ),
    (
        238,
        [
            (74.3, 104.7, "Student"),
            (107.2, 121.5, "and"),
            (124.1, 171.6, "institutional"),
            (174.1, 231.1, "characteristics"),
            (239.1, 277.4, "borrowed"),
            (298.2, 327.8, "amount"),
            (340.7, 373.4, "$10,000"),
            (386.8, 414.4, "14,999"),
            (427.8, 455.5, "29,999"),
            (468.9, 496.5, "54,999"),
            (506.3, 514.6, "or"),
            (517.2, 537.6, "more"),
        ],
    ),
    (
        259,
        [
            (86.9, 108.2, "Total"),
            (259.7, 277.3, "44.8"),
            (295.0, 327.6, "$33,200"),
            (355.8, 373.4, "23.2"),
            (396.8, 414.4, "10.3"),
            (437.9, 455.4, "27.0"),
            (478.9, 496.5, "20.1"),
            (519.9, 537.5, "19.4"),
        ],
    ),
    (
        280,
        [
            (74.3, 94.8, "Type"),
            (97.4, 105.7, "of"),
            (108.2, 171.1, "degree-granting"),
            (173.5, 213.9, "institution"),
        ],
    ),
    (
        291,
        [
            (79.4, 104.8, "Public"),
            (107.4, 132.7, "4-year"),
            (259.7, 277.3, "44.4"),
            (300.0, 327.7, "31,200"),
            (355.8, 373.4, "25.5"),
            (396.8, 414.4, "10.2"),
            (437.9, 455.5, "26.9"),
            (478.9, 496.5, "19.3"),
            (520.0, 537.5, "18.1"),
        ],
    ),
    (
        302,
        [
            (84.4, 178.5, "Non-doctorate-granting"),
            (259.8, 277.3, "40.0"),
            (300.1, 327.7, "25,000"),
            (355.8, 373.4, "27.3"),
            (396.9, 414.4, "11.3"),
            (437.9, 455.5, "32.4"),
            (478.9, 496.5, "18.3"),
            (520.0, 537.5, "10.7"),
        ],
    ),
    (
        312,
        [
            (84.4, 160.2, "Doctorate-granting"),
            (259.8, 277.3, "46.5"),
            (300.1, 327.7, "33,900"),
            (355.8, 373.4, "24.7"),
            (401.9, 414.4, "9.7"),
            (437.9, 455.4, "24.6"),
            (478.9, 496.4, "19.8"),
            (519.9, 537.5, "21.2"),
        ],
    ),
    (
        323,
        [
            (79.4, 107.6, "Private"),
            (110.2, 163.2, "not-for-profit"),
            (165.7, 191.1, "4-year"),
            (259.7, 277.3, "45.9"),
            (300.0, 327.7, "36,600"),
            (355.8, 373.4, "20.3"),
            (396.8, 414.4, "10.3"),
            (437.9, 455.4, "25.7"),
            (478.9, 496.5, "21.8"),
            (519.9, 537.5, "21.8"),
        ],
    ),
    (
        334,
        [
            (84.4, 178.5, "Non-doctorate-granting"),
            (259.8, 277.3, "46.1"),
            (300.1, 327.7, "31,300"),
            (355.8, 373.4, "24.8"),
            (401.9, 414.4, "8.9"),
            (437.9, 455.5, "27.5"),
            (478.9, 496.5, "21.6"),
            (520.0, 537.5, "17.1"),
        ],
    ),
]


def test_heads_set_a_word_space_apart_part_where_each_ends_at_its_columns_edge():
    """ICDAR us-002's heads as its text layer sets them: "Less than" and "$10,000–" one word
    space apart, each ending where its column's figures end (flush right), the column's cut
    falling inside "$10,000–". They are two heads, not one across both columns."""
    words = [Word(text, 99.0, (4 * x0, 4 * top, 4 * x1, 4 * (top + 9.4)))
             for top, row in _US002_ROWS for x0, x1, text in row]  # fmt: skip
    table = table_from_words(words, (280, 840, 2170, 1380), drawn=True)
    assert table is not None
    assert [c["text"] for c in table.rows[1]] == [
        "Less than $10,000", "$10,000– 14,999", "$15,000– 29,999", "$30,000– 54,999",
        "$55,000 or more",
    ]  # fmt: skip
