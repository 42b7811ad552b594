"""conversion/pipeline/convert.py: the command line's flow in one process."""

from __future__ import annotations

import pymupdf
from PIL import Image

from conversion.pipeline.convert import read_pages
from conversion.pipeline.flow import ConvertOptions, page_file, page_image, rasterize_in_memory
from conversion.pipeline.rasterize import RasterOptions, rasterize_page
from models.ocr import TesseractEngine
from tests.conftest import image_to_pdf


def test_a_gray_page_kept_for_its_figures_is_stored_gray_with_its_pixels(corpus, tmp_path):
    """A gray scan with a figure (ocrmypdf's multipage.pdf page 1, a chart, made gray) is read
    as RGB, and kept for finish's crops as gray: a third of the pixels to compress, the same
    RGB pixels back."""
    with pymupdf.open(corpus / "multipage.pdf") as doc:
        page = rasterize_page(doc, 0, RasterOptions(dpi=150, max_dpi=150)).image
    page.convert("L").save(tmp_path / "gray.png", dpi=(150, 150))
    pdf = image_to_pdf(tmp_path / "gray.png", tmp_path / "gray.pdf")
    opts = ConvertOptions()
    pages = tmp_path / "pages"
    readings, _ = read_pages(pdf, TesseractEngine(), opts, pages_dir=pages, page_count=1)
    assert any(block.kind == "figure" for block in readings[0].blocks)
    _, rendered = rasterize_in_memory(pdf, 1, opts)
    assert rendered.mode == "L"
    with Image.open(page_file(pages, 1)) as kept:
        assert kept.mode == "L"
    assert page_image(pages, 1).tobytes() == rendered.convert("RGB").tobytes()
