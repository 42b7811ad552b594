"""A dense page recognized as two bands at once (models.ocr.engine, models.reading.bands): the same
reading as the whole page read at once, in about half the recognizer's time on two cores."""

from __future__ import annotations

import difflib
from functools import partial

import pymupdf
import pytest

from conversion.pipeline.rasterize import RasterOptions, rasterize_page
from models.engine import PageImage
from models.ocr import TesseractEngine
from models.ocr import engine as ocr_engine
from models.reading.bands import band_cut
from models.reading.params.bands import BandParams
from tests.conftest import CORPUS


@pytest.fixture(scope="module")
def readings():
    """linn.pdf's dense page read in two bands, then read whole (no page is dense enough)."""
    with pymupdf.open(CORPUS / "linn.pdf") as doc:
        page = rasterize_page(doc, 0, RasterOptions())
    image = PageImage(image=page.image, page_number=1, dpi=page.dpi)
    engine = TesseractEngine()
    try:
        (banded,) = engine.predict_batch([image])
        with pytest.MonkeyPatch.context() as patch:
            never = partial(band_cut, params=BandParams(work_line_heights=10**9))
            patch.setattr(ocr_engine, "band_cut", never)
            (whole,) = engine.predict_batch([image])
    finally:
        engine.close()
    return banded, whole


def test_a_dense_page_is_read_in_bands(readings):
    banded, whole = readings
    assert banded.timings["ocr_bands"] == 2 and whole.timings["ocr_bands"] == 1


def test_the_bands_fill_the_whole_pages_paragraphs(readings):
    """The bands' own layouts find other paragraphs (and join columns); their words go back
    into the whole page's layout, so the blocks are those of a whole-page read, in its order
    (the layout model may see the foot's few words apart: the whole read keeps a logo's "[inn"
    and takes the address under it for text, not a footer)."""
    banded, whole = readings
    texts, whole_texts = [b.text for b in banded.blocks], [b.text for b in whole.blocks]
    matcher = difflib.SequenceMatcher(a=whole_texts, b=texts, autojunk=False)
    same = sum(match.size for match in matcher.get_matching_blocks())
    assert same >= 0.9 * len(whole_texts)
    # Every word in the page's coordinates: the bottom band's words were moved down to it.
    assert [w.bbox for w in banded.blocks[-1].words] == [w.bbox for w in whole.blocks[-1].words]


def test_a_dense_page_read_in_bands_reads_as_well(readings):
    banded, whole = readings
    words = [w.text for b in banded.blocks for w in b.words]
    whole_words = [w.text for b in whole.blocks for w in b.words]
    assert difflib.SequenceMatcher(a=whole_words, b=words, autojunk=False).ratio() >= 0.98
