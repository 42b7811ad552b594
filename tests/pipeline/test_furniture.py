"""Page furniture kept out of the text (conversion/pipeline/furniture.py), over an old book's
page as the OCR engine reads it where the layout model calls its running head text: the head
read in one line with its page number and chapter, a revision label in the foot."""

from __future__ import annotations

from conversion.pipeline.assemble import AssembleOptions, assemble
from models.engine import PageReading, ReadBlock, Word

BODY = "The farmer who keeps his fields in good heart will plough them deep. " * 4


def _line(words: list[tuple[str, float]], y: float, height: float = 40.0) -> ReadBlock:
    """One line of words, each (text, left edge), 22 px a letter."""
    boxed = [Word(text=t, confidence=95.0, bbox=(x, y, x + 22 * len(t), y + height))
             for t, x in words]  # fmt: skip
    return ReadBlock(kind="paragraph", text=" ".join(t for t, _ in words), layout="text",
                     bbox=(boxed[0].bbox[0], y, boxed[-1].bbox[2], y + height),
                     words=boxed, font_size=height)  # fmt: skip


def _page(*extra: ReadBlock):
    body = [
        ReadBlock(
            kind="paragraph", text=BODY, layout="text", bbox=(220, y, 1900, y + 400), font_size=40.0
        )  # fmt: skip
        for y in (450, 950, 1450)
    ]
    reading = PageReading(page_number=1, blocks=[*extra[:1], *body, *extra[1:]], width=2100,
                          height=3000)  # fmt: skip
    return assemble([reading], AssembleOptions()).pages[0]


def test_a_running_head_read_in_one_line_with_its_page_number_and_chapter_is_furniture():
    """ "400 BRITISH HUSBANDRY. [Ch. XIX." at 10 % of the height, the number at the margin and
    the head centred, read as one line of text."""
    head = _line([("400", 220), ("BRITISH", 800), ("HUSBANDRY.", 980), ("[Ch.", 1700),
                  ("XIX.", 1800)], 300)  # fmt: skip
    page = _page(head)
    assert [b.kind for b in page.blocks] == ["page_header", "paragraph", "paragraph", "paragraph"]


def test_a_numbered_section_at_the_top_of_a_page_stays_text():
    """ "2 Methods" a space from its number is no running head."""
    section = _line([("2", 220), ("Methods", 270), ("of", 440), ("tillage", 510)], 300)
    page = _page(section)
    assert page.blocks[0].kind != "page_header" and "Methods" in page.blocks[0].text


def test_a_revision_label_in_the_foot_is_furniture():
    label = _line([("Revision:", 1500), ("2.4", 1720)], 2900)
    page = _page(_line([("Fields", 220), ("and", 380), ("crops", 480)], 300), label)
    assert page.blocks[-1].kind == "page_footer"


def test_a_title_in_display_type_with_a_figure_apart_is_no_running_head():
    """A paper's title behind its logo, the logo read as a digit set apart: display type (1.5
    times the body) is a title, not a running head."""
    title = _line([("3", 220), ("Accelerating", 420), ("the", 700), ("Science", 790)], 300,
                  height=60.0)  # fmt: skip
    assert _page(title).blocks[0].kind != "page_header"


def test_a_zero_apart_from_the_first_line_is_no_page_number():
    """Pages count from 1: a "0" (a logo's ring read as a digit) makes no running head."""
    line = _line([("0", 220), ("Accelerating", 420), ("the", 700), ("Science", 790)], 300)
    assert _page(line).blocks[0].kind != "page_header"
