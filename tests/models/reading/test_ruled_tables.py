"""Ruled tables in scans become real tables: cells, spans, a header row."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from bs4 import BeautifulSoup
from PIL import Image, ImageOps
from rapidfuzz import fuzz

from conversion.pipeline.convert import convert_pdf
from conversion.pipeline.flow import ConvertOptions
from models.engine import Word
from models.layout import Region
from models.ocr import TesseractEngine
from models.reading.regions import header_tables
from models.reading.ruled_tables import (
    Grid,
    Rule,
    find_grids,
    grid_cells,
    reversed_bars,
    row_rules,
    ruled_tables,
    table_block,
    unread_cells,
)
from models.reading.scan_lines import InkMeter, Line, ParaLines
from tests.conftest import scan_of


def _scan_of_table(path, *, spanning_header: bool, born_digital: bool = False):
    """Draw a ruled table with PyMuPDF, then keep only its 300 DPI picture: a scan (or keep
    the drawing: a born-digital table)."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Quarterly figures", fontsize=16, fontname="hebo")
    xs, ys = [72, 220, 370, 520], [160, 190, 220, 250, 280]
    for i, y in enumerate(ys):
        page.draw_line((xs[0], y), (xs[-1], y), width=2.5 if i == len(ys) - 4 else 1)
    for j, x in enumerate(xs):
        # With a spanning header, the rule between the two quarter columns starts one row lower.
        top = ys[1] if spanning_header and j == 2 else ys[0]
        page.draw_line((x, top), (x, ys[-1]), width=1)
    header = ["Region", "Sales", ""] if spanning_header else ["Region", "First", "Second"]
    cells = [header, ["North", "1,200", "1,350"], ["South", "980", "1,010"],
             ["West", "2,430", "2,120"]]  # fmt: skip
    for r, row in enumerate(cells):
        for c, text in enumerate(row):
            font = "hebo" if r == 0 else "helv"
            page.insert_text((xs[c] + 8, ys[r] + 20), text, fontsize=11, fontname=font)
    note = "The figures above are the sales of each region in the first two quarters. " * 3
    page.insert_textbox(pymupdf.Rect(72, 320, 520, 500), note, fontsize=11)
    if born_digital:
        doc.save(path)
        return path
    return scan_of(page, path)


@pytest.fixture(scope="module")
def engine():
    return TesseractEngine(detect_rotation=False)


def _table(engine, path):
    result = convert_pdf(path, path.parent / "out", engine, ConvertOptions())
    soup = BeautifulSoup(result.html_path.read_text(), "html.parser")
    return soup.find("table")


def test_ruled_table_has_cells_and_a_header_row(engine, tmp_path):
    table = _table(engine, _scan_of_table(tmp_path / "t.pdf", spanning_header=False))
    assert table is not None
    headers = [th.get_text(strip=True) for th in table.find_all("th")]
    assert headers == ["Region", "First", "Second"]
    rows = [[td.get_text(strip=True) for td in tr.find_all("td")] for tr in table.find_all("tr")]
    assert ["North", "1,200", "1,350"] in rows and ["West", "2,430", "2,120"] in rows


def test_missing_rule_makes_a_spanning_cell(engine, tmp_path):
    table = _table(engine, _scan_of_table(tmp_path / "s.pdf", spanning_header=True))
    sales = next(c for c in table.find_all(["th", "td"]) if c.get_text(strip=True) == "Sales")
    assert sales.get("colspan") == "2"


def test_born_digital_ruled_table_keeps_its_spans(engine, tmp_path):
    pdf = _scan_of_table(tmp_path / "d.pdf", spanning_header=True, born_digital=True)
    result = convert_pdf(pdf, tmp_path / "out", engine, ConvertOptions())
    assert result.report["page_sources"] == {"1": "text_layer"}
    table = BeautifulSoup(result.html_path.read_text(), "html.parser").find("table")
    assert table is not None
    sales = next(c for c in table.find_all(["th", "td"]) if c.get_text(strip=True) == "Sales")
    assert sales.name == "th" and sales.get("colspan") == "2"
    rows = [[c.get_text(strip=True) for c in tr.find_all(["th", "td"])] for tr in table("tr")]
    assert ["North", "1,200", "1,350"] in rows


def test_a_grid_row_thinner_than_its_margins_is_no_crash():
    """A newspaper's close double rule reads as a grid with a 5 px first row: measuring that
    row's ink must not fail the page (it was ENGINE_FAILED, "Coordinate 'lower' is less than
    'upper'")."""
    ink = InkMeter(Image.new("1", (400, 300), 1))
    rules = [Rule(pos=y, start=10, end=390, thickness=1) for y in (10, 15, 200)]
    grid = Grid(ys=[10, 15, 200], xs=[10, 200, 390], h_rules=rules)
    table = table_block(grid, [], ink, 300)
    assert len(table.rows) == 2


def test_row_rules_finds_light_rules_across_a_table_not_bars_or_short_rules():
    """A scan's gray rules (the grid finder's threshold misses them), a little askew, are found;
    a filled bar (a reversed header row), a rule under some columns only and text are not."""
    image = Image.new("L", (1000, 600), 250)
    for y in range(40, 90):  # a dark bar: a header row printed white on dark
        image.paste(80, (0, y, 1000, y + 1))
    for y in (150, 300):
        for x in range(1000):  # a light rule, dropping two pixels across the page
            image.putpixel((x, y + x // 500), 205)
            image.putpixel((x, y + 1 + x // 500), 205)
    image.paste(205, (0, 400, 700, 402))  # under two of the three columns only
    for x in range(0, 1000, 14):  # a line of "text": strokes with gaps
        image.paste(30, (x, 480, x + 6, 510))
    rules = row_rules(image, (0, 0, 1000, 600), 300)
    assert [round(y) for y in rules] == [151, 301]


def test_row_rules_measure_at_the_page_dpi():
    """A band 10 pixels tall is a heavy rule on a 300 DPI page, and a filled bar (a tenth of an
    inch: a reversed header row) on a 150 DPI one; a thin rule is one at both."""
    image = Image.new("L", (1000, 300), 250)
    image.paste(80, (0, 100, 1000, 110))  # the band
    image.paste(205, (0, 200, 1000, 202))  # a light rule
    assert [round(y) for y in row_rules(image, (0, 0, 1000, 300), 300)] == [104, 200]
    assert [round(y) for y in row_rules(image, (0, 0, 1000, 300), 150)] == [200]


def _saved_as_scan(page, path):
    """Only the page's 300 DPI gray picture kept: a scan."""
    pix = page.get_pixmap(dpi=300, colorspace=pymupdf.csGRAY)
    scan = pymupdf.open()
    scan.new_page(width=page.rect.width, height=page.rect.height).insert_image(
        page.rect, pixmap=pix
    )
    scan.save(path)
    return path


def _scan_of_rows_ruled_table(path):
    """A certificate's table (lots_of_sci_tables p1, made again): gray rules between its rows
    only, a description of three lines beside a label and a status set on its middle line;
    kept as a 300 DPI scan."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Certificate of materials", fontsize=16, fontname="hebo")
    intro = "The product listed below is certified as follows, for each of the categories."
    page.insert_textbox(pymupdf.Rect(72, 100, 520, 150), intro, fontsize=11)
    rows = [
        ("Category", ["Description"], "Status"),
        ("Lead Free", ["If yes, then the product holds no lead",
                       "in any of its solders or finishes and",
                       "meets the directive. See appendix A."], "Yes"),
        ("Halogen Free", ["If yes, then the product holds neither",
                          "bromine nor chlorine above the limits",
                          "of the standard. See appendix B."], "No"),
        ("Conflict Free", ["If yes, then the minerals in the product",
                           "come from audited smelters only. See",
                           "appendix C for the list of smelters."], "Yes"),
    ]  # fmt: skip
    y, gray = 180, (0.7, 0.7, 0.7)
    page.draw_line((72, y), (520, y), color=gray, width=0.8)
    for label, lines, status in rows:
        height = 14 * len(lines) + 8
        middle = y + height / 2 + 4
        page.insert_text((78, middle), label, fontsize=10, fontname="hebo")
        for k, line in enumerate(lines):
            page.insert_text((190, y + 16 + 14 * k), line, fontsize=10)
        page.insert_text((440, middle), status, fontsize=10)
        y += height
        page.draw_line((72, y), (520, y), color=gray, width=0.8)
    signed = "Quality and Reliability, signed on behalf of the company by its quality manager."
    page.insert_textbox(pymupdf.Rect(72, y + 30, 520, y + 90), signed, fontsize=11)
    return _saved_as_scan(page, path)


def test_a_scanned_table_ruled_between_rows_keeps_each_row_whole(engine, tmp_path):
    """Without the rules the label sat on the description's middle line: the description's
    first line became a row of its own and each row took the next one's first line."""
    table = _table(engine, _scan_of_rows_ruled_table(tmp_path / "r.pdf"))
    assert table is not None
    rows = [[c.get_text(" ", strip=True) for c in tr.find_all(["th", "td"])] for tr in table("tr")]
    assert rows[0] == ["Category", "Description", "Status"]
    halogen = "If yes, then the product holds neither bromine nor chlorine above the limits"
    assert rows[2] == ["Halogen Free", f"{halogen} of the standard. See appendix B.", "No"]
    assert len(rows) == 4


def _scan_of_reversed_header_table(path):
    """A table whose header row is printed white on a dark bar (lots_of_sci_tables p2's
    appendices, made again), gray rules between its rows; a 300 DPI scan."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Restricted substances", fontsize=16, fontname="hebo")
    intro = "The limits below apply to every homogeneous material of the product."
    page.insert_textbox(pymupdf.Rect(72, 100, 520, 150), intro, fontsize=11)
    page.draw_rect(pymupdf.Rect(72, 166, 440, 204), color=None, fill=(0.3, 0.3, 0.3))
    white = (1, 1, 1)
    page.insert_text((78, 188), "Restricted Substance", fontsize=10, color=white)
    page.insert_text((300, 181), "Allowable Limit", fontsize=10, color=white)
    page.insert_text((300, 195), "(per material)", fontsize=10, color=white)  # two lines
    rows = [("Cadmium (Cd)", "100 ppm"), ("Mercury (Hg)", "1000 ppm"), ("Lead (Pb)", "1000 ppm"),
            ("Bromine (Br)", "900 ppm"), ("Chlorine (Cl)", "900 ppm")]  # fmt: skip
    y = 204
    for name, limit in rows:
        page.insert_text((78, y + 14), name, fontsize=10)
        page.insert_text((300, y + 14), limit, fontsize=10)
        y += 20
        page.draw_line((72, y), (440, y), color=(0.7, 0.7, 0.7), width=0.8)
    page.draw_line((256, 204), (256, y), color=(0.7, 0.7, 0.7), width=0.8)
    return _saved_as_scan(page, path)


def test_a_header_row_printed_white_on_dark_is_read(engine, tmp_path):
    """Tesseract takes the reversed header row for a picture: it was lost, and the first
    substance became the table's header. Its two lines are one header row (the bar's foot
    parts it from the body as a rule would)."""
    table = _table(engine, _scan_of_reversed_header_table(tmp_path / "h.pdf"))
    assert table is not None
    heads = [th.get_text(" ", strip=True) for th in table.find("tr").find_all("th")]
    assert len(heads) == 2 and heads[0] == "Restricted Substance"
    # (Reversed type reads a little worse: "All owable Limi".)
    assert fuzz.ratio(heads[1], "Allowable Limit (per material)") >= 85
    rows = [[c.get_text(" ", strip=True) for c in tr.find_all(["th", "td"])] for tr in table("tr")]
    assert ["Cadmium (Cd)", "100 ppm"] in rows


def test_reversed_bars_are_dark_bars_holding_light_text():
    image = Image.new("L", (2400, 1200), 250)
    image.paste(70, (200, 100, 2000, 160))  # a header bar, 0.2 inch tall at 300 DPI
    for x in range(260, 900, 40):  # its white letters
        image.paste(250, (x, 115, x + 14, 145))
    image.paste(70, (200, 400, 2000, 460))  # the same bar with nothing in it: a black band
    image.paste(70, (200, 600, 2000, 606))  # a heavy rule
    image.paste(70, (200, 800, 700, 1150))  # a dark picture, far too tall for a row
    bars = reversed_bars(image, 300)
    assert len(bars) == 1  # the bar, to a few pixels (a crop to read: a margin does no harm)
    assert all(abs(a - b) <= 15 for a, b in zip(bars[0], (200, 100, 2000, 160), strict=True))


def _bar_read(bar, heads: list[tuple[int, str]]):
    """What a reversed bar read as: one line of words at (x, text), 30 px tall."""
    x0, y0 = bar[0], bar[1] + 10
    words = []
    for x, text in heads:
        for part in text.split():
            words.append(Word(part, 95.0, (x0 + x, y0, x0 + x + 20 * len(part), y0 + 30)))
            x += 20 * (len(part) + 1)
    return [ParaLines([Line(words, _box_of(words), 0.0)])]


def _box_of(words):
    return (min(w.bbox[0] for w in words), min(w.bbox[1] for w in words),
            max(w.bbox[2] for w in words), max(w.bbox[3] for w in words))  # fmt: skip


def test_a_reversed_row_of_column_heads_over_text_makes_a_table_region():
    """lots_of_sci_tables p2's Appendix A: the layout model gives the rows under the reversed
    "Exemption | Description" row as text; the heads make the table."""
    bar = (240, 344, 1240, 380)
    rows = Region(kind="text", bbox=(263, 397, 1176, 594))
    after = Region(kind="section-header", bbox=(247, 661, 728, 675))
    heads = [(bar, _bar_read(bar, [(20, "Exemption"), (500, "Description")]))]
    assert header_tables(heads, [rows, after]) == [Region(kind="table", bbox=(240, 344, 1240, 594))]
    # A bar the layout model's table holds already makes none.
    held = Region(kind="table", bbox=(230, 340, 1250, 600))
    assert header_tables(heads, [held, rows]) == []


def test_a_reversed_banner_of_one_phrase_makes_no_table():
    """A heading printed white on dark over its paragraphs is no table."""
    bar = (240, 344, 1240, 380)
    heads = [(bar, _bar_read(bar, [(20, "Appendix A RoHS with Exemption")]))]
    assert header_tables(heads, [Region(kind="text", bbox=(263, 397, 1176, 594))]) == []


def _grid_image(
    image: Image.Image, top: int, rows: int, xs: list[int], *, drop: int, gray: int = 60
) -> None:
    """Rules of a table drawn on `image`: `rows` rows 40 px tall from `top`, columns at `xs`;
    each rule drops `drop` pixels across the page (a scan a little askew) and is cut by a
    one-pixel gap of noise every 150 px."""
    left, right = xs[0], xs[-1]
    bottom = top + 40 * rows
    for y in range(top, bottom + 1, 40):
        for x in range(left, right + 1):
            if x % 150:
                dy = drop * (x - left) // (right - left)
                image.paste(gray, (x, y + dy, x + 1, y + dy + 3))
    for x in xs:
        image.paste(gray, (x, top, x + 3, bottom + drop + 3))


def test_a_scanned_grid_askew_and_broken_by_noise_is_one_grid_per_table():
    """Rules askew by a few pixels and broken by noise are one rule each; two tables of one
    width, one over the other, are two grids (no rule down their edges joins them)."""
    image = Image.new("L", (2400, 3000), 250)
    xs = [300, 900, 1400, 2000]
    _grid_image(image, 400, 10, xs, drop=4)
    _grid_image(image, 1200, 6, xs, drop=4)
    grids = find_grids(image, 300)
    assert [(len(g.ys) - 1, len(g.xs) - 1) for g in grids] == [(10, 3), (6, 3)]


def _three_by_two() -> tuple[Grid, Image.Image]:
    """A grid of 3 rows and 2 columns (300 x 60 px cells) on a blank page image."""
    image = Image.new("L", (800, 400), 255)
    ys, xs = [50, 110, 170, 230], [100, 400, 700]
    h = [Rule(pos=y, start=100, end=700, thickness=2) for y in ys]
    v = [Rule(pos=x, start=50, end=230, thickness=2) for x in xs]
    return Grid(ys=ys, xs=xs, h_rules=h, v_rules=v), image


def test_cells_with_ink_but_no_word_are_read_again():
    """A lone dash Tesseract passed over (ink, no word) is a cell to read again; a cell with a
    word, or blank, is not."""
    grid, image = _three_by_two()
    image.paste(0, (540, 138, 560, 142))  # a dash in row 1, column 1
    image.paste(0, (150, 130, 250, 150))  # "Lead", read
    words = [Word("Lead", 90.0, (150, 130, 250, 150))]
    assert unread_cells(grid, words, InkMeter(image), 300) == [(400, 110, 700, 170)]


def test_a_rule_read_as_a_glyph_is_no_cell_text():
    grid, image = _three_by_two()
    words = [Word("|76.7", 80.0, (420, 130, 480, 150)), Word("|", 40.0, (120, 190, 125, 210))]
    table = table_block(grid, words, InkMeter(image), 300)
    assert [[c["text"] for c in row] for row in table.rows] == [["", ""], ["", "76.7"], ["", ""]]


def test_a_thin_rule_gone_gray_in_a_scan_read_at_a_lower_dpi_is_still_a_rule():
    """A scan's thin rules read at 240 DPI are gray (about 110-140), a cell's shading lighter:
    the rules make the grid, the shading does not."""
    image = Image.new("L", (2000, 1400), 250)
    image.paste(212, (240, 320, 800, 720))  # a shaded first column
    _grid_image(image, 320, 10, [240, 800, 1200, 1600], drop=2, gray=140)
    grids = find_grids(image, 240)
    assert [(len(g.ys) - 1, len(g.xs) - 1) for g in grids] == [(10, 3)]


def _scan_of_thresholds_table(path):
    """A ruled table of substances (ICDAR eu-001's kind, made again): a shaded first column of
    names, thresholds of a lone "1" or "-" in each other cell; a 300 DPI scan."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Pesticides", fontsize=14, fontname="hebo")
    names = ["Alachlor", "Aldrin", "Atrazine", "Chlordane", "Chlordecone", "Chlorpyrifos",
             "Diuron", "Endosulphan", "Endrin", "Heptachlor", "Isodrin", "Lindane"]  # fmt: skip
    values = ["-11", "111", "-11", "111", "111", "-11", "-11", "-11", "111", "111", "-1-", "111"]
    xs, top, pitch = [72, 260, 340, 420, 500], 100, 14
    page.draw_rect(pymupdf.Rect(xs[0], top, xs[1], top + pitch * len(names)), color=None,
                   fill=(0.85, 0.85, 0.85))  # fmt: skip
    for r, (name, row) in enumerate(zip(names, values, strict=True)):
        y = top + r * pitch
        page.insert_text((xs[0] + 3, y + 10.5), name, fontsize=8, fontname="hebo")
        for c, value in enumerate(row):
            page.insert_text(((xs[c + 1] + xs[c + 2]) / 2 - 2, y + 10.5), value, fontsize=8)
    bottom = top + pitch * len(names)
    for r in range(len(names) + 1):
        page.draw_line((xs[0], top + r * pitch), (xs[-1], top + r * pitch), width=0.5)
    for x in xs:
        page.draw_line((x, top), (x, bottom), width=0.5)
    return _saved_as_scan(page, path), names, values


def test_lone_figures_and_dashes_of_a_ruled_table_are_read(engine, tmp_path):
    """Tesseract passes over a lone "1" or "-" in a cell, or reads it as scraps; each empty
    cell of the grid is read again alone: every threshold is in its cell."""
    path, names, values = _scan_of_thresholds_table(tmp_path / "p.pdf")
    table = _table(engine, path)
    rows = [[c.get_text(" ", strip=True) for c in tr.find_all(["th", "td"])] for tr in table("tr")]
    expected = [[name, *value] for name, value in zip(names, values, strict=True)]
    assert sum(row in rows for row in expected) >= len(expected) - 1, rows


def test_a_cell_holding_only_scraps_is_read_again():
    """A "1" on a shaded cell read as "feel" at 30 % is no reading of the cell."""
    grid, image = _three_by_two()
    image.paste(0, (540, 130, 546, 150))
    words = [Word("feel", 30.0, (530, 130, 560, 150))]
    assert unread_cells(grid, words, InkMeter(image), 300) == [(400, 110, 700, 170)]


def test_a_shaded_header_row_between_rules_is_a_row_of_the_grid():
    """A header row shaded gray between its rules is one thick dark band: its edges part it
    from the rows around it, it is no filled box lost with its rules."""
    image = Image.new("L", (2000, 1400), 250)
    _grid_image(image, 320, 8, [240, 800, 1200, 1600], drop=0)
    image.paste(150, (240, 320, 1603, 363))  # the first row shaded, from its rule to the next
    grids = find_grids(image, 240)
    assert [(len(g.ys) - 1, len(g.xs) - 1) for g in grids] == [(8, 3)]


def test_a_gray_banner_with_light_letters_is_no_grid():
    """A scanned page's gray banner (ICDAR eu-001) is a thick band whose light letters leave
    narrow dark stripes between them: no columns, no table."""
    banner = Path(__file__).parents[2] / "resources" / "corpus" / "icdar-eu-001-banner-240dpi.png"
    assert find_grids(Image.open(banner), 240) == []


def test_a_reversed_header_row_whose_words_a_ruled_grid_took_is_no_crash():
    """The header bar's words went to the ruled grid around it (the grid is the table): the bar
    makes no table of its own, and the page is read (us-039 scanned fell back to plain)."""
    bar = (240, 344, 1240, 380)
    read = _bar_read(bar, [(20, "Region"), (600, "Sales")])
    for para in read:
        for line in para:
            line.words = []
    assert header_tables([(bar, read)], [Region(kind="text", bbox=(263, 397, 1176, 594))]) == []


def test_a_scan_border_with_a_stamp_inside_is_no_table():
    """A typescript's scan framed by the page's dark edges (rules at its top and bottom, down
    both sides) with a library stamp inside: the stamp's strokes end mid-row and join no two
    rules, so they part no columns: a typescript's lines are not cut in two (typewritten-fr)."""
    image = Image.new("L", (2400, 3200), 250)
    image.paste(20, (20, 30, 2380, 34))  # the page's top edge
    for y in (3120, 3140, 3160):  # its bottom edge, in three dark strips
        image.paste(20, (20, y, 2380, y + 4))
    for x in (20, 40, 2376):  # its sides
        image.paste(20, (x, 30, x + 4, 3164))
    for x in (700, 880, 1020):  # a round stamp's upright strokes, 90 px each
        image.paste(20, (x, 650, x + 4, 740))
    columns = [x for grid in find_grids(image, 300) for x in grid.xs]
    assert columns and not [x for x in columns if 600 < x < 1100]


def test_a_column_rule_joining_two_inner_rules_still_parts_columns():
    """A vertical rule from the second rule to the bottom (a table under a spanning header
    cell) is one of the grid's columns."""
    image = Image.new("L", (2000, 1200), 250)
    for y in (200, 260, 320, 380, 440):
        image.paste(20, (200, y, 1800, y + 3))
    for x in (200, 600, 1797):
        image.paste(20, (x, 200, x + 3, 443))
    image.paste(20, (1200, 260, 1203, 443))  # starts at the second rule: under the header
    (grid,) = find_grids(image, 300)
    assert len(grid.xs) == 4


def _scan_of_form(path):
    """A form's boxes: each ruled cell holds a small printed label over the typed answer (the
    hidden forms' "CLIENT NO." fields); a 300 DPI scan."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Client intake form", fontsize=16, fontname="hebo")
    fields = [[("FULL NAME", "MARGARET OKONKWO"), ("DATE OF BIRTH", "03/11/1962")],
              [("STREET ADDRESS", "27 BRIAR LANE"), ("POSTAL CODE", "PM4 7RD")],
              [("EMPLOYER", "NORTHGATE BAKERY"), ("TELEPHONE", "555 014 2297")]]  # fmt: skip
    xs, ys = [72, 330, 520], [120, 160, 200, 240]
    for y in ys:
        page.draw_line((xs[0], y), (xs[-1], y), width=1)
    for x in xs:
        page.draw_line((x, ys[0]), (x, ys[-1]), width=1)
    for r, row in enumerate(fields):
        for c, (label, answer) in enumerate(row):
            page.insert_text((xs[c] + 5, ys[r] + 10), label, fontsize=6.5)
            page.insert_text((xs[c] + 5, ys[r] + 32), answer, fontsize=12, fontname="cour")
    note = "Please print clearly in capital letters and sign at the foot of the page. " * 3
    page.insert_textbox(pymupdf.Rect(72, 280, 520, 400), note, fontsize=11)
    return _saved_as_scan(page, path)


def test_a_forms_box_keeps_its_label_with_its_answer(engine, tmp_path):
    """Each ruled box is one cell, its label over its answer: the words' own rows (label
    lines and answer lines) made twice the rows, every label a row apart from its answer, and a
    screen reader read "MARGARET OKONKWO" under the column head "FULL NAME" of a row of labels."""
    table = _table(engine, _scan_of_form(tmp_path / "form.pdf"))
    assert table is not None
    rows = [[c.get_text(" ", strip=True) for c in tr.find_all(["th", "td"])] for tr in table("tr")]
    assert len(rows) == 3
    assert fuzz.ratio(rows[0][0], "FULL NAME MARGARET OKONKWO") >= 90
    assert fuzz.ratio(rows[2][1], "TELEPHONE 555 014 2297") >= 90


def test_an_inverted_pages_margins_are_no_grid():
    """A dark listing read inverted (hlist-fr p. 12): the page's margins turn black, their
    edges and the listing's shaded lines make rules along all four edges of the image: the
    page's border, no table."""
    listing = Path(__file__).parents[2] / "resources" / "corpus" / "texlive" / "hlist-fr-p12.pdf"
    with pymupdf.open(listing) as doc:
        gray = doc[0].get_pixmap(dpi=200, colorspace=pymupdf.csGRAY).pil_image()
    assert find_grids(ImageOps.invert(gray), 200) == []


def test_a_table_cropped_to_its_frame_is_a_grid():
    """A figure's table whose PDF is cropped to its frame (schule's glyph table U+2600-26FF):
    its rules run along the image's four edges, but its first and last columns hold labels on
    paper, no dark margin: a table."""
    image = Image.new("L", (1200, 323), 250)
    _grid_image(image, 0, 8, [0, 400, 800, 1197], drop=0)
    grids = find_grids(image, 300)
    assert [(len(g.ys) - 1, len(g.xs) - 1) for g in grids] == [(8, 3)]


def test_a_table_ruled_between_its_columns_only_is_a_grid():
    """A statistical table ruled across and between its columns, no rule down its sides (ICDAR
    eu-012): the rules' ends are its sides. Without them no grid was found, and figures on
    either side of a column rule ran together ("7017.9" for "7.0 | 7.9")."""
    image = Image.new("L", (2400, 1400), 250)
    for y in range(300, 701, 40):
        image.paste(20, (300, y, 2000, y + 3))
    for x in (700, 1100, 1500):
        image.paste(20, (x, 300, x + 3, 703))
    (grid,) = find_grids(image, 300)
    assert (len(grid.ys) - 1, [round(x, -1) for x in grid.xs]) == (10, [300, 700, 1100, 1500, 2000])


def _scan_of_open_sided_table(path):
    """A cost table ruled between its columns only (no rule down either side, as ICDAR
    eu-012's tables are set): its figure columns ruled row by row, its column of labels
    left open, a rule under the head and one under the table across both. A 300 DPI scan."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Costs by category", fontsize=16, fontname="hebo")
    left, xs, right, head, row_h = 72, [220, 340, 460], 580, 150, 22
    labels = ["Salaries", "Travel", "Rent", "Supplies", "Postage", "Training"]
    figures = [("1,314", "373", "941"), ("94", "20", "74"), ("170", "150", "20"),
               ("161", "11", "150"), ("34", "5", "29"), ("82", "12", "70")]  # fmt: skip
    bottom = head + row_h * len(labels)
    page.draw_line((xs[0], head - 2 * row_h), (right, head - 2 * row_h), width=1)
    for r in range(len(labels) + 1):
        y = head + r * row_h
        page.draw_line((left if r in (0, len(labels)) else xs[0], y), (right, y), width=1)
    for x in xs:
        page.draw_line((x, head - 2 * row_h), (x, bottom), width=1)
    heads = ["Category", "Total", "Indirect", "Direct"]
    for x, text in zip([left, *xs], heads, strict=True):
        page.insert_text((x + 6, head - 6), text, fontsize=10, fontname="hebo")
    for r, (label, row) in enumerate(zip(labels, figures, strict=True)):
        y = head + r * row_h + 15
        for x, text in zip([left, *xs], [label, *row], strict=True):
            page.insert_text((x + 6, y), text, fontsize=10)
    note = "The figures above are the year's costs of each category, in thousands. " * 3
    page.insert_textbox(pymupdf.Rect(72, bottom + 40, 520, bottom + 200), note, fontsize=11)
    return _saved_as_scan(page, path)


def test_an_open_column_of_labels_parts_where_the_ruled_figures_beside_it_do(engine, tmp_path):
    """Without it the grid took the labels' open column as one cell spanning every row
    ("Salaries Travel Rent ..."), and each row after the first lost its label."""
    table = _table(engine, _scan_of_open_sided_table(tmp_path / "s.pdf"))
    assert table is not None
    rows = [[c.get_text(" ", strip=True) for c in tr.find_all(["th", "td"])] for tr in table("tr")]
    assert rows[0] == ["Category", "Total", "Indirect", "Direct"]
    assert rows[1:] == [["Salaries", "1,314", "373", "941"], ["Travel", "94", "20", "74"],
                        ["Rent", "170", "150", "20"], ["Supplies", "161", "11", "150"],
                        ["Postage", "34", "5", "29"], ["Training", "82", "12", "70"]]  # fmt: skip


def _stub_beside_figures(image: Image.Image, *, group_rules: bool, right_rule: bool) -> None:
    """Seven rows 60 px tall: figure columns (900-2000) ruled row by row, a stub column
    (300-900) that the rules reach into only at the head, the foot and (`group_rules`) between
    groups of three rows; column rules at 900 and 1450, and down the right side."""
    for r in range(7):
        y = 400 + 60 * r
        left = 300 if r in (0, 6) or (group_rules and r % 3 == 0) else 900
        image.paste(20, (left, y + 60, 2000, y + 63))
    image.paste(20, (900, 340, 2000, 343))  # the top of the figures' head
    for x in (900, 1450, 1997) if right_rule else (900, 1450, 1700):
        image.paste(20, (x, 340, x + 3, 823))


def test_an_open_column_ruled_between_groups_keeps_each_groups_label_spanning_it():
    """Rules reaching into the open column between groups of rows: a group's label spans its
    rows, as the rules say; with no rule reaching into it below the head, a row each."""
    for group_rules, spans in ((True, [1, 3, 3]), (False, [1] * 7)):
        image = Image.new("L", (2400, 1600), 250)
        _stub_beside_figures(image, group_rules=group_rules, right_rule=False)
        (grid,) = find_grids(image, 300)
        assert round(grid.xs[0]) == 300, group_rules
        stub = [rowspan for r, c, rowspan, _ in grid_cells(grid, 300) if c == 0]
        assert stub[-len(spans) :] == spans, group_rules


def test_a_grid_ruled_down_both_sides_is_kept_before_an_open_one_over_it():
    """The figures ruled down both sides are a grid; the open one the longer rules would make
    round it and the stub is not taken over it (the open kind only fills where no grid is)."""
    image = Image.new("L", (2400, 1600), 250)
    _stub_beside_figures(image, group_rules=True, right_rule=True)
    assert [round(g.xs[0], -1) for g in find_grids(image, 300)] == [900]


def test_lines_along_a_scans_dark_border_are_no_open_grid():
    """A typescript scanned with its dark border (typewritten-fr): rules along the image's
    edges and a few strokes between them made a "table ruled between its columns" of the whole
    page, its lines read cell by cell. A grid with an open side sits inside the margins."""
    image = Image.new("L", (2400, 3200), 250)
    image.paste(20, (0, 0, 2400, 6))  # the border along the top
    for y in (1500, 3194):
        image.paste(20, (0, y, 2400, y + 6))
    for x in (600, 1200, 1800):
        image.paste(20, (x, 0, x + 4, 3200))
    assert find_grids(image, 300) == []
    inside = Image.new("L", (2400, 3200), 250)
    for y in (300, 1500, 2900):
        inside.paste(20, (300, y, 2100, y + 6))
    for x in (600, 1200, 1800):
        inside.paste(20, (x, 300, x + 4, 2906))
    assert len(find_grids(inside, 300)) == 1


def test_short_strokes_between_a_pages_lines_are_no_open_grid():
    """Underlines across a typescript and upright strokes between some of them (a stamp's
    edges, a bracket), each over part of their height: no table's column rules, which run its
    whole height."""
    image = Image.new("L", (2400, 3200), 250)
    for y in (400, 800, 1200, 1600):
        image.paste(20, (300, y, 2100, y + 6))
    for x, top, bottom in ((600, 400, 806), (1200, 400, 806), (1800, 400, 1206)):
        image.paste(20, (x, top, x + 4, bottom))
    assert find_grids(image, 300) == []


def _groups_ruled_black_rows_gray(image: Image.Image, *, light: int) -> None:
    """Two groups of three rows 60 px tall under a head, ruled black around the groups and
    down the sides; inside, gray rules (`light`) between the rows of each group across the
    figures (800-2000) and down between the group labels (300-600) and the row labels
    (600-800), as a spreadsheet prints them (ICDAR us-031a)."""
    for y in (300, 400, 580, 760):
        image.paste(20, (300, y, 2000, y + 4))
    for x in (300, 800, 1400, 1996):
        image.paste(20, (x, 300, x + 4, 764))
    image.paste(light, (600, 400, 602, 760))
    for top in (400, 580):
        for y in (top + 60, top + 120):
            image.paste(light, (600, y, 2000, y + 2))


def test_light_rules_inside_a_grid_part_its_rows_and_columns():
    """Without them each group was one row of cells holding three figures each, which the
    words then cut apart line by line, a group's label split over the rows."""
    image = Image.new("L", (2400, 1200), 252)
    _groups_ruled_black_rows_gray(image, light=225)
    (grid,) = find_grids(image, 300)
    assert [round(x, -1) for x in grid.xs] == [300, 600, 800, 1400, 2000]
    assert [round(y, -1) for y in grid.ys] == [300, 400, 460, 520, 580, 640, 700, 760]
    labels = [(r, rowspan) for r, c, rowspan, _ in grid_cells(grid, 300) if c == 0]
    assert labels == [(0, 1), (1, 3), (4, 3)]  # the head spans no column: its own rule is black


def test_a_light_stroke_inside_one_cell_is_no_rule():
    """A dash or an underline fills one cell at most: no light rule crosses a single one."""
    image = Image.new("L", (2400, 1200), 252)
    _groups_ruled_black_rows_gray(image, light=252)
    image.paste(225, (820, 490, 1380, 492))  # a gray underline across one cell
    image.paste(225, (700, 420, 702, 560))  # a gray stroke down one cell
    (grid,) = find_grids(image, 300)
    assert ([round(x, -1) for x in grid.xs], len(grid.ys)) == ([300, 800, 1400, 2000], 4)


def test_a_shaded_column_of_labels_holds_no_light_rule():
    """A tinted column of labels (gray 232 on paper 250), scanned (noise, JPEG, read at 240
    DPI; ICDAR eu-021): against the page's paper its pixel rows and columns through the
    labels' strokes are as dark as a light rule, but none is darker than the tint around it.
    The first version found a rule in most of them."""
    pixels = np.full((1500, 3000), 250, dtype=np.float32)
    pixels[375:950, 375:1000] = 232
    for y in range(395, 930, 60):  # lines of labels: strokes 30 px tall, letters apart
        for x in range(400, 900, 17):
            pixels[y : y + 30, x : x + 4 + x % 3] = 30
    for y in (375, 500, 725, 950):
        pixels[y : y + 5, 375:2500] = 20
    for x in (375, 1000, 1750, 2495):
        pixels[375:955, x : x + 5] = 20
    pixels += np.random.default_rng(3).normal(0, 16, pixels.shape)
    jpeg = io.BytesIO()
    Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(jpeg, "JPEG", quality=55)
    scan = Image.open(jpeg).convert("L").resize((2400, 1200), Image.BILINEAR)
    (grid,) = find_grids(scan, 240)
    assert ([round(x, -1) for x in grid.xs], len(grid.ys)) == ([300, 800, 1400, 2000], 4)


def test_black_strokes_lined_up_row_over_row_are_no_light_rule():
    """Rows a line of text tall (ICDAR eu-001's): a letter's or a "1"'s stroke fills a row
    between its rules' margins, and they line up from row to row. A light rule is light
    along its length; they are black: no column rule. The first version cut the labels apart
    ("car | carbon | dioxide (co2)") and split a column of "1"s in two."""
    image = Image.new("L", (2400, 1000), 250)
    for y in range(300, 461, 40):
        image.paste(20, (300, y, 2000, y + 4))
        for x in (500, 540, 1300) if y < 460 else ():
            image.paste(30, (x, y + 6, x + 4, y + 36))  # a stroke the row's height
    for x in (300, 1000, 1600, 1996):
        image.paste(20, (x, 300, x + 4, 464))
    (grid,) = find_grids(image, 300)
    assert [round(x, -1) for x in grid.xs] == [300, 1000, 1600, 2000]


def _scan_of_gray_ruled_groups(path):
    """A savings table set as a spreadsheet prints it (ICDAR us-031a, made again): black rules
    round the head and each group of three rows, gray ones between a group's rows and
    between its label, wrapped over two lines, and the rows' labels. A 300 DPI scan."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Savings by behaviour", fontsize=16, fontname="hebo")
    xs, head, row_h = [72, 230, 300, 400, 500], 140, 20
    groups = [("Per cycle", "savings"), ("Frequency of", "opportunity")]
    figures = [("5%", "8%"), ("15%", "15%"), ("30%", "35%"), ("30%", "20%"), ("15%", "15%"),
               ("8%", "10%")]  # fmt: skip
    bottom = head + row_h * len(figures)
    gray = (0.8, 0.8, 0.8)
    for y in [head - row_h, head, head + 3 * row_h, bottom]:
        page.draw_line((xs[0], y), (xs[-1], y), width=1)
    for x in [xs[0], *xs[2:]]:
        page.draw_line((x, head - row_h), (x, bottom), width=1)
    page.draw_line((xs[1], head), (xs[1], bottom), width=0.6, color=gray)
    for r in (1, 2, 4, 5):
        page.draw_line((xs[1], head + r * row_h), (xs[-1], head + r * row_h), width=0.6, color=gray)
    for x, text in zip(xs[2:4], ["Accel", "Speed"], strict=True):
        page.insert_text((x + 6, head - 6), text, fontsize=10, fontname="hebo")
    for g, lines in enumerate(groups):
        for k, text in enumerate(lines):
            page.insert_text(
                (xs[0] + 6, head + (3 * g + 1) * row_h + 4 + 12 * k), text, fontsize=10
            )
    for r, row in enumerate(figures):
        y = head + r * row_h + 14
        for x, text in zip(xs[1:4], [("Low", "Mid", "High")[r % 3], *row], strict=True):
            page.insert_text((x + 6, y), text, fontsize=10)
    note = "The figures above are the savings each behaviour could bring, by how likely. " * 3
    page.insert_textbox(pymupdf.Rect(72, bottom + 40, 520, bottom + 200), note, fontsize=11)
    return _saved_as_scan(page, path)


def test_a_scanned_tables_gray_rules_part_its_rows_under_a_group_label(engine, tmp_path):
    """Without them each group's three rows of figures ran into one cell each and the words
    then cut the table apart line by line, the groups' wrapped labels in rows of their own."""
    table = _table(engine, _scan_of_gray_ruled_groups(tmp_path / "g.pdf"))
    assert table is not None
    rows = [[c.get_text(" ", strip=True) for c in tr.find_all(["th", "td"])] for tr in table("tr")]
    assert rows[1:] == [["Per cycle savings", "Low", "5%", "8%"], ["Mid", "15%", "15%"],
                        ["High", "30%", "35%"], ["Frequency of opportunity", "Low", "30%", "20%"],
                        ["Mid", "15%", "15%"], ["High", "8%", "10%"]]  # fmt: skip


def _grid_of_groups(*, figures_each_line: bool) -> list[list[str]]:
    """A grid of a head and three rows ruled black, each row's label over three lines; the
    figures on each of those lines (a block of figures the rules frame without parting), or
    on its middle one only (a row of figures beside a wrapped label): the cells' texts."""
    image = Image.new("L", (2000, 1400), 250)
    ys = [200, 280, 480, 680, 880]
    for y in ys:
        image.paste(20, (200, y, 1800, y + 3))
    for x in (200, 900, 1350, 1797):
        image.paste(20, (x, 200, x + 3, 883))
    placed = [[("Group", 220), ("2019", 1000), ("2020", 1450)]]
    heights = [220]
    for g, top in enumerate(ys[1:-1]):
        for k in range(3):
            words = [(f"label{g}{k}", 220), (f"more{g}{k}", 415)]
            if figures_each_line or k == 1:
                words += [(f"{g}{k}.5", 1000), (f"{g}{k}.7", 1450)]
            placed.append(words)
            heights.append(top + 20 + 55 * k)
    para = ParaLines()
    for y, words in zip(heights, placed, strict=True):
        boxes = [(text, (x, y, x + 180, y + 40)) for text, x in words]
        line_box = (boxes[0][1][0], y, boxes[-1][1][2], y + 40)
        para.append(Line([Word(text=t, confidence=90, bbox=b) for t, b in boxes], line_box, 0.1))
    (table,), _ = ruled_tables(image, [para], InkMeter(image), 300)
    return [[cell["text"] for cell in row] for row in table.rows]


def test_rules_parting_rows_of_figures_beside_wrapped_labels_keep_their_rows():
    """The words decide where a grid's cells hold figures on several lines (rules framing a
    block of figures), not where each holds one line of them: a label wrapped over three lines
    made the words' table three rows for one (ICDAR us-031a)."""
    assert len(_grid_of_groups(figures_each_line=True)) == 10
    rows = _grid_of_groups(figures_each_line=False)
    assert rows[1:] == [[f"label{g}0 more{g}0 label{g}1 more{g}1 label{g}2 more{g}2", f"{g}1.5",
                         f"{g}1.7"] for g in range(3)]  # fmt: skip


def test_rules_missing_between_columns_of_figures_leave_the_words_to_decide():
    """Three columns of figures in one column of cells, "0.14   NA   NA" a column's gap apart
    on each line (a scan's column rules too faint to find, ICDAR us-007): the words make the
    columns."""
    image = Image.new("L", (2000, 1000), 250)
    ys = [200, 260, 320, 380, 440]
    for y in ys:
        image.paste(20, (200, y, 1800, y + 3))
    for x in (200, 900, 1797):
        image.paste(20, (x, 200, x + 3, 443))
    para = ParaLines()
    for r, y in enumerate(y + 10 for y in ys[:-1]):
        texts = [("Measure", 220), ("Age 3", 1000), ("Age 4", 1300), ("K", 1600)] if r == 0 else [
            (f"Scale {r}", 220), (f"0.{r}4", 1000), ("NA", 1300), ("NA", 1600)]  # fmt: skip
        words = [Word(text=t, confidence=90, bbox=(x, y, x + 120, y + 40)) for t, x in texts]
        para.append(Line(words, (220, y, 1720, y + 40), 0.1))
    (table,), _ = ruled_tables(image, [para], InkMeter(image), 300)
    assert [[cell["text"] for cell in row] for row in table.rows][1] == [
        "Scale 1",
        "0.14",
        "NA",
        "NA",
    ]
