"""Reading quality of the CPU engine on real scans (issue 2's floor)."""

from __future__ import annotations

import random

import pymupdf
import pytest
from PIL import Image

from bench.quality import cer, iter_main_text
from bench.structure_corpus import scan
from conversion.pipeline.convert import convert_pdf
from conversion.pipeline.flow import ConvertOptions
from conversion.pipeline.rasterize import RasterOptions, rasterize_page
from models.engine import PageImage
from models.ocr import TesseractEngine
from tests.conftest import CORPUS, image_to_pdf


@pytest.fixture(scope="module")
def engine():
    e = TesseractEngine()
    yield e
    e.close()


def _main_text(result) -> str:
    return "\n".join(iter_main_text(result.html_path.read_text()))


def test_linn_two_columns(engine, tmp_path):
    result = convert_pdf(CORPUS / "linn.pdf", tmp_path, engine, ConvertOptions())
    text = _main_text(result)
    assert cer(text, (CORPUS / "linn.txt").read_text()) <= 0.05
    # Left column before right column.
    assert text.index("To erase a wrong note") < text.index("The INSERT/COPY function")
    assert text.index("Recording a Sequence") < text.index("Creating a Song")


def test_phototest(engine, tmp_path, phototest_pdf):
    result = convert_pdf(phototest_pdf, tmp_path, engine, ConvertOptions())
    assert cer(_main_text(result), (CORPUS / "phototest.gold.txt").read_text()) <= 0.03


@pytest.mark.parametrize("angle", [90, 180, 270])
def test_rotated_pages_read_upright(engine, angle):
    with Image.open(CORPUS / "phototest.tif") as img:
        rotated = img.convert("RGB").rotate(angle, expand=True)
    (reading,) = engine.predict_batch([PageImage(image=rotated, page_number=1, dpi=200)])
    text = " ".join(b.text for b in reading.blocks)
    assert cer(text, (CORPUS / "phototest.gold.txt").read_text()) <= 0.05
    assert reading.rotation == angle


@pytest.mark.parametrize("angle", [90, 270])
def test_small_print_on_its_side_reads_upright(engine, angle):
    """A dense two-column page at 300 DPI on its side: OSD cannot tell which way up it is (at
    1200 px it is unsure, at full size it picks the wrong side); its lines read both ways can."""
    with pymupdf.open(CORPUS / "multipage.pdf") as doc:
        page = rasterize_page(doc, 4, RasterOptions())
    turned = page.image.rotate(angle, expand=True)
    (reading,) = engine.predict_batch([PageImage(image=turned, page_number=1, dpi=page.dpi)])
    assert reading.rotation == angle
    text = " ".join(" ".join(b.text.split()) for b in reading.blocks)
    assert "It was the year of Our Lord one thousand" in text


def test_blank_page_stays_blank(engine, tmp_path):
    result = convert_pdf(CORPUS / "bad" / "blank.pdf", tmp_path, engine, ConvertOptions())
    assert _main_text(result) == ""
    assert "BLANK_DOCUMENT" in {f["code"] for f in result.report["findings"]}


def test_skewed_scan_is_straightened(engine, tmp_path):
    result = convert_pdf(CORPUS / "skew.pdf", tmp_path, engine, ConvertOptions())
    assert cer(_main_text(result), (CORPUS / "linn.txt").read_text()) <= 0.05


def _lang_spans(result) -> dict[str, str]:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(result.html_path.read_text(), "html.parser")
    return {el.get_text(" ", strip=True): el["lang"] for el in soup.select("main [lang]")}


def _scan_of_lines(path, lines: list[str]):
    doc = pymupdf.open()
    page = doc.new_page()
    for i, line in enumerate(lines):
        page.insert_text((60, 100 + 24 * i), line, fontsize=11, fontname="tiro")
    scan = pymupdf.open()
    scan_page = scan.new_page(width=page.rect.width, height=page.rect.height)
    scan_page.insert_image(scan_page.rect, pixmap=page.get_pixmap(dpi=300, colorspace="gray"))
    scan.save(path)
    return path


def test_lines_keep_the_page_language_unless_really_foreign(engine, tmp_path):
    """A screen reader switches voice on `lang`, so only on strong evidence over a long run:
    English prose whose line holds two "a" is not Portuguese, French lines are not Spanish, and
    eurotext's short lines of five languages each (a few words apiece) switch nothing."""
    for name in ("c02-22.pdf", "francais.pdf"):
        assert _lang_spans(convert_pdf(CORPUS / name, tmp_path / name, engine,
                                       ConvertOptions())) == {}  # fmt: skip
    eurotext = tmp_path / "eurotext.pdf"
    image_to_pdf(CORPUS / "eurotext.tif", eurotext)
    assert _lang_spans(convert_pdf(eurotext, tmp_path / "eu", engine, ConvertOptions())) == {}


def test_short_foreign_lines_keep_their_letters(engine, tmp_path):
    """eurotext's lines in German and Spanish are read again with those languages' models, so
    "über" and "rápido" keep their letters (the English model reads "tiber", "rapido"), and the
    re-read carries no `lang` (the test above)."""
    eurotext = tmp_path / "eurotext.pdf"
    image_to_pdf(CORPUS / "eurotext.tif", eurotext)
    text = " ".join(
        _main_text(convert_pdf(eurotext, tmp_path / "eu", engine, ConvertOptions())).split()
    )
    assert "springt über den faulen Hund" in text
    assert "El zorro marrón rápido salta" in text
    assert "quick) [brown] {fox} jumps!" in text  # the English lines as they were


def test_a_long_foreign_line_is_marked_and_names_and_references_are_not(engine, tmp_path):
    pdf = _scan_of_lines(tmp_path / "mixed.pdf", [
        "The committee reviewed the annual budget and approved the new maintenance plan.",
        "Most of the older buildings were repaired during the summer months of the year.",
        "Nous avons présenté le rapport complet aux habitants qui sont venus pour la réunion.",
        "Water quality in the northern district improved after the pipes were replaced.",
        "Silva, A. da Costa, and P. de Souza (2019). Revista de la Sociedad, pp. 12-30.",
        "The library extended its opening hours on weekday evenings for the students.",
    ])  # fmt: skip
    spans = _lang_spans(convert_pdf(pdf, tmp_path / "out", engine, ConvertOptions()))
    assert list(spans.values()) == ["fr"], spans
    assert "rapport complet" in next(iter(spans))


ORGAN_WEIGHTS = [
    ("Group", "Dose", "Body", "Liver", "Weight"),
    ("", "(mg/kg)", "weight (g)", "weight (g)", "relative to"),
    ("", "", "", "", "controls (%)"),
    ("Control", "0", "312.4", "12.1", "100"),
    ("Low", "10", "309.8", "12.6", "104"),
    ("Mid", "30", "301.2", "13.9", "115"),
    ("High", "100", "288.5", "15.2", "126"),
]


def _organ_weights_pdf(path) -> None:
    """A table of organ weights (one decimal each) between rules, under its caption and above
    a note, as a journal sets it."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 80), "Table 2. Organ weights of treated animals", fontsize=10,
                         fontname="hebo")  # fmt: skip
        page.draw_line((72, 94), (540, 94), width=0.8)
        y = 106
        for n, row in enumerate(ORGAN_WEIGHTS):
            if n == 3:  # the rule under the header, then the data rows
                page.draw_line((72, y - 7), (540, y - 7), width=0.5)
                y += 6
            for x, text in zip((72, 160, 250, 350, 450), row, strict=True):
                if text:
                    page.insert_text((x, y), text, fontsize=9)
            y += 11 if n < 3 else 12
        page.draw_line((72, y - 6), (540, y - 6), width=0.8)
        page.insert_text((72, y + 20), "Values are means of ten animals per group; the relative "
                         "weight is the liver weight", fontsize=10)  # fmt: skip
        page.insert_text((72, y + 33), "divided by the body weight, as a share of the controls' "
                         "mean.", fontsize=10)  # fmt: skip
        doc.save(path)


def test_a_scanned_tables_decimal_point_read_as_a_colon_is_a_point(engine, tmp_path):
    """Scanned (seed 3), the liver weight "15.2" reads "15:2" beside 12.1, 12.6 and 13.9:
    its column's decimals make the colon a point (models/reading/table_figures.py)."""
    _organ_weights_pdf(tmp_path / "table.pdf")
    scan(tmp_path / "table.pdf", tmp_path / "scan.pdf", random.Random(3))
    with pymupdf.open(tmp_path / "scan.pdf") as doc:
        page = rasterize_page(doc, 0, RasterOptions())
    (reading,) = engine.predict_batch([page])
    (table,) = [b for b in reading.blocks if b.rows]
    cells = [cell["text"] for row in table.rows for cell in row]
    assert "15.2" in cells and not any(":" in cell for cell in cells), cells
