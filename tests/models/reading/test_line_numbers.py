"""Line numbers in a page's margin (models.reading.line_numbers): left out of a born-digital
page's text and of a scan's, while numbers in the margin that are text (paragraph numbers, a
table's row numbers) stay; on a pdflatex page (tests/resources/line_numbers) and on words laid
out as a page holds them."""

from __future__ import annotations

import re

import pymupdf
import pytest
from PIL import Image

from models.engine import PageImage
from models.ocr import TesseractEngine
from models.reading.line_numbers import line_number_words
from models.reading.textlayer import text_layer_reading
from tests.conftest import RESOURCES

PDF = RESOURCES / "line_numbers" / "line-numbers.pdf"
NUMBER = re.compile(r"\b\d+\b")
HEIGHT, PITCH = 40, 50  # a word's height and the prose's line pitch, in pixels


def _text(reading) -> str:
    return " ".join(b.text for b in reading.blocks if b.kind not in ("page_header", "page_footer"))


@pytest.mark.parametrize("page", [0, 1, 3], ids=["every-line", "every-fifth-right", "pleading"])
def test_line_numbers_leave_a_born_digital_page(page):
    with pymupdf.open(PDF) as doc:
        text = _text(text_layer_reading(doc[page], page_number=page + 1, dpi=150))
    # Only the section's own number is left ("1 Every line numbered").
    assert NUMBER.findall(text) in ([], ["1"], ["2"]), text
    assert "reader reads the text" in text


def test_numbers_in_the_margin_that_are_text_stay():
    with pymupdf.open(PDF) as doc:
        reading = text_layer_reading(doc[2], page_number=3, dpi=150)
    text = _text(reading)
    for paragraph in "1234":  # a number a paragraph, in the margin
        assert f"{paragraph} Reading order matters" in text
    for row in "1234567":  # a table's first column
        assert re.search(rf"\b{row}\b", text.split("Apples")[0] + text.split("Apples")[-1])


def test_line_numbers_leave_a_scanned_page():
    with pymupdf.open(PDF) as doc:
        pix = doc[0].get_pixmap(dpi=300, colorspace=pymupdf.csGRAY)
    image = Image.frombytes("L", (pix.width, pix.height), pix.samples)
    (reading,) = TesseractEngine().predict_batch([PageImage(image=image, page_number=1, dpi=300)])
    text = _text(reading)
    assert "reader reads the text" in text
    assert NUMBER.findall(text) in ([], ["1"]), text


def _page(numbers: list[tuple[str, int]], *, text_x: int = 300, rows: int = 12) -> list:
    """Rows of prose at PITCH from y=100 (six words from text_x), and `numbers` as (text, row)
    right-aligned at x=240 (a line-number margin)."""
    words = []
    for r in range(rows):
        x, y = text_x, 100 + r * PITCH
        for _ in range(6):
            words.append(((x, y, x + 100, y + HEIGHT), "word"))
            x += 120
    for text, r in numbers:
        y = 100 + r * PITCH
        words.append(((240 - 20 * len(text), y, 240, y + HEIGHT), text))
    return words


def _found(words) -> list[str]:
    return sorted((words[k][1] for k in line_number_words(words)), key=int)


def test_a_misread_number_does_not_keep_the_others():
    numbers = [(str(r + 1), r) for r in range(12)]
    numbers[6] = ("1", 6)  # "7" read "1"
    assert _found(_page(numbers)) == ["1", "1", "2", "3", "4", "5", "6", "8", "9", "10", "11", "12"]


def test_numbers_a_paragraph_apart_are_no_line_numbers():
    # A judgment's paragraph numbers: one every three lines.
    assert _found(_page([(str(k + 1), 3 * k) for k in range(8)], rows=24)) == []
    # Every third line numbered 5, 10, 15: a line's pitch a unit would be a fifth of that.
    assert _found(_page([(str(5 * (k + 1)), 5 * k) for k in range(5)], rows=24)) != []


def test_numbers_a_word_space_from_their_text_are_no_line_numbers():
    # A numbered list's numbers, a word space before their text.
    assert _found(_page([(str(r + 1), r) for r in range(12)], text_x=250)) == []


def test_numbers_where_the_prose_starts_are_no_line_numbers():
    # Numbered questions: the instructions below start where the numbers stand.
    words = _page([(str(r + 1), r) for r in range(12)])
    for k in range(6):
        words.append(((200 + 120 * k, 100 + 13 * PITCH, 300 + 120 * k, 100 + 13 * PITCH + HEIGHT),
                      "word"))  # fmt: skip
    assert _found(words) == []


def test_a_tables_column_of_numbers_is_no_line_numbers():
    # Years down a table's first column, beside rows of figures: no prose beside them.
    figures = [
        ((x, 100 + r * PITCH, x + 60, 100 + r * PITCH + HEIGHT), "1,234")
        for r in range(12) for x in range(300, 1000, 120)
    ]  # fmt: skip
    years = [
        ((180, 100 + r * PITCH, 240, 100 + r * PITCH + HEIGHT), str(2001 + r)) for r in range(12)
    ]
    assert _found(figures + years) == []
    # The same years in a middle column, between columns of words: cells on both sides.
    words = _page([])
    middle = [
        ((820, 100 + r * PITCH, 880, 100 + r * PITCH + HEIGHT), str(2001 + r)) for r in range(12)
    ]
    shifted = [((b[0] + 200, b[1], b[2] + 200, b[3]) if b[0] >= 780 else b, t) for b, t in words]
    assert _found(shifted + middle) == []


def test_a_contents_pages_numbers_are_no_line_numbers():
    # Page numbers ranged right in a contents column: growing unevenly.
    pages = ["3", "4", "6", "7", "9", "12", "13", "15", "16", "19", "20", "22"]
    assert _found(_page(list(zip(pages, range(12), strict=True)))) == []


def test_a_list_of_tables_numbers_are_no_line_numbers():
    # Entry numbers where the page's title starts ("List of Tables"), their captions indented.
    words = _page([(str(r + 1), r + 1) for r in range(11)])
    words += [((200, 100, 300, 100 + HEIGHT), "List"), ((320, 100, 380, 100 + HEIGHT), "of")]
    assert _found(words) == []
