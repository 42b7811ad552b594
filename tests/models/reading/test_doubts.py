"""A finished page's doubts (models.reading.doubts): the reading order against the text
layer's own, a big initial standing alone; on real PDFs read through their text layer."""

from __future__ import annotations

import pymupdf

from models.engine import ReadBlock
from models.reading.doubts import drop_cap_doubt
from models.reading.page import ReadingPage
from models.reading.textlayer import text_layer_reading

WORDS = (
    "Readers follow the text of a column from its head to its foot before they turn to the "
    "next column, and a page read across the gutter makes no sense to anyone listening."
)
LEFT, RIGHT = pymupdf.Rect(72, 100, 290, 0), pymupdf.Rect(322, 100, 540, 0)


def _column_paragraphs(column: pymupdf.Rect, tag: str) -> list[tuple[pymupdf.Rect, str]]:
    return [
        (pymupdf.Rect(column.x0, 100 + 150 * k, column.x1, 240 + 150 * k), f"{tag}{k} {WORDS}")
        for k in range(4)
    ]


def _two_columns(path, *, interleaved: bool) -> pymupdf.Page:
    """Two columns of four paragraphs; the stream draws them column by column, or across
    the gutter (left 0, right 0, left 1, ...) as some layouts store them."""
    left, right = _column_paragraphs(LEFT, "Left"), _column_paragraphs(RIGHT, "Right")
    drawn = (
        [p for pair in zip(left, right, strict=True) for p in pair] if interleaved else left + right
    )
    doc = pymupdf.open()
    page = doc.new_page()
    for rect, text in drawn:
        page.insert_textbox(rect, text, fontsize=10, fontname="helv")
    doc.save(path)
    return pymupdf.open(path)[0]


def _codes(page: pymupdf.Page) -> list[str]:
    reading = text_layer_reading(page, page_number=1, dpi=150)
    assert reading is not None
    return [f["code"] for f in reading.findings]


def test_an_order_the_text_layer_reads_across_the_gutter_is_uncertain(tmp_path):
    assert "ORDER_UNCERTAIN" in _codes(_two_columns(tmp_path / "across.pdf", interleaved=True))


def test_two_columns_read_as_the_text_layer_draws_them_are_not_doubted(tmp_path):
    assert "ORDER_UNCERTAIN" not in _codes(_two_columns(tmp_path / "cols.pdf", interleaved=False))


def test_a_single_column_is_never_doubted_whatever_the_stream_order(tmp_path):
    doc = pymupdf.open()
    page = doc.new_page()
    for k in (3, 1, 0, 2):  # drawn out of order: one column is read top down all the same
        rect = pymupdf.Rect(72, 100 + 150 * k, 540, 240 + 150 * k)
        page.insert_textbox(rect, f"Part {k} {WORDS}", fontsize=10, fontname="helv")
    doc.save(tmp_path / "one.pdf")
    assert "ORDER_UNCERTAIN" not in _codes(pymupdf.open(tmp_path / "one.pdf")[0])


def _drop_cap(path, *, initial_size: float) -> pymupdf.Page:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 140), "T", fontsize=initial_size, fontname="tibo")
    body = "he river rose all night and by morning the lower town stood in water. " * 4
    page.insert_textbox(pymupdf.Rect(120, 100, 540, 300), body, fontsize=10, fontname="tiro")
    page.insert_textbox(pymupdf.Rect(72, 320, 540, 500), WORDS * 2, fontsize=10, fontname="tiro")
    doc.save(path)
    return pymupdf.open(path)[0]


def test_a_letter_at_the_texts_size_is_no_drop_cap(tmp_path):
    assert "DROP_CAP_SPLIT" not in _codes(_drop_cap(tmp_path / "letter.pdf", initial_size=10))


def _page(initial_size: float) -> ReadingPage:
    """A page model as the reading steps hand it on: a lone initial beside its paragraph (the
    drop-cap steps of issue 32 mostly join them first; the doubt is for what they miss)."""
    body = "he river rose all night and by morning the lower town stood in water. " * 4
    blocks = [
        ReadBlock(kind="paragraph", text="T", bbox=(100, 100, 160, 170), font_size=initial_size),
        ReadBlock(kind="paragraph", text=body, bbox=(170, 100, 1500, 400), font_size=20.0),
        ReadBlock(kind="paragraph", text=WORDS, bbox=(100, 450, 1500, 700), font_size=20.0),
    ]
    return ReadingPage(blocks=blocks, regions=[], width=1700, height=2200, dpi=200, source="ocr")


def test_a_big_initial_standing_alone_is_doubted():
    found = drop_cap_doubt(_page(initial_size=80.0))
    assert [f["code"] for f in found] == ["DROP_CAP_SPLIT"]
    assert '"T"' in found[0]["message"]


def test_a_logo_read_as_a_letter_with_nothing_beside_it_is_no_drop_cap():
    """A thesis's title page, scanned (toptesi-example-magistrale p. 1): the university's
    triangle logo read as a big "A", centred over the title, nothing on its rows."""
    page = _page(initial_size=80.0)
    page.blocks[0].text, page.blocks[0].bbox = "A", (800, 100, 900, 190)
    page.blocks[1].bbox = (300, 250, 1500, 400)
    assert drop_cap_doubt(page) == []


def test_a_lone_letter_at_the_texts_size_is_no_drop_cap():
    assert drop_cap_doubt(_page(initial_size=20.0)) == []
