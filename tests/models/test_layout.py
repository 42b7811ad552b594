"""models.layout: a scan's image half prepared ahead (on another thread) gives the regions a
fresh analysis gives, and image features prepared for one page never leak into another's."""

from __future__ import annotations

import threading
from pathlib import Path

import pymupdf
import pytest
from PIL import Image

from models import layout
from models.engine import Word

DPI = 100


def _article(title: str, body: str) -> pymupdf.Document:
    """A born-digital page: a title, two paragraphs and a footer line."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_textbox((72, 60, 523, 110), title, fontsize=22, fontname="hebo")
    for k in range(2):
        page.insert_textbox(
            (72, 140 + 220 * k, 523, 340 + 220 * k), body, fontsize=11, fontname="helv"
        )
    page.insert_text((280, 810), "Page 1", fontsize=9)
    return doc


def _scan(doc: pymupdf.Document) -> tuple[Image.Image, list[Word]]:
    """The page as a scan at DPI and its words in pixels, as an OCR engine would give them."""
    page = doc[0]
    pix = page.get_pixmap(dpi=DPI, colorspace=pymupdf.csGRAY)
    image = Image.frombytes("L", (pix.width, pix.height), pix.samples)
    k = DPI / 72
    words = [
        Word(text=w[4], confidence=95.0, bbox=(w[0] * k, w[1] * k, w[2] * k, w[3] * k))
        for w in page.get_text("words", sort=True)
    ]
    return image, words


BODY = (
    "Libraries hold many scanned books whose text layers were made long ago. "
    "A reader needs the structure of each page as well as its words, so the page is "
    "analysed for titles, paragraphs and the lines that repeat on every page. "
) * 3


@pytest.fixture(scope="module")
def pages():
    first, second = _article("A study of scans", BODY), _article("Another title", BODY[:300])
    yield _scan(first), _scan(second), second
    first.close()
    second.close()


def _fresh(image: Image.Image, words: list[Word]) -> list[layout.Region]:
    """Regions with the image features computed in the analysis itself (no prepared half)."""
    scan = layout.ScanPage(image, DPI)
    with layout.MUPDF_LOCK:
        layout.LOADED.features_of = None  # as if prepared for another page: dropped
    return scan.regions(words)


def test_prepared_on_another_thread_gives_the_regions_of_a_fresh_analysis(pages):
    (image, words), _, _ = pages
    made: list[layout.ScanPage] = []
    thread = threading.Thread(target=lambda: made.append(layout.ScanPage(image, DPI)))
    thread.start()
    thread.join()
    prepared = made[0].regions(words)
    assert [r.kind for r in prepared] and prepared == _fresh(image, words)


def test_features_prepared_for_one_page_are_not_used_for_another(pages):
    _, (other_image, other_words), born_digital = pages
    alone = layout.page_regions(born_digital[0], scale=1.0)
    # Prepared, then the page was turned (never used): a small landscape scan, so whose image
    # the model's features came from shows in their size.
    unused = layout.ScanPage(Image.new("L", (400, 300), 255), DPI)
    after = layout.page_regions(born_digital[0], scale=1.0)
    extractor = layout.image_features()
    assert (extractor._page_w, extractor._page_h) == (595, 842)  # this page's own features
    assert after == alone
    unused.close()
    assert layout.ScanPage(other_image, DPI).regions(other_words) == _fresh(
        other_image, other_words
    )


def test_a_page_without_words_has_no_regions(pages):
    (image, _), _, _ = pages
    assert layout.ScanPage(image, DPI).regions([Word(text=" ", confidence=0.0)]) == []
    assert layout.ScanPage(image, DPI).regions([]) == []


def test_a_turned_page_is_read_in_its_own_coordinates(tmp_path):
    """The model reads a page carrying /Rotate as the same page unturned: on the turned page
    itself it took a Wikipedia print's body text for one table."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Running head of the report", fontsize=8)
    page.insert_text((72, 120), "Annual Report", fontsize=24, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 150, 520, 500), "Body text of the page. " * 60,
                        fontsize=11)  # fmt: skip
    page.insert_text((300, 800), "7", fontsize=9)
    upright = layout.page_regions(page, scale=2.0)
    page.set_rotation(90)
    assert [r.kind for r in upright] and layout.page_regions(page, scale=2.0) == upright


def test_a_scans_graph_network_runs_on_two_threads_with_the_one_thread_results(monkeypatch):
    """A scan's regions are found with the graph network on both cores (nothing else runs
    then): its outputs must be those of one thread, bit for bit, or the command line, the
    inline runner and a Celery worker could write different bytes for the same page."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 50), "Running head", fontsize=8)
    page.insert_text((72, 90), "A dense page of two columns", fontsize=18, fontname="hebo")
    for column in range(2):  # some eighty lines (a row of both columns is one): kernels split
        x = 72 + column * 235
        page.insert_textbox((x, 110, x + 215, 800), BODY * 4, fontsize=7, fontname="helv")
    image, words = _scan(doc)
    feeds: list[dict] = []
    two = layout.ScanPage(image, DPI).regions(words)
    session = layout.LOADED.scan_session
    assert session.get_session_options().intra_op_num_threads == layout.SCAN_THREADS == 2

    # The same feeds through the one-thread session: the same logits.
    class Recording:
        def __init__(self, inner):
            self.inner = inner

        def run(self, names, feed, *args):
            feeds.append(feed)
            return self.inner.run(names, feed, *args)

    monkeypatch.setattr(layout.LOADED, "scan_session", Recording(session))
    assert layout.ScanPage(image, DPI).regions(words) == two
    (feed,) = feeds
    assert len(feed["x"]) >= 80
    single = layout.LOADED.analyzer._model.session
    assert single.get_session_options().intra_op_num_threads == 1
    for mine, theirs in zip(session.run(None, feed), single.run(None, feed), strict=True):
        assert mine.tobytes() == theirs.tobytes()
    doc.close()


def test_the_text_boxes_features_are_those_pymupdf_layout_computes(monkeypatch):
    """layout.rf_features stands in for pymupdf.layout's extract_rf_features (faster): the
    same features for every box, and the same invisible boxes dropped when text is visible."""
    from pymupdf.layout import pymupdf_util, pymupdf_util_ext, pymupdf_util_rf

    layout.load_model()
    assert pymupdf_util_ext.extract_rf_features is layout.rf_features  # installed with the model
    doc = _article("A study of scans", BODY)
    doc[0].insert_text((72, 780), "an old OCR layer", fontsize=9, render_mode=3)

    def boxes(extract):
        monkeypatch.setattr(pymupdf_util_ext, "extract_rf_features", extract)
        data = pymupdf_util.create_input_data_from_page(
            doc[0], options={"input_type": ("text",), "feature_set_name": "rf"}
        )
        return data["bboxes"], data["text"], data["custom_features"]

    ours, theirs = boxes(layout.rf_features), boxes(pymupdf_util_rf.extract_rf_features)
    assert len(ours[2]) >= 5 and ours == theirs
    assert not any("OCR layer" in text for text in ours[1])  # the invisible box was dropped
    doc.close()


@pytest.mark.parametrize("skipped", [False, True])
def test_a_pages_regions_do_not_depend_on_the_process_s_quad_corrections(skipped):
    """Importing pymupdf imports pymupdf4llm, which turns MuPDF's ascender and descender
    corrections of glyph boxes off for the whole process; the readers' fork server keeps it
    out, so its pages were read with them on, and the layout model saw other boxes there: on a
    beamer slide (lecturer's demo, p. 4) one picture over a sentence and the formula beside it,
    and the sentence read as \\text{} inside the formula. The model sees the boxes of the
    process it was made with (corrections off) everywhere, and the setting is left as found."""
    slide = (
        Path(__file__).parents[1] / "resources" / "corpus" / "texlive" / "lecturer-beamer-p4.pdf"
    )
    before = pymupdf.TOOLS.unset_quad_corrections()
    try:
        pymupdf.TOOLS.unset_quad_corrections(skipped)
        with pymupdf.open(slide) as doc:
            regions = layout.page_regions(doc[0], scale=300 / 72)
        assert pymupdf.TOOLS.unset_quad_corrections() == skipped
    finally:
        pymupdf.TOOLS.unset_quad_corrections(before)
    (picture,) = (r for r in regions if r.kind == "picture")
    texts = [r for r in regions if r.kind == "text"]
    # The sentence is text, left of the formula's picture.
    assert texts and all(text.bbox[2] < picture.bbox[0] for text in texts)
