"""Page furniture kept out of the text (conversion/pipeline/furniture.py), over an old book's
page as the OCR engine reads it where the layout model calls its running head text: the head
read in one line with its page number and chapter, a revision label in the foot; and over a
letter whose letterhead the layout model calls a page header: it is text."""

from __future__ import annotations

from dataclasses import replace

import pytest
from bs4 import BeautifulSoup

from conversion.pipeline.assemble import AssembleOptions, assemble
from conversion.pipeline.convert import ConvertOptions, convert_pdf
from models.engine import PageReading, ReadBlock, Word
from models.ocr import TesseractEngine
from tests.conftest import CORPUS, image_to_pdf

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


# -- a letterhead is the page's text -----------------------------------------------------------
def _header(lines: list[list[tuple[str, float]]], y: float, height: float = 40.0) -> ReadBlock:
    """A block the layout model called a page header: lines of words, each (text, left edge)."""
    rows = [_line(words, y + i * 1.2 * height, height) for i, words in enumerate(lines)]
    words = [w for row in rows for w in row.words]
    return ReadBlock(kind="page_header", text=" ".join(r.text for r in rows), layout="page-header",
                     bbox=(min(r.bbox[0] for r in rows), y, max(r.bbox[2] for r in rows),
                           rows[-1].bbox[3]), words=words, font_size=height)  # fmt: skip


LETTERHEAD = [[("OUVROIR", 220), ("DE", 420)], [("LITTERATURE", 220)], [("POTENTIELLE", 220)],
              [("(O.", 220), ("Li.", 300), ("Po.)", 380)]]  # fmt: skip


def _kinds(page) -> dict[str, str]:
    return {b.text: b.kind for b in page.blocks}


def test_a_letterhead_and_the_line_beside_it_are_text_not_running_heads():
    """A letter's letterhead (four lines at the body's size, the layout model's page header)
    and the circular's number beside its last line are read as text; the archive's folio
    number in the corner stays a page number."""
    letterhead = _header(LETTERHEAD, 120)
    beside = _header([[("Circulaire", 1400), ("n°2", 1650)]], 300)
    folio = _header([[("001", 1900)]], 150)
    kinds = _kinds(_page(letterhead, folio, beside))
    assert kinds[letterhead.text] in ("paragraph", "heading")
    assert kinds[beside.text] in ("paragraph", "heading")
    assert "001" not in kinds  # the page's label, out of the text


def test_a_letterhead_read_as_text_beside_a_folio_number_is_no_running_head():
    """Three lines the layout model calls text, a folio number in the corner on their row: a
    running head beside its page number is a line or two, this is the letter's heading."""
    letterhead = replace(_header(LETTERHEAD[:3], 120), kind="paragraph", layout="text")
    date = _line([("22", 1300), ("décembre", 1400), ("1960.", 1650)], 400)
    body = [
        ReadBlock(kind="paragraph", text=BODY, layout="text", bbox=(220, y, 1900, y + 400),
                  font_size=40.0)
        for y in (600, 1100, 1600)
    ]  # fmt: skip
    blocks = [letterhead, _line([("001", 1900)], 170), date, *body]
    page = assemble([PageReading(page_number=1, blocks=blocks, width=2100, height=3000)],
                    AssembleOptions()).pages[0]  # fmt: skip
    assert _kinds(page)[letterhead.text] in ("paragraph", "heading")


def test_a_running_head_beside_a_stamp_up_the_margin_stays_furniture():
    """Over a letterhead, a running head shares its row only with a library's stamp printed up
    the margin: a stamp is no text to stand apart from."""
    head = _header([[("ARCHIVES", 1300), ("NATIONALES", 1520)]], 30)
    stamp = ReadBlock(kind="paragraph", text="Downloaded from https://archives.example.org",
                      layout="text", bbox=(2000, 20, 2040, 2900), font_size=40.0)  # fmt: skip
    kinds = _kinds(_page(head, _header(LETTERHEAD, 120), stamp))
    assert kinds[head.text] == "page_header"


def test_a_one_line_running_head_apart_stays_furniture():
    head = _header([[("ANNALS", 800), ("OF", 990), ("AGRICULTURE", 1060)]], 150)
    assert _kinds(_page(head))[head.text] == "page_header"


def test_a_running_head_read_with_a_stamp_up_the_margin_stays_furniture():
    """ "Transition in Turner syndrome, 2015, Vol. 113" read in one block with the "Downloaded
    from" stamp printed up the page's margin (pdftotext_two_column_issue p3): one line across,
    the stamp's words set upright, no letterhead."""
    head = _header([[("Transition", 600), ("in", 850), ("Turner", 920), ("syndrome,", 1080)]], 150)
    stamp = [
        Word(text=t, confidence=95.0, bbox=(2000, y, 2040, y + 22 * len(t)))
        for t, y in (("Downloaded", 150), ("from", 400), ("https://academic.oup.com", 520))
    ]
    head = ReadBlock(kind="page_header", text=f"{head.text} Downloaded from https://academic.oup.com",
                     layout="page-header", bbox=(600, 150, 2040, 1048),
                     words=[*head.words, *stamp], font_size=40.0)  # fmt: skip
    assert _kinds(_page(head))[head.text] == "page_header"


def test_a_journal_masthead_in_small_print_stays_furniture():
    """Three lines over the text in print smaller than the body: a journal's masthead."""
    masthead = _header([[("Journal", 220), ("of", 400)], [("Vol.", 220), ("5", 330)],
                        [("ISSN", 220), ("2039-2117", 350)]], 120, height=28.0)  # fmt: skip
    assert _kinds(_page(masthead))[masthead.text] == "page_header"


def test_a_letterhead_on_every_page_stays_furniture():
    """Printed on each page of a letter, a letterhead is furniture like a running head."""
    pages = [
        PageReading(page_number=n, width=2100, height=3000,
                    blocks=[_header(LETTERHEAD, 120),
                            ReadBlock(kind="paragraph", text=BODY, layout="text",
                                      bbox=(220, 450, 1900, 850), font_size=40.0)])
        for n in (1, 2)
    ]  # fmt: skip
    doc = assemble(pages, AssembleOptions())
    assert all(p.blocks[0].kind == "page_header" for p in doc.pages)


@pytest.mark.slow
def test_a_typewritten_letters_letterhead_is_read_as_text(tmp_path):
    """typewritten-fr 10010002v (tests/resources/corpus/PROVENANCE.md): the layout model calls
    the letterhead "OUVROIR DE LITTERATURE POTENTIELLE (O. Li. Po.)" and "Circulaire n°2"
    beside it page headers; they are the letter's first lines, in its reading text."""
    pdf = image_to_pdf(CORPUS / "typewritten-fr-letterhead.jpg", tmp_path / "letter.pdf")
    result = convert_pdf(pdf, tmp_path / "out", TesseractEngine(), ConvertOptions())
    main = BeautifulSoup(result.html_path.read_text(), "html.parser").find("main")
    for furniture in main.select(".furniture"):
        furniture.decompose()
    text = " ".join(main.get_text(" ").split())
    assert "OUVROIR DE LITTERATURE POTENTIELLE" in text
    assert "Circulaire" in text


def test_a_section_head_at_the_foot_the_layout_called_a_footer_is_a_heading():
    """A generated AMS paper's "2.2. Hyperparameters.", its section's text on the next page:
    numbered, bold, at the body's size. The same line in regular weight stays the footer."""

    def kinds(bold: bool) -> list[tuple[str, str]]:
        head = _line([("2.2.", 220), ("Hyperparameters.", 340)], 2500)
        head.kind, head.layout, head.bold = "page_footer", "page-footer", bold
        page = _page(head)
        return [(b.kind, b.text) for b in page.blocks if "Hyper" in b.text]

    assert kinds(bold=True) == [("heading", "2.2. Hyperparameters.")]
    assert kinds(bold=False) == [("page_footer", "2.2. Hyperparameters.")]
