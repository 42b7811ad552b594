"""A page's size as Tesseract takes it: a page wider or taller than Tesseract accepts is read
scaled down, a page whose text is too small for it scaled up (models.ocr.engine); the reading
made on the scaled page is brought back to the page's own pixels."""

from __future__ import annotations

import math

from PIL import Image

from models.engine import PageImage, PageReading

# Text this small (the median height of the layout's lines, in pixels) Tesseract cannot read:
# the page is read again scaled up to SMALL_TEXT_TARGET_PX, at most SMALL_TEXT_MAX_SCALE times
# (a low-resolution scan: a 512-pixel-wide typewritten page rendered smaller read no word, 164
# words scaled up; pages at 240-300 DPI have lines 27-45 pixels high).
SMALL_TEXT_PX = 12
SMALL_TEXT_TARGET_PX = 24
SMALL_TEXT_MAX_SCALE = 4.0
# A layout line longer than TEXT_LINE_MAX_RATIO times its height is a rule, an underline or a
# chart's grid line, not text: it says nothing of the text's size. Lines of text run to about 95
# times their height (small print across a page, on the tune pages of realworld, typewritten-fr,
# ocrmypdf); rules to hundreds. A 96-DPI chart page's grid lines, 3 to 9 pixels high and 165 to
# 770 times as long, made the median 9 pixels and the page was read again 2.7 times larger, 6
# times as long, for the same words; its legend's lines are 31-35 pixels high.
TEXT_LINE_MAX_RATIO = 150
# A page read larger is at most this many pixels (the rasterizer's cap on a page, RasterOptions.
# max_megapixels): Tesseract's time and memory grow with the pixels, 16 times for a page read
# 4 times larger; a 300-DPI letter-size page with small print is read at most 1.5 times larger
# (lines of 11 pixels to 17), the 500-pixel-wide scans the rule is for 4 times.
SMALL_TEXT_MAX_MEGAPIXELS = 20.0
# Tesseract refuses an image wider or taller than 32767 pixels (its boxes are 16-bit): a page
# longer than this is read scaled down (with its DPI), its boxes scaled back (a poster).
TESSERACT_MAX_SIDE_PX = 30000


class SmallText(Exception):
    """The page's text is too small to read: read it again `factor` times larger."""

    def __init__(self, factor: float) -> None:
        super().__init__(f"text too small: read {factor:.1f} times larger")
        self.factor = factor


def check_text_size(boxes, *, sideways: bool = False) -> None:
    """Raise SmallText when the layout's lines of text are too small for Tesseract. On a page
    lying on its side (`sideways`) the lines are upright strips: their width is the text's
    size (their few horizontal boxes, bits of letters, would say the text is tiny)."""
    if sideways:
        boxes = [(y0, x0, y1, x1) for x0, y0, x1, y1 in boxes]
    heights = sorted(y1 - y0 for x0, y0, x1, y1 in boxes if _text_like(x1 - x0, y1 - y0))
    if not heights:
        return
    median = heights[len(heights) // 2]
    if 0 < median < SMALL_TEXT_PX:
        raise SmallText(min(SMALL_TEXT_MAX_SCALE, SMALL_TEXT_TARGET_PX / median))


def _text_like(width: int, height: int) -> bool:
    """A horizontal line's box that may hold text: wider than high, not a rule's length."""
    return height < width <= TEXT_LINE_MAX_RATIO * height


def small_text_factor(size: tuple[int, int], wanted: float) -> float:
    """How many times larger a page of small text (`size` in pixels) is read: `wanted`, at
    most SMALL_TEXT_MAX_MEGAPIXELS and Tesseract's longest side; 1 when it has no room."""
    width, height = size
    room = min(
        TESSERACT_MAX_SIDE_PX / max(width, height),
        math.sqrt(SMALL_TEXT_MAX_MEGAPIXELS * 1e6 / (width * height)),
    )
    return max(1.0, min(wanted, room))


def scaled_page(page: PageImage, factor: float) -> PageImage:
    """The page `factor` times its size, its DPI with it."""
    width, height = page.image.size
    size = (max(1, round(width * factor)), max(1, round(height * factor)))
    return PageImage(
        image=page.image.resize(size, Image.Resampling.LANCZOS),
        page_number=page.page_number,
        dpi=max(1, round(page.dpi * factor)),
        drawn=page.drawn,
    )


def scaled_reading(reading: PageReading, factor: float) -> PageReading:
    """A reading made on a scaled page, in the page's own pixels again (`factor`: back)."""

    def grown(bbox):
        return None if bbox is None else tuple(v * factor for v in bbox)

    for block in reading.blocks:
        block.bbox = grown(block.bbox)
        for word in block.words:
            word.bbox = grown(word.bbox)
        if block.font_size:
            block.font_size *= factor
    reading.width = round(reading.width * factor)
    reading.height = round(reading.height * factor)
    return reading
