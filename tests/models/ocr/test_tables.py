"""Ruled tables in scans become real tables: cells, spans, a header row."""

from __future__ import annotations

import pymupdf
import pytest
from bs4 import BeautifulSoup
from PIL import Image

from conversion.pipeline.convert import convert_pdf
from conversion.pipeline.flow import ConvertOptions
from models.ocr import TesseractEngine
from models.ocr.engine import _InkMeter
from models.ocr.tables import Grid, _Rule, table_block


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
    pix = page.get_pixmap(dpi=300)
    scan = pymupdf.open()
    scan_page = scan.new_page(width=page.rect.width, height=page.rect.height)
    scan_page.insert_image(scan_page.rect, pixmap=pix)
    scan.save(path)
    return path


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
    ink = _InkMeter(Image.new("1", (400, 300), 1))
    rules = [_Rule(pos=y, start=10, end=390, thickness=1) for y in (10, 15, 200)]
    grid = Grid(ys=[10, 15, 200], xs=[10, 200, 390], h_rules=rules)
    table = table_block(grid, [], ink)
    assert len(table.rows) == 2
