"""Columns Tesseract finds through a page's lines (models.reading.scan_lines.columns_cut): a
typewritten page's hanging indents line up like a gutter, and its layout then cuts the lines
that run across, mid-word ("Le problém" | "e des hommages", typewritten-fr 10010277r). The
engine reads such a page again as one column; a page of real columns is no such page."""

from __future__ import annotations

from models.engine import Word
from models.reading.scan_lines import Line, ParaLines, columns_cut, cut_lines

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
    # A new sentence or a name after a narrow gap is a tab, not a word cut in two.
    upper = [paragraph(line_at("Présents", 100, 100 + 40 * k)) for k in range(len(ROWS))] + [
        paragraph(line_at("Jacques Jouet qui reçoit", 248, 100 + 40 * k)) for k in range(4)
    ]
    assert cut_lines(upper) == 0


def test_a_few_cut_lines_among_many_are_not_the_page_s_columns():
    page = cut_page(gap=4)
    many = [paragraph(line_at("une ligne entière de texte", 100, 400 + 40 * k)) for k in range(40)]
    assert cut_lines(page + many) == len(ROWS)
    assert not columns_cut(page + many)
