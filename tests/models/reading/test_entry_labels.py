"""Entry labels set in a column of their own (models.reading.entry_labels): a column of labels
counting up is kept, set alike and joined to the entries beside it, on a scanned bibliography
and on lines laid out as Tesseract gives them; numbers that do not count up are left alone."""

from __future__ import annotations

import re

from PIL import Image

from models.engine import PageImage, Word
from models.reading.entry_labels import with_entry_labels
from models.reading.scan_lines import Line, ParaLines
from tests.conftest import CORPUS

PITCH = 32  # px between lines, 240 DPI


def _line(text: str, x0: int, row: int, confidence: float = 90.0) -> Line:
    words, x = [], x0
    for part in text.split():
        width = 14 * len(part)
        words.append(
            Word(
                text=part, confidence=confidence, bbox=(x, row * PITCH, x + width, row * PITCH + 24)
            )
        )
        x += width + 10
    return Line(words, (x0, row * PITCH, x - 10, row * PITCH + 24), 0.0)


def _page(labels: list[tuple[str, float]]) -> list[ParaLines]:
    """A column of labels at x 380 (one paragraph, as Tesseract reads it) beside entries at
    x 440 (a paragraph each)."""
    column = ParaLines(
        _line(text, 380, row, confidence) for row, (text, confidence) in enumerate(labels)
    )
    entries = [ParaLines([_line(f"Author{row}, A. Title {row}, Journal (1991).", 440, row)])
               for row in range(len(labels))]  # fmt: skip
    return [column, *entries]


def _texts(paragraphs: list[ParaLines]) -> list[str]:
    return [line.text for para in paragraphs for line in para]


def test_labels_counting_up_are_set_alike_and_open_their_entries():
    read = [("{10}", 39), ("(11)", 51), ("{12}", 39), ("{13]", 39), ("[14]", 82)]
    paragraphs = with_entry_labels(_page(read))
    texts = _texts(paragraphs)
    assert texts == [f"[{10 + k}] Author{k}, A. Title {k}, Journal (1991)." for k in range(5)]
    lines = [line for para in paragraphs for line in para]
    assert all(line.words[0].confidence == 82 for line in lines)  # as sure as "[14]"


def test_numbers_that_do_not_count_up_are_no_labels():
    # A contents' page numbers, a column of figures, two labels only: as read.
    for labels in ([("3.", 40), ("17.", 40), ("24.", 40)], [("12", 40), ("13", 40), ("14", 40)],
                   [("[1]", 40), ("[2]", 40)]):  # fmt: skip
        paragraphs = with_entry_labels(_page(labels))
        assert [line.text for line in paragraphs[0]] == [text for text, _ in labels]
        assert [line.words[0].confidence for line in paragraphs[0]] == [40] * len(labels)


def test_a_scanned_bibliographys_labels_are_kept_with_their_entries(engine):
    """elsarticle's sample page 8, scanned and read at 240 DPI: Tesseract reads the labels
    "[10]" to "[17]" as a column apart, most of them doubtfully and as "{12}" or "(14]"; they
    were dropped as illegible, and a layout model took the labels and entries for a table."""
    image = Image.open(CORPUS / "texlive" / "1pseperateaug-p8-references-240dpi.jpg")
    page = PageImage(image=image.convert("RGB"), page_number=1, dpi=240)
    (reading,) = engine.predict_batch([page])
    openings = [m.group(1) for b in reading.blocks if (m := re.match(r"(\[\d+\]) [A-Z]", b.text))]
    assert openings == [f"[{n}]" for n in range(10, 18)], [b.text[:30] for b in reading.blocks]
