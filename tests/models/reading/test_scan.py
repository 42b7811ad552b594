"""A scan's text against the pictures Tesseract found (models.reading.scan.scan_text): a
"picture" that text lines run across is text (a faded margin over the lines' first words), a
drawing whose labels stand in it stays a picture and its strokes leave the text."""

from __future__ import annotations

from PIL import Image

from models.engine import ReadBlock
from models.reading.scan import scan_text
from models.reading.scan_lines import InkMeter, ParaLines
from tests.models.reading.test_scan_blocks import line_of

TYPED = "Les uns disent qu'il faut lancer fort la jambe et les autres la raidir"


def _read(paragraphs: list[ParaLines], figure: tuple[int, int, int, int]):
    gray = Image.new("L", (2000, 2000), 255)
    picture = ReadBlock(kind="figure", bbox=figure)
    return scan_text(paragraphs, [picture], gray, InkMeter(gray), 200)


def test_a_picture_that_text_lines_run_across_is_text_and_keeps_their_words():
    lines = [line_of(TYPED, 200 + 50 * k, confidence=90, known=True) for k in range(6)]
    margin = (0, 150, 300, 520)  # over the first words of every line (a faded left margin)
    text = _read([ParaLines(lines)], margin)
    assert [b.kind for b in text.blocks if b.kind == "figure"] == []
    words = [w.text for b in text.blocks for w in b.words]
    assert words.count("Les") == 6  # each line's first word, inside the "picture", kept


def test_a_drawing_whose_labels_stand_inside_it_stays_a_picture():
    labels = [line_of("600 axis", 200 + 50 * k, confidence=90, known=True) for k in range(4)]
    body = [line_of(TYPED, 900 + 50 * k, confidence=90, known=True) for k in range(4)]
    chart = (50, 150, 1200, 450)
    text = _read([ParaLines(labels), ParaLines(body)], chart)
    assert [b.kind for b in text.blocks if b.kind == "figure"] == ["figure"]
    words = [w.text for b in text.blocks for w in b.words]
    assert "axis" not in words and words.count("Les") == 4


def test_an_illustration_the_text_wraps_around_stays_a_picture():
    """The lines beside a drawing begin with its strokes read as scraps (c02-22: "~— Wer went
    tip-toeing", confidences 0-75): the drawing stays a picture and the scraps leave the text."""
    lines = []
    for k in range(6):
        line = line_of("~— Wer " + TYPED, 200 + 50 * k, confidence=90, known=True)
        for scrap in line.words[:2]:
            scrap.confidence = 20
        lines.append(line)
    drawing = (0, 150, 180, 520)  # over the two scraps of every line
    text = _read([ParaLines(lines)], drawing)
    assert [b.kind for b in text.blocks if b.kind == "figure"] == ["figure"]
    words = [w.text for b in text.blocks for w in b.words]
    assert "Wer" not in words and words.count("Les") == 6
