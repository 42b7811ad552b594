"""A page's text size as Tesseract's layout gives it (models.ocr.scale): a page read again
larger only for small text, never for a chart's grid lines."""

from __future__ import annotations

import pymupdf
import pytest
import tesserocr
from PIL import Image, ImageDraw, ImageFont

from models.ocr.iterate import line_boxes
from models.ocr.scale import SmallText, check_text_size, small_text_factor
from models.ocr.tessdata import find_tessdata
from tests.conftest import CORPUS


def layout_boxes(image: Image.Image, dpi: int) -> list[tuple[int, int, int, int]]:
    """The text lines' boxes of Tesseract's layout of the page (nothing recognized)."""
    with tesserocr.PyTessBaseAPI(path=find_tessdata(), lang="eng") as api:
        api.SetImage(image.convert("L"))
        api.SetSourceResolution(dpi)
        return line_boxes(tesserocr, api.AnalyseLayout())


def test_a_charts_grid_lines_are_not_small_text():
    """A 96-DPI scan of a chart (ocrmypdf's multipage.pdf, page 4) rendered at 300 DPI: its
    grid lines, 3 to 9 pixels high, are most of the layout's lines; its legend's are 31-35
    pixels high. The page is not read again larger."""
    with pymupdf.open(CORPUS / "multipage.pdf") as doc:
        pix = doc[3].get_pixmap(dpi=300)
    image = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
    boxes = layout_boxes(image, 300)
    assert sum(y1 - y0 < 12 for _, y0, _, y1 in boxes) > len(boxes) / 2  # the grid lines
    check_text_size(boxes)


def test_a_page_lying_on_its_side_is_sized_by_its_upright_lines():
    """A page on its side: its lines are upright strips 60 pixels wide, and a few horizontal
    boxes are bits of letters 8 pixels high. The text's size is the strips' width: the page is
    not read again larger (it was, three times, 16 s instead of 5 for a typescript's page);
    the same boxes on an upright page are small text."""
    strips = [(100 + 80 * k, 50, 160 + 80 * k, 1650) for k in range(20)]
    bits = [(300, 700 + 30 * k, 330, 708 + 30 * k) for k in range(25)]
    check_text_size(strips + bits, sideways=True)
    with pytest.raises(SmallText):
        check_text_size(strips + bits)


def test_small_text_is_read_larger():
    """Lines of text 8 pixels high (a letter scanned at low resolution): read twice or more
    larger."""
    image = Image.new("RGB", (500, 400), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=9)
    for k in range(12):
        draw.text(
            (40, 60 + 14 * k), "The committee met on Tuesday morning", fill="black", font=font
        )
    with pytest.raises(SmallText) as small:
        check_text_size(layout_boxes(image, 240))
    assert small.value.factor >= 2


def test_a_page_is_read_larger_within_the_pixels_a_page_may_have():
    """A 500-pixel-wide scan is read the 3 times larger its text wants; a 300-DPI letter page
    of small print at most 20 megapixels (1.54 times), never smaller than it is."""
    assert small_text_factor((500, 700), 3.0) == 3.0
    assert small_text_factor((2550, 3300), 2.2) == pytest.approx(1.54, abs=0.01)
    assert small_text_factor((5000, 5000), 2.0) == 1.0
