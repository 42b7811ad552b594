"""Display formulas Tesseract cannot read: kept as images with a finding, never lost silently
and never left as scattered symbols (models.reading.regions.formula_regions)."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from conversion.pipeline.rasterize import RasterOptions, rasterize_page
from models.engine import Word
from models.ocr import TesseractEngine
from models.reading.regions import formula_regions
from models.reading.scan_lines import Line

SCAN = (
    Path(__file__).resolve().parents[2]
    / "resources"
    / "corpus"
    / "realworld"
    / "bws_book_ch2-p11.scan.pdf"
)


def _line(text: str, bbox, *, confidence: float = 30.0, known: bool = False) -> Line:
    x0, y0, x1, y1 = bbox
    words, step = text.split(), (x1 - x0) / max(len(text.split()), 1)
    return Line(
        [
            Word(
                text=w,
                confidence=confidence,
                bbox=(x0 + i * step, y0, x0 + (i + 1) * step, y1),
                known=known,
            )  # fmt: skip
            for i, w in enumerate(words)
        ],
        bbox,
        0.0,
    )


def _regions(dropped: list[Line], *, also_kept: tuple[Line, ...] = ()):
    """formula_regions over a column of text lines (x 100-1100) kept in the page's text, with
    `also_kept` kept too and the dropped lines among them."""
    text = [_line("words of a plain line of text", (100, y, 1100, y + 30), confidence=90,
                  known=True) for y in range(100, 1600, 45)]  # fmt: skip
    kept = text + list(also_kept)
    return formula_regions(kept + dropped, kept={id(line) for line in kept})


def test_a_centred_line_of_signs_among_text_is_a_formula() -> None:
    dropped = [_line("z(n+1)°— 5(nt1)-* — “ye", (400, 700, 800, 760))]
    regions = _regions(dropped)
    assert [(r.kind, r.bbox) for r in regions] == [("formula", (400.0, 700.0, 800.0, 760.0))]


def test_rows_of_one_display_and_its_kept_scraps_make_one_region() -> None:
    numerator = _line("38n(n +1 =", (500, 600, 700, 640))
    limit = _line("k=1", (690, 680, 720, 700), confidence=80)  # kept: not dropped
    main_row = _line("(n+ i)? in 3.", (420, 720, 780, 770))
    dropped = [numerator, main_row]
    regions = _regions(dropped, also_kept=(limit,))
    assert [r.bbox for r in regions] == [(420.0, 600.0, 780.0, 770.0)]
    # What was read there, top to bottom: the formula's alternative if it is not transcribed.
    assert [r.read for r in regions] == ["38n(n +1 = k=1 (n+ i)? in 3."]


@pytest.mark.parametrize(
    "dropped",
    [
        # Handwriting read as scraps runs from the margin across the text's width.
        [_line("Tho wsrd (lotkr) - fer = ahm", (100, 700, 1050, 760))],
        # A list of numbers has no signs of mathematics.
        [_line("1, 2,354; 23,100", (450, 700, 700, 740))],
        # Words a dictionary knows are text, however many brackets they hold.
        [_line("(see the) notes = below", (400, 700, 800, 740), known=True)],
    ],
)
def test_handwriting_number_lists_and_words_are_not_formulas(dropped) -> None:
    assert _regions(dropped) == []


def test_a_scanned_display_formula_is_kept_as_an_image_with_a_finding() -> None:
    # At the pipeline's resolution Tesseract reads this page's two displays as scraps and the
    # layout model finds no formula there: without the rule they vanish from the page silently.
    with pymupdf.open(SCAN) as doc:
        page = rasterize_page(doc, 0, RasterOptions())
    engine = TesseractEngine()
    try:
        reading = engine.predict_batch([page])[0]
    finally:
        engine.close()
    formulas = [b for b in reading.blocks if b.kind == "figure" and b.layout == "formula"]
    # Both displays, one before the prose line between them and one after it, are images (a
    # display read in rows can be two images: the page read in two bands reads its numerator).
    (prose,) = [b for b in reading.blocks if b.text.startswith("This is what we")]
    assert any(f.bbox[3] <= prose.bbox[1] for f in formulas)
    assert any(f.bbox[1] >= prose.bbox[3] for f in formulas)
    assert "FORMULA_NOT_TRANSCRIBED" in [f["code"] for f in reading.findings]
    # Each keeps what Tesseract read of it as its alternative: the scraps left the text, and a
    # reader without the image would get no trace of them.
    assert all(f.alt.startswith("Formula, not transcribed; as read: ") for f in formulas), [
        f.alt for f in formulas
    ]
    scraps = [b.text for b in reading.blocks if b.kind == "paragraph" and len(b.text) <= 8]
    assert not scraps, scraps  # no "k=1" or "=" left between the paragraphs
    text = " ".join(b.text for b in reading.blocks)
    assert "This is what we" in text and "And so on" in text  # the prose around stays
