import pymupdf

from conversion.pipeline.rasterize import (
    RasterOptions,
    choose_dpi,
    rasterize_page,
    render_page_pixels,
)
from tests.conftest import CORPUS
from tests.pages import scanned_copy


def test_poster_page_stays_under_the_pixel_cap():
    opts = RasterOptions(dpi=300, max_megapixels=40)
    with pymupdf.open(CORPUS / "bad" / "enormous.pdf") as doc:
        page = rasterize_page(doc, 0, opts)
    assert page.image.width * page.image.height <= 40e6 * 1.01


def test_resolution_follows_the_scan():
    with pymupdf.open(CORPUS / "linn.pdf") as doc:  # scanned at 300 DPI: read at 240
        assert choose_dpi(doc[0], RasterOptions()) == 240
    with pymupdf.open(CORPUS / "c02-22.pdf") as doc:  # scanned at 150 DPI: upsampled
        assert choose_dpi(doc[0], RasterOptions()) == 300
    with pymupdf.open(CORPUS / "bad" / "2400dpi.pdf") as doc:
        assert choose_dpi(doc[0], RasterOptions(max_dpi=400)) == 400


def test_a_figure_is_no_scan_the_page_keeps_the_documents_resolution():
    """A born-digital page with a fine photo renders like its other pages (300 DPI): text
    sizes in pixels then compare across pages (heading levels are one scale)."""
    doc = pymupdf.open()
    page = doc.new_page()
    photo = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 1200, 900), False)
    photo.clear_with(128)
    page.insert_image(pymupdf.Rect(72, 300, 372, 525), pixmap=photo)  # 288 DPI, a third of it
    page.insert_text((72, 100), "A page with a photo", fontsize=12)
    assert choose_dpi(page, RasterOptions()) == 300


def test_skew_estimate_undoes_a_known_rotation():
    from models.ocr.prepare import estimate_skew

    with pymupdf.open(CORPUS / "linn.pdf") as doc:
        gray = rasterize_page(doc, 0, RasterOptions(dpi=150)).image.convert("L")
    assert estimate_skew(gray) == 0.0
    assert abs(estimate_skew(gray.rotate(-4, expand=True, fillcolor=255)) - 4) <= 0.5


def test_a_page_without_a_raster_image_is_drawn_and_a_scan_is_not(tmp_path):
    """RenderedPage.drawn: a page of fonts and paths alone holds no handwriting (the OCR engine
    is told so); a scan, or any page with an image on it, may."""
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_text((72, 72), "A glyph table", fontsize=12)
        page.draw_rect(pymupdf.Rect(72, 100, 300, 300))
        doc.save(tmp_path / "drawn.pdf")
    scan = scanned_copy(tmp_path / "drawn.pdf", tmp_path / "scan.pdf", dpi=100)
    opts = RasterOptions()
    assert render_page_pixels(tmp_path / "drawn.pdf", 0, opts).page.drawn
    assert not render_page_pixels(scan, 0, opts).page.drawn


def test_a_page_whose_only_images_are_glyphs_is_drawn(tmp_path):
    """A plotter's lettering drawn as one small bitmap per letter (pdf.js's bug1799927: 2,156
    images of 7 x 10 pixels, 6 x 4 pt) is a font, not a scan: the page is drawn, and what OCR
    cannot read on it is print. One picture the size of a photo makes it a page that may hold
    handwriting again."""
    opts = RasterOptions()
    assert render_page_pixels(CORPUS / "pdfjs" / "bug1799927.pdf", 0, opts).page.drawn
    glyph = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 7, 10), False)
    glyph.clear_with(0)
    with pymupdf.open() as doc:
        page = doc.new_page()
        for n in range(20):
            page.insert_image(pymupdf.Rect(72 + 7 * n, 72, 78 + 7 * n, 82), pixmap=glyph)
        doc.save(tmp_path / "glyphs.pdf")
        photo = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 300, 100), False)
        photo.clear_with(200)
        page.insert_image(pymupdf.Rect(72, 200, 372, 300), pixmap=photo)
        doc.save(tmp_path / "photo.pdf")
    assert render_page_pixels(tmp_path / "glyphs.pdf", 0, opts).page.drawn
    assert not render_page_pixels(tmp_path / "photo.pdf", 0, opts).page.drawn
