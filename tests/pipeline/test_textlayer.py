"""Born-digital pages are read from their text layer; invisible OCR layers are read again."""

from __future__ import annotations

import pymupdf

from bench.quality import iter_main_text
from conversion.pipeline.convert import convert_pdf
from conversion.pipeline.flow import ConvertOptions
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
