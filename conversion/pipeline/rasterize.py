"""PyMuPDF -> page images. The resolution follows the scan, within a DPI range and a pixel cap,
so a poster-size page is rendered smaller instead of exhausting memory."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pymupdf
from PIL import Image

from models.engine import PageImage


@dataclass(frozen=True)
class RasterOptions:
    dpi: int = 300  # the target for pages whose scan resolution is unknown or lower
    max_dpi: int = 400
    max_megapixels: float = 20.0


def native_dpi(page: pymupdf.Page) -> float | None:
    """The resolution of the largest image on the page, in pixels per inch of the page."""
    best = None
    for info in page.get_image_info():
        bbox = pymupdf.Rect(info["bbox"])
        if bbox.width <= 0 or bbox.height <= 0:
            continue
        dpi = info["width"] / (bbox.width / 72)
        area = bbox.width * bbox.height
        if best is None or area > best[0]:
            best = (area, dpi)
    return best[1] if best else None


def choose_dpi(page: pymupdf.Page, opts: RasterOptions) -> int:
    scan = native_dpi(page)
    dpi = float(opts.dpi) if scan is None else min(max(scan, opts.dpi), opts.max_dpi)
    width_in, height_in = page.rect.width / 72, page.rect.height / 72
    pixels = width_in * height_in * dpi * dpi
    cap = opts.max_megapixels * 1e6
    if pixels > cap:
        dpi = math.sqrt(cap / (width_in * height_in))
    return max(int(dpi), 1)


def rasterize_page(doc: pymupdf.Document, index: int, opts: RasterOptions) -> PageImage:
    page = doc[index]
    dpi = choose_dpi(page, opts)
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csRGB, alpha=False, annots=False)
    image = Image.frombytes("RGB", (pix.width, pix.height), pix.samples)
    text_layer = page.get_text("text") or None
    return PageImage(image=image, page_number=index + 1, dpi=dpi, text_layer=text_layer)
