"""models.ocr.prepare: a page straightened in two halves on two threads is the page Pillow's own
rotation gives, pixel for pixel."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image, ImageDraw

from models.ocr.prepare import deskew


def _skewed_page(angle: float) -> Image.Image:
    """Lines of dark bars (text-like rows) on white, turned by `angle`."""
    page = Image.new("L", (1240, 1754), 255)
    draw = ImageDraw.Draw(page)
    for row in range(60, 1700, 38):
        for col in range(80, 1150, 120):
            draw.rectangle((col, row, col + 95, row + 18), fill=20)
    return page.rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=255)


@pytest.mark.parametrize("angle", [-3.0, 1.5, 5.25])
def test_two_halves_are_the_whole_rotation(angle: float) -> None:
    page = _skewed_page(angle)
    alone, alone_angle = deskew(page)
    with ThreadPoolExecutor(max_workers=1) as beside:
        halves, halves_angle = deskew(page, beside=beside)
    assert alone_angle == halves_angle and alone_angle != 0.0
    assert halves.size == alone.size and halves.tobytes() == alone.tobytes()


def test_a_straight_page_is_not_turned() -> None:
    page = _skewed_page(0.0)
    with ThreadPoolExecutor(max_workers=1) as beside:
        straight, angle = deskew(page, beside=beside)
    assert angle == 0.0 and straight is page
