"""PyMuPDF -> page images. The resolution follows the scan, within a DPI range and a pixel cap,
so a poster-size page is rendered smaller instead of exhausting memory."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pymupdf
from PIL import Image

from conversion.pipeline.validate import Limits, check_form_draws
from models.engine import PageImage, reading_to_json
from models.reading.textlayer import text_layer_reading


@dataclass(frozen=True)
class RasterOptions:
    # Scans coarser than min_scan_dpi (or of unknown resolution) are rendered at `dpi`: small
    # text gains from the upsampling. Finer scans are rendered at their own resolution, at most
    # max_dpi: Tesseract reads body text as well at 240 DPI as at 300 (linn: 0.43 % vs 0.50 %
    # CER), in two thirds of the time.
    dpi: int = 300
    min_scan_dpi: int = 240
    max_dpi: int = 240
    max_megapixels: float = 20.0
    # An image no larger than a big letter (a third of an inch either way) is a glyph: a font
    # drawn as pictures (a Type 3 font's bitmaps, a CAD plot's letters), no scan or photo.
    glyph_image_max_pt: float = 24.0


def native_dpi(page: pymupdf.Page, images: list[dict] | None = None) -> float | None:
    """The resolution of the page's scan (its largest image, when that covers half the page or
    more), in pixels per inch of the page. A figure is no scan: a born-digital page renders at
    one resolution whatever its pictures, so text sizes in pixels compare across its pages
    (heading levels are one scale for the whole document; a paper's pages with photos were
    rendered at 240 DPI, the others at 300, and its section headings stepped down a level).
    `images`: the page's `get_image_info()`, when the caller has it already."""
    best = None
    area_of_page = abs(page.rect) or 1.0
    for info in page.get_image_info() if images is None else images:
        bbox = pymupdf.Rect(info["bbox"])
        if bbox.width <= 0 or bbox.height <= 0 or abs(bbox & page.rect) < 0.5 * area_of_page:
            continue
        dpi = info["width"] / (bbox.width / 72)
        area = bbox.width * bbox.height
        if best is None or area > best[0]:
            best = (area, dpi)
    return best[1] if best else None


def choose_dpi(page: pymupdf.Page, opts: RasterOptions, images: list[dict] | None = None) -> int:
    scan = native_dpi(page, images)
    if scan is None or scan < opts.min_scan_dpi:
        dpi = float(opts.dpi)
    else:
        dpi = min(scan, float(opts.max_dpi))
    width_in, height_in = page.rect.width / 72, page.rect.height / 72
    pixels = width_in * height_in * dpi * dpi
    cap = opts.max_megapixels * 1e6
    if pixels > cap:
        dpi = math.sqrt(cap / (width_in * height_in))
    return max(int(dpi), 1)


def _is_gray(pix: pymupdf.Pixmap) -> bool:
    rgb = np.frombuffer(pix.samples_mv, dtype=np.uint8).reshape(pix.height, pix.stride)
    rgb = rgb[:, : pix.width * 3].reshape(pix.height, pix.width, 3)
    return bool((rgb[..., 0] == rgb[..., 1]).all() and (rgb[..., 1] == rgb[..., 2]).all())


def rasterize_page(doc: pymupdf.Document, index: int, opts: RasterOptions) -> PageImage:
    page = doc[index]
    # One pass over the page's content finds its images: for the scan's resolution, and
    # whether it has none (PageImage.drawn).
    images = page.get_image_info()
    dpi = choose_dpi(page, opts, images)
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csRGB, alpha=False, annots=False)
    size = (pix.width, pix.height)
    if _is_gray(pix):
        # Most scans are grey: one channel is a third of the memory, and of the time to save
        # the page or its figures as PNG. Nothing is lost (the three channels are equal).
        rgb = Image.frombuffer("RGB", size, pix.samples_mv, "raw", "RGB", pix.stride, 1)
        image = rgb.convert("L")
    else:
        image = Image.frombytes("RGB", size, pix.samples)
    return PageImage(image=image, page_number=index + 1, dpi=dpi, drawn=_drawn(images, opts))


def _drawn(images: list[dict], opts: RasterOptions) -> bool:
    """No raster image larger than a glyph on the page: it is drawn from fonts, glyph bitmaps
    and vector paths, so none of it is handwriting (a plotter's lettering drawn as 2,156 glyph
    images, pdf.js's bug1799927, was called handwriting)."""
    for info in images:
        bbox = pymupdf.Rect(info["bbox"])
        if max(bbox.width, bbox.height) > opts.glyph_image_max_pt:
            return False
    return True


@dataclass(frozen=True)
class RenderedPage:
    dpi: int
    text_reading: dict | None  # models.engine.PageReading as JSON, when the text layer is usable
    # No raster image on the page larger than a glyph: it is drawn from fonts, glyph bitmaps
    # and vector paths, so whatever an engine cannot read on it is print (a glyph table of a
    # script or of emoji), no handwriting (PageImage.drawn, as rasterize_page found it).
    drawn: bool = False


def _render(pdf_path: Path, index: int, opts: RasterOptions) -> tuple[PageImage, dict | None]:
    """One page's image and its text layer (a PageReading as JSON, or None)."""
    with pymupdf.open(pdf_path, filetype="pdf") as doc:
        if doc.needs_pass:
            doc.authenticate("")
        check_form_draws(doc, doc[index], budget=Limits().max_form_draws)  # before drawing
        image = rasterize_page(doc, index, opts)
        layer = text_layer_reading(
            doc[index], page_number=index + 1, dpi=image.dpi, image=image.image
        )
    return image, reading_to_json(layer) if layer is not None else None


def render_page_file(pdf_path: Path, index: int, opts: RasterOptions, out: Path) -> RenderedPage:
    """Rasterize one page of a PDF file into a PNG (atomically) and read its text layer. Made
    to run in an isolated child process (conversion.pipeline.isolate): file in, file out."""
    image, text_reading = _render(pdf_path, index, opts)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp.png")
    image.image.save(tmp, format="PNG", compress_level=1)
    os.replace(tmp, out)
    return RenderedPage(dpi=image.dpi, text_reading=text_reading, drawn=image.drawn)


@dataclass(frozen=True)
class RenderedPixels:
    """A rendered page as raw pixels (what a PNG of it would hold, without encoding one)."""

    page: RenderedPage
    mode: str
    size: tuple[int, int]
    pixels: bytes

    def image(self) -> Image.Image:
        return Image.frombytes(self.mode, self.size, self.pixels)


def render_page_pixels(pdf_path: Path, index: int, opts: RasterOptions) -> RenderedPixels:
    """render_page_file for a caller that keeps the page in memory (the command line): the
    pixels travel back from the isolated child instead of through a PNG file."""
    image, text_reading = _render(pdf_path, index, opts)
    return RenderedPixels(
        RenderedPage(dpi=image.dpi, text_reading=text_reading, drawn=image.drawn),
        image.image.mode,
        image.image.size,
        image.image.tobytes(),
    )
