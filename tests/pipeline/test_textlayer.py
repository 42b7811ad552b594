"""Born-digital pages are read from their text layer; invisible OCR layers are read again."""

from __future__ import annotations

import pymupdf

from bench.quality import iter_main_text
from conversion.pipeline.convert import convert_pdf
from conversion.pipeline.flow import ConvertOptions
from conversion.pipeline.textlayer import looks_like_language
from models.ocr import TesseractEngine

BODY = (
    "Accessible documents let every reader follow the text in its order. This paragraph was "
    "typed, not scanned, so its characters are known exactly."
)


def _born_digital(path):
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), "Annual Report", fontsize=24, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 120, 540, 300), BODY, fontsize=11, fontname="helv")
    doc.save(path)
    return path


def _ocr_layer(path):
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 120, 540, 300), BODY, fontsize=11, render_mode=3)
    doc.save(path)
    return path


def test_born_digital_page_uses_its_text(tmp_path):
    engine = TesseractEngine(detect_rotation=False)
    result = convert_pdf(_born_digital(tmp_path / "typed.pdf"), tmp_path, engine, ConvertOptions())
    assert result.report["page_sources"] == {"1": "text_layer"}
    text = "\n".join(iter_main_text(result.html_path.read_text()))
    assert " ".join(BODY.split()) in " ".join(text.split())
    assert result.document.title == "Annual Report"


def test_invisible_ocr_layer_is_not_trusted(tmp_path):
    engine = TesseractEngine(detect_rotation=False)
    result = convert_pdf(_ocr_layer(tmp_path / "ocrd.pdf"), tmp_path, engine, ConvertOptions())
    assert result.report["page_sources"] == {"1": "ocr"}


def _shift(text: str, by: int) -> str:
    return "".join(
        chr((ord(c) - base + by) % 26 + base) if c.isascii() and c.isalpha() else c
        for c in text
        for base in [ord("a") if c.islower() else ord("A")]
    )


def _typed(path, text: str):
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 120, 540, 500), text, fontsize=11, fontname="helv")
    doc.save(path)
    return path


def test_text_layer_judged_by_its_letters():
    # A shifted font encoding ("Opnbddchmfr ne sgd"), private-use glyphs: not language.
    assert looks_like_language(BODY * 3)
    assert not looks_like_language(_shift(BODY * 3, -1))
    assert not looks_like_language("\ue020\ue021 \ue022" * 20 + BODY)
    # A financial statement is mostly figures, and still a text to read.
    statement = "Revenue 12,400 11,250 Cost of sales (7,310) (6,980) Gross profit 5,090 4,270 " * 3
    assert looks_like_language("Statement of income for the year " + statement)


def test_shifted_encoding_is_read_again(tmp_path):
    engine = TesseractEngine(detect_rotation=False)
    pdf = _typed(tmp_path / "shifted.pdf", _shift(BODY * 2, -1))
    result = convert_pdf(pdf, tmp_path, engine, ConvertOptions())
    assert result.report["page_sources"] == {"1": "ocr"}


def test_text_under_a_page_image_is_an_ocr_layer(tmp_path):
    """Visible text hidden under a full-page scan: an earlier OCR run, read again."""
    doc = pymupdf.open()
    page = doc.new_page()
    hidden = "An earlier reading of this page said other things about the report. " * 3
    page.insert_textbox(pymupdf.Rect(72, 120, 540, 300), hidden, fontsize=11)
    scan = pymupdf.open(_born_digital(tmp_path / "source.pdf"))[0].get_pixmap(dpi=200)
    page.insert_image(page.rect, pixmap=scan)  # drawn over the text
    doc.save(tmp_path / "layered.pdf")
    engine = TesseractEngine(detect_rotation=False)
    result = convert_pdf(tmp_path / "layered.pdf", tmp_path / "out", engine, ConvertOptions())
    assert result.report["page_sources"] == {"1": "ocr"}
    text = " ".join(iter_main_text(result.html_path.read_text()))
    assert "earlier reading" not in text and "Accessible documents" in text


def test_an_isolated_reader_reads_the_layout_too(tmp_path):
    """Jobs read pages in a child forked from a server that keeps the layout model out of its
    own process: the child loads it for itself, and the blocks carry their layout classes."""
    from conversion.pipeline.isolate import run_isolated
    from conversion.pipeline.rasterize import RasterOptions, render_page_file

    pdf = _born_digital(tmp_path / "typed.pdf")
    rendered = run_isolated(render_page_file, pdf, 0, RasterOptions(), tmp_path / "p.png",
                            timeout_s=120, memory_mb=4096)  # fmt: skip
    blocks = rendered.text_reading["blocks"]
    assert ("heading", "Annual Report") in {(b["kind"], b["text"]) for b in blocks}
    assert all(b["layout"] for b in blocks)


def test_text_over_a_page_image_is_kept(tmp_path):
    """A slide: a picture across the page, typed text drawn over it. The text is visible and
    read from the layer, not OCR'd."""
    doc = pymupdf.open()
    page = doc.new_page()
    background = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 80), False)
    background.clear_with(235)
    page.insert_image(page.rect, pixmap=background)
    page.insert_textbox(pymupdf.Rect(72, 120, 540, 300), BODY, fontsize=11, fontname="helv")
    doc.save(tmp_path / "slide.pdf")
    engine = TesseractEngine(detect_rotation=False)
    result = convert_pdf(tmp_path / "slide.pdf", tmp_path / "out", engine, ConvertOptions())
    assert result.report["page_sources"] == {"1": "text_layer"}
