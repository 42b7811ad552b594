"""Paragraphs cut in pieces joined again (conversion/pipeline/paragraphs.py), through assemble."""

from __future__ import annotations

from conversion.pipeline.assemble import AssembleOptions, assemble
from models.engine import PageReading, ReadBlock, Word

REST = ("attendance than in the previous year. Recycling rates rose after collections moved "
        "to the same day each week. The library extended its opening hours.")  # fmt: skip


def _kinds(blocks):
    doc = assemble([PageReading(page_number=1, blocks=blocks, width=2000, height=2800)],
                   AssembleOptions())  # fmt: skip
    return [(b.kind, b.text[:31]) for b in doc.pages[0].blocks]


def _text(text, bbox, size):
    return ReadBlock(kind="paragraph", text=text, bbox=bbox, font_size=size, layout="text")


def test_a_first_line_measured_large_for_its_initial_opens_its_paragraph():
    """A paragraph's first line read apart and measured large (its initial set high: 62 px
    over the body's 40): the next block goes on in lower case, so it is that paragraph's
    opening, no heading found by its size."""
    blocks = [_text("Methods", (175, 1477, 427, 1519), 58.0),
              _text("Several schools reported higher", (172, 1563, 954, 1609), 62.5),
              _text(REST, (169, 1617, 952, 1852), 40.3)]  # fmt: skip
    assert _kinds(blocks) == [("heading", "Methods"),
                              ("paragraph", "Several schools reported higher")]  # fmt: skip


def test_a_heading_over_a_sentence_that_opens_in_capitals_stays():
    blocks = [_text("Several schools reported higher", (172, 1563, 954, 1609), 62.5),
              _text("A" + REST[1:], (169, 1617, 952, 1852), 40.3)]  # fmt: skip
    assert [kind for kind, _ in _kinds(blocks)] == ["heading", "paragraph"]


def _lines(lines, x, y, size=40.0):
    """A paragraph of lines (text, indent in px), each line's words boxed where they stand."""
    words, top = [], y
    for text, indent in lines:
        left = x + indent
        for part in text.split():
            words.append(Word(part, 95.0, (left, top, left + 25 * len(part), top + size)))
            left += 25 * (len(part) + 1)
        top += size * 1.5
    right = max(w.bbox[2] for w in words)
    text = " ".join(w.text for w in words)
    return ReadBlock(kind="paragraph", text=text, bbox=(x, y, right, top), words=words,
                     font_size=size, layout="text")  # fmt: skip


def test_a_typescripts_indented_paragraph_is_not_run_into_the_one_before():
    """A typescript's full stop read as a comma ("amour ,") ends no sentence; the next block,
    same size and weight, opens with an indented first line: a paragraph of its own. The
    same block without the indent is the rest of a cut paragraph, joined as before."""
    first = _lines([("Plus blancs et plus gonfles de tresors que les", 150),
                    ("tentes d'un emir , tes seins , sont les tentes", 0),
                    ("de mon amour ,", 0)], 300, 400)  # fmt: skip
    second = [("Lorsque je cache , a midi , mon visage dans ta", 150),
              ("chevelure et que je cherche ton regard .", 0)]  # fmt: skip
    indented = _kinds([first, _lines(second, 300, 700)])
    assert [text for _, text in indented] == ["Plus blancs et plus gonfles de ",
                                              "Lorsque je cache , a midi , mon"]  # fmt: skip
    flush = [(text, 0) for text, _ in second]
    assert len(_kinds([first, _lines(flush, 300, 700)])) == 1
    # One indented line under the paragraph (Tesseract's block of a new paragraph's first line).
    assert len(_kinds([first, _lines(second[:1], 300, 700)])) == 2


COLUMN_ONE = ("Dynamic languages such as JavaScript, Python, and Ruby are popular since they are "
              "expressive, accessible to non-experts, and make deployment as easy as")  # fmt: skip
COPYRIGHT = ("Permission to make digital or hard copies of all or part of this work for personal "
             "or classroom use is granted without fee.")  # fmt: skip
COLUMN_TWO = ("distributing a single source file. JavaScript is used for the application logic "
              "of browser-based productivity applications.")  # fmt: skip


def test_small_print_at_a_columns_foot_moves_after_the_sentence_that_goes_on_in_the_next():
    """A two-column paper's first page (pdfjs issue15012): its first column ends mid-sentence
    over the ACM copyright block (14.5 px under 18.7), and the sentence goes on at the head of
    the second column. The block was run into the paragraph (its size within a quarter of the
    body's, no sentence end before it) and stood between the sentence's halves; it now follows
    them, its own paragraphs."""
    blocks = [_text(COLUMN_ONE + " " + REST, (112, 1218, 610, 1317), 18.7),
              _text(COPYRIGHT, (112, 1390, 610, 1470), 14.5),
              _text("PLDI'09, June 15-20, 2009, Dublin, Ireland.", (112, 1477, 464, 1507), 14.5),
              _text(COLUMN_TWO, (660, 704, 1158, 803), 18.7)]  # fmt: skip
    blocks[0].text = COLUMN_ONE  # the paragraph ends mid-sentence at the column's foot
    assert [text for _, text in _kinds(blocks)] == [
        COLUMN_ONE[:31], COLUMN_TWO[:31], COPYRIGHT[:31], "PLDI'09, June 15-20, 2009, Dubl"
    ]  # fmt: skip
