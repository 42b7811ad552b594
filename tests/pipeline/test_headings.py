"""Headings over a whole document (conversion/pipeline/headings.py), end to end on a paper
built with PyMuPDF: levels from numbering and size, front matter that is no heading, headings
run together split at their numbers, source code that is no heading, the title as the h1."""

from __future__ import annotations

import re

import pymupdf
import pytest

from conversion.pipeline.convert import ConvertOptions, convert_pdf
from models.ocr import TesseractEngine

BODY = (
    "The method we describe reads each page of the document and keeps the words in the "
    "order a reader would follow them, which is what the rest of the work relies on. "
)


def _paragraph(page: pymupdf.Page, y: float, repeat: int = 2) -> float:
    rect = pymupdf.Rect(72, y, 540, y + 400)
    left = page.insert_textbox(rect, BODY * repeat, fontsize=10, fontname="tiro")
    return y + (400 - left) + 10


def _paper(path) -> None:
    """A LaTeX-like paper: a 22 pt title over an author, an affiliation and a date at 16 pt
    (display type), sections at 12 pt and subsections at 11 pt (one size step: within 10 %),
    a TeX command printed at 13 pt, two appendix heads set on one line, and unnumbered heads
    at 12 and 11 pt."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((150, 90), "Reading Order of Printed Pages", fontsize=22, fontname="tiro")
    for y, line in ((120, "Kola O. Odeku"), (142, "Department of Law, University of Fort Hare"),
                    (164, "March 3, 2024")):  # fmt: skip
        page.insert_text((170, y), line, fontsize=16, fontname="tiro")
    y = 200
    for head, size in (("1 Introduction", 12), ("1.1 Background", 11), ("1.2 Outline", 11),
                       ("2 Method", 12), ("2.1 Data", 11)):  # fmt: skip
        page.insert_text((72, y), head, fontsize=size, fontname="tibo")
        y = _paragraph(page, y + 8)
        if head.startswith("1.2"):
            page.insert_text((72, y + 6), "\\newthought{In his later books}", fontsize=13,
                             fontname="cour")  # fmt: skip
            y = _paragraph(page, y + 22, repeat=1)
    page = doc.new_page()
    page.insert_text((72, 72), "A.1 Proofs A.2 Data", fontsize=12, fontname="tibo")
    y = _paragraph(page, 80)
    for head, size in (("Typography", 12), ("Letterspacing", 11), ("Ligatures", 11)):
        page.insert_text((72, y + 10), head, fontsize=size, fontname="tibo")
        y = _paragraph(page, y + 18)
    doc.save(path)


@pytest.fixture(scope="module")
def paper_headings(tmp_path_factory) -> list[tuple[int, str]]:
    folder = tmp_path_factory.mktemp("paper")
    _paper(folder / "paper.pdf")
    result = convert_pdf(folder / "paper.pdf", folder / "out", TesseractEngine(), ConvertOptions())
    html = result.html_path.read_text(encoding="utf-8")
    main = html[html.index("<main") :]
    return [(int(level), " ".join(text.split()))
            for level, text in re.findall(r"<h([1-6])[^>]*>(.*?)</h\1>", main)]  # fmt: skip


def _level(headings: list[tuple[int, str]], text: str) -> int:
    return next(level for level, t in headings if t == text)


def test_a_subsection_is_below_its_section_even_in_one_size_step(paper_headings):
    """ "1.1" (11 pt) under "1" (12 pt): one size cluster, but numbering says deeper; sections
    of one numbering depth keep one level."""
    assert _level(paper_headings, "1.1 Background") == _level(paper_headings, "1 Introduction") + 1
    assert _level(paper_headings, "1.2 Outline") == _level(paper_headings, "1.1 Background")
    assert _level(paper_headings, "2 Method") == _level(paper_headings, "1 Introduction")
    assert _level(paper_headings, "2.1 Data") == _level(paper_headings, "1.1 Background")


def test_the_title_is_the_h1_and_authors_affiliations_and_dates_are_no_headings(paper_headings):
    assert paper_headings[0] == (1, "Reading Order of Printed Pages")
    texts = " ".join(text for _, text in paper_headings)
    for line in ("Odeku", "University of Fort Hare", "March 3, 2024"):
        assert line not in texts
    assert _level(paper_headings, "1 Introduction") == 2


def test_headings_run_together_on_one_line_are_split_at_their_numbers(paper_headings):
    assert "A.1 Proofs" in [t for _, t in paper_headings]
    assert _level(paper_headings, "A.2 Data") == _level(paper_headings, "A.1 Proofs")


def test_a_line_of_tex_source_is_no_heading(paper_headings):
    assert not any("newthought" in text for _, text in paper_headings)


def test_unnumbered_heads_a_point_apart_on_a_text_layer_are_two_levels(paper_headings):
    """12 and 11 pt (9 % apart): a text layer gives sizes exactly, so one size step of a scan's
    measure is two levels there."""
    assert _level(paper_headings, "Letterspacing") == _level(paper_headings, "Typography") + 1
    assert _level(paper_headings, "Ligatures") == _level(paper_headings, "Letterspacing")


HEAD = re.compile(r"<h([1-6])[^>]*>(.*?)</h\1>")


def _main(doc: pymupdf.Document, folder) -> str:
    """doc converted (its text layer, Tesseract for the rest): the HTML from <main> on."""
    doc.save(folder / "doc.pdf")
    result = convert_pdf(folder / "doc.pdf", folder / "out", TesseractEngine(), ConvertOptions())
    html = result.html_path.read_text(encoding="utf-8")
    return html[html.index("<main") :]


def _page(
    doc: pymupdf.Document, heads: list[tuple[str, float, str, float]], last: tuple[str, float]
) -> None:
    """A page: two heads (text, size, font, x; at y 72 and 110), a paragraph, a bold head
    `last` (text, size), a paragraph."""
    page = doc.new_page()
    for (text, size, font, x), y in zip(heads, (72, 110), strict=True):
        page.insert_text((x, y), text, fontsize=size, fontname=font)
    y = _paragraph(page, 120)
    page.insert_text((72, y + 10), last[0], fontsize=last[1], fontname="tibo")
    _paragraph(page, y + 18)


def _converted_headings(doc: pymupdf.Document, folder) -> list[tuple[str, str]]:
    """The (level, text) of the headings in the converted document's main text."""
    return HEAD.findall(_main(doc, folder))


def test_the_first_heading_of_the_first_page_is_the_h1_whatever_is_set_larger_under_it(tmp_path):
    """A paper's title over an "Abstract" set larger: the title is the h1, the rest under it
    (the outline made them level with each other, and the title lost its h1)."""
    doc = pymupdf.open()
    title = ("Reading Order of Printed Pages", 18, "tiro", 120)
    _page(doc, [title, ("Abstract", 22, "tibo", 72)], ("1 Introduction", 12))
    heads = HEAD.findall(_main(doc, tmp_path))
    assert heads[0] == ("1", "Reading Order of Printed Pages")
    assert [level for level, _ in heads[1:]] == ["2", "3"]


def test_identical_pages_keep_identical_heading_levels(tmp_path):
    """Six identical pages, each with the title, a section and a subsection (issue 33): the
    title printed again on a later page is an h2 that opens nothing, so each page's section and
    subsection keep the levels they have on the first page (they drifted one level down on
    every later page: h3, h4)."""
    doc = pymupdf.open()
    for _ in range(6):
        heads = [("Annual Report", 24, "tibo", 72), ("Section Overview", 16, "tibo", 72)]
        _page(doc, heads, ("Details and Notes", 13))
    pages = re.split(r'<span class="pagebreak"', _main(doc, tmp_path))[1:]
    levels = [HEAD.findall(page) for page in pages]
    assert levels[0] == [("1", "Annual Report"), ("2", "Section Overview"),
                         ("3", "Details and Notes")]  # fmt: skip
    for later in levels[1:]:
        assert later == [("2", "Annual Report"), ("2", "Section Overview"),
                         ("3", "Details and Notes")]  # fmt: skip


def test_a_first_heading_set_like_the_sections_after_it_is_one_of_them(tmp_path):
    """A report of unnumbered sections all set in one size (an ODF document's "Heading 3"s):
    the first is no title over the rest but level with them (it took the h1 and the others
    went one level under it)."""
    doc = pymupdf.open()
    page = doc.new_page()
    y = 72
    for head in ("Table with rich cells", "Table with nested table", "Table with pictures"):
        page.insert_text((72, y + 10), head, fontsize=14, fontname="tibo")
        y = _paragraph(page, y + 18)
    heads = _converted_headings(doc, tmp_path)
    assert [text for _, text in heads] == [
        "Table with rich cells", "Table with nested table", "Table with pictures"
    ]  # fmt: skip
    assert len({level for level, _ in heads}) == 1
