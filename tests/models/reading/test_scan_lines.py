"""models/reading/scan_lines.py: a scan's text size from its words' heights; and columns
Tesseract finds through a page's lines (columns_cut): a typewritten page's hanging indents line
up like a gutter, and its layout then cuts the lines that run across, mid-word ("Le problém" |
"e des hommages", typewritten-fr 10010277r). The engine reads such a page again as one column;
a page of real columns is no such page."""

from __future__ import annotations

import numpy as np
import pytest

from models.engine import Word
from models.reading.scan_lines import (
    Line,
    ParaLines,
    columns_cut,
    cut_lines,
    fill_in,
    letter_sizes,
    unread_rows,
    words_size,
)


def _words(*heights: tuple[str, float]) -> list[Word]:
    return [Word(text, 95.0, (100 * k, 500, 100 * k + 90, 500 + h))
            for k, (text, h) in enumerate(heights)]  # fmt: skip


def test_every_word_tells_the_size_by_what_its_letters_reach():
    """A 12 pt head at 244 dpi (41 px): "Typefaces" reaches cap height and descends, "Page"
    descends from the cap height, "Layout" too; words_size, reading only words that do not
    descend, has nothing to go on for either."""
    typefaces = _words(("Typefaces", 39.0))
    page_layout = _words(("Page", 38.5), ("Layout", 38.5))
    assert words_size(typefaces) is None and words_size(page_layout) is None
    assert letter_sizes(typefaces) == pytest.approx((41.5, 41.5), abs=0.1)
    assert letter_sizes(page_layout) == pytest.approx((41.0, 41.0), abs=0.1)
    assert letter_sizes(_words(("Contents", 50.0)))[0] == pytest.approx(69.4, abs=0.1)
    assert letter_sizes(_words(("on", 20.0)))[0] == pytest.approx(41.7, abs=0.1)


def test_a_word_whose_only_descender_is_an_f_leaves_its_size_open():
    """An "f" descends in italics, not in roman: "References" 40 px tall is 42.6 to 55.6 px
    type; another word of the line that tells surely decides."""
    low, high = letter_sizes(_words(("References", 40.0)))
    assert (low, high) == pytest.approx((42.6, 55.6), abs=0.1)
    assert letter_sizes(_words(("of", 70.0), ("List", 50.0))) == pytest.approx(
        (69.4, 69.4), abs=0.1
    )


HEIGHT = 30
CHAR = 18


def line_at(text: str, x: float, y: float) -> Line:
    words = []
    for token in text.split():
        words.append(
            Word(text=token, confidence=90.0, bbox=(x, y, x + CHAR * len(token), y + HEIGHT))
        )
        x += CHAR * len(token) + CHAR
    return Line(words, (words[0].bbox[0], y, words[-1].bbox[2], y + HEIGHT), ink=0.1)


def paragraph(*lines: Line) -> ParaLines:
    return ParaLines(lines)


ROWS = [
    ("Le problém", "e des hommages aux morts est reposé"),
    ("des mél", "anges dédiés à tel ou tel disparu"),
    ("Publier la", "lettre de Luc Etienne avec la prochaine"),
    ("tous avec", "la prochaine convocation de la séance"),
]


def cut_page(gap: float) -> list[ParaLines]:
    """Tesseract's reading of the rows with a column at x = 300: the rows' starts one
    paragraph, their ends (`gap` pixels on) another."""
    starts = [line_at(left, 100, 100 + 40 * k) for k, (left, _) in enumerate(ROWS)]
    ends = [
        line_at(right, s.bbox[2] + gap, s.bbox[1])
        for s, (_, right) in zip(starts, ROWS, strict=True)
    ]
    return [paragraph(*starts), paragraph(*ends)]


def test_lines_cut_mid_word_by_a_column_are_found():
    page = cut_page(gap=4)
    assert cut_lines(page) == len(ROWS)
    assert columns_cut(page)


def test_a_gutter_between_columns_cuts_nothing():
    # Real columns: the second starts a gutter (more than a word space) after the first.
    page = cut_page(gap=2 * HEIGHT)
    assert cut_lines(page) == 0
    assert not columns_cut(page)


def test_one_paragraphs_lines_and_words_starting_upper_case_are_no_cut():
    # A new sentence or a name after a narrow gap (a tab: more than half a word space, 18 px
    # here) is not a word cut in two.
    upper = [paragraph(line_at("Présents", 100, 100 + 40 * k)) for k in range(len(ROWS))] + [
        paragraph(line_at("Jacques Jouet qui reçoit", 254, 100 + 40 * k)) for k in range(4)
    ]
    assert cut_lines(upper) == 0


LISTING = [
    ("104 \\changes{4.", "0c}{1999/11/13}{New option ‘‘checkin’’}"),
    ("105 \\changes{4.", "0c}{1999/11/13}{Prevent an inner footnote}"),
    ("106 \\changes{4.", "0d}{2000/04/10}{Also alter how lists get indented.}"),
    ("107 \\changes{4.", "0d}{2000/04/10}{eprint takes an optional argument}"),
]


def test_lines_cut_closer_than_their_word_spaces_are_found_whatever_their_letters():
    """A scanned listing (revtex4-1's documented source): each line's "\\changes{4." ends a
    dot's blank cell before "0c}": Tesseract took the dots' column for a gutter and read the
    page's halves one after the other. 4 pixels apart where the words stand 18: a cut."""
    starts = [line_at(left, 100, 100 + 40 * k) for k, (left, _) in enumerate(LISTING)]
    ends = [
        line_at(right, s.bbox[2] + 4, s.bbox[1])
        for s, (_, right) in zip(starts, LISTING, strict=True)
    ]
    assert cut_lines([paragraph(*starts), paragraph(*ends)]) == len(LISTING)
    assert columns_cut([paragraph(*starts), paragraph(*ends)])
    apart = [
        line_at(right, s.bbox[2] + 10, s.bbox[1])
        for s, (_, right) in zip(starts, LISTING, strict=True)
    ]
    assert cut_lines([paragraph(*starts), paragraph(*apart)]) == 0


def test_a_few_cut_lines_among_many_are_not_the_page_s_columns():
    page = cut_page(gap=4)
    many = [paragraph(line_at("une ligne entière de texte", 100, 400 + 40 * k)) for k in range(40)]
    assert cut_lines(page + many) == len(ROWS)
    assert not columns_cut(page + many)


def page_of(*rows: tuple[int, int]) -> np.ndarray:
    """A binarized page 1000 px wide whose ink fills the given (top, bottom) rows over most of
    the text's width (a typed line's rows hold ink along it)."""
    dark = np.zeros((800, 1000), dtype=bool)
    for top, bottom in rows:
        dark[top:bottom, 100:900:3] = True
    return dark


def test_ink_between_two_read_lines_far_apart_is_a_line_not_read():
    """typewritten-fr 24_3cb67: "Je crois que le même instinct guide les colombes", typed over
    a pencil underline, left out between two lines Tesseract read."""
    para = paragraph(line_at("d'amour", 100, 100), line_at("et les jeunes filles", 100, 220))
    (above, box), *more = unread_rows(page_of((100, 130), (165, 195), (220, 250)), para)
    assert not more
    assert above is para[0]
    assert box[1] == 165 and box[3] == 195


def test_an_underline_or_a_blank_gap_is_no_line():
    para = paragraph(line_at("d'amour", 100, 100), line_at("et les jeunes filles", 100, 220))
    assert unread_rows(page_of((100, 130), (220, 250)), para) == []
    assert unread_rows(page_of((100, 130), (190, 193), (220, 250)), para) == []  # a rule
    close = paragraph(line_at("d'amour", 100, 100), line_at("et les jeunes", 100, 140))
    assert unread_rows(page_of((100, 130), (131, 139), (140, 170)), close) == []


def _line(*words: tuple[str, float, float]) -> Line:
    """A line of words at y 1000-1040, each (text, x0, x1)."""
    ws = [Word(text, 90.0, (x0, 1000, x1, 1040)) for text, x0, x1 in words]
    return Line(ws, (ws[0].bbox[0], 1000, ws[-1].bbox[2], 1040), 0.1)


def test_a_second_read_adds_only_what_the_page_read_lacks():
    """An "image" whose box spans lines the page read already (a scan's dark edge beside a
    typescript) is read again: the words read twice stay once, the line's end the page's read
    had lost joins its line in place, and a line of its own stays one (typewritten-fr)."""
    page = ParaLines([_line(("Tandis", 400, 560), ("que", 580, 660), ("le", 680, 730))])
    again = ParaLines(
        [
            _line(("Tandis", 402, 558), ("que", 581, 661), ("le", 679, 731), ("bois,", 750, 880)),
        ]
    )
    below = _line(("Une", 400, 480), ("chambre.", 500, 700))
    below.bbox = (400, 1200, 700, 1240)
    for w in below.words:
        w.bbox = (w.bbox[0], 1200, w.bbox[2], 1240)
    again.append(below)
    rest = fill_in([page], [again])
    assert page[0].text == "Tandis que le bois,"
    assert page[0].bbox == (400, 1000, 880, 1040)
    assert [line.text for para in rest for line in para] == ["Une chambre."]


def test_a_filled_in_word_joins_the_nearest_line_on_its_row():
    """Two lines on one row a narrow gutter apart: a word the second read adds in the gutter
    joins the line it stands nearer to, not the first line found."""
    left = _line(("Plus", 100, 200), ("blancs", 220, 480))
    right = _line(("tentes", 560, 700))
    again = ParaLines([_line(("les", 505, 548))])
    assert fill_in([ParaLines([left]), ParaLines([right])], [again]) == []
    assert (left.text, right.text) == ("Plus blancs", "les tentes")
