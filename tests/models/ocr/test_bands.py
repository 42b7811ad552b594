"""A dense page recognized as two bands at once (models.ocr.engine, models.reading.bands): the same
reading as the whole page read at once, in about half the recognizer's time on two cores."""

from __future__ import annotations

import difflib

import pymupdf
import pytest

from conversion.pipeline.rasterize import RasterOptions, rasterize_page
from models.engine import PageImage, Word
from models.ocr import TesseractEngine
from models.ocr.iterate import line_boxes, read_paragraphs
from models.reading import bands
from models.reading.bands import band_cut, filled_layout
from models.reading.scan_lines import Line, ParaLines
from tests.conftest import CORPUS


def _lines(n: int, *, top: int = 100, pitch: int = 40, x0: int = 100, x1: int = 1900):
    return [(x0, top + i * pitch, x1, top + i * pitch + 30) for i in range(n)]


def test_a_page_of_even_lines_is_cut_between_its_middle_lines():
    boxes = _lines(30)
    cut = band_cut(boxes)
    assert cut is not None
    above = [b for b in boxes if b[3] <= cut]
    assert len(above) == 15  # the work splits evenly
    assert all(b[3] < cut or b[1] > cut for b in boxes)  # no line crosses the cut


def test_a_page_of_little_text_is_read_whole():
    # 30 lines of 60 line heights each make a dense page; a third of them, a light one.
    assert band_cut(_lines(30)) is not None
    assert band_cut(_lines(10)) is None


def test_no_cut_where_every_row_holds_a_line():
    # Two columns whose lines alternate: no row of the page is free of text.
    left = _lines(20, x0=100, x1=900)
    right = _lines(20, top=120, x0=1000, x1=1900)
    assert band_cut(left + right) is None


def test_no_cut_where_the_only_gap_leaves_one_band_nearly_empty():
    # Lines set solid (each touches the next), then after a gap a short footnote.
    boxes = _lines(26, pitch=30) + _lines(3, top=2000, pitch=30)
    assert band_cut(boxes) is None
    assert band_cut(_lines(26, pitch=30) + _lines(26, top=2000, pitch=30)) is not None


@pytest.fixture(scope="module")
def engine():
    e = TesseractEngine()
    yield e
    e.close()


def _read(engine, page):
    (reading,) = engine.predict_batch([PageImage(image=page.image, page_number=1, dpi=page.dpi)])
    return reading


def _linn():
    with pymupdf.open(CORPUS / "linn.pdf") as doc:
        return rasterize_page(doc, 0, RasterOptions())


def test_the_bands_fill_the_whole_pages_paragraphs(engine):
    """The bands' own layouts find other paragraphs (and join columns); their words go back
    into the whole page's layout, so the paragraphs and lines are those of a whole-page read."""
    page = _linn()
    gray = page.image.convert("L")
    tess = engine._tesserocr
    whole_api, band_api = engine._api_turned, engine._api
    engine._recognize(whole_api, gray, page.dpi)
    whole = read_paragraphs(tess, whole_api, page.dpi)
    band_api.SetImage(gray)
    band_api.SetSourceResolution(page.dpi)
    layout = band_api.AnalyseLayout()
    cut = band_cut(line_boxes(tess, layout))
    assert cut is not None and 0.3 * gray.height < cut < 0.7 * gray.height
    banded = engine._read_in_bands(gray, layout, cut, page.dpi)
    assert [p.order for p in banded] == [p.order for p in whole]
    assert [len(p) for p in banded] == [len(p) for p in whole]
    pairs = [
        (a, b) for pa, pb in zip(whole, banded, strict=True) for a, b in zip(pa, pb, strict=True)
    ]
    same = sum(a.text == b.text for a, b in pairs)
    assert same >= 0.95 * sum(len(p) for p in whole)
    # Every word in the page's coordinates: the bottom band's words were moved down to it.
    assert [w.bbox for w in banded[-1][-1].words] == [w.bbox for w in whole[-1][-1].words]


def test_a_dense_page_is_read_in_bands_and_reads_as_well(engine, monkeypatch):
    page = _linn()
    banded = _read(engine, page)
    monkeypatch.setattr(bands, "BAND_WORK", 10**9)
    whole = _read(engine, page)
    assert banded.timings["ocr_bands"] == 2 and whole.timings["ocr_bands"] == 1
    words = [w.text for b in banded.blocks for w in b.words]
    whole_words = [w.text for b in whole.blocks for w in b.words]
    assert difflib.SequenceMatcher(a=whole_words, b=words, autojunk=False).ratio() >= 0.98


def test_a_bands_specks_on_a_lines_edge_stay_out_of_it():
    """A band's layout joined a right-column line and the dots of a leader into one line: the
    dots lie in the top quarter of the left column's line, which a whole-page read does not
    give them; a raised mark (a footnote's) stays."""
    left = Line([], (366, 2043, 1139, 2080), 0.0)
    para = ParaLines([left])
    word = lambda text, box: Word(text=text, confidence=90, bbox=box)  # noqa: E731
    band = Line(
        [word(".", (587, 2043, 591, 2047)), word("as", (979, 2043, 1035, 2047)),
         word("product", (366, 2043, 493, 2080)), word("*", (500, 2043, 510, 2058))],
        (366, 2016, 2184, 2080), 0.0,
    )  # fmt: skip
    (filled,) = filled_layout([para], [band])
    assert [w.text for w in filled[0].words] == ["product", "*"]
