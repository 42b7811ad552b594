"""Tables from word positions: rows, columns from the gaps, spans, header cells."""

from __future__ import annotations

from models.engine import Word
from models.reading.kv_tables import key_value_tables
from models.reading.params.tables import WordTableParams
from models.reading.word_tables import table_from_words

CHAR = 20  # width of one character, in pixels
ROW = 60  # height of one table row


def _cells(rows: list[list[tuple[int, str]]]) -> list[Word]:
    """Words at (column x, text) on each row; a text of several words keeps their spacing."""
    words = []
    for r, row in enumerate(rows):
        y = 100 + r * ROW
        for x, text in row:
            for part in text.split():
                words.append(Word(part, 95.0, (x, y, x + CHAR * len(part), y + 30)))
                x += CHAR * (len(part) + 1)
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
    assert [(c["text"], c["colspan"]) for c in first if c["text"]] == [
        ("First half", 2), ("Second half", 2)
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


# Key/value tables: a label column beside a value column, found among text blocks' words.
LINE = 45  # line pitch of the key/value pages below


def _line(x: int, r: int, text: str) -> list[Word]:
    """The words of `text` from x on text line r (a space is one character wide)."""
    words, y = [], 100 + r * LINE
    for part in text.split():
        words.append(Word(part, 95.0, (x, y, x + CHAR * len(part), y + 30)))
        x += CHAR * (len(part) + 1)
    return words


def _kv_texts(blocks, obstacles=()):
    return [_texts(table) for table, _ in key_value_tables(blocks, obstacles)]


INFOBOX = [
    (0, "Reign", "1 October 959 to 8 July 975"),
    (1, "Predecessor", "Eadwig"),
    (2, "Successor", "Edward the Martyr"),
    (4, "Born", "943/944"),
    (5, None, "England"),
    (6, "Died", "8 July 975"),
    (7, "Spouses", "Ethelfled"),
    (8, None, "Wulfthryth"),
    (9, "House", "Wessex"),
]
INFOBOX_ROWS = [
    ["Reign", "1 October 959 to 8 July 975"], ["Predecessor", "Eadwig"],
    ["Successor", "Edward the Martyr"], ["Born", "943/944 England"], ["Died", "8 July 975"],
    ["Spouses", "Ethelfled Wulfthryth"], ["House", "Wessex"],
]  # fmt: skip


def test_a_key_value_run_with_text_layer_rows_is_a_table_with_row_headers():
    # Each printed row a block of its own ("Reign 1 October 959"), as MuPDF reads an infobox;
    # a line with only a value continues the row above.
    blocks = [(_line(1000, r, label) if label else []) + _line(1300, r, value)
              for r, label, value in INFOBOX]  # fmt: skip
    found = key_value_tables(blocks)
    assert len(found) == 1
    table, taken = found[0]
    assert _texts(table) == INFOBOX_ROWS
    assert all(row[0]["header"] and not row[1]["header"] for row in table.rows)
    assert taken == {id(w) for block in blocks for w in block}


def test_a_column_of_labels_beside_a_column_of_values_is_paired_by_rows():
    # Tesseract reads the label column as one block and the values as another.
    labels = [w for r, label, _ in INFOBOX if label for w in _line(1000, r, label)]
    values = [w for r, _, value in INFOBOX for w in _line(1300, r, value)]
    body = [w for r in range(10) for w in _line(100, r, "words of the text beside the box")]
    assert _kv_texts([body, labels, values]) == [INFOBOX_ROWS]


def test_a_value_is_never_given_to_the_wrong_label():
    # The OCR dropped "Burial" and a value: the lone value is a row of its own, the label
    # without a value keeps an empty cell.
    rows = [
        (0, "Reign", "959 to 975"),
        (1, "Predecessor", None),
        (2, "Successor", "Edward"),
        (3, "Born", "943/944"),
        (5, None, "Glastonbury Abbey"),
        (6, "House", "Wessex"),
    ]
    blocks = [(_line(1000, r, label) if label else []) + (_line(1300, r, value) if value else [])
              for r, label, value in rows]  # fmt: skip
    assert _kv_texts(blocks) == [[["Reign", "959 to 975"], ["Predecessor", ""],
                                  ["Successor", "Edward"], ["Born", "943/944"],
                                  ["", "Glastonbury Abbey"], ["House", "Wessex"]]]  # fmt: skip


def test_three_labelled_rows_are_not_enough():
    blocks = [_line(1000, r, label) + _line(1300, r, value) for r, label, value in INFOBOX[:3]]
    assert _kv_texts(blocks) == []
    blocks = [_line(1000, r, label) + _line(1300, r, value) for r, label, value in INFOBOX[:4]]
    assert len(_kv_texts(blocks)) == 1


def test_a_heading_between_rows_ends_the_run():
    pairs = [("Reign", "959 to 975"), ("Born", "943"), ("Died", "975"), ("House", "Wessex")]
    blocks = [_line(1000, r, a) + _line(1300, r, b) for r, (a, b) in enumerate(pairs)]
    blocks += [_line(1000, r + 5, a) + _line(1300, r + 5, b) for r, (a, b) in enumerate(pairs)]
    assert len(_kv_texts(blocks)) == 1  # nothing between: one table of eight rows
    for x in (1000, 1300):  # a heading across both columns, a picture in the value column
        assert len(_kv_texts(blocks, [(x, 100 + 4 * LINE, 1500, 130 + 4 * LINE)])) == 2


def _two_columns(left: list[str], right: list[str], *, gap: int = 60) -> list[list[Word]]:
    """Two columns of lines, one block each, the right column starting after the longest left
    line and a gap."""
    at = 100 + max(len(t) for t in left) * CHAR + gap
    return [[w for r, t in enumerate(left) for w in _line(100, r, t)],
            [w for r, t in enumerate(right) for w in _line(at, r, t)]]  # fmt: skip


def test_two_columns_of_body_text_are_no_table():
    left = [
        "The survey was sent to every household",
        "in the region in early spring and the",
        "answers came back by post within a",
        "month of the first letter being sent",
    ]
    right = ["Most of the older buildings were", "repaired during the summer months",
             "and the library extended its hours", "on weekday evenings for students"]  # fmt: skip
    assert _kv_texts(_two_columns(left, right)) == []


def test_long_lines_are_no_labels():
    # Two columns of sentences, each line opening with a capital and ending where it may.
    left = [
        "Several schools reported higher attendance",
        "Water quality in the district improved",
        "The library extended its opening hours",
        "Road repairs were planned with care",
    ]
    right = ["Storms damaged the roof", "Farmers asked for drainage", "Volunteers planted trees",
             "The museum lent paintings"]  # fmt: skip
    assert _kv_texts(_two_columns(left, right)) == []


def test_narrow_columns_of_prose_are_no_table():
    # Lines of five words or fewer, as in a narrow newspaper column: they go on a sentence.
    left = ["The survey was", "sent to every", "household in the", "region in early", "spring."]
    right = ["Most of the", "older buildings", "were repaired in", "the summer", "months."]
    assert _kv_texts(_two_columns(left, right)) == []


def test_lines_ending_together_are_a_justified_column_not_labels():
    left = ["Water Quality", "Older Schools", "Public Trains", "Local Centres"]
    right = ["improved after the pipes", "reported higher attendance", "grew steadily",
             "were asked"]  # fmt: skip
    assert _kv_texts(_two_columns(left, right)) == []
    left[1] = "Older Schools Rise"
    left[3] = "Local Businesses Centres"
    assert len(_kv_texts(_two_columns(left, right))) == 1  # ragged: labels


def test_tables_of_contents_are_no_table():
    entries = ["Introduction", "Methods of the survey", "Results", "Discussion", "References"]
    # Entries and their page numbers (after leader dots or not).
    for leader in (" .........", ""):
        dotted = _two_columns([e + leader for e in entries], [str(3 + 4 * r) for r in range(5)])
        assert _kv_texts(dotted) == []
    # Page references are what refuses it: the same entries beside words are a table.
    assert len(_kv_texts(_two_columns(entries, [f"{3 + r} pages" for r in range(5)]))) == 1
    # Numbered entries: the number is no label.
    numbered = _two_columns(["1", "2", "3", "3.1", "4"], entries)
    assert _kv_texts(numbered) == []


def test_lists_and_footnotes_are_no_table():
    items = ["Keep the receipt", "Check the meter", "Send the form", "Call the office"]
    # Markers of different widths (markers of one width end together, as a justified column).
    for markers in (
        ["•"] * 4,
        ["a)", "b)", "(c)", "(dd)"],
        ["ii.", "iii.", "viii.", "xiii."],
        ["II.", "III.", "VIII.", "(XIII)"],
        ["1", "12", "123", "10.1.1"],
        ["*", "**", "***", "†††††"],
        ["1998", "2004", "2010–11", "2024/2025"],  # dated events: no word to label
    ):
        assert _kv_texts(_two_columns(markers, items)) == [], markers
    # The same lines with words for labels are a table: the markers are what refuses it.
    assert len(_kv_texts(_two_columns(["Receipt", "Meter", "Form", "Office"], items))) == 1


def test_side_headings_beside_their_paragraphs_are_no_table():
    lines = []
    for head in ["Summary", "Methods used", "Results", "Outlook for us"]:
        for i in range(3):
            lines.append((head if i == 0 else "", f"line {i} of the paragraph on {head.lower()}"))
    blocks = [(_line(100, r, a) if a else []) + _line(500, r, b) for r, (a, b) in enumerate(lines)]
    assert _kv_texts(blocks) == []


def test_indented_paragraphs_and_captions_are_no_table():
    text = ["  The committee reviewed the annual budget", "and approved the new plan for",
            "  Most of the older buildings were", "repaired during the summer months"]  # fmt: skip
    blocks = [_line(100 + CHAR * (len(t) - len(t.lstrip())), r, t) for r, t in enumerate(text)]
    blocks.append(_line(100, 5, "Figure 1") + _line(400, 5, "The new plan for the district"))
    assert _kv_texts(blocks) == []


def test_a_third_column_beside_the_values_is_not_a_key_value_table():
    rows = [("Staff", "8.12", "7.98"), ("Energy", "3.65", "4.02"), ("Repairs", "2.14", "2.36"),
            ("Grants", "1.20", "1.18")]  # fmt: skip
    blocks = [_line(100, r, a) + _line(400, r, b) + _line(600, r, c) for r, (a, b, c) in
              enumerate(rows)]  # fmt: skip
    assert _kv_texts(blocks) == []


# Scanned tables: rules across the table part its rows; cells set between rows span them.
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
