"""A floor under every page (models.reading.floor): what the structured page lost of its plain
reading comes back where it stood, with a finding; scraps do not; an empty page becomes its
plain reading; a handwritten page keeps only the words read surely."""

from __future__ import annotations

from dataclasses import replace

import pymupdf

from models.engine import ReadBlock, Word
from models.reading.floor import (
    FALLBACK_CODE,
    RESTORED_CODE,
    PlainLine,
    fallback_finding,
    layer_plain_lines,
    plain_blocks,
    tokens,
    with_floor,
    word_recall,
)
from models.reading.page import ReadingPage
from models.reading.params.floor import FLOOR


def line(text: str, y: float, *, paragraph: int, confidence: float = 92.0) -> PlainLine:
    words, x = [], 100.0
    for token in text.split():
        words.append(
            Word(text=token, confidence=confidence, bbox=(x, y, x + 20 * len(token), y + 30))
        )
        x += 20 * len(token) + 15
    return PlainLine(tuple(words), (100.0, y, x, y + 30), paragraph)


def block(lines: list[PlainLine]) -> ReadBlock:
    words = [w for ln in lines for w in ln.words]
    box = (100.0, lines[0].bbox[1], max(ln.bbox[2] for ln in lines), lines[-1].bbox[3])
    return ReadBlock(kind="paragraph", text=" ".join(w.text for w in words), bbox=box, words=words)


def page_of(blocks: list[ReadBlock]) -> ReadingPage:
    return ReadingPage(blocks=blocks, regions=[], width=2500, height=3300, dpi=300, source="ocr")


PLAIN = [
    line("The first paragraph of the letter", 300, paragraph=0),
    line("runs over two lines of text", 340, paragraph=0),
    line("CLIENT NO.: L8557.002 account", 500, paragraph=1),
    line("The last paragraph closes the letter", 700, paragraph=2),
]


def test_a_line_a_stage_dropped_comes_back_in_place_with_a_finding():
    kept = [block(PLAIN[:2]), block(PLAIN[3:])]
    page = with_floor(page_of(kept), PLAIN, page_number=3)
    assert [b.text for b in page.blocks] == [
        kept[0].text,
        "CLIENT NO.: L8557.002 account",
        kept[1].text,
    ]
    (finding,) = page.findings
    assert finding["code"] == RESTORED_CODE and finding["level"] == "needs_review"
    assert "Page 3" in finding["message"] and "a line" in finding["message"]
    assert "CLIENT NO.: L8557.002 account" in finding["message"]  # what to look for


def test_a_scrap_restored_is_listed_as_a_warning_not_routed():
    """One or two words back (a table rule's "0 Tot") are in the text all the same: a warning,
    not a page to review (issue 31: lots_of_sci_tables p2 scan passed every test, routed)."""
    plain = [*PLAIN, line("0 Tot", 900, paragraph=3)]
    kept = [block(PLAIN[:1]), block(PLAIN[1:2]), block(PLAIN[2:3]), block(PLAIN[3:])]
    page = with_floor(page_of(kept), plain, page_number=1,
                      params=replace(FLOOR, restore_below_recall_share=1.0))  # fmt: skip
    (finding,) = page.findings
    assert finding["code"] == RESTORED_CODE and finding["level"] == "warning"
    assert page.blocks[-1].text == "0 Tot"


def test_a_page_that_kept_its_words_is_left_as_it_is():
    kept = [block(PLAIN[:2]), block(PLAIN[2:3]), block(PLAIN[3:])]
    page = with_floor(page_of(kept), PLAIN, page_number=1)
    assert page.blocks == kept and not page.findings
    assert word_recall(kept, PLAIN) == 1.0


def test_lines_lost_before_any_kept_one_go_before_the_first_kept_block():
    kept = [block(PLAIN[2:3]), block(PLAIN[3:])]
    page = with_floor(page_of(kept), PLAIN, page_number=1)
    assert page.blocks[0].text == "The first paragraph of the letter runs over two lines of text"
    assert page.blocks[1:] == kept


def test_an_empty_page_becomes_its_plain_reading():
    page = with_floor(page_of([]), PLAIN, page_number=2)
    assert [b.text for b in page.blocks] == [b.text for b in plain_blocks(PLAIN)]
    assert len(page.blocks) == 3 and "4 lines" in page.findings[0]["message"]


def test_scraps_stay_out():
    """Strokes read as letters: no word of two letters, or read far below the page's text."""
    specks = line("l i , |", 600, paragraph=5, confidence=90)
    doubtful = line("SA ar Es te Se", 650, paragraph=6, confidence=30)
    plain = [*PLAIN, specks, doubtful]
    kept = [block(PLAIN[:2]), block(PLAIN[2:3]), block(PLAIN[3:])]
    page = with_floor(page_of(kept), plain, page_number=1)
    assert page.blocks == kept and not page.findings


def test_a_lost_line_comes_back_with_its_words_read_surely():
    """A scanned tax form's line "Income 7 Wages, tips, etc. Attach" whose dot leader read as
    "Spite eee noms" at 0 to 15: the line, 44 on average, stayed out as a scrap. Its words read
    as surely as the page's text come back; the leader's do not."""
    income = line("Income 7 Wages, tips, etc. Attach Spite eee noms iene eho", 600, paragraph=5)
    words = [replace(w, confidence=c) for w, c in
             zip(income.words, [95, 91, 77, 97, 97, 97, 0, 0, 15, 12, 0], strict=True)]  # fmt: skip
    income = replace(income, words=tuple(words))
    kept = [block(PLAIN[:2]), block(PLAIN[2:3]), block(PLAIN[3:])]
    page = with_floor(page_of(kept), [*PLAIN, income], page_number=1)
    assert page.blocks[-1].text == "Income 7 Wages, tips, etc. Attach"
    assert page.findings[0]["code"] == RESTORED_CODE
    # A line read surely enough as a whole comes back whole, its doubtful word with it.
    doubtful = zip(PLAIN[2].words, [92, 92, 50, 92], strict=True)
    client = replace(PLAIN[2], words=tuple(replace(w, confidence=c) for w, c in doubtful))
    kept = [block(PLAIN[:2]), block(PLAIN[3:])]
    page = with_floor(page_of(kept), [*PLAIN[:2], client, PLAIN[3]], page_number=1)
    assert page.blocks[1].text == "CLIENT NO.: L8557.002 account"


def test_a_line_running_out_of_a_figure_keeps_its_words_beside_it():
    """A drawing's strokes read into the line of text beside it ("Saas) , says," with its
    centre in the figure, ocrmypdf c02-22.pdf): its words inside the figure are the figure's,
    those outside are text the page lost, and come back."""
    run = line("Saaaaaaaaaaas) ,~~~~~~~~~~~~~~ says, and then he went home", 900, paragraph=4)
    # The figure holds "Saas) , says," and the line's centre.
    figure = ReadBlock(kind="figure", bbox=(0.0, 850.0, run.words[3].bbox[0] - 5, 1000.0))
    centre = (run.bbox[0] + run.bbox[2]) / 2
    assert figure.bbox[2] >= centre
    kept = [block(PLAIN[:2]), block(PLAIN[2:3]), block(PLAIN[3:]), figure]
    page = with_floor(page_of(kept), [*PLAIN, run], page_number=1)
    assert "and then he went home" in [b.text for b in page.blocks]


def test_a_figure_over_most_of_the_page_gives_its_words_back_as_text():
    """A handwritten letter Tesseract took for one picture, its printed letterhead read
    surely inside (realworld handwriting_bad_ocr.pdf p1): no figure's labels, the page's text."""
    letterhead = line("Miami Beach Florida", 200, paragraph=0, confidence=95)
    page_picture = ReadBlock(kind="figure", bbox=(0.0, 0.0, 2500.0, 3000.0),
                             words=list(letterhead.words))  # fmt: skip
    page = with_floor(page_of([page_picture]), [letterhead], page_number=1, min_confidence=80)
    assert [b.text for b in page.blocks if b.kind == "paragraph"] == ["Miami Beach Florida"]
    assert [b.words for b in page.blocks if b.kind == "figure"] == [[]]  # said once, as text


def test_a_handwritten_page_keeps_only_the_words_read_surely():
    sure = FLOOR.unreadable_keep_confidence
    letterhead = line("Miami Beach Florida", 200, paragraph=0, confidence=sure + 20)
    scrawl = line("Wecdroida eval", 260, paragraph=1, confidence=sure - 10)
    mixed = PlainLine(letterhead.words + scrawl.words, letterhead.bbox, 0)
    page = with_floor(page_of([]), [mixed, scrawl], page_number=1, min_confidence=sure)
    assert [b.text for b in page.blocks] == ["Miami Beach Florida"]


def test_a_layer_line_drawn_twice_is_one_plain_line():
    """A shadow: the same words again, shifted a little; the structure keeps them once."""
    words = [
        (72, 72, 120, 84, "Shadowed", 0, 0, 0),
        (122, 72, 160, 84, "title", 0, 0, 1),
        (73, 73, 121, 85, "Shadowed", 1, 0, 0),
        (123, 73, 161, 85, "title", 1, 0, 1),
        (72, 100, 120, 112, "Body", 2, 0, 0),
    ]

    def to_pixels(box):
        return tuple(pymupdf.Rect(box) * 2)

    plain = layer_plain_lines(words, to_pixels)
    assert [ln.text for ln in plain] == ["Shadowed title", "Body"]
    assert plain[0].bbox == (144, 144, 320, 168)


def test_the_fallback_finding_says_the_text_is_complete_but_not_the_layout():
    finding = fallback_finding(4)
    assert finding["code"] == FALLBACK_CODE and finding["level"] == "needs_review"
    assert "Page 4" in finding["message"] and "internal error" in finding["message"]


def test_words_compare_without_accents_spacing_or_composed():
    """A text layer's plain words keep LaTeX's spacing accents; the reader composes them."""
    assert tokens("Jim´enez Min´aˇc ﬁnd") == tokens("Jiménez Mináč find")


def test_the_half_of_a_word_a_hyphen_cut_is_no_line_lost():
    """A text layer's paragraph whose last line holds the end of a hyphenated word: the stages
    mend "lim-" "ited." into "limited.", and the half "ited." came back as a paragraph of its
    own beside it (a line "lost": its one token in no block). A dropped line still comes back."""
    plain = [
        line("the training data are lim-", 300, paragraph=0),
        line("ited.", 340, paragraph=0),
        line("CLIENT NO.: L8557.002 account", 500, paragraph=1),
    ]
    mended = block(plain[:2])
    mended.words = [*plain[0].words[:-1], Word("limited.", 100.0, plain[1].words[0].bbox)]
    mended.text = "the training data are limited."
    page = with_floor(page_of([mended]), plain, page_number=1)
    assert [b.text for b in page.blocks] == [mended.text, "CLIENT NO.: L8557.002 account"]
    assert word_recall([mended], plain[:2]) == 1.0
