"""Headings over a whole document (conversion/pipeline/headings.py), end to end on a paper
built with PyMuPDF: levels from numbering and size, front matter that is no heading, headings
run together split at their numbers, source code that is no heading, the title as the h1."""

from __future__ import annotations

import re
from functools import partial

import pymupdf
import pytest

from conversion.pipeline.assemble import AssembleOptions, assemble
from conversion.pipeline.convert import ConvertOptions, convert_pdf
from conversion.pipeline.document import Block, Page, Span
from conversion.pipeline.heading_numbers import mended_roman_numbers
from models.engine import PageReading, ReadBlock, Word
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


# -- levels and kinds from page readings (assemble alone) -----------------------------------------
def _read(kind, text, y, size, layout="section-header", x=200):
    return ReadBlock(kind=kind, text=text, bbox=(x, y, x + 40 * len(text), y + size),
                     font_size=size, layout=layout)  # fmt: skip


def _body(y):
    return _read("paragraph", BODY * 2, y, 41.5, layout="text")


def _document(pages: list[tuple[str, list[ReadBlock]]]):
    readings = [PageReading(page_number=n, blocks=blocks, width=2550, height=3300, source=source)
                for n, (source, blocks) in enumerate(pages, start=1)]  # fmt: skip
    return assemble(readings, AssembleOptions())


def _levels(doc) -> list[tuple[str, int | None]]:
    return [(b.text, b.level) for b in doc.blocks() if b.kind == "heading"]


def test_exact_sizes_stay_two_levels_when_another_page_was_scanned():
    """A born-digital book with one page read by OCR (its text layer not trusted): the text
    layer's 12 and 11 pt heads (50 and 45.5 px, within a scan's 10 % step) stay section and
    subsection; the one scanned page once made every size in the document a measured one."""
    doc = _document([
        ("text_layer", [_read("heading", "The Design of Books", 300, 86), _body(450),
                        _read("heading", "Page Layout", 900, 50), _body(1000),
                        _read("heading", "Headings", 1500, 45.5), _body(1600)]),
        ("ocr", [_read("heading", "Sidenotes", 300, 49.5), _body(400)]),
    ])  # fmt: skip
    assert _levels(doc) == [("The Design of Books", 1), ("Page Layout", 2), ("Headings", 3),
                            ("Sidenotes", 2)]  # fmt: skip


def test_a_heading_set_smaller_than_the_body_is_small_print():
    """The layout model's section headers set under the body's size in regular weight (an index
    entry, a quoted error message), or at about its size opening in lower case (a list's item
    that lost its bullet), are text; a small numbered head or one in capitals stays."""
    doc = _document([
        ("text_layer", [_read("heading", "Captions", 300, 50), _body(400),
                        _read("heading", "Error: Too many unprocessed floats", 900, 31.8),
                        _read("heading", "environments", 1000, 37.5), _body(1100),
                        _read("heading", "2.1 Notes", 1600, 37.5), _body(1700),
                        _read("heading", "ACKNOWLEDGEMENTS", 2300, 33), _body(2400),
                        _read("heading", "chngpage or changepage", 2700, 41.5),
                        _read("heading", "Discussion list", 2800, 41.5), _body(2900)]),
    ])  # fmt: skip
    assert [text for text, _ in _levels(doc)] == [
        "Captions", "2.1 Notes", "ACKNOWLEDGEMENTS", "Discussion list"
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("source", "title", "body", "abstract", "head"),
    [("text_layer", 36, 25, 18.75, 30), ("ocr", 57.6, 40.3, 30.6, 45.8)],
)
def test_a_short_line_at_the_size_of_the_body_text_is_no_heading_when_smaller_text_outweighs_it(
    source, title, body, abstract, head
):
    """A paper's one first page (pdfjs issue6132, born-digital and scanned): its abstract,
    set at 9 pt, holds more characters than its 12 pt body, so the body's size measured 9 pt
    and every short 12 pt line was "larger": "To appear in Journal of Cryptology" an h2, the
    keywords an h3. A size that carries a quarter of the page's prose is body text (exactly
    on a text layer; within 6 % as a scan measures it: 40.3 px both, the abstract 30.6)."""
    doc = _document([
        (source, [_read("heading", "Efficient Arithmetic in Finite Fields", 150, title),
                  _read("paragraph", "To appear in Journal of Cryptology", 460, body,
                        layout="text"),
                  _read("paragraph", BODY * 9, 530, abstract, layout="text"),
                  _read("heading", "Keywords", 870, head),
                  _read("paragraph", "finite fields, fast arithmetic, binomials", 930, body,
                        layout="text"),
                  _read("heading", "1 Introduction", 1010, head),
                  _read("paragraph", BODY * 5, 1080, body, layout="text")]),
    ])  # fmt: skip
    assert [text for text, _ in _levels(doc)] == [
        "Efficient Arithmetic in Finite Fields", "Keywords", "1 Introduction"
    ]  # fmt: skip


def test_a_title_in_capitals_is_no_prose_size_on_a_title_page_alone():
    """A thesis's title page scanned alone (hithesis's example p. 5, an unseen tune page): the
    title in capitals at 1.6 times the size of the lines under it holds 30 % of the page's
    characters, so its size passed for the prose's and the title stayed a paragraph. Lines in
    capitals are no prose; the abstract's rule above still holds for sentences."""

    def line(text, y, size, height=None):
        return ReadBlock(kind="paragraph", text=text, bbox=(350, y, 1650, y + (height or size)),
                         font_size=size, layout="text")  # fmt: skip

    title = "RESEARCH ON KEY TECHNOLOGIES OF PARTIAL POROUS EXTERNALLY PRESSURIZED GAS BEARING"
    doc = _document([
        ("ocr", [line("Classified Index: TM301.2 U.D.C: 62-5", 314, 38.9, 94),
                 line("Dissertation for the Doctoral Degree in Engineering", 718, 56.9),
                 line(title, 1052, 72.2, 243),
                 line("Candidate: Yu Dongmei Supervisor: Professor XXX", 1693, 44.4, 129),
                 line("Degree-Conferring-Institution: Harbin Institute of Technology", 2304,
                      44.4)]),
    ])  # fmt: skip
    assert [text for text, _ in _levels(doc)] == [title]


def _scanned(text, y, size, heights):
    """A scanned heading: the reader's size (`size`), its words `heights` tall."""
    words, x = [], 200
    for word, height in zip(text.split(), heights, strict=True):
        words.append(Word(word, 95.0, (x, y, x + 30 * len(word), y + height), known=True))
        x += 30 * (len(word) + 1)
    return ReadBlock(kind="heading", text=text, bbox=(200, y, x, y + max(heights)),
                     font_size=size, words=words, layout="section-header")  # fmt: skip


def test_scanned_heads_of_one_style_are_one_level_whatever_their_letters():
    """A scanned book's sections (12 pt, 41 px at 244 dpi) measured by their letters: "Page
    Layout" descends, "Sidenotes" does not, "References" may (an italic "f"): each its own
    size by the reader (40, 41.7, 55.6 px), one level here. "References" once ranked between
    chapter and section and pushed the next section a level down."""
    body = ReadBlock(kind="paragraph", text=BODY * 2, bbox=(200, 0, 2000, 400), font_size=34.7,
                     layout="text")  # fmt: skip
    doc = _document([
        ("ocr", [_scanned("The Design of Books", 300, 84.7, (52, 68, 70, 52)), body]),
        ("ocr", [_scanned("Page Layout", 300, 40.0, (38.5, 38.5)), body,
                 _scanned("Sidenotes", 900, 41.7, (30,)), body,
                 _scanned("References", 1500, 55.6, (40,)), body,
                 _scanned("Document Class Options", 2100, 40.3, (28, 30, 39)), body]),
    ])  # fmt: skip
    assert _levels(doc) == [("The Design of Books", 1), ("Page Layout", 2), ("Sidenotes", 2),
                            ("References", 2), ("Document Class Options", 2)]  # fmt: skip


def test_a_scanned_references_head_after_an_appendix_subsection_is_a_section():
    """ "References" (its "f" may descend: 42.6 to 55.6 px) after an appendix's subsection: the
    middle of its range lies nearer the subsections' 47.2 px than the sections' 55.6 px, and it
    came out a level under "A.1. Lemma". A paper's back matter stands at its sections' level."""
    body = ReadBlock(kind="paragraph", text=BODY * 2, bbox=(200, 0, 2000, 400), font_size=34.7,
                     layout="text")  # fmt: skip
    doc = _document([
        ("ocr", [_scanned("1. Introduction", 300, 40.0, (40, 40)), body,
                 _scanned("1.1. Data", 900, 34.0, (34, 34)), body]),
        ("ocr", [_scanned("A. Proofs", 300, 40.0, (40, 40)), body,
                 _scanned("A.1. Lemma", 900, 34.0, (34, 34)), body,
                 _scanned("References", 1500, 40.0, (40,)), body]),
    ])  # fmt: skip
    assert _levels(doc) == [("1. Introduction", 1), ("1.1. Data", 2), ("A. Proofs", 1),
                            ("A.1. Lemma", 2), ("References", 1)]  # fmt: skip


def test_a_roman_number_a_scan_misread_is_mended():
    """IEEE's "III. CONCLUSION" read as "Ill CONCLUSION": its number lost, its text wrong."""
    body = ReadBlock(kind="paragraph", text=BODY * 2, bbox=(200, 0, 2000, 400), font_size=34.7,
                     layout="text")  # fmt: skip
    heads = ["I. INTRODUCTION", "II. METHOD", "Ill CONCLUSION", "1. Sampling"]
    doc = _document([
        ("ocr", [block for y, text in zip((300, 900, 1500, 2100), heads, strict=True)
                 for block in (_scanned(text, y, 40.0, (40,) * len(text.split())), body)]),
    ])  # fmt: skip
    assert [text for text, _ in _levels(doc)] == [
        "I. INTRODUCTION", "II. METHOD", "III. CONCLUSION", "1. Sampling"
    ]  # fmt: skip


def test_a_roman_number_misread_in_a_span_of_its_own_is_mended():
    """The reader may give the number a span of its own ("Ill. " then "CONCLUSION")."""
    pages = [Page(number=1, width=2550, height=3300, source="ocr", blocks=[
        Block(kind="heading", spans=[Span(text)]) for text in ("I. INTRODUCTION", "II. METHOD")
    ] + [Block(kind="heading", spans=[Span("Ill. "), Span("CONCLUSION")])])]  # fmt: skip
    mended_roman_numbers(pages)
    assert pages[0].blocks[-1].text == "III. CONCLUSION"


def _line(kind: str, text: str, y: float, size: float = 40.0) -> ReadBlock:
    return ReadBlock(kind=kind, text=text, bbox=(200, y, 1800, y + (size if kind != "paragraph"
                     or len(text) < 60 else 6 * size)), font_size=size, layout="text")  # fmt: skip


def _assembled_lines(blocks: list[ReadBlock]) -> list[tuple[str, str, int | None]]:
    doc = assemble([PageReading(page_number=1, blocks=blocks, width=2000, height=3000)],
                   AssembleOptions())  # fmt: skip
    return [(b.kind, b.text, b.level) for b in doc.pages[0].blocks]


def test_a_line_numbered_as_the_next_section_is_a_heading_but_a_numbered_list_is_not():
    """A scan's subsubsection head in bold at the body's size, read as text: "2.2.2
    Preprocessing" after the heading "2.2.1 Large Corpora" carries the next number, so it is
    a heading, level with it. "2. Evaluate the model" after "1. Train the model" under "1
    Introduction" counts a list: no heading."""
    body = BODY * 3
    blocks = _assembled_lines([
        _line("heading", "1 Introduction", 100, 56), _line("paragraph", body, 160),
        _line("paragraph", "1. Train the model", 420),
        _line("paragraph", "2. Evaluate the model", 470),
        _line("heading", "2 Method", 600, 56), _line("paragraph", body, 660),
        _line("heading", "2.2.1 Large Corpora", 920, 40), _line("paragraph", body, 980),
        _line("paragraph", "2.2.2 Preprocessing", 1240), _line("paragraph", body, 1300),
    ])  # fmt: skip
    kinds = {text: (kind, level) for kind, text, level in blocks}
    assert kinds["2.2.2 Preprocessing"] == ("heading", kinds["2.2.1 Large Corpora"][1])
    assert kinds["2. Evaluate the model"][0] == "paragraph"


def test_an_appendixs_lines_numbered_next_are_its_headings():
    """A scanned ACM appendix: "A PROOFS" is a heading, and "A.1 Notation", "B DATASET
    DETAILS" and "B.1 Datasets", read as text, carry the next numbers. A line opening with
    "A" before the appendix counts as no number."""
    body = BODY * 3
    blocks = _assembled_lines([
        _line("heading", "6 CONCLUSION", 100, 56), _line("paragraph", body, 160),
        _line("paragraph", "A Sampler Of Results", 420), _line("paragraph", body, 480),
        _line("paragraph", "7 Outlook", 740), _line("paragraph", body, 800),
        _line("heading", "A PROOFS", 1060, 44), _line("paragraph", "A.1 Notation", 1120),
        _line("paragraph", body, 1180), _line("paragraph", "B DATASET DETAILS", 1440, 44),
        _line("paragraph", "B.1 Datasets", 1500), _line("paragraph", body, 1560),
    ])  # fmt: skip
    kinds = {text: (kind, level) for kind, text, level in blocks}
    assert kinds["7 Outlook"][0] == "heading"
    assert kinds["A Sampler Of Results"][0] == "paragraph"
    assert kinds["B DATASET DETAILS"] == ("heading", kinds["A PROOFS"][1])
    assert kinds["B.1 Datasets"] == ("heading", kinds["A.1 Notation"][1])
    assert kinds["A.1 Notation"][0] == "heading"


def test_a_lettered_line_after_a_roman_section_is_its_subsection():
    """IEEE sets its subsections lettered, in italics at the body's size: "A. Annotation
    Protocol" read as text after "II. METHOD" is its first subsection, "B. Runtime" the
    next; an author line numbered as the next is a byline, and text counted at that depth
    since keeps "D. Outliers" text: no headings."""
    body = BODY * 3
    blocks = _assembled_lines([
        _line("heading", "I. INTRODUCTION", 100, 40), _line("paragraph", body, 160),
        _line("heading", "II. METHOD", 420, 40), _line("paragraph", body, 480),
        _line("paragraph", "A. Annotation Protocol", 740), _line("paragraph", body, 800),
        _line("paragraph", "B. Runtime", 1060), _line("paragraph", body, 1120),
        _line("paragraph", "C. Smith and D. Jones", 1380), _line("paragraph", body, 1440),
        _line("paragraph", "D. Outliers", 1700), _line("paragraph", body, 1760),
    ])  # fmt: skip
    kinds = {text: (kind, level) for kind, text, level in blocks}
    section = kinds["II. METHOD"][1]
    assert kinds["A. Annotation Protocol"] == ("heading", section + 1)
    assert kinds["B. Runtime"] == ("heading", section + 1)
    assert kinds["D. Outliers"][0] == kinds["C. Smith and D. Jones"][0] == "paragraph"


def _set(text: str, x: float, y: float, lines: int = 1, width: float = 1000) -> ReadBlock:
    """A block the layout model calls text, at the body's size (40 px), its words boxed line
    by line from x (`lines` lines of `text` over `width`, or one line as long as its words)."""
    words = []
    for k in range(lines):
        left, parts = x, text.split()
        step = width / len(parts) if lines > 1 else None
        for part in parts:
            right = left + 24 * len(part)
            words.append(Word(part, 95.0, (left, y + 60 * k, right, y + 60 * k + 40), known=True))
            left = left + step if step else right + 24
    box = (min(w.bbox[0] for w in words), y, max(w.bbox[2] for w in words), words[-1].bbox[3])
    return ReadBlock(kind="paragraph", text=" ".join(w.text for w in words), bbox=box,
                     words=words, font_size=40.0, layout="text")  # fmt: skip


def test_a_title_in_capitals_centred_over_the_text_is_a_heading():
    """An old book's "LETTER XXVII.", a typescript's title: the body's size and weight, set
    apart only by its capitals and its place, centred over the text, a paragraph under it.
    The same line flush left, in lower case, or with nothing under it is no title."""
    body = "the swallows were seen skimming over the pond in great numbers and the martins"

    def headings(line: ReadBlock, *, after: bool = True) -> list[str]:
        blocks = [_set(body, 200, 100, lines=4), line] + (
            [_set(body, 200, 500, lines=4)] if after else []
        )
        doc = assemble([PageReading(page_number=1, blocks=blocks, width=1400, height=2000)],
                       AssembleOptions())  # fmt: skip
        return [b.text for b in doc.pages[0].blocks if b.kind == "heading"]

    title = "LETTER XXVII."
    centred = 200 + (1000 - 24 * 11 - 24) / 2  # the line's width: 11 letters and a space
    assert headings(_set(title, centred, 400)) == [title]
    assert headings(_set(title, 200, 400)) == []  # flush left
    assert headings(_set("Letter the next.", centred, 400)) == []  # no capitals
    assert headings(_set(title, centred, 400), after=False) == []  # a signature at the foot


def test_a_numbered_title_centred_in_capitals_read_as_a_list_item_is_a_heading():
    """A scanned AMS paper's "3. EXPERIMENTAL SETUP": its number read as a list's marker made
    it a list of one item. Centred over the text it is a title, its number kept; the same item
    flush left stays a list."""
    body = "the swallows were seen skimming over the pond in great numbers and the martins"

    def kinds(x: float) -> list[tuple[str, str]]:
        item = _set("EXPERIMENTAL SETUP", x, 400)
        item.kind, item.ordered, item.marker = "list_item", True, "3."
        blocks = [_set(body, 200, 100, lines=4), item, _set(body, 200, 500, lines=4)]
        doc = assemble([PageReading(page_number=1, blocks=blocks, width=1400, height=2000)],
                       AssembleOptions())  # fmt: skip
        return [(b.kind, b.text) for b in doc.pages[0].blocks if b.kind in ("heading", "list")]

    centred = 200 + (1000 - 24 * 17 - 24) / 2  # the line's width: 17 letters and a space
    assert kinds(centred) == [("heading", "3. EXPERIMENTAL SETUP")]
    assert [kind for kind, _ in kinds(200)] == ["list"]  # flush left: a list's item


def test_a_title_in_capitals_centred_between_lists_is_a_heading():
    """A scanned paper's "REFERENCES", centred between a list's last items and the entries:
    lists around it give its column as paragraphs do."""
    entry = "the swallows were seen skimming over the pond in great numbers and the martins"

    def item(y: float) -> ReadBlock:
        block = _set(entry, 200, y, lines=2)
        block.kind, block.marker = "list_item", "•"
        return block

    centred = 200 + (1000 - 24 * 10) / 2  # the line's width: 10 letters
    blocks = [item(100), item(250), _set("REFERENCES", centred, 400), item(500), item(650)]
    doc = assemble([PageReading(page_number=1, blocks=blocks, width=1400, height=2000)],
                   AssembleOptions())  # fmt: skip
    assert [b.text for b in doc.pages[0].blocks if b.kind == "heading"] == ["REFERENCES"]


def test_a_title_centred_in_its_column_beside_the_next_column_is_a_heading():
    """IEEE's "III. DISCUSSION", centred in the left column: the right column's text beside it
    on its row is no table's cell beside a label."""
    body = "the swallows were seen skimming over the pond in great numbers and the martins"

    def headings(beside_x: float) -> list[str]:
        above, below = _set(body, 100, 100, lines=4, width=800), _set(body, 100, 500, lines=4,
                                                                      width=800)  # fmt: skip
        left, right = above.bbox[0], above.bbox[2]
        centred = (left + right - (24 * 14 + 24)) / 2  # the line's width: 14 characters, a space
        blocks = [above, _set("III. DISCUSSION", centred, 400), below,
                  _set("the next column goes on here", beside_x, 400)]  # fmt: skip
        doc = assemble([PageReading(page_number=1, blocks=blocks, width=2400, height=2000)],
                       AssembleOptions())  # fmt: skip
        return [b.text for b in doc.pages[0].blocks if b.kind == "heading"]

    assert headings(1200) == ["III. DISCUSSION"]  # in the next column


def test_a_bold_title_in_its_column_beside_the_next_column_is_a_heading():
    """A scanned two-column paper's bold "1 Introduction" the layout model calls text: the
    next column's line beside it is no table's cell beside a label."""
    body = "The swallows were seen skimming over the pond in great numbers and the martins."
    above, below = _set(body, 100, 100, lines=4, width=800), _set(body, 100, 500, lines=4,
                                                                  width=800)  # fmt: skip
    title = _set("1 Introduction", 100, 400)
    beside = _set("the next column goes on here", 1200, 400)
    blocks = [above, title, below, beside]
    for block in blocks:  # stroke widths measured on the scan: the title's is bold
        block.stroke = 3.0
    title.stroke = 5.0
    doc = assemble([PageReading(page_number=1, blocks=blocks, width=2400, height=2000)],
                   AssembleOptions())  # fmt: skip
    assert [b.text for b in doc.pages[0].blocks if b.kind == "heading"] == ["1 Introduction"]


def test_display_lines_of_a_page_taken_for_one_picture_are_headings_of_real_words():
    """A scanned sheet of four title pages, their frames and logos: the layout model boxed the
    whole sheet as one picture, whose blocks layout_regions made text (FrontespiziAssemblati
    p. 1). Its titles set large are headings by size; a logo's triangle read as "A", however
    large, is none, and no document's title is a logo read as "©"."""
    text = partial(_read, "paragraph", layout="text")
    doc = _document([
        ("ocr", [text("©", 90, 160), text("A", 300, 79),
                 text("UNIVERSITÀ DI MARCONIA", 500, 29),
                 text("Corso di Laurea in Ingegneria delle Telecomunicazioni", 600, 29),
                 text("Titolo della tesi di laurea magistrale", 800, 43),
                 text("Sottotitolo della tesi di laurea magistrale", 900, 25),
                 text("Relatore prof. Enrico Rosa", 1100, 25),
                 text("Corso di Laurea in Ingegneria Biomedica", 1400, 29),
                 text("Dicembre 2011", 1600, 29)]),
    ])  # fmt: skip
    assert [text for text, _ in _levels(doc)] == ["Titolo della tesi di laurea magistrale"]
    assert doc.title == "Titolo della tesi di laurea magistrale"


def test_a_logo_read_as_a_sign_is_no_title():
    """A page with no heading takes its title from its first paragraph: a logo read as "©"
    is none, the text under it is."""
    doc = _document([("ocr", [_read("paragraph", "©", 90, 41.5, layout="text"), _body(300)])])
    assert doc.title.startswith(BODY[:20])
