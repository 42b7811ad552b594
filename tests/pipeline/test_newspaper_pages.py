"""A scanned newspaper page end to end: its columns stand a printed rule and a few points of
paper apart, its masthead rules and its frame make a grid of the whole page. The columns are
read one after the other, and the grid is no table (realworld newspaper.pdf came out as one
80-row table of two columns of prose, its headline inside)."""

from __future__ import annotations

import pymupdf
import pytest
from bs4 import BeautifulSoup

from conversion.pipeline.convert import ConvertOptions, convert_pdf
from models.ocr import TesseractEngine
from tests.conftest import scan_of

TOPICS = ("harbour", "railway", "council")
SENTENCES = (
    "The {t} report was read aloud to the members who gathered in the old hall on Monday.",
    "Several speakers asked whether the {t} plan would be finished before the winter rains.",
    "A committee was named to study the matter and to write a letter to the governor.",
    "Most of the citizens present agreed that the work should begin without further delay.",
    "The meeting closed late in the evening after a long and lively debate about the costs.",
)


def _paragraphs(topic: str, column: int) -> list[str]:
    """Paragraphs of three, two and four sentences, in another turn in each column: their
    tops stand at other heights, as a newspaper's do."""
    sentences = [s.format(t=topic) for _ in range(3) for s in SENTENCES]
    lengths = [(3, 2, 4), (2, 4, 3), (4, 3, 2)][column] * 2
    out, at = [], 0
    for n in lengths:
        if at < len(sentences):
            out.append(" ".join(sentences[at : at + n]))
        at += n
    return out


def _newspaper_scan(path, rules_top: float):
    """Three justified columns 4 pt apart with a rule between them from `rules_top` down, a
    masthead over a double rule, a frame around the page: drawn with PyMuPDF, kept only as its
    300 DPI picture."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((190, 60), "The Evening Courier", fontsize=28, fontname="tibo")
    for y in (70, 75, 760):
        page.draw_line((36, y), (576, y), width=1)
    for x in (36, 576):
        page.draw_line((x, 70), (x, 760), width=1)
    for x in (216, 396):
        page.draw_line((x, rules_top), (x, 760), width=0.8)
    for k, topic in enumerate(TOPICS):
        left, top = 38 + 180 * k, 85
        for text in _paragraphs(topic, k):
            box = pymupdf.Rect(left, top, left + 176, 755)
            spare = page.insert_textbox(box, "   " + text, fontsize=9.5, fontname="tiro", align=3)
            top = 755 - spare + 6  # the next paragraph under this one, a blank line apart
    return scan_of(page, path)


@pytest.mark.parametrize(
    "rules_top",
    [
        # The column rules start under the double rule: the layout model boxes the columns as
        # one table, whose cells are lines of prose in every column.
        75,
        # ... or cross it: with the frame they make a grid, one row of it the whole page.
        70,
    ],
)
def test_a_newspapers_columns_are_read_in_turn_and_its_frame_is_no_table(tmp_path, rules_top):
    pdf = _newspaper_scan(tmp_path / "newspaper.pdf", rules_top)
    result = convert_pdf(pdf, tmp_path / "out", TesseractEngine(), ConvertOptions())
    main = BeautifulSoup(result.html_path.read_text(encoding="utf-8"), "html.parser").main
    assert main.find("table") is None
    text = " ".join(main.get_text(" ").split())
    places = [[m for m in range(len(text)) if text.startswith(t, m)] for t in TOPICS]
    # Every mention of a column's topic comes before every mention of the next column's.
    assert all(len(p) == 6 for p in places), [len(p) for p in places]
    assert max(places[0]) < min(places[1]) and max(places[1]) < min(places[2])
