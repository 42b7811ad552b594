"""Tables from word positions: rows, columns from the gaps, spans, header cells."""

from __future__ import annotations

from models.engine import Word
from models.word_tables import table_from_words

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


def test_unruled_table_rows_columns_and_header_row():
    words = _cells([
        [(100, "Item"), (400, "Budget"), (600, "Spent")],
        [(100, "Staff"), (400, "812"), (600, "798")],
        [(100, "Energy"), (400, "365"), (600, "402")],
        [(100, "Repairs"), (400, "214"), (600, "236")],
    ])  # fmt: skip
    table = table_from_words(words, (90, 90, 800, 400))
    assert table is not None
    assert _texts(table) == [["Item", "Budget", "Spent"], ["Staff", "812", "798"],
                             ["Energy", "365", "402"], ["Repairs", "214", "236"]]  # fmt: skip
    assert all(c["header"] for c in table.rows[0])
    # A text first column beside figures holds the row headers.
    assert [row[0]["header"] for row in table.rows[1:]] == [True, True, True]
    assert not any(c["header"] for row in table.rows[1:] for c in row[1:])


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
