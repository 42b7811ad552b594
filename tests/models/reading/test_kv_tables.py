"""Key/value tables: a label column beside a value column, found among text blocks' words."""

from __future__ import annotations

from models.engine import Word
from models.reading.kv_tables import key_value_tables

CHAR = 20  # width of one character, in pixels
LINE = 45  # line pitch of the key/value pages below


def _texts(block):
    return [[c["text"] for c in row] for row in block.rows]


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


def test_contents_beside_a_column_of_running_text_are_no_labels():
    """A paper's contents in its first column beside the second column's text (mnras_guide
    p. 1): each title beside a line of a paragraph that runs on from the line above ("...the
    final appear-" / "ance of the journal") is no label of it. Values that start afresh in
    each row are values."""
    titles = ["Obtaining it", "Preparing", "Options", "Title page", "Sections", "Mathematics"]
    text = [
        "The journal asks authors to write. The",
        "style file can be used to show the appear-",
        "ance of the journal and its many features",
        "to simplify the preparation of papers and",
        "this document gives guidance on using that",
        "style file and the features it enables.",
    ]
    assert _kv_texts(_two_columns(titles, text)) == []
    values = ["Three copies to the office", "Signed by the head of the unit",
              "Dated within the last month", "Sent before the end of June",
              "Kept for five years at least", "Shown to the auditor on request"]  # fmt: skip
    assert len(_kv_texts(_two_columns(titles, values))) == 1
