"""No page fails the document because of our code (models.ocr.engine): a reading step that
raises leaves the page its plain reading with a finding; a page wider than Tesseract takes is
read scaled down, its boxes in its own pixels."""

from __future__ import annotations

import io

import numpy as np
import pymupdf
import pytest
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from conversion.pipeline.rasterize import RasterOptions, rasterize_page
from models.engine import PageImage
from models.ocr import TesseractEngine
from models.ocr import engine as ocr_engine
from models.reading.floor import FALLBACK_CODE
from tests.conftest import CORPUS, image_to_pdf, page_with_text

LINES = [
    "The committee met on Tuesday morning",
    "to review the budget for the coming year.",
    "Every member agreed to the new schedule.",
]


def read(engine: TesseractEngine, image: Image.Image, *, number: int = 1, dpi: int = 300):
    (reading,) = engine.predict_batch([PageImage(image=image, page_number=number, dpi=dpi)])
    return reading


def broken(*args, **kwargs):
    raise ValueError("a defect of ours")


@pytest.fixture(scope="module")
def letter() -> Image.Image:
    return page_with_text(LINES, size=(2550, 3300))


@pytest.mark.parametrize("step", ["scan_structure", "deskew"])
def test_a_reading_step_that_fails_leaves_the_pages_plain_reading(engine, letter, step):
    """After Tesseract's read (the structure) or before it (the page's preparation): the text
    is all there, and the finding says the layout is not."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ocr_engine, step, broken)
        reading = read(engine, letter, number=2)
    assert [f["code"] for f in reading.findings] == [FALLBACK_CODE]
    assert "Page 2" in reading.findings[0]["message"]
    text = " ".join(b.text for b in reading.blocks)
    for line in LINES:
        assert line in text


def test_a_page_wider_than_tesseract_takes_is_read(engine):
    """A poster strip 33,000 pixels wide (Tesseract refuses a side over 32,767): read scaled
    down, its words' boxes where they stand on the page."""
    image = Image.new("RGB", (33000, 1200), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=260)
    draw.text((1000, 400), "Summer concert", fill="black", font=font)
    draw.text((24000, 400), "Tickets tonight", fill="black", font=font)
    reading = read(engine, image)
    assert reading.width == 33000 and not reading.findings
    words = {w.text: w.bbox for b in reading.blocks for w in b.words}
    assert {"Summer", "concert", "Tickets", "tonight"} <= set(words)
    assert words["Tickets"][0] == pytest.approx(24000, abs=150)


def test_a_typewritten_title_page_is_not_called_handwriting(engine):
    """A typewritten title page Tesseract takes for a picture (binder clip, faint show-through)
    and reads a few scraps in: not enough words in the picture to call it handwriting, and
    its title's words read surely stay."""
    image = Image.open(CORPUS / "typewritten-fr-title.jpg").convert("RGB")
    reading = read(engine, image)
    assert "UNREADABLE" not in [f["code"] for f in reading.findings]
    assert "LE" in [w.text for b in reading.blocks for w in b.words]


def test_a_curved_page_that_reads_badly_deskewed_is_read_as_scanned(engine, tmp_path):
    """A bound typescript's page scanned at 150 DPI, its lines curved towards the fold,
    rendered at 300 DPI as the flow renders it: deskewed by a degree, Tesseract's line finder
    runs across its lines and the page does not read well; read as scanned, it reads whole."""
    pdf = image_to_pdf(CORPUS / "typewritten-fr-curved-150dpi.jpg", tmp_path / "page.pdf")
    with pymupdf.open(pdf) as doc:
        page = rasterize_page(doc, 0, RasterOptions())
    (reading,) = engine.predict_batch([page])
    text = " ".join(b.text for b in reading.blocks)
    assert "des organes génitaux et des doigts de pied" in text
    assert "assiettes qui se trouvaient sur la table" in text


def test_a_column_of_one_word_lines_that_reads_nothing_deskewed_is_read_as_scanned(engine):
    """A template's text run into a column a word wide, scanned and rasterized at 240 DPI:
    deskewed, Tesseract reads nothing at all; as scanned it reads words, though none well.
    The page kept nothing and its report said only "blank"."""
    image = Image.open(CORPUS / "texlive" / "h2020-implementation-p1-column-240dpi.jpg")
    reading = read(engine, image.convert("RGB"), dpi=240)
    words = [w.text for b in reading.blocks for w in b.words]
    assert len(words) >= 5 and "stages" in words, words


def test_a_page_whose_print_was_not_found_says_so(engine, letter):
    """That template's column of words, scanned upside down and rasterized at 300 DPI (its
    right quarter): Tesseract finds no line on it and the page read as nothing, with a
    "blank page" warning only. Most of its ink lies outside any word read: the page is routed
    for review. A page read whole says nothing of the kind."""
    image = Image.open(CORPUS / "texlive" / "h2020-implementation-p1-turned-column-300dpi.jpg")
    reading = read(engine, image.convert("RGB"))
    (finding,) = [f for f in reading.findings if f["code"] == "LINES_NOT_READ"]
    assert finding["level"] == "needs_review" and "most of its print" in finding["message"]
    assert not read(engine, letter).findings


def test_print_that_orientation_detection_scores_low_is_still_no_handwriting(engine):
    """An unreadable page is print when orientation detection finds its lines (OSD's score):
    two printed pages of the unseen shelves, scanned and read at 240 DPI, scored 7.3 (the
    column above) and 7.6 (a contents page of Greek letters), under the 8 that print's lines
    scored at 300 DPI, and were called handwriting; handwriting_bad_ocr's pages score 1.4
    and 3.9."""
    for score in (7.3, 7.6):
        assert engine._unread_print({"orient_conf": score, "script_name": "Latin"}) == (True, None)
    for score in (1.4, 3.9):
        assert engine._unread_print({"orient_conf": score, "script_name": "Latin"})[0] is False


def test_a_curved_page_lying_on_its_side_is_turned_the_right_way_up(engine):
    """The lower half of that page, lying on its side, at 240 DPI: each probe strip of a
    curved line holds bits of its neighbours; read as a block, not as one line (which read
    nothing either way, and orientation detection then turned the page upside down), the
    probes tell the turn and the page reads."""
    image = Image.open(CORPUS / "typewritten-fr-sideways-240dpi.jpg").convert("RGB")
    reading = read(engine, image, dpi=240)
    text = " ".join(b.text for b in reading.blocks)
    assert "Nous n'allons pas rester" in text


def test_an_upside_down_page_orientation_detection_calls_upright_is_turned_over(engine):
    """A manual's page in a book face with typewriter-type parameters, upside down: Tesseract's
    orientation detection calls it upright (and the upright page upside down). It reads badly
    as it stands, so it is read turned over too, and kept so as that read reads well; it was
    read upside down and called handwriting."""
    with pymupdf.open(CORPUS / "texlive" / "lecturer-doc-p8.pdf") as doc:
        pix = doc[0].get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
    page = Image.frombytes("L", (pix.width, pix.height), pix.samples)
    reading = read(engine, page.rotate(180).convert("RGB"), dpi=200)
    assert reading.rotation == 180
    assert not any(f["code"] == "UNREADABLE" for f in reading.findings)
    assert "The height of the slide." in " ".join(b.text for b in reading.blocks)


@pytest.mark.parametrize(
    ("name", "turn", "words"),
    [
        ("fragebogen-p1.pdf", 180, "gemeinsam versorgten Haushalten"),
        ("bsp-vocab-p2.pdf", 90, "Vokabeltest"),
    ],
)
def test_small_print_turned_over_or_on_its_side_is_turned_back(engine, name, turn, words):
    """A form's and a worksheet's small print at 200 DPI, turned: orientation detection read
    a 1200-pixel copy (100 DPI), where it could tell no way up (scores 0.02-1.0), and the
    pages were read upside down or sideways and called handwriting; at the page's own
    resolution it tells the turn (5-7)."""
    with pymupdf.open(CORPUS / "texlive" / name) as doc:
        pix = doc[0].get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
    page = Image.frombytes("L", (pix.width, pix.height), pix.samples)
    # Scanned: a little blur, the sensor's noise, JPEG.
    page = page.rotate(turn, expand=True).filter(ImageFilter.GaussianBlur(0.6))
    noise = np.random.default_rng(0).normal(0, 8, (page.height, page.width))
    page = Image.fromarray(np.clip(np.asarray(page, np.float32) + noise, 0, 255).astype(np.uint8))
    buf = io.BytesIO()
    page.save(buf, "JPEG", quality=70)
    reading = read(engine, Image.open(buf).convert("RGB"), dpi=200)
    assert reading.rotation == turn  # clockwise, as it was turned counter-clockwise
    assert not any(f["code"] == "UNREADABLE" for f in reading.findings)
    assert words in " ".join(b.text for b in reading.blocks)


def test_a_page_of_text_too_small_for_tesseract_is_read_larger(engine):
    """A low-resolution scan (a letter 500 pixels wide): its lines 8 pixels high, which
    Tesseract reads nothing of; read scaled up, words are there, in the page's pixels."""
    image = Image.new("RGB", (500, 700), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=9)
    for k, text in enumerate(LINES * 4):
        draw.text((40, 60 + 14 * k), text, fill="black", font=font)
    reading = read(engine, image, dpi=240)
    words = [w for b in reading.blocks for w in b.words]
    assert {"committee", "Tuesday", "morning"} <= {w.text for w in words}
    assert reading.width == 500 and all(w.bbox[2] <= 500 for w in words)
