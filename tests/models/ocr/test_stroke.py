"""Ink weight measured on a scan: the width of a line's strokes
(models.reading.scan_lines.InkMeter), which tells a bold title from the body where the layout
model calls both text."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from bs4 import BeautifulSoup
from PIL import Image

from conversion.pipeline.convert import ConvertOptions, convert_pdf
from models.ocr import TesseractEngine
from models.reading.scan_lines import InkMeter

REALWORLD = Path(__file__).resolve().parents[2] / "resources" / "corpus" / "realworld"


def _line(font: str, size: float, *, bar: bool = False) -> tuple[InkMeter, tuple]:
    """A line of text set in `font` and rasterized at 240 DPI, binarized as Tesseract does."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=60)
    page.insert_text((10, 40), "Applicant Declaration", fontname=font, fontsize=size)
    if bar:  # a rule under the words, as a form draws one
        page.draw_rect(pymupdf.Rect(10, 44, 390, 50), fill=(0, 0, 0), color=None)
    pix = page.get_pixmap(dpi=240, colorspace=pymupdf.csGRAY)
    image = Image.frombytes("L", (pix.width, pix.height), pix.samples).point(
        lambda v: 0 if v < 128 else 255
    )
    return InkMeter(image), (0, 0, pix.width, pix.height)


def test_a_bold_lines_strokes_are_wider_than_the_bodys_at_one_size():
    regular, box = _line("helv", 10)
    bold, _ = _line("hebo", 10)
    assert bold.stroke(box) >= 1.3 * regular.stroke(box)
    # Larger regular type has wider strokes, in proportion to its size only.
    larger, _ = _line("helv", 12)
    assert larger.stroke(box) < 1.3 * regular.stroke(box)


def test_a_rule_under_the_words_is_no_stroke():
    plain, box = _line("helv", 10)
    ruled, _ = _line("helv", 10, bar=True)
    assert ruled.stroke(box) == pytest.approx(plain.stroke(box), rel=0.1)


@pytest.fixture(scope="module")
def engine() -> TesseractEngine:
    return TesseractEngine()


def _headings(pdf: Path, out: Path, engine) -> list[str]:
    result = convert_pdf(pdf, out, engine, ConvertOptions())
    main = BeautifulSoup(result.html_path.read_text(encoding="utf-8"), "html.parser").main
    return [h.get_text(" ", strip=True) for h in main.find_all(["h1", "h2", "h3", "h4", "h5"])]


@pytest.mark.slow
def test_scanned_titles_in_bold_at_the_bodys_size_are_headings(tmp_path, engine):
    """Two scanned pages whose titles the layout model calls text: a book's section title in
    bold at the body's size (bws_book_ch2 p5), a form's running title and section title in
    bold (form_on_later_pages p3). The running head, the form's number, its bold closing
    sentence and its footer stay what they are."""
    assert _headings(REALWORLD / "bws_book_ch2-p5.scan.pdf", tmp_path, engine) == [
        "2-Cube into a 3-Cube"
    ]
    form = _headings(REALWORLD / "form_on_later_pages-p3.scan.pdf", tmp_path, engine)
    assert form[:2] == [
        "Application for RPA Operator’s Certificate (ReOC) Initial Issue and Variation",
        "Part C — Applicant(s) Declaration",
    ]
    assert not [h for h in form if h.startswith(("Form 101", "You do not", "Page"))]
