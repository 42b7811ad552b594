"""Tables drawn with rules on a born-digital page, read from PyMuPDF's table finder
(models.reading.layer_tables)."""

from __future__ import annotations

import pymupdf

from models.reading.layer_tables import ruled_tables_finder

COLUMNS = [72, 200, 300, 400, 500]  # the rules' x
ROWS = [
    ["Country", "Domestic", "Imported", "Total"],
    ["Austria", "86.2", "13.8", "3,375"],
    ["Belgium", "0", "100.0", "3,973"],
    ["Cyprus", "81.0", "3.8", "158"],
]


def _rows(page, box) -> list[list[dict]] | None:
    """The rows of the one ruled table the finder reads under a table region's box."""
    found = ruled_tables_finder(page, scale=1.0)(box)
    assert len(found) <= 1  # one table under each of these regions, or none
    return found[0][1] if found else None


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
    rows = _rows(_ruled_across(tmp_path), (60, 90, 510, 190))
    assert rows is not None
    assert _texts(rows) == ROWS
    assert all(c["colspan"] == 1 for row in rows for c in row)
    assert all(c["header"] for c in rows[0]) and not any(c["header"] for c in rows[1])


def test_a_first_row_of_figures_in_a_ruled_table_is_no_header(tmp_path):
    page = _ruled_across(tmp_path, rows=ROWS[1:])
    rows = _rows(page, (60, 90, 510, 170))
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
    assert _rows(page, (60, 90, 490, 180)) is None


def _filled_line_by_line(tmp_path) -> pymupdf.Page:
    """A table ruled with drawn lines whose label cells are filled behind each printed line
    (a word processor's shading), with a thin filled strip left of each label: the fills'
    edges part no printed cell."""
    doc = pymupdf.open()
    page = doc.new_page()
    xs, ys = [72, 280, 360, 440], [100, 120, 145, 160]
    rows = [["Substance", "to air", "to water"],
            [["Chlorine and inorganic compounds", "(as HCl)"], "10 000", "-"],
            [["Methane (CH4)"], "100 000", "-"]]  # fmt: skip
    shade = (1, 0.85, 0.6)
    for r, row in enumerate(rows):
        top = ys[r]
        for c, text in enumerate(row):
            lines = text if isinstance(text, list) else [text]
            for k, line in enumerate(lines):
                base = top + 11 + 10 * k
                if c == 0 and r:
                    page.draw_rect((xs[0] + 6, base - 9, xs[1], base + 1), color=None, fill=shade)
                page.insert_text((xs[c] + 8, base), line, fontsize=9)
        if r:
            page.draw_rect((xs[0], top, xs[0] + 6, ys[r + 1]), color=None, fill=shade)
    for y in ys:
        page.draw_line((xs[0], y), (xs[-1], y), width=0.5)
    for x in xs:
        page.draw_line((x, ys[0]), (x, ys[-1]), width=0.5)
    doc.save(tmp_path / "shaded.pdf")
    return pymupdf.open(tmp_path / "shaded.pdf")[0]


def test_cells_filled_line_by_line_keep_their_lines_together(tmp_path):
    """The grid of drawn lines only is kept where the fills would split a label over two rows
    and add a spacer column (ICDAR eu-001)."""
    rows = _rows(_filled_line_by_line(tmp_path), (60, 90, 450, 170))
    assert rows is not None
    assert _texts(rows) == [
        ["Substance", "to air", "to water"],
        ["Chlorine and inorganic compounds (as HCl)", "10 000", "-"],
        ["Methane (CH4)", "100 000", "-"],
    ]


def test_a_grid_drawn_as_filled_cells_is_read_from_its_fills(tmp_path):
    """Cells printed as filled boxes with thin white gaps between them and no drawn line: the
    grid read without the fills has an empty column in each gap, the grid of fills is the
    table (the grid with the less empty area wins)."""
    doc = pymupdf.open()
    page = doc.new_page()
    xs, ys = [72, 200, 300, 400], [100, 120, 140, 160]
    for r, row in enumerate(ROWS[:3]):
        for c, text in enumerate(row[:3]):
            page.draw_rect((xs[c] + 1, ys[r] + 1, xs[c + 1] - 1, ys[r + 1] - 1), color=None,
                           fill=(0.85, 0.9, 1))  # fmt: skip
            page.insert_text((xs[c] + 6, ys[r] + 14), text, fontsize=10)
    doc.save(tmp_path / "fills.pdf")
    page = pymupdf.open(tmp_path / "fills.pdf")[0]
    rows = _rows(page, (60, 90, 410, 170))
    assert rows is not None
    assert _texts(rows) == [row[:3] for row in ROWS[:3]]


def test_two_ruled_cells_stacking_rows_of_figures_are_read_as_rows(tmp_path):
    """A two-column table boxed around its header and its body only: the body's two cells
    stack lines that line up into rows of figures ("20-29 | 0.2650"). The rules do not part
    its rows: the words decide (None), as with three such cells (ICDAR us-033)."""
    doc = pymupdf.open()
    page = doc.new_page()
    body = [("20-29", "0.2650"), ("30-39", "0.2046"), ("40-49", "0.1477"), ("50-59", "0.1514")]
    # Set solid in Courier: the lines' boxes overlap, so the finder cannot part them itself.
    page.insert_text((76, 114), "Age group", fontsize=12, fontname="cour")
    page.insert_text((206, 114), "Proportion", fontsize=12, fontname="cour")
    for k, (label, value) in enumerate(body):
        page.insert_text((76, 136 + 12.7 * k), label, fontsize=12, fontname="cour")
        page.insert_text((206, 136 + 12.7 * k), value, fontsize=12, fontname="cour")
    for top, bottom in ((100, 120), (120, 190)):
        page.draw_rect((72, top, 200, bottom), width=0.5)
        page.draw_rect((200, top, 320, bottom), width=0.5)
    doc.save(tmp_path / "boxed.pdf")
    page = pymupdf.open(tmp_path / "boxed.pdf")[0]
    assert _rows(page, (60, 90, 330, 200)) is None


def test_a_fully_ruled_table_with_many_blank_cells_is_read_from_its_rules(tmp_path):
    """A table ruled around every cell that prints its figures only where they count (ICDAR
    us-007: half its cells blank), with a group's name ruled across the table: the words line
    up into the grid's columns, so the blanks are the table's, and the grid is kept (the
    group's name one cell across the table)."""
    doc = pymupdf.open()
    page = doc.new_page()
    xs, pitch = [72, 220, 300, 380, 460], 18
    rows = [["Measure", "Age 4", "Grade 1", "Grade 3"], ["Language and literacy"],
            ["Letter naming", "0.25", "", ""], ["Spelling", "", "0.15", ""],
            ["Vocabulary", "", "", "0.09"], ["Math"], ["Counting", "0.12", "", ""],
            ["Problems", "", "", "0.31"]]  # fmt: skip
    for r, row in enumerate(rows):
        y = 100 + r * pitch
        for c, text in enumerate(row):
            page.insert_text((xs[c] + 4, y + 13), text, fontsize=10)
        page.draw_line((xs[0], y), (xs[-1], y), width=0.5)
        for x in xs if len(row) > 1 else (xs[0], xs[-1]):
            page.draw_line((x, y), (x, y + pitch), width=0.5)
    bottom = 100 + len(rows) * pitch
    page.draw_line((xs[0], bottom), (xs[-1], bottom), width=0.5)
    doc.save(tmp_path / "blanks.pdf")
    page = pymupdf.open(tmp_path / "blanks.pdf")[0]
    got = _rows(page, (60, 90, 470, bottom + 10))
    assert got is not None
    assert _texts(got)[1] == ["Language and literacy"]
    assert got[1][0]["colspan"] == 4
    assert _texts(got)[3] == ["Spelling", "", "0.15", ""]


def test_bullets_set_apart_from_their_items_make_no_column(tmp_path):
    """A ruled cell of bulleted items, each bullet set well apart from its text: the gap every
    cell leaves after its bullets parts no column (ICDAR us-015: a column of bullets). The
    layout model's grid parts each cell's lines and its bullets here: the grid of the
    drawings alone agrees better with the words and is kept."""
    doc = pymupdf.open()
    page = doc.new_page()
    xs, ys = [72, 200, 520], [100, 120, 160, 200, 240]
    rows = [("Property", ["Reason for change"]),
            ("Clarity", ["Reported as not relevant", "Many questions from patients"]),
            ("Range", ["Most answers at the floor", "Skewed responses"]),
            ("Variability", ["All patients give one answer", "No variance"])]  # fmt: skip
    for r, (label, lines) in enumerate(rows):
        page.insert_text((xs[0] + 4, ys[r] + 14), label, fontsize=10)
        for k, line in enumerate(lines):
            if r:
                # A bullet of the Symbol font, its box taller than the line (it overlaps
                # the next bullet's: the finder cannot part the lines itself).
                page.insert_text((xs[1] + 4, ys[r] + 16 + 13 * k), "•", fontsize=16,
                                 fontname="symb")  # fmt: skip
            page.insert_text((xs[1] + 32, ys[r] + 14 + 13 * k), line, fontsize=10)
    # The rules drawn as thin filled boxes, as a word processor draws them.
    for y in ys:
        page.draw_rect((xs[0], y, xs[-1], y + 0.6), color=None, fill=(0, 0, 0))
    for x in xs:
        page.draw_rect((x, ys[0], x + 0.6, ys[-1]), color=None, fill=(0, 0, 0))
    doc.save(tmp_path / "bullets.pdf")
    page = pymupdf.open(tmp_path / "bullets.pdf")[0]
    rows_read = _rows(page, (60, 90, 530, 250))
    assert rows_read is not None
    assert [len(row) for row in rows_read] == [2, 2, 2, 2]
    label, items = _texts(rows_read)[1]
    assert label == "Clarity"
    assert items.endswith("Reported as not relevant · Many questions from patients")


def test_a_sparse_grid_whose_label_column_is_one_tall_cell_is_read_from_the_words(tmp_path):
    """Blanks in a grid whose label column is ruled as one tall cell (no rule between the
    labels, ICDAR us-009): that cell stacks every row's label, so the grid does not part the
    printed rows: the words decide (None), as for any grid a third empty."""
    doc = pymupdf.open()
    page = doc.new_page()
    xs, pitch = [72, 220, 300, 380, 460], 18
    rows = [["Cost", "Total", "Direct", "Federal"], ["Salaries", "1,314", "", ""],
            ["Benefits", "", "352", ""], ["Travel", "", "", "94"], ["Rent", "170", "", ""],
            ["Phones", "", "109", ""]]  # fmt: skip
    for r, row in enumerate(rows):
        y = 100 + r * pitch
        for c, text in enumerate(row):
            page.insert_text((xs[c] + 4, y + 13), text, fontsize=10)
        page.draw_line((xs[0] if r < 2 else xs[1], y), (xs[-1], y), width=0.5)
    bottom = 100 + len(rows) * pitch
    page.draw_line((xs[0], bottom), (xs[-1], bottom), width=0.5)
    for x in xs:
        page.draw_line((x, 100), (x, bottom), width=0.5)
    doc.save(tmp_path / "tall.pdf")
    page = pymupdf.open(tmp_path / "tall.pdf")[0]
    assert _rows(page, (60, 90, 470, bottom + 10)) is None


def _grouped_heads(tmp_path, heads: list[tuple[float, str]]) -> pymupdf.Page:
    """A fully ruled table whose top row holds one box over four columns (no upright rules
    in it) with `heads` at (x, text), over "$000's | %" pairs and two rows of figures; the
    label column's head spans the two header rows."""
    xs = [72, 200, 270, 340, 410, 480]
    top, pitch = 100, 20
    body = [["Loan type", "$000's", "%", "$000's", "%"],
            ["Mortgages", "4,151", "25.0", "4,090", "27.5"],
            ["Consumer", "63", "0.4", "69", "0.5"],
            ["Leases", "3,508", "21.1", "3,147", "21.2"]]  # fmt: skip
    doc = pymupdf.open()
    page = doc.new_page()
    for x, text in heads:
        page.insert_text((x, top + 14), text, fontsize=10)
    for r, row in enumerate(body, start=1):
        for c, text in enumerate(row):
            if r == 1 and c == 0:
                page.insert_text((xs[0] + 4, top + 2 * pitch - 4), text, fontsize=10)
            elif text and not (r == 1 and c == 0):
                page.insert_text((xs[c] + 4, top + r * pitch + 14), text, fontsize=10)
    bottom = top + (len(body) + 1) * pitch
    page.draw_line((xs[0], top), (xs[-1], top))
    page.draw_line((xs[1], top + pitch), (xs[-1], top + pitch))  # under the group box only
    for r in range(2, len(body) + 2):
        page.draw_line((xs[0], top + r * pitch), (xs[-1], top + r * pitch))
    for x in (xs[0], xs[1], xs[-1]):
        page.draw_line((x, top), (x, bottom))
    for x in xs[2:-1]:
        page.draw_line((x, top + pitch), (x, bottom))
    doc.save(tmp_path / "grouped.pdf")
    return pymupdf.open(tmp_path / "grouped.pdf")[0]


def test_heads_of_column_groups_in_one_ruled_box_each_span_their_own_columns(tmp_path):
    """ICDAR us-004: "12/31/2009  12/31/2010" in one box ruled over four columns, each over
    its "$000's | %" pair: a cell each, spanning two columns, not one cell of both dates."""
    page = _grouped_heads(tmp_path, [(212, "12/31/2009"), (352, "12/31/2010")])
    rows = _rows(page, (60, 90, 490, 210))
    assert rows is not None
    assert [(c["text"], c["colspan"]) for c in rows[0]] == [
        ("Loan type", 1), ("12/31/2009", 2), ("12/31/2010", 2)
    ]  # fmt: skip
    assert _texts(rows)[2] == ["Mortgages", "4,151", "25.0", "4,090", "27.5"]


def test_a_label_across_a_ruled_box_of_columns_stays_one_cell(tmp_path):
    """A group's name over all four columns keeps its word spaces (a column's line falls in
    the one after "of"): one cell."""
    page = _grouped_heads(tmp_path, [(253, "Loans at the end of each period")])
    rows = _rows(page, (60, 90, 490, 210))
    assert rows is not None
    assert [(c["text"], c["colspan"]) for c in rows[0]][1:] == [
        ("Loans at the end of each period", 4)
    ]
