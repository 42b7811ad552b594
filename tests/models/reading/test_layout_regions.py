"""Blocks + layout regions -> kinds: real-word headings, furniture, tables, figures, formulas."""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pymupdf
import pytest
from bs4 import BeautifulSoup

from bench.structure_corpus import scan
from conversion.pipeline.convert import ConvertOptions, convert_pdf
from models.engine import PageImage, ReadBlock, Word
from models.layout import Region
from models.ocr import TesseractEngine
from models.reading.kinds import real_words
from models.reading.layout_regions import FORMULA_FINDING, apply_layout, figure_worthy
from models.reading.page import PageImageAccess, ReadingPage
from models.reading.textlayer import text_layer_reading
from tests.conftest import CORPUS

REALWORLD = CORPUS / "realworld"

WIDTH, HEIGHT = 2000, 3000


class _Image(PageImageAccess):
    """A page image with ink in every box (each holds an image, or none: `ink`), the formulas
    its glyphs make (`tex`), and the stroke widths of its rows (`strokes`: by a box's top)."""

    def __init__(self, *, ink=0.3, tex=None, strokes=None) -> None:
        self._ink, self._tex, self._strokes = ink, tex, strokes

    def ink(self, bbox) -> float:
        return self._ink

    def transcribe(self, bbox) -> str | None:
        return self._tex

    def stroke(self, bbox) -> float | None:
        return self._strokes[bbox[1]] if self._strokes else None


def _words(text: str, x: float, y: float, *, confidence=95.0, known=True) -> list[Word]:
    out = []
    for part in text.split():
        out.append(Word(part, confidence, (x, y, x + 25 * len(part), y + 40), known=known))
        x += 25 * (len(part) + 1)
    return out


def _block(text, x, y, order, **kw) -> ReadBlock:
    words = _words(text, x, y, **kw)
    box = (words[0].bbox[0], y, words[-1].bbox[2], y + 40)
    block = ReadBlock(kind="paragraph", text=text, bbox=box, words=words, font_size=40.0)
    block.order = (order, 0)
    return block


def _page(blocks=(), regions=()) -> ReadingPage:
    return ReadingPage(blocks=list(blocks), regions=list(regions), width=WIDTH, height=HEIGHT,
                       dpi=300, source="ocr")  # fmt: skip


def _run(blocks, regions, image=None):
    read = apply_layout(_page(blocks, regions), image or _Image())
    return read.blocks, read.findings


def test_real_words_refuse_scraps_and_doubtful_reads():
    assert real_words(_words("Annual Review of Services", 0, 0), "Annual Review of Services")
    assert not real_words(_words("PERS A Zhe", 0, 0, known=False), "PERS A Zhe")
    assert not real_words(_words("ic Task ST", 0, 0, confidence=50), "ic Task ST")
    assert not real_words(_words("(gs)_¥ (gs)", 0, 0), "(gs)_¥ (gs)")
    assert not real_words(_words("[inn", 0, 0, known=False), "[inn")


def test_a_section_header_region_makes_a_heading_only_of_real_words():
    good = _block("Main Findings", 100, 500, 1)
    bad = _block("PERS A Zhe", 100, 900, 2, confidence=40, known=False)
    regions = [Region("section-header", (90, 490, 600, 550)),
               Region("section-header", (90, 890, 600, 950))]  # fmt: skip
    blocks, _ = _run([good, bad], regions)
    assert [(b.kind, b.text) for b in blocks] == [("heading", "Main Findings"),
                                                  ("paragraph", "PERS A Zhe")]  # fmt: skip


def test_a_section_header_with_one_word_the_engine_could_not_read_is_still_a_heading():
    """TeX's logo read as garbage ("Tufte-ETEx", confidence 0) beside a word read surely: the
    layout model's heading box and the sure word make it a heading; out of such a box, the
    mean confidence refuses it."""
    words = [Word("Customizing", 93.0, (100, 500, 400, 560), known=True),
             Word("Tufte-ETEx", 0.0, (420, 500, 700, 560), known=False)]  # fmt: skip
    block = ReadBlock(kind="paragraph", text="Customizing Tufte-ETEx", bbox=(100, 500, 700, 560),
                      words=words, font_size=60.0)  # fmt: skip
    block.order = (1, 0)
    blocks, _ = _run([block], [Region("section-header", (90, 490, 710, 570))])
    assert [(b.kind, b.text) for b in blocks] == [("heading", "Customizing Tufte-ETEx")]
    assert not real_words(words, "Customizing Tufte-ETEx")


def test_a_numbered_title_read_as_a_list_item_in_a_section_header_region_is_a_heading():
    """A Hungarian thesis's scanned chapter label "1. fejezet": Tesseract reads "1." as a list
    item's marker and "fejezet" (no English dictionary word) at 88; in the layout model's
    heading box the item is the chapter's numbered heading. The same item out of such a box
    stays a list item."""
    items = []
    for y in (500, 900):
        item = _block("fejezet", 100, y, y, confidence=87.9, known=False)
        item.kind, item.marker, item.ordered = "list_item", "1.", True
        items.append(item)
    blocks, _ = _run(items, [Region("section-header", (60, 490, 400, 550))])
    assert [(b.kind, b.text) for b in blocks] == [("heading", "1. fejezet"),
                                                  ("list_item", "fejezet")]  # fmt: skip


def test_a_sentence_or_a_lead_in_in_a_section_header_region_stays_a_paragraph():
    """Set bold or large on a form, a sentence or a lead-in to a list is no section title."""
    texts = [
        "You do not need to print and submit these guidelines with your application form.",
        "This application is made up of four parts:",
        # A side note's lines, cut off mid-sentence: a sentence ends inside them.
        "the textblock on the slide, specify the right attribute only. The same holds for",
        "2.1 Introduction",
        "Results of the survey of the members of the U.S. Congress",  # "U.S." ends nothing
        "Data and methods:",  # a short title ending in a colon
        "THE HISTORY OF THE DECLINE AND FALL OF THE ROMAN EMPIRE.",
        "Employee’s Perception of Fairness of Advancement:",  # a title's first line
    ]
    blocks = [_block(text, 100, 300 + 200 * k, k) for k, text in enumerate(texts)]
    regions = [Region("section-header", (90, 290 + 200 * k, 1990, 350 + 200 * k))
               for k in range(len(texts))]  # fmt: skip
    out, _ = _run(blocks, regions)
    assert [b.kind for b in out] == ["paragraph"] * 3 + ["heading"] * 5


def test_a_block_is_cut_where_its_words_enter_another_region():
    block = _block("Scope of the Review The survey was sent out", 100, 500, 1)
    words = block.words
    for w in words[4:]:  # the body text sits on the next line
        w.bbox = (w.bbox[0] - 100, 560, w.bbox[2] - 100, 600)
    regions = [Region("section-header", (90, 490, 700, 545)), Region("text", (0, 550, 1900, 610))]
    blocks, _ = _run([block], regions)
    assert [(b.kind, b.text) for b in blocks] == [
        ("heading", "Scope of the Review"), ("paragraph", "The survey was sent out"),
    ]  # fmt: skip


def test_page_header_and_footer_regions_are_furniture():
    header = _block("Riverside District Council", 700, 40, 0)
    body = _block("The body text of the page.", 100, 500, 1)
    footer = _block("Quarterly Bulletin", 100, 2900, 2)
    regions = [Region("page-header", (690, 30, 1400, 90)), Region("text", (90, 490, 900, 550)),
               Region("page-footer", (90, 2890, 600, 2950))]  # fmt: skip
    blocks, _ = _run([header, body, footer], regions)
    assert [b.kind for b in blocks] == ["page_header", "paragraph", "page_footer"]


def test_a_table_region_is_rebuilt_from_its_words():
    rows = [_block("Item Budget", 100, 500, 1), _block("Staff 812", 100, 560, 2),
            _block("Energy 365", 100, 620, 3)]  # fmt: skip
    for row in rows:  # the second word of each row sits in a second column
        w = row.words[1]
        w.bbox = (600, w.bbox[1], 600 + (w.bbox[2] - w.bbox[0]), w.bbox[3])
    blocks, _ = _run(rows, [Region("table", (90, 490, 900, 670))])
    assert [b.kind for b in blocks] == ["table"]
    assert [[c["text"] for c in row] for row in blocks[0].rows] == [
        ["Item", "Budget"], ["Staff", "812"], ["Energy", "365"]
    ]  # fmt: skip


def test_a_note_at_the_foot_of_a_table_region_is_text_after_the_table():
    """ "Source: Statistics Finland" under the figures, inside the model's table region (ICDAR
    eu-013, eu-014): a paragraph after the table, not a row of one cell over empty ones."""
    rows = [_block("Item Budget", 100, 500, 1), _block("Staff 812", 100, 560, 2),
            _block("Energy 365", 100, 620, 3)]  # fmt: skip
    for row in rows:  # the second word of each row sits in a second column
        w = row.words[1]
        w.bbox = (600, w.bbox[1], 600 + (w.bbox[2] - w.bbox[0]), w.bbox[3])
    note = _block("Source: Statistics Finland, 2005.", 100, 680, 4)
    blocks, _ = _run([*rows, note], [Region("table", (90, 490, 1100, 730))])
    assert [b.kind for b in blocks] == ["table", "paragraph"]
    assert [[c["text"] for c in row] for row in blocks[0].rows] == [
        ["Item", "Budget"], ["Staff", "812"], ["Energy", "365"]
    ]  # fmt: skip
    assert blocks[1].text == "Source: Statistics Finland, 2005."


def test_specks_are_no_figures_and_real_pictures_are():
    speck = ReadBlock(kind="figure", bbox=(500, 500, 511, 508))
    speck.order = (1, 0)
    picture = Region("picture", (100, 1200, 1500, 2000))
    blocks, _ = _run([speck, _block("Text.", 100, 900, 2)], [picture])
    assert [b.kind for b in blocks] == ["paragraph", "figure"]
    assert not figure_worthy((0, 0, 1000, 800), _page(), _Image(ink=0.0))  # a blank box
    assert figure_worthy((0, 0, 1000, 800), _page(), _Image())


class _EdgeInk(PageImageAccess):
    """A scan whose only ink is solid boxes (`dark`): a box's ink is the share of it they cover."""

    def __init__(self, *dark) -> None:
        self._dark = dark

    def ink(self, bbox) -> float:
        x0, y0, x1, y1 = bbox
        covered = sum(
            max(0, min(x1, d[2]) - max(x0, d[0])) * max(0, min(y1, d[3]) - max(y0, d[1]))
            for d in self._dark
        )
        return covered / ((x1 - x0) * (y1 - y0))


def test_a_scans_dark_edge_is_no_figure_and_a_photo_to_the_edge_is():
    # A typescript's top: the book's dark edge along the page's top and left border (40 px at
    # 300 DPI) and blank paper under it: Tesseract's "image" reaching both borders.
    edge = _EdgeInk((0, 0, WIDTH, 40), (0, 0, 40, 900))
    assert edge.ink((0, 0, WIDTH, 900)) > 0.02  # ink enough for a figure, counted whole
    assert not figure_worthy((0, 0, WIDTH, 900), _page(), edge)
    # A photo printed to the page's edge (a magazine's bleed) holds ink past the band.
    photo = _EdgeInk((0, 0, 1200, 450))  # its dark half
    assert figure_worthy((0, 0, 1200, 900), _page(), photo)
    # A picture in the page's body is measured whole, as before.
    assert figure_worthy((300, 300, 1200, 900), _page(), _EdgeInk((300, 300, 1200, 600)))
    # A strip along the border holds nothing once its edge is set aside.
    assert not figure_worthy((0, 0, WIDTH, 70), _page(), _EdgeInk((0, 0, WIDTH, 70)))
    # A page a few tenths of an inch tall (a label) sets aside 5 % of its side, not 0.25 in.
    label = ReadingPage(blocks=[], regions=[], width=500, height=125, dpi=300, source="ocr")
    assert figure_worthy((0, 0, 500, 125), label, _EdgeInk((0, 0, 500, 60)))


def test_a_charts_labels_stay_with_its_figure_and_strokes_leave():
    """A chart's labels (issue 31: the words the scan plainly holds are never dropped) are the
    figure's words, in order; its strokes read doubtfully as letters are not."""
    labels = _block("Support Oppose 2019", 600, 700, 1)
    strokes = _block("Saas) ~", 600, 800, 2, confidence=30)
    body = _block("Text after the chart.", 100, 1900, 3)
    chart = Region("picture", (590, 690, 1500, 1500))
    blocks, _ = _run([labels, strokes, body], [chart])
    assert [b.kind for b in blocks] == ["figure", "paragraph"]
    assert [w.text for w in blocks[0].words] == ["Support", "Oppose", "2019"]
    assert blocks[0].text == ""  # no caption: its labels are no caption


@pytest.mark.parametrize(
    ("region", "layout"),
    [
        ((100, 100, 1900, 2900), "text"),  # the page taken for one picture: its text is text
        ((100, 100, 1500, 1400), "picture"),  # a picture of its own (a chart's legend) stays one
    ],
)
def test_a_page_taken_for_one_picture_is_text(region, layout):
    """A scanned sheet of four thesis title pages, their frames and logos (FrontespiziAssemblati
    p. 1): the model boxed the sheet as one picture. Its readable words stay text, and over half
    the page they are text blocks (their titles headings by size: tests/pipeline/
    test_headings.py), not a picture's; a readable picture of its own keeps its class."""
    lines = ["Titolo della tesi di laurea magistrale", "Sottotitolo della tesi di laurea",
             "Corso di Laurea in Ingegneria delle Telecomunicazioni"]  # fmt: skip
    blocks = [_block(text, 200, 300 + 200 * k, k) for k, text in enumerate(lines)]
    read, _ = _run(blocks, [Region("picture", region)])
    assert [b.kind for b in read] == ["paragraph"] * 3
    assert {b.layout for b in read} == {layout}


def test_a_formula_not_transcribed_is_an_image_with_a_finding():
    scraps = _block("λg = ∑ s∈S", 600, 700, 1)
    body = _block("Text after the formula.", 100, 900, 2)
    blocks, findings = _run([scraps, body], [Region("formula", (590, 690, 1200, 760))])
    assert [b.kind for b in blocks] == ["figure", "paragraph"]
    # The words read in it are its alternative text (a blind reader had "see the image").
    assert blocks[0].alt == "Formula, not transcribed; as read: λg = ∑ s∈S"
    assert findings == [FORMULA_FINDING]


def test_a_formula_region_holding_a_question_in_words_is_text():
    """The model boxes an exercise (a question around a sign or two, its numbered answers) as a
    formula (pdfjs issue13211, Thai): it is words, kept as text, not an image to describe."""
    question = _block("เส้นรอบรูปสี่เหลี่ยมทั้งหมด เท่ากับข้อใดต่อไปนี้ 1. 49 นิ้ว", 100, 700, 1)
    blocks, findings = _run([question], [Region("formula", (90, 690, 1990, 760))])
    assert [b.kind for b in blocks] == ["paragraph"] and findings == []


def test_a_transcribed_formula_is_a_formula_block():
    scraps = _block("E = mc2", 600, 700, 1)
    blocks, findings = _run([scraps], [Region("formula", (590, 690, 1200, 760))],
                            _Image(tex="E = m c^{2}"))  # fmt: skip
    assert [(b.kind, b.latex) for b in blocks] == [("formula", "E = m c^{2}")]
    assert findings == []


def test_a_formula_region_of_words_and_no_sign_is_text():
    """The model boxes a section head in small capitals right under a display formula as a
    formula (a generated IEEE-style paper's "III. DISCUSSION": its smaller capitals became a
    subscript, "D_{ISCUSSION}", and the heading was lost): real words and no sign are text."""
    head = _block("III. DISCUSSION", 600, 700, 1)
    body = _block("Text after the heading.", 100, 800, 2)
    blocks, findings = _run([head, body], [Region("formula", (590, 690, 1200, 760))],
                            _Image(tex=r"\text{III} . D _{\text{ISCUSSION}}"))  # fmt: skip
    assert [(b.kind, b.text) for b in blocks] == [
        ("paragraph", "III. DISCUSSION"),
        ("paragraph", "Text after the heading."),
    ]
    assert findings == []
    assert blocks[0].layout == "text"  # told as text: a heading by its capitals and place


def test_a_caption_of_mathematics_with_nothing_to_label_is_a_formula():
    """The layout model calls a display formula standing under a drawing it did not box a
    "caption" (bws_book_ch2.pdf p. 5: "2^3 = 1 + 3 + 3 + 1"): it is a formula."""
    cube = _block("23 = 1 + 3 + 3 + 1", 600, 700, 1)
    blocks, findings = _run([cube], [Region("caption", (590, 690, 1200, 760))],
                            _Image(tex="2^{3} = 1 + 3 + 3 + 1"))  # fmt: skip
    assert [(b.kind, b.latex) for b in blocks] == [("formula", "2^{3} = 1 + 3 + 3 + 1")]
    # Read by OCR (no glyphs to transcribe): an image with its finding, not a caption.
    blocks, findings = _run([_block("23 = 1 + 3 + 3 + 1", 600, 700, 1)],
                            [Region("caption", (590, 690, 1200, 760))])  # fmt: skip
    assert [b.kind for b in blocks] == ["figure"] and findings == [FORMULA_FINDING]


def test_a_picture_of_mathematical_glyphs_on_a_text_layer_page_is_a_formula():
    """The model boxes a display formula of a LaTeX page as a picture: its glyphs are read
    into a formula, not an empty figure that asks for an alternative text."""
    formula = _block("x = ∑ a + b", 600, 700, 1)
    region = [Region("picture", (590, 690, 1200, 760))]
    layer = replace(_page([formula], region), source="text_layer")
    read = apply_layout(layer, _Image(tex="x = \\sum a + b"))
    assert [(b.kind, b.latex) for b in read.blocks] == [("formula", "x = \\sum a + b")]
    # A picture holding an image, or read by OCR, or labelled with prose, stays a picture.
    image = ReadBlock(kind="figure", bbox=(590, 690, 1200, 760))
    image.order = (0,)
    for page in (
        replace(_page([_block("x = ∑ a + b", 600, 700, 1), image], region), source="text_layer"),
        _page([_block("x = ∑ a + b", 600, 700, 1)], region),
    ):
        assert "formula" not in [b.kind for b in apply_layout(page, _Image(tex="x")).blocks]


def test_a_table_of_mathematical_letters_on_a_text_layer_page_is_a_formula():
    """The model boxes a matrix set across both columns of a journal's page (asmejour's wide
    equation, STIX Two Math) as a table: its cells were read out one by one. Letters of
    Unicode's mathematical alphabets and no word make it a formula: transcribed, or an image
    with its finding."""
    rows = ["𝜑 0 0", "(𝜑1, 𝜀1) 𝜑𝑘21 𝜑", "(𝜑2, 𝜀1) (𝜑2, 𝜀2) 𝜑"]
    region = [Region("table", (590, 690, 1500, 960))]

    def layer(texts, **kw):
        blocks = [_block(t, 600, 700 + 80 * i, i) for i, t in enumerate(texts)]
        return replace(_page(blocks, region), source="text_layer", **kw)

    read = apply_layout(layer(rows), _Image())
    assert [b.kind for b in read.blocks] == ["figure"] and read.findings == [FORMULA_FINDING]
    read = apply_layout(layer(rows), _Image(tex="\\begin{pmatrix}...\\end{pmatrix}"))
    assert [b.kind for b in read.blocks] == ["formula"]
    # A table of words and figures, of values under mathematical heads, or one with a word
    # beside its letters, is no formula; nor is one read by OCR.
    for page in (
        layer(["Group Mean SD", "𝑥 1.2 0.3", "𝑦 2.5 0.4"]),
        layer(["𝑥 𝑓(𝑥)", "1 2.5", "2 3.1", "3 4.0"]),
        layer(["𝜑 0 0 where", "(𝜑1, 𝜀1) 𝜑𝑘21 𝜑", "(𝜑2, 𝜀1) (𝜑2, 𝜀2) 𝜑"]),
        replace(layer(rows), source="ocr"),
    ):
        read = apply_layout(page, _Image())
        assert not {"figure", "formula"} & {b.kind for b in read.blocks} and not read.findings


def test_real_captions_stay_captions():
    regions = [Region("caption", (90, 690, 1200, 760))]
    for text in ("Figure 3: growth of a = b + c", "Table 2 (n = 40)", "Fig. 4 x = y + 1",
                 "The sum 1 + 2 = 3 of the parts"):  # fmt: skip
        blocks, findings = _run([_block(text, 100, 700, 1)], regions)
        assert [(b.kind, b.text) for b in blocks] == [("caption", text)] and not findings
    # Mathematics over a picture or a table labels it (a figure's caption written as maths).
    for kind in ("picture", "table"):
        regions = [Region(kind, (100, 200, 1200, 680)), Region("caption", (590, 690, 1200, 760))]
        blocks, _ = _run([_block("x = a + b", 600, 700, 1)], regions)
        assert "caption" in [b.kind for b in blocks]


def test_a_line_the_model_set_apart_inside_a_block_is_read_in_its_place():
    blocks = [
        _block("First line of the block.", 100, 100, 1),
        _block("A line set apart.", 100, 300, 2),
        _block("Last line of it.", 100, 500, 3),
    ]
    regions = [Region("text", (50, 50, 1950, 600)), Region("list-item", (90, 290, 600, 350))]
    blocks, _ = _run(blocks, regions)
    assert [b.text for b in blocks] == ["First line of the block.", "A line set apart.",
                                        "Last line of it."]  # fmt: skip


def test_tables_inside_a_text_region_are_read_between_its_paragraphs():
    """A proposal's work packages, scanned (proposal's eu/strep public.pdf p. 4): the layout
    model took the text, three ruled tables and a chart as one text region. Read as one, the
    tables inside its box all went before its first paragraph."""
    cell = {"text": "Work Package 2.1", "header": True, "rowspan": 1, "colspan": 1}
    tables = []
    for k, y in enumerate((300, 900)):
        table = ReadBlock(kind="table", bbox=(100, y, 1200, y + 100), rows=[[dict(cell)]])
        table.order = (10 + k, 0)
        tables.append(table)
    paragraphs = [
        _block("This work area has two work packages.", 100, 100, 1),
        _block("We plan to develop a class for proposals.", 100, 500, 2),
        _block("We plan to develop a template.", 100, 1100, 3),
    ]
    blocks, _ = _run([*paragraphs, *tables], [Region("text", (90, 90, 1700, 1200))])
    assert [b.text or b.kind for b in blocks] == [
        "This work area has two work packages.", "table",
        "We plan to develop a class for proposals.", "table", "We plan to develop a template.",
    ]  # fmt: skip


def test_a_footer_reaching_across_the_gutter_does_not_merge_the_columns():
    left = [_block("Left top.", 100, 300, 1), _block("Left bottom.", 100, 900, 3)]
    right = [_block("Right top.", 1100, 200, 2), _block("Right bottom.", 1100, 800, 4)]
    footer = _block("Journal of Local Studies, a footer as wide as a column", 100, 2900, 5)
    regions = [Region("text", (90, 290, 950, 950)), Region("text", (1090, 190, 1950, 850)),
               Region("page-footer", (90, 2890, 1095, 2950))]  # fmt: skip
    blocks, _ = _run([*left, *right, footer], regions)
    assert [b.text for b in blocks if b.kind == "paragraph"] == [
        "Left top.", "Left bottom.", "Right top.", "Right bottom."
    ]  # fmt: skip


def test_a_bullet_in_a_section_header_region_makes_a_list_item():
    """A bullet printed large or bold ("• Local Reminders") is a list item, not a section;
    a numbered section ("1. Introduction") stays a heading."""
    bullet = _block("• Local Reminders", 100, 200, 0)
    numbered = _block("1. Introduction", 100, 400, 1)
    regions = [Region("section-header", (90, 190, 900, 250)),
               Region("section-header", (90, 390, 900, 450))]  # fmt: skip
    out, _ = _run([bullet, numbered], regions)
    by_text = {b.text: b for b in out}
    assert by_text["Local Reminders"].kind == "list_item"
    assert by_text["Local Reminders"].marker == "•"
    assert by_text["1. Introduction"].kind == "heading"


def test_a_numbered_section_the_engine_took_for_a_list_item_keeps_its_number():
    """The OCR engine reads "1. Introduction" as item "1." of a list; in a section-header
    region it is the heading "1. Introduction", number included."""
    item = _block("1. Introduction", 100, 400, 1)
    item.kind, item.ordered, item.marker = "list_item", True, "1."
    item.text, item.words = "Introduction", item.words[1:]
    (out,), _ = _run([item], [Region("section-header", (90, 390, 900, 450))])
    assert (out.kind, out.text, out.marker) == ("heading", "1. Introduction", None)
    assert [w.text for w in out.words] == ["1.", "Introduction"]


def test_a_section_number_read_with_doubt_does_not_make_its_title_garbage():
    """A lone "1" or "2.1" before a title is no dictionary word and often read with little
    confidence; the title's own words decide."""
    one = _words("1 Introduction", 0, 0)
    one[0] = Word("1", 53.0, one[0].bbox, known=False)
    assert real_words(one, "1 Introduction")
    numbered = _words("2.1.1 Objectives", 0, 0)
    numbered[0] = Word("2.1.1", 92.0, numbered[0].bbox, known=False)
    assert real_words(numbered, "2.1.1 Objectives")
    # The title's words still count: a confident number does not rescue scraps.
    scraps = _words("3 ic Task ST", 0, 0, confidence=50)
    scraps[0] = Word("3", 99.0, scraps[0].bbox, known=False)
    assert not real_words(scraps, "3 ic Task ST")


def test_a_title_term_of_art_read_without_doubt_counts_as_a_word():
    """ "Pubertal" is no word of Tesseract's dictionary but is read at 93: the section title
    "Pubertal development in TS" is real words. Scraps read with doubt, or too short to
    tell, are not."""
    words = _words("Pubertal development in TS", 0, 0)
    words[0] = Word("Pubertal", 93.0, words[0].bbox, known=False)
    assert real_words(words, "Pubertal development in TS")
    doubtful = list(words)
    doubtful[0] = Word("Pubertal", 80.0, words[0].bbox, known=False)
    assert not real_words(doubtful, "Pubertal development in TS")
    assert not real_words(_words("Zhe Qwr Tsk", 0, 0, known=False), "Zhe Qwr Tsk")
    compound = _words("2-Cube into a 3-Cube", 0, 0)
    compound[0] = Word("2-Cube", 92.0, compound[0].bbox, known=False)
    compound[3] = Word("3-Cube", 92.0, compound[3].bbox, known=False)
    assert real_words(compound, "2-Cube into a 3-Cube")
    assert not real_words(_words("x-Zq 3-Qe", 0, 0, known=False), "x-Zq 3-Qe")


def test_a_code_read_without_doubt_counts_as_a_word():
    """A scanned title of codes ("IODP Expedition 368X - Hole U1503A", skinnypage.pdf): capitals
    and digits read at 90 or more are no misreadings; read with doubt, or in lower case, they
    do not count."""
    text = "IODP Expedition 368X - Hole U1503A"
    words = _words(text, 0, 0)
    for i, (confidence, known) in enumerate([(78, False), (93, True), (90, False), (92, False),
                                             (91, True), (91, False)]):  # fmt: skip
        words[i] = Word(words[i].text, float(confidence), words[i].bbox, known=known)
    assert real_words(words, text)
    doubtful = list(words)
    for i in (2, 5):
        doubtful[i] = Word(words[i].text, 80.0, words[i].bbox, known=False)
    assert not real_words(doubtful, text)
    scraps = _words("Ii1l xq9z Hole", 0, 0, known=False)
    assert not real_words(scraps, "Ii1l xq9z Hole")


def test_a_part_cut_from_its_block_has_its_own_stroke_width():
    """A bold title Tesseract read in one paragraph with the text under it ("Required documents
    For all applications, ..."): the part the regions cut out is measured alone, so its
    weight is its own, not the paragraph's median."""
    block = _block("Required documents For all applications you submit", 100, 500, 1)
    block.stroke = 4.4
    for w in block.words[2:]:
        w.bbox = (w.bbox[0] - 550, 560, w.bbox[2] - 550, 600)
    regions = [Region("text", (90, 490, 700, 545)), Region("text", (0, 550, 1900, 610))]
    blocks, _ = _run([block], regions, _Image(strokes={500: 5.1, 560: 3.6}))
    assert [(b.text, b.stroke) for b in blocks] == [
        ("Required documents", 5.1),
        ("For all applications you submit", 3.6),
    ]


def test_a_key_value_run_outside_any_table_region_becomes_a_table_in_its_place():
    # A column of labels read as one block beside a column of values read as another, in a
    # text region (no table region, no ruling): one table, in the place of the first block.
    pairs = [("Reign", "959 to 975"), ("Predecessor", "Eadwig"), ("Successor", "Edward"),
             ("House", "Wessex")]  # fmt: skip
    intro = _block("The king of the English", 100, 100, 1)
    labels = [w for k, (a, _) in enumerate(pairs) for w in _words(a, 100, 200 + 60 * k)]
    values = [w for k, (_, b) in enumerate(pairs) for w in _words(b, 600, 200 + 60 * k)]
    after = _block("Later chroniclers presented his reign", 100, 500, 4)
    blocks = [intro, after]
    for order, words in ((2, values), (3, labels)):
        block = ReadBlock(kind="paragraph", text=" ".join(w.text for w in words), words=words,
                          bbox=(words[0].bbox[0], 200, 1000, 420), font_size=40.0)  # fmt: skip
        block.order = (order, 0)
        blocks.append(block)
    out, _ = _run(blocks, [Region("text", (90, 90, 1500, 560))])
    assert [b.kind for b in out] == ["paragraph", "table", "paragraph"]
    table = out[1]
    assert [[c["text"] for c in row] for row in table.rows] == [list(p) for p in pairs]
    assert [row[0]["header"] for row in table.rows] == [True] * 4
    assert table.font_size == 40.0


def _rows_of(table) -> list[list[str]]:
    return [[" ".join(c.get_text().split()) for c in tr.find_all(["th", "td"])]
            for tr in table.find_all("tr")]  # fmt: skip


def test_an_infobox_printed_without_rules_is_a_table_with_row_headers(tmp_path):
    """edgar.pdf page 1 (a Wikipedia print): its infobox, labels beside values with no ruling,
    is found by neither the layout model nor find_tables; it was paragraphs ("Reign 1 October
    959 – 8 July 975"). A value of several lines is one cell."""
    result = convert_pdf(REALWORLD / "edgar.pdf", tmp_path, TesseractEngine(), ConvertOptions())
    main = BeautifulSoup(result.html_path.read_text(), "html.parser").find("main")
    tables = main.find_all("table")
    assert len(tables) == 1
    rows = _rows_of(tables[0])
    assert rows[0] == ["Reign", "1 October 959 – 8 July 975"]
    assert ["Spouses", "Æthelflæd Wulfthryth Ælfthryth"] in rows
    assert rows[-1] == ["Mother", "Ælfgifu of Shaftesbury"]
    assert len(rows) == 11
    assert all(th["scope"] == "row" for th in tables[0].find_all("th"))
    assert [th.get_text() for th in tables[0].find_all("th")][:3] == [
        "Reign", "Predecessor", "Successor"
    ]  # fmt: skip
    text = " ".join(p.get_text(" ") for p in main.find_all("p"))
    assert "Predecessor" not in text  # the rows left the paragraphs


@pytest.mark.slow
def test_a_scanned_infobox_is_paired_by_rows(tmp_path):
    """edgar_image.pdf, the same page as a 72 DPI image: Tesseract reads the labels as one
    block and the values as others, and drops some of them. The rows are paired by position;
    a value whose label was not read is a row of its own, never another label's value."""
    result = convert_pdf(REALWORLD / "edgar_image.pdf", tmp_path, TesseractEngine(),
                         ConvertOptions())  # fmt: skip
    main = BeautifulSoup(result.html_path.read_text(), "html.parser").find("main")
    tables = main.find_all("table")
    assert len(tables) == 1
    rows = {row[0]: row[1] for row in _rows_of(tables[0]) if row[0]}
    assert {"Reign", "Successor", "Spouses", "House", "Father"} <= set(rows)
    # Its label's value, however the 72 DPI print is read ("975" or "a7"): a date, a name.
    assert "Martyr" in rows["Successor"] and re.search(r"October \d{3}", rows["Reign"])
    assert rows["Spouses"] == ""  # its values were not read: nothing else's is given to it


BODY = (
    "The committee reviewed the annual budget and approved the new maintenance plan. Most of "
    "the older buildings were repaired during the summer months. Water quality in the "
    "northern district improved after the pipes were replaced. "
)


def test_text_that_lines_up_in_two_columns_is_no_key_value_table():
    """Two columns of justified text, footnotes, a list with markers, side headings beside
    their paragraphs and a run of figure captions, as a text layer: none is a table."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 80, 295, 600), BODY * 5, fontsize=10, align=3)
    page.insert_textbox(pymupdf.Rect(317, 80, 540, 600), BODY * 5, fontsize=10, align=3)
    notes = ["The figures are for the calendar year.", "Costs include the new roof.",
             "Schools were counted in March.", "See the council's website."]  # fmt: skip
    for k, note in enumerate(notes):
        page.insert_text((72, 680 + 14 * k), str(k + 1), fontsize=8)
        page.insert_text((86, 680 + 14 * k), note, fontsize=8)
    page = doc.new_page()
    items = ["Keep the receipt for a year", "Check the meter every month",
             "Send the form before June", "Call the office if in doubt"]  # fmt: skip
    for k, item in enumerate(items):
        page.insert_text((72, 80 + 16 * k), "•", fontsize=11)
        page.insert_text((90, 80 + 16 * k), item, fontsize=11)
        page.insert_text((72, 180 + 16 * k), f"{k + 1}.", fontsize=11)
        page.insert_text((100, 180 + 16 * k), item, fontsize=11)
    y = 300
    for head in ["Summary", "Methods used", "Results", "Outlook"]:
        page.insert_text((72, y + 10), head, fontsize=11, fontname="hebo")
        page.insert_textbox(pymupdf.Rect(180, y, 540, y + 70), BODY, fontsize=10)
        y += 90
    for k in range(4):
        page.insert_text((72, y + 30 * k), f"Figure {k + 1}", fontsize=9, fontname="hebo")
        page.insert_text((130, y + 30 * k), "The district's spending on repairs, by month",
                         fontsize=9)  # fmt: skip
    for number, page in enumerate(doc, start=1):
        reading = text_layer_reading(page, page_number=number, dpi=150)
        assert reading is not None
        # (A table region the layout model finds is read by table_from_words: not this rule.)
        assert [b.rows for b in reading.blocks if b.kind == "table" and b.layout != "table"] == []
        assert "Results" in " ".join(b.text for b in reading.blocks) or number == 1


def test_a_photo_reaching_into_the_gutter_is_read_in_its_column():
    """A magazine scan: the photo in the left column is boxed past the gutter's far edge; tall,
    it hid the gutter, and the page was read in rows (the right column's top before the text
    under the photo). The engine's figure is a picture: columns come from the text."""
    left_top, left_low = (
        _block("Rivers came back.", 100, 400, 1),
        _block("Then more.", 100, 1750, 2),
    )
    right_top, right_low = _block("Markets opened.", 1050, 400, 3), _block("Trade.", 1050, 1550, 4)
    left_top.bbox, left_low.bbox = (100, 400, 950, 650), (100, 1750, 950, 2800)
    right_top.bbox, right_low.bbox = (1050, 400, 1900, 1500), (1050, 1550, 1900, 2800)
    photo = ReadBlock(kind="figure", bbox=(90, 700, 1060, 1700))
    photo.order = (0, 0)
    blocks, _ = _run([photo, right_top, left_low, right_low, left_top], [])
    assert [b.text or b.kind for b in blocks] == [
        "Rivers came back.", "figure", "Then more.", "Markets opened.", "Trade."
    ]  # fmt: skip


def _labels(*parts: tuple[str, float, float]) -> ReadBlock:
    """One block of a picture's labels, each (text, x, y), joined as one line in that order."""
    words = [w for text, x, y in parts for w in _words(text, x, y)]
    box = (min(w.bbox[0] for w in words), min(w.bbox[1] for w in words),
           max(w.bbox[2] for w in words), max(w.bbox[3] for w in words))  # fmt: skip
    block = ReadBlock(kind="paragraph", text=" ".join(w.text for w in words), bbox=box,
                      words=words, font_size=40.0)  # fmt: skip
    block.order = (1, 0)
    return block


def test_a_diagrams_labels_kept_as_text_say_their_order_is_a_guess():
    """Boxes of a diagram read as one line ("Read this first ... Greek Yogurt", then "Apples
    and Bananas" at the left, realworld ambiguous.pdf): kept as text, with an order doubt; a
    picture of a line of prose is kept as text and not doubted (issue 31: silent failure)."""
    picture = Region("picture", (400, 560, 2000, 720))
    diagram = _labels(("Read this first", 1100, 580), ("Greek Yogurt", 1750, 594),
                      ("Apples and Bananas", 460, 652))  # fmt: skip
    blocks, findings = _run([diagram], [picture])
    assert [b.text for b in blocks] == ["Read this first Greek Yogurt Apples and Bananas"]
    assert [f["code"] for f in findings] == ["ORDER_UNCERTAIN"]
    prose = _labels(("Apples and bananas grow well here in summer", 460, 600))
    blocks, findings = _run([prose], [picture])
    assert [b.kind for b in blocks] == ["paragraph"] and findings == []
    # Each label its own block: read label by label, nothing joined.
    apart = [_labels(("Read this first", 1100, 580)), _labels(("Greek Yogurt", 1750, 594)),
             _labels(("Apples and Bananas", 460, 652))]  # fmt: skip
    _, findings = _run(apart, [picture])
    assert findings == []


def test_column_heads_a_blank_line_above_a_table_region_head_its_table(tmp_path):
    """ICDAR us-033 page 2, scanned (seeded "a"): two small typewritten tables, "Age Group
    Proportion" a blank line above their figures. The layout model boxes the heads as a
    section header and the table without them: they lined up with its columns, so they are
    its head row, where they had stood as a heading and the tables had none."""
    scan(CORPUS / "icdar2013" / "us-033-p2.pdf", tmp_path / "scan.pdf", random.Random("a"))
    with pymupdf.open(tmp_path / "scan.pdf") as doc:
        pix = doc[0].get_pixmap(dpi=300, colorspace=pymupdf.csRGB, alpha=False)
    page = PageImage(image=pix.pil_image(), page_number=1, dpi=300)
    (reading,) = TesseractEngine().predict_batch([page])
    tables = [b for b in reading.blocks if b.kind == "table"]
    assert len(tables) == 2
    for table in tables:
        assert [(c["text"], c["header"]) for c in table.rows[0]] == [
            ("Age Group", True),
            ("Proportion", True),
        ]
    assert not any(b.kind == "heading" and "Proportion" in b.text for b in reading.blocks)


def _two_columns(text: str, y: float, order: int) -> ReadBlock:
    """A row of two cells: its first word at x 100, the rest from x 600."""
    first, rest = text.split(" ", 1)
    block = _block(text, 100, y, order)
    x = 600
    for w in block.words[1:]:
        width = w.bbox[2] - w.bbox[0]
        w.bbox = (x, w.bbox[1], x + width, w.bbox[3])
        x += width + 25
    block.bbox = (100, y, x, y + 40)
    return block


def test_a_title_over_a_table_with_its_heads_is_no_head_row():
    """A title line parted in two ("Appendix A | Exemptions listed") right above a table
    region whose first row is its heads ("Exemption | Description"): the table has its heads,
    the title stays a title (a first row of figures would have taken it: see the us-033 test
    above)."""
    title = _two_columns("Appendix Exemptions listed", 420, 1)
    rows = [_two_columns("Exemption Description", 500, 2),
            _two_columns("7a Lead in solders", 560, 3),
            _two_columns("7c Lead in glass", 620, 4)]  # fmt: skip
    blocks, _ = _run([title, *rows], [Region("table", (90, 490, 1400, 670))])
    assert [b.kind for b in blocks] == ["paragraph", "table"]
    (table,) = [b for b in blocks if b.kind == "table"]
    assert [c["text"] for c in table.rows[0]] == ["Exemption", "Description"]


CONTENTS_BESIDE = [
    ("2", "Obtaining it", "The journal asks authors to write. The"),
    ("3", "Preparing", "style file can be used to show the appear-"),
    ("4", "Options", "ance of the journal and its many features"),
    ("5", "Title page", "to simplify the preparation of papers and"),
    ("6", "Sections", "this document gives guidance on using that"),
    ("7", "Mathematics", "style file and the features it enables."),
]


def _rows_of_three(rows, start=0) -> list[ReadBlock]:
    """Each row as three blocks at x 100, 300 and 900 (a row 60 px under the last)."""
    blocks = []
    for r, cells in enumerate(rows):
        for x, text in zip((100, 300, 900), cells, strict=True):
            if text:
                blocks.append(_block(text, x, 500 + 60 * r, start + 3 * r + x // 100))
    return blocks


def test_a_column_of_running_text_beside_a_table_region_is_no_table():
    """mnras_guide p. 1 scanned: the layout model boxed the contents in the first column and
    the second column's text beside it as one table (numbers, titles, "...the final appear-" /
    "ance of the journal"). The text running on from row to row while the contents start an
    entry in each row is no cell of theirs: the region stays text. A table's description
    wrapped over rows (the other cells empty there) is a table."""
    region = Region("table", (90, 490, 1990, 900))
    blocks, _ = _run(_rows_of_three(CONTENTS_BESIDE), [region])
    assert "table" not in [b.kind for b in blocks]
    wrapped = []
    for number, title, text in CONTENTS_BESIDE[::2]:
        wrapped += [(number, title, text), ("", "", "goes on with the rest of the row's text")]
    blocks, _ = _run(_rows_of_three(wrapped), [region])
    assert [b.kind for b in blocks] == ["table"]
