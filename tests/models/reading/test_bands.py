"""Where a dense page is cut into two bands, and how the bands' words fill the whole page's layout
(models.reading.bands): plain functions over line boxes and lines."""

from __future__ import annotations

from models.engine import Word
from models.reading.bands import band_cut, filled_layout
from models.reading.params.bands import BandParams
from models.reading.scan_lines import Line, ParaLines


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


def test_the_work_a_page_needs_for_bands_is_a_parameter():
    assert band_cut(_lines(30)) is not None
    assert band_cut(_lines(30), params=BandParams(work_line_heights=10**9)) is None


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


def test_words_beside_a_drop_cap_stay_in_its_tall_line():
    """The page's layout made the first line of a paragraph opening with a drop cap three lines
    tall (the initial's height): the words of that first line lie in its top quarter, yet they
    are words, not specks (magazine scans lost "he council will" so)."""
    tall = Line([], (164, 395, 969, 498), 0.0)
    rest = [Line([], (164, 508 + 38 * i, 970, 538 + 38 * i), 0.0) for i in range(6)]
    word = lambda text, box: Word(text=text, confidence=90, bbox=box)  # noqa: E731
    band = Line(
        [word("he", (269, 397, 310, 418)), word("council", (320, 397, 440, 418)),
         word("will", (450, 397, 500, 418))],
        (269, 395, 969, 426), 0.0,
    )  # fmt: skip
    (filled, _) = filled_layout([ParaLines([tall]), ParaLines(rest)], [band])
    assert [w.text for w in filled[0].words] == ["he", "council", "will"]
