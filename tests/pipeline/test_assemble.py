"""Layout rules of assemble: captions, paragraphs cut by figures, furniture, languages."""

from __future__ import annotations

from dataclasses import replace

import pytest
from bs4 import BeautifulSoup

from conversion.pipeline.assemble import AssembleOptions, assemble, spans_from
from conversion.pipeline.assemble_params import ASSEMBLE
from conversion.pipeline.render import RenderOptions, render_document
from models.engine import PageReading, ReadBlock, Word


def _para(text, bbox, size=40.0, ink=0.2, words=None):
    return ReadBlock(kind="paragraph", text=text, bbox=bbox, font_size=size, ink=ink,
                     words=words or [])  # fmt: skip


def _doc(blocks, pages=1):
    readings = [
        PageReading(page_number=n, blocks=[b for b in blocks], width=2000, height=3000)
        for n in range(1, pages + 1)
    ]
    return assemble(readings, AssembleOptions())


def test_caption_under_a_figure_becomes_its_figcaption():
    figure = ReadBlock(kind="figure", bbox=(100, 300, 900, 1500))
    caption = _para("THEY TIP-TOED ALONG.", (300, 1520, 700, 1560), size=20)
    body = _para("Body text that goes on and on. " * 6, (1000, 300, 1900, 900))
    doc = _doc([figure, body, caption])
    kinds = [b.kind for b in doc.pages[0].blocks]
    assert kinds == ["figure", "paragraph"]
    assert doc.pages[0].blocks[0].caption == "THEY TIP-TOED ALONG."


def test_a_figures_labels_are_read_out_inside_it_after_its_image():
    """The text printed in a figure (a chart's labels) stays in the HTML inside its <figure>,
    where a screen reader reads it with the figure; it is no caption."""
    labels = [Word("Support", 95.0, (200, 400, 300, 440)), Word("2019", 95.0, (200, 500, 280, 540))]
    figure = ReadBlock(kind="figure", bbox=(100, 300, 900, 1500), words=labels)
    doc = _doc([figure])
    block = doc.pages[0].blocks[0]
    assert block.labels == "Support 2019" and block.caption is None
    block.image = "figure-1-p1.png"
    html = BeautifulSoup(render_document(doc, RenderOptions()), "html.parser")
    inside = html.select_one("figure > img + p.figure-labels")
    assert inside is not None and inside.get_text() == "Text in the figure: Support 2019"


def test_a_figures_caption_is_the_text_right_under_it_not_a_sentence_that_names_it():
    """The layout model's caption under a figure is its caption, however long; "Figure 3c
    shows ..." at the foot of a column, with text between, is the text going on."""
    figure = ReadBlock(kind="figure", bbox=(200, 300, 1800, 700))
    caption = ReadBlock(kind="caption", bbox=(200, 720, 1800, 900), font_size=30,
                        text="Figure 3: An example of a graph. " * 8)  # fmt: skip
    body = _para("The nodes share their factors, as the text goes on to say. " * 5,
                 (1000, 950, 1800, 1500))  # fmt: skip
    mention = _para("Figure 3c shows the forward pass for the human node.",
                    (1000, 2800, 1800, 2840))  # fmt: skip
    blocks = _doc([figure, caption, body, mention]).pages[0].blocks
    assert [b.kind for b in blocks] == ["figure", "paragraph", "paragraph"]
    assert blocks[0].caption == caption.text.strip()
    assert blocks[2].text.startswith("Figure 3c shows")
    # Without the caption, the sentence is still no caption: the body stands between.
    figure = ReadBlock(kind="figure", bbox=(200, 300, 1800, 700))
    blocks = _doc([figure, body, mention]).pages[0].blocks
    assert blocks[0].caption is None and blocks[-1].text.startswith("Figure 3c shows")


def test_a_first_line_cut_off_under_a_photo_is_no_caption():
    """A magazine scan: the engine cut the first line of the paragraph under a photo off as a
    paragraph of its own, short and right under the photo; it stops mid-sentence and the
    text under it goes on in lower case: it is the text, not the photo's caption."""
    figure = ReadBlock(kind="figure", bbox=(1000, 300, 1900, 1500))
    first = _para("Responses were collected by post and through", (1000, 1520, 1900, 1560))
    rest = _para("a simple online form. The museum lent several paintings.",
                 (1000, 1570, 1900, 1800))  # fmt: skip
    blocks = _doc([figure, first, rest]).pages[0].blocks
    assert blocks[0].caption is None
    assert "Responses were collected" in " ".join(b.text for b in blocks if b.kind == "paragraph")


def test_paragraph_cut_by_a_figure_is_joined_and_the_figure_moves_before_it():
    first = _para("When we was passing by the kitchen", (1000, 300, 1900, 600))
    figure = ReadBlock(kind="figure", bbox=(100, 300, 900, 1500))
    second = _para("I fell over a root and made a noise.", (1000, 620, 1900, 900))
    blocks = _doc([first, figure, second]).pages[0].blocks
    assert [b.kind for b in blocks] == ["figure", "paragraph"]
    joined = "When we was passing by the kitchen I fell over a root and made a noise."
    assert blocks[1].text == joined


def test_a_formula_kept_as_an_image_stays_in_its_sentence():
    """A display formula that could not be transcribed is no float: "... we obtain [formula]
    where ..." keeps its place, and the halves of the sentence are not run together around
    it (they were: "where We remark", the formula moved to the top)."""
    first = _para("In closed form this reads", (200, 300, 1800, 340))
    formula = ReadBlock(kind="figure", bbox=(700, 360, 1300, 460), alt="Formula, as read: x")
    formula.layout = "formula"
    second = _para("and the proof is complete.", (200, 480, 1800, 520))
    blocks = _doc([first, formula, second]).pages[0].blocks
    assert [b.kind for b in blocks] == ["paragraph", "figure", "paragraph"]
    assert [blocks[0].text, blocks[2].text] == [first.text, second.text]


def test_running_headers_and_page_numbers_leave_the_flow():
    header = _para("Annual Report 2024", (800, 50, 1200, 100))
    number = _para("7", (980, 2900, 1020, 2950))
    body = _para("The text of the page.", (200, 400, 1800, 1400))
    doc = _doc([header, body, number], pages=3)
    for page in doc.pages:
        assert [b.kind for b in page.blocks] == ["page_header", "paragraph"]
        assert page.label == "7"


def test_the_options_thresholds_reach_the_rules():
    """A narrower furniture band (AssembleOptions.params) keeps a header 2 % down in the text."""
    header = _para("Annual Report 2024", (800, 50, 1200, 100))
    body = _para("The text of the page.", (200, 400, 1800, 1400))
    readings = [PageReading(page_number=n, blocks=[header, body], width=2000, height=3000)
                for n in (1, 2)]  # fmt: skip
    narrow = AssembleOptions(params=replace(ASSEMBLE, furniture_band_share=0.01))
    assert [b.kind for b in assemble(readings, AssembleOptions()).pages[0].blocks] == [
        "page_header", "paragraph"]  # fmt: skip
    assert [b.kind for b in assemble(readings, narrow).pages[0].blocks] == [
        "paragraph", "paragraph"]  # fmt: skip


def test_foreign_words_become_a_lang_span():
    words = [Word("Le", 90, lang="fr"), Word("chien", 90, lang="fr"), Word("sleeps", 90)]
    doc = _doc([_para("Le chien sleeps", (100, 100, 900, 150), words=words)])
    spans = doc.pages[0].blocks[0].spans
    assert [(s.text.strip(), s.lang) for s in spans] == [("Le chien", "fr"), ("sleeps", None)]


def test_furniture_is_found_on_a_single_page():
    body = _para("The text of the only page, long enough to be the body. " * 4,
                 (200, 400, 1800, 1400))  # fmt: skip
    stamp = _para("Downloaded from https://archive.example.org on 12 March 2026",
                  (100, 2900, 1200, 2940), size=28)  # fmt: skip
    running = _para("Journal of Local Studies 14", (1400, 2900, 1900, 2940), size=28)
    side_stamp = _para("This content downloaded from 10.0.0.1 on Mon, 1 Jan 2024",
                       (20, 800, 60, 2200), size=28)  # fmt: skip
    number = ReadBlock(kind="page_footer", text="Page 3", bbox=(1700, 2950, 1900, 2990))
    doc = _doc([body, stamp, running, side_stamp, number])
    page = doc.pages[0]
    assert [b.kind for b in page.blocks] == ["paragraph", "page_footer", "page_footer",
                                             "page_footer"]  # fmt: skip
    assert page.label == "3"


def _book_page(number_text: str | None, head_y: int = 300):
    """An old book's page scanned with its margin: the running head and its page number on one
    row at 10 % of the height (below the 7 % band), the body starting under it."""
    row = [_para("IN INDIA: BOOK II.", (700, head_y, 1400, head_y + 60), size=28)]
    if number_text:
        row.append(_para(number_text, (2000, head_y, 2100, head_y + 60), size=30))
    body = [
        _para(
            "Christians behaving themselves like Mahomedans, as the text goes on. " * 3,
            (220, 420, 1900, 900),
        ),  # fmt: skip
        _para(
            "The natives soon had reason to suspect the viceroy and his men. " * 5,
            (220, 950, 1900, 1700),
        ),  # fmt: skip
    ]
    return _doc(row + body).pages[0]


def test_a_running_head_beside_its_page_number_is_furniture_below_the_band():
    page = _book_page("369")
    assert [b.kind for b in page.blocks] == ["page_header", "paragraph", "paragraph"]
    assert page.label == "369"
    misread = _book_page("S69")  # the OCR layer's "369"
    assert [b.kind for b in misread.blocks] == ["page_header", "page_header", "paragraph",
                                                "paragraph"]  # fmt: skip
    assert misread.label is None


def test_a_first_line_without_a_page_number_or_far_from_the_edge_stays_text():
    assert [b.kind for b in _book_page(None).blocks] == ["paragraph"] * 3
    # A row in the middle of the page is no running head, number or not.
    text = "Text that goes on for a while on this page. " * 3
    page = _doc([
        _para(text, (220, 100, 1900, 400)),
        _para("Results of the year", (700, 1500, 1400, 1560)),
        _para("12", (2000, 1500, 2100, 1560)),
        _para(text, (220, 1700, 1900, 2000)),
    ]).pages[0]  # fmt: skip
    assert all(b.kind == "paragraph" for b in page.blocks)


def _heading(text, y, size, layout="section-header"):
    return ReadBlock(kind="heading", text=text, bbox=(200, y, 1200, y + size), font_size=size,
                     layout=layout)  # fmt: skip


def test_heading_levels_are_one_scale_for_the_document():
    body = _para("Body text. " * 20, (200, 1500, 1800, 2000))
    pages = [
        [_heading("Annual Review of Services", 300, 90, "title"), _heading("Introduction", 600, 60),
         _heading("Scope", 900, 48), body],
        [_heading("Main Findings", 300, 62), _heading("Housing", 600, 47), body],
        [_heading("Next Steps", 300, 58), _heading("Energy", 600, 49), body],
    ]  # fmt: skip
    readings = [PageReading(page_number=n, blocks=blocks, width=2000, height=3000)
                for n, blocks in enumerate(pages, start=1)]  # fmt: skip
    doc = assemble(readings, AssembleOptions())
    levels = [(b.text, b.level) for b in doc.blocks() if b.kind == "heading"]
    assert levels == [
        ("Annual Review of Services", 1), ("Introduction", 2), ("Scope", 3), ("Main Findings", 2),
        ("Housing", 3), ("Next Steps", 2), ("Energy", 3),
    ]  # fmt: skip
    assert doc.title == "Annual Review of Services"


def test_a_generic_section_name_is_never_the_title():
    blocks = [_heading("References", 300, 60), _heading("Rivers and Towns in Change", 600, 60),
              _para("Body text. " * 20, (200, 1500, 1800, 2000))]  # fmt: skip
    assert _doc(blocks).title == "Rivers and Towns in Change"


def test_a_page_without_a_heading_is_titled_by_its_running_head():
    """A page from the middle of a chapter prints no heading: its running head names the work,
    not the opening words of its first paragraph; a copyright line or a page number never."""
    body = _para("Next, we would fill in the gaps between these enlarged faces. " * 3,
                 (200, 400, 1800, 900))  # fmt: skip
    stamp = ReadBlock(kind="page_header", bbox=(200, 60, 1800, 90), font_size=24,
                      text="This journal is © The Royal Society of Chemistry 2016")  # fmt: skip
    head = ReadBlock(kind="page_header", text="CHAPTER 2. MATHEMATICAL INDUCTION 42",
                     bbox=(200, 110, 1800, 140), font_size=24)  # fmt: skip
    journal = ReadBlock(kind="page_header", text="Transition in Turner syndrome, 2015, Vol. 113",
                        bbox=(200, 110, 1800, 140), font_size=24)  # fmt: skip
    number = ReadBlock(kind="page_footer", text="42", bbox=(950, 2900, 1010, 2930), font_size=24)
    assert _doc([stamp, head, body, number]).title == "CHAPTER 2. MATHEMATICAL INDUCTION"
    assert _doc([journal, body]).title == "Transition in Turner syndrome, 2015, Vol. 113"
    assert _doc([stamp, body, number]).title.startswith("Next, we would fill in the gaps")


def test_a_caption_next_to_a_table_becomes_its_caption():
    caption = _para("Table 2. Budget in thousands", (200, 400, 900, 440))
    table = ReadBlock(kind="table", bbox=(200, 450, 1500, 900),
                      rows=[[{"text": "Item", "header": True}, {"text": "Budget", "header": True}],
                            [{"text": "Staff"}, {"text": "812"}]])  # fmt: skip
    blocks = _doc([caption, table]).pages[0].blocks
    assert [b.kind for b in blocks] == ["table"]
    assert blocks[0].caption == "Table 2. Budget in thousands"


def test_a_title_set_on_two_lines_is_one_heading_and_a_table_label_is_no_heading():
    blocks = [
        _heading("Non-thermal polyimidization reaction using base-ionic liquid", 300, 60),
        _heading("as a dual catalyst-solvent", 370, 60),
        _heading("Table S1 Chemicals and reagents", 600, 45),
        _para("Body text. " * 20, (200, 1500, 1800, 2000)),
    ]
    doc = _doc(blocks)
    headings = [b.text for b in doc.blocks() if b.kind == "heading"]
    assert headings == [
        "Non-thermal polyimidization reaction using base-ionic liquid as a dual catalyst-solvent"
    ]


def test_display_type_the_layout_called_text_is_the_title():
    text = "Accelerating the Science of Language Models"
    title_words = [Word(w, 95.0, (0, 0, 10, 10), known=True) for w in text.split(" ")]
    title = ReadBlock(kind="paragraph", text=text,
                      bbox=(300, 200, 1700, 280), font_size=80, layout="text",
                      words=title_words)  # fmt: skip
    body = _para("Body text of the paper goes on. " * 20, (200, 500, 1800, 1400), size=40)
    body.layout = "text"
    doc = _doc([title, body])
    assert [b.kind for b in doc.pages[0].blocks] == ["heading", "paragraph"]
    assert doc.title == "Accelerating the Science of Language Models"


def test_display_type_in_a_header_region_is_the_title_not_furniture():
    text = "The LinnSequencer 32 Track MIDI Sequence Recorder"
    words = [Word(w, 95.0, (0, 0, 10, 10), known=w != "LinnSequencer") for w in text.split(" ")]
    top = ReadBlock(kind="page_header", text=text, bbox=(500, 100, 1700, 250), font_size=78,
                    words=words)  # fmt: skip
    body = _para("Body text of the brochure goes on. " * 20, (200, 500, 1800, 1400), size=33)
    doc = _doc([top, body])
    assert [b.kind for b in doc.pages[0].blocks] == ["heading", "paragraph"]
    assert doc.title == text


def _heading_at(text, bbox, size=58.0, layout="section-header"):
    words = [Word(text=w, confidence=100.0) for w in text.split()]
    return ReadBlock(kind="heading", text=text, bbox=bbox, font_size=size, words=words,
                     layout=layout)  # fmt: skip


def test_a_title_set_on_two_lines_is_one_heading_at():
    first = _heading_at("Non-thermal polyimidization reaction using base-ionic liquid medium",
                     (375, 573, 2120, 637), layout="title")  # fmt: skip
    second = _heading_at("as a dual catalyst-solvent", (375, 703, 1010, 767))
    body = _para("The text of the paper begins here and goes on. " * 4, (375, 900, 2100, 1300))
    doc = _doc([first, second, body])
    headings = [b for b in doc.pages[0].blocks if b.kind == "heading"]
    whole = "Non-thermal polyimidization reaction using base-ionic liquid medium as a dual"
    assert [h.text for h in headings] == [whole + " catalyst-solvent"]
    assert doc.title == whole + " catalyst-solvent"


@pytest.mark.parametrize(
    ("upper", "lower"),
    [
        ("2.1 Introduction", "2.1.1 Objectives"),
        # "A.1." numbers an appendix's subsection: the two heads were joined into one
        ("Appendix A. Additional Experiments", "A.1. Runtime."),
    ],
)
def test_a_numbered_section_right_under_another_stays_its_own_heading(upper, lower):
    chapter = _heading_at(upper, (375, 573, 1500, 637))
    section = _heading_at(lower, (375, 680, 1200, 744))
    body = _para("The text of the section begins here and goes on. " * 4, (375, 800, 2100, 1200))
    headings = [b.text for b in _doc([chapter, section, body]).pages[0].blocks
                if b.kind == "heading"]  # fmt: skip
    assert headings == [upper, lower]


def test_a_table_line_the_layout_called_a_heading_is_the_tables_caption():
    caption = _heading_at("Table S1 Chemicals and reagents", (375, 500, 1200, 560), size=40)
    rows = [[{"text": "Reagent", "header": True}, {"text": "Supplier", "header": True}],
            [{"text": "PMDA"}, {"text": "Boshan Hengtai Chem."}]]  # fmt: skip
    table = ReadBlock(kind="table", rows=rows, bbox=(375, 580, 2000, 900))
    blocks = _doc([caption, table]).pages[0].blocks
    assert [b.kind for b in blocks] == ["table"]
    assert blocks[0].caption == "Table S1 Chemicals and reagents"


def test_supporting_information_is_no_title():
    label = _heading_at("Supporting information", (900, 384, 1596, 457), size=67, layout="title")
    title = _heading_at("Non-thermal polyimidization reaction in an ionic liquid",
                        (375, 573, 2120, 637), layout="title")  # fmt: skip
    body = _para("The text of the paper begins here and goes on. " * 4, (375, 900, 2100, 1300))
    assert (
        _doc([label, title, body]).title
        == "Non-thermal polyimidization reaction in an ionic liquid"
    )


def test_a_title_and_its_subtitle_join_but_not_the_author_a_point_smaller_under_them():
    """A born-digital article title on two lines, the first ending in a colon, and the author's
    name set a point smaller right under it (failing_anchor_pg4.pdf's first page): the title
    is one heading, the name is not part of it. The text layer gives sizes exactly, so a point
    smaller (9 %) is another size; a running title over a section head a point smaller
    likewise."""
    blocks = [
        _heading_at(
            "Employee’s Perception of Fairness of Advancement:", (866, 362, 1850, 416), size=47.5
        ),
        _heading_at("Implications for Fair Labour Practices", (1141, 416, 1838, 470), size=47.5),
        _heading_at("Kola O. Odeku", (1595, 512, 1850, 562), size=43.3),
        _para(
            "The text of the paper begins here and goes on. " * 4, (180, 900, 1850, 1300), size=35
        ),
    ]
    reading = PageReading(page_number=1, blocks=blocks, width=2079, height=2954,
                          source="text_layer")  # fmt: skip
    doc = assemble([reading], AssembleOptions())
    headings = [b.text for b in doc.pages[0].blocks if b.kind == "heading"]
    assert headings[0] == (
        "Employee’s Perception of Fairness of Advancement: Implications for Fair Labour Practices"
    )
    assert "Kola O. Odeku" not in headings[0]


def _front_page(*front):
    """A born-digital paper's first page: the given front matter, then a section and its text."""
    body = "The text of the paper begins here and goes on. " * 4
    blocks = [*front, _heading_at("1. Introduction", (180, 800, 700, 850), size=40.0),
              _para(body, (180, 900, 1850, 1300), size=40.0)]  # fmt: skip
    reading = PageReading(page_number=1, blocks=blocks, width=2079, height=2954,
                          source="text_layer")  # fmt: skip
    doc = assemble([reading], AssembleOptions())
    return [b.text for b in doc.pages[0].blocks if b.kind == "heading"]


def test_a_title_of_four_capitalised_words_over_an_authors_name_stays_the_title():
    """ "Towards Reliable Time Series" reads as a name too (four capitalised words); set in
    display type over the author's name and affiliation, it is the title: names are set in
    one size, and the title was made a paragraph with the name under it."""
    headings = _front_page(
        _heading_at("Towards Reliable Time Series", (700, 300, 1400, 370), size=72.0),
        _heading_at("Elena Haddad", (900, 420, 1150, 470), size=50.0),
        _para(
            "Department of Computer Science, Sorbonne University", (700, 500, 1400, 545), size=50.0
        ),  # fmt: skip
    )
    assert headings == ["Towards Reliable Time Series", "1. Introduction"]


@pytest.mark.parametrize(
    ("title", "names"),
    [
        ("TIME SERIES UNDER DISTRIBUTION SHIFT", "ELENA SCHMIDT"),
        ("SOIL MOISTURE: METHODS AND APPLICATIONS", "SOFIA OKAFOR AND MARIA OKAFOR"),
    ],
)
def test_authors_names_in_capitals_over_the_abstract_are_no_heading(title, names):
    """AMS classes set the authors in capitals under the title, two on one line joined by
    "AND", and print the addresses at the paper's end: the abstract right under the names
    says they are names."""
    headings = _front_page(
        _heading_at(title, (500, 300, 1500, 350), size=50.0),
        _heading_at(names, (800, 400, 1250, 440), size=40.0),
        _para(
            "ABSTRACT. We study how the method behaves on several benchmarks.",
            (300, 500, 1700, 600),
            size=36.0,
        ),  # fmt: skip
    )
    assert headings == [title, "1. Introduction"]


def test_a_formula_kept_as_an_image_takes_no_caption():
    """The short line under a display equation the engine kept as an image goes on as text; it
    is not the formula's caption (a figure's caption would be)."""
    formula = ReadBlock(kind="figure", bbox=(600, 300, 1400, 420), layout="formula",
                        alt="Formula, not transcribed: see the image")  # fmt: skip
    after = _para("Why, of course, we meant the list of natural numbers.", (300, 440, 1700, 490))
    picture = ReadBlock(kind="figure", bbox=(600, 800, 1400, 1500), layout="picture")
    caption = _para("Figure 2: the cubes.", (700, 1520, 1300, 1570))
    blocks = _doc([formula, after, picture, caption]).pages[0].blocks
    assert [b.kind for b in blocks] == ["figure", "paragraph", "figure"]
    assert blocks[0].caption is None and blocks[2].caption == "Figure 2: the cubes."


def test_a_copyright_line_in_the_margin_is_a_stamp_in_body_size_too():
    """A journal's stamp at the top of a single page, in the body's size and too long for a
    margin note ("Electronic Supplementary Material (ESI) for RSC Advances. This journal is ©
    The Royal Society of Chemistry 2016", lots_of_chem_tables.pdf): furniture. The same words
    in the body stay text."""
    stamp = _para("Electronic Supplementary Material (ESI) for RSC Advances. This journal is "
                  "© The Royal Society of Chemistry 2016", (50, 20, 1500, 180))  # fmt: skip
    body = _para("The text of the only page, long enough to be the body. " * 4,
                 (200, 400, 1800, 1400))  # fmt: skip
    quoted = _para("Its licence reads: © The Authors 2016, reuse allowed.", (200, 1500, 1800, 1560))
    page = _doc([stamp, body, quoted]).pages[0]
    assert [b.kind for b in page.blocks] == ["page_header", "paragraph", "paragraph"]


def _line(text, bbox):
    words = [Word(w, 95.0, (bbox[0], bbox[1], bbox[0] + 10, bbox[3])) for w in text.split()]
    return _para(text, bbox, size=40, words=words)


def test_a_full_width_line_cut_at_a_column_gap_is_one_line():
    """The last line of a scanned page runs under an infobox; Tesseract cut it at the gap
    between the text column and the box (edgar_image.pdf): the lowercase rest on the same line,
    a word space away, ends the paragraph instead of following the infobox. A line of the other
    column at a gutter's distance stays where it is."""
    body = _line("England was free from external", (150, 3075, 1442, 3125))
    box = _line("Mother Elfgifu of Shaftesbury", (1463, 2950, 2300, 2983))
    rest = _line("attacks and internal disorder, especially", (1475, 3075, 2404, 3125))
    blocks = _doc([body, box, rest]).pages[0].blocks
    assert [b.text for b in blocks] == [
        "England was free from external attacks and internal disorder, especially",
        "Mother Elfgifu of Shaftesbury",
    ]
    far = _line("the other column goes on here", (1600, 3075, 2404, 3125))
    body = _line("England was free from external", (150, 3075, 1442, 3125))
    assert len(_doc([body, far]).pages[0].blocks) == 2


def test_a_page_number_with_only_furniture_below_it_is_the_page_label():
    """A form's "Page 3 of 6" above its disclaimer footer, outside the 7 % band (the page
    number read large, 43 px beside a 20 px body, was taken for a heading)."""
    text = "Text that goes on for a while on this page. " * 3
    footer = ReadBlock(kind="page_footer", text="This information is given in good faith.",
                       bbox=(250, 2890, 1770, 2960), font_size=24)  # fmt: skip
    blocks = [_para(text, (220, 300, 1900, 2500), size=20),
              _para("Page 3 of 6", (970, 2760, 1050, 2800), size=43), footer]  # fmt: skip
    page = _doc(blocks).pages[0]
    assert [b.kind for b in page.blocks] == ["paragraph", "page_footer"]
    assert page.label == "3"
    # Text below it, or a number far from the edge, keeps it where it is.
    tail = _para("The last line of text.", (220, 2850, 1900, 2880), size=20)
    assert "heading" in [b.kind for b in _doc(blocks[:2] + [tail]).pages[0].blocks]
    # Set large, a footer is still a footer.
    footer.font_size = 43
    assert [b.kind for b in _doc(blocks).pages[0].blocks] == ["paragraph", "page_footer"]
    footer.font_size = 24
    middle = _para("12", (970, 1500, 1050, 1540), size=20)
    assert [b.kind for b in _doc([blocks[0], middle, footer]).pages[0].blocks] == [
        "paragraph", "paragraph", "page_footer"]  # fmt: skip


def test_small_print_under_the_page_number_is_the_pages_foot():
    """timbreicmc's documentation p. 5: under the folio "5", the institute's letterhead footer
    in small print, two lines ("Instituto de Ciências Matemáticas e de Computação | ..."),
    above the 7 % band: a footer, not the page's last paragraph. A footnote's number beside its
    text is no folio, and text at the body's size under a number stays text."""
    text = "Text that goes on for a while on this page. " * 3
    blocks = [_para(text, (220, 300, 1900, 2500), size=41),
              _para("5", (1366, 2695, 1387, 2736), size=41),
              _para("Instituto de Ciências Matemáticas e de Computação | Av. Trabalhador "
                    "São-carlense, 400", (411, 2800, 2138, 2887), size=37)]  # fmt: skip
    assert [b.kind for b in _doc(blocks).pages[0].blocks] == ["paragraph", "page_footer"]
    note = _para("See the class's manual for the colours.", (1400, 2695, 2138, 2736), size=37)
    kinds = [b.kind for b in _doc([*blocks[:2], note, blocks[2]]).pages[0].blocks]
    assert kinds.count("paragraph") >= 3
    blocks[2].font_size = 41
    assert [b.kind for b in _doc(blocks).pages[0].blocks][-1] == "paragraph"


def test_a_section_number_read_apart_from_its_heading_opens_it():
    """A scanned manual's "2.2.1" | "Primary Source" (aip's documentation p. 4): Tesseract
    read the number, an em left of its title, as a paragraph of its own, and the heading came
    without it. On the heading's row and near it, the number opens the heading; far from it,
    or beside a paragraph, it stays where it is."""
    text = "The following are the files of this distribution, arranged by provenance. " * 3
    number = _para("2.2.1", (532, 894, 607, 916), size=30)
    title = ReadBlock(kind="heading", text="Primary Source", bbox=(649, 893, 910, 923),
                      font_size=30)  # fmt: skip
    body = _para(text, (532, 960, 1900, 1300), size=30)
    blocks = _doc([number, title, body]).pages[0].blocks
    assert [(b.kind, b.text) for b in blocks][0] == ("heading", "2.2.1 Primary Source")
    far = _para("2.2.1", (100, 894, 175, 916), size=30)
    title.text = "Primary Source"
    blocks = _doc([far, title, body]).pages[0].blocks
    assert "2.2.1" in [b.text for b in blocks]


def _scanned(text, bbox, *, stroke, size=35.0, confidence=95.0, layout="text"):
    """A block as the OCR engine reads it: words on one line per 1.5 sizes of its box, its
    strokes' width measured on the scan."""
    words, x, y = [], bbox[0], bbox[1]
    for part in text.split():
        if x + 14 * len(part) > bbox[2]:
            x, y = bbox[0], y + 1.5 * size
        words.append(Word(part, confidence, (x, y, x + 14 * len(part), y + size), known=True))
        x += 14 * (len(part) + 1)
    return ReadBlock(kind="paragraph", text=text, bbox=bbox, font_size=size, stroke=stroke,
                     words=words, layout=layout)  # fmt: skip


BODY_TEXT = ("By signing the Declaration, you indicate that you have read the guidelines and "
             "completed the form as they ask. ") * 3  # fmt: skip


def _form_page(*extra):
    """A scanned form page: its number and running title (bold, a point larger, on two lines),
    a section title in bold at the body's size, body text, all in what the layout model calls
    text."""
    return [
        _scanned("Form 101-02", (150, 121, 363, 149), stroke=5.6, size=38.2),
        _scanned(
            "Application for RPA Operator’s Certificate (ReOC) Initial Issue and Variation",
            (150, 184, 1014, 255),
            stroke=5.7,
            size=37.8,
        ),
        _scanned("Part C – Applicant(s) Declaration", (150, 288, 663, 321), stroke=5.2),
        _scanned(BODY_TEXT, (150, 338, 1823, 515), stroke=3.8, size=33.3),
        *extra,
        _scanned(BODY_TEXT, (150, 1400, 1823, 1580), stroke=3.8, size=33.3),
    ]


def _headings(blocks, **kw):
    doc = assemble([PageReading(page_number=1, blocks=blocks, width=2000, height=2800, **kw)],
                   AssembleOptions())  # fmt: skip
    return [b.text for b in doc.pages[0].blocks if b.kind == "heading"]


def test_a_scanned_bold_line_the_layout_called_text_is_a_heading():
    """Bold measured on the scan (strokes a third wider than the body's), a line or two of
    real words alone on its row with text under it: a title, though the layout model says
    text (form_on_later_pages p3, bws_book_ch2 p5). The running title a point larger over the
    section title is a heading of its own (sizes 9 % apart), and the two bold blocks are not
    taken for one paragraph cut in two."""
    assert _headings(_form_page()) == [
        "Application for RPA Operator’s Certificate (ReOC) Initial Issue and Variation",
        "Part C – Applicant(s) Declaration",
    ]
    # In the body's weight it is text; a line larger than the body is not bold for that.
    regular = _form_page()
    regular[2].stroke = 4.0
    regular[1].stroke, regular[1].font_size = 5.0, 40.0
    assert _headings(regular) == []
    # A text layer's bold is the font's (a paper's bold author names stay text there).
    text_layer = _form_page()
    for block in text_layer:
        block.bold, block.stroke = block.stroke > 5, None
    assert _headings(text_layer, source="text_layer") == []


def test_a_scanned_bold_line_is_no_heading_as_a_label_a_cell_a_caption_or_a_sentence():
    """What a bold line also is: a form's label ending in a colon, a cell or a label beside its
    value on one row (a table's header row outside its region), a caption, a sentence (or a
    bold lead-in too long for a title, cut from its end by the layout), garbage, a list item,
    a block of four lines or more (an address), a line with nothing in regular type under
    it."""
    label = _scanned("For more information refer to", (150, 600, 700, 635), stroke=5.2)
    assert _headings(_form_page(label))[-1] == "For more information refer to"
    colon = _scanned("For more information refer to:", (150, 600, 700, 635), stroke=5.2)
    cell = _scanned("Document name", (150, 600, 500, 635), stroke=5.2)
    other = _scanned("Where to find it", (900, 600, 1500, 635), stroke=5.2)
    caption = _scanned("Figure 3 Flight areas", (150, 600, 700, 635), stroke=5.2)
    sentence = _scanned("You do not need to print these guidelines.", (150, 600, 1500, 635),
                        stroke=5.2)  # fmt: skip
    garbage = _scanned("Tl Aq Zr", (150, 600, 700, 635), stroke=5.2, confidence=40.0)
    item = _scanned("Operations Manual", (150, 600, 700, 635), stroke=5.2)
    item.kind, item.marker = "list_item", "•"
    address = _scanned("Civil Aviation Safety Authority GPO Box 2005 Canberra ACT 2601",
                       (150, 600, 400, 760), stroke=5.2)  # fmt: skip
    lead = _scanned("Complete this form if you are applying for the initial issue or a "
                    "variation of a RPA Operator's Certificate", (150, 600, 1800, 700),
                    stroke=5.2)  # fmt: skip
    for extra in ([colon], [cell, other], [caption], [sentence], [garbage], [item], [address],
                  [lead]):  # fmt: skip
        assert _headings(_form_page(*extra)) == _headings(_form_page()), extra[0].text
    # At the foot, with nothing under it: a signature or a footer, not a title.
    foot = _scanned("Civil Aviation Safety Authority", (150, 1700, 900, 1735), stroke=5.2)
    assert "Civil Aviation Safety Authority" not in _headings([*_form_page(), foot])


def test_a_bold_running_head_with_its_page_number_stays_furniture():
    head = _scanned("EXAMPLES AND DISCUSSION", (375, 60, 942, 95), stroke=5.2)
    number = _scanned("105", (1471, 60, 1517, 95), stroke=5.2)
    doc = assemble([PageReading(page_number=1, blocks=[head, number, *_form_page()],
                                width=2000, height=2800)], AssembleOptions())  # fmt: skip
    assert "EXAMPLES AND DISCUSSION" not in [
        b.text for b in doc.pages[0].blocks if b.kind in ("heading", "paragraph")
    ]


def test_a_papers_bold_authors_row_after_row_are_no_headings():
    """A scanned paper's authors in bold, one centred row after another (olmo-page-1,
    dolma-page-1), a name set larger among them, then the affiliations in regular type: a
    run of bold lines longer than a title is a list of names, none of them a heading. The
    title over them is found by its size, as before."""
    names = ["Dirk Groeneveld", "Pete Walsh", "Ananya Harsh Jha", "Shane Arora", "Kyle Lo"]
    title = _scanned("Accelerating the Science of Language Models", (550, 338, 1930, 413),
                     stroke=8.3, size=58.0)  # fmt: skip
    rows = [_scanned(n, (800, 480 + 90 * i, 1300, 520 + 90 * i), stroke=6.4, size=48.0)
            for i, n in enumerate(names)]  # fmt: skip
    place = _scanned("Allen Institute for Artificial Intelligence", (860, 960, 1660, 1000),
                     stroke=4.3, size=47.0)  # fmt: skip
    body = _scanned(BODY_TEXT, (360, 1100, 1800, 1900), stroke=3.8, size=38.0)
    blocks = [title, *rows, place, body]
    blocks[3].stroke, blocks[3].font_size = 5.5, 46.0  # larger: heavy, if not bold for its size
    assert _headings(blocks) == ["Accelerating the Science of Language Models"]
    # The last two names alone are as short as a title and its subtitle, but each reads as a
    # name and the affiliation under them says they are names (no_bylines).
    assert _headings([blocks[0], *blocks[4:]]) == ["Accelerating the Science of Language Models"]


def test_one_uncertain_word_in_a_mended_paragraph_flags_that_word_only():
    """A paragraph whose line-end hyphens were mended ("compo-" "nents" -> "components") no
    longer reads as its words joined; its one uncertain word is flagged, not the whole
    paragraph (issue 31: whole paragraphs flagged sent clean scans to review)."""
    read = [("The", 96), ("compo-", 95), ("nents", 95), ("interact", 91), ("with", 97),
            ("Zarnir", 41), ("and", 96), ("oth-", 58), ("ers.", 93)]  # fmt: skip
    words = [Word(text, conf) for text, conf in read]
    block = ReadBlock(kind="paragraph", text="The components interact with Zarnir and others.",
                      words=words)  # fmt: skip
    spans = spans_from(block)
    assert "".join(s.text for s in spans) == block.text
    assert [s.text.strip() for s in spans if s.low_confidence] == ["Zarnir", "others."]


def test_an_uncertain_word_the_text_changed_flags_where_it_stood():
    """A word the reading dropped (a speck) leaves nothing to doubt; one it rewrote past
    finding flags what stands between its neighbours, never the whole paragraph."""
    words = [Word("Turner", 95), Word("~", 20), Word("syndrome", 94), Word("(TS)", 96)]
    dropped = ReadBlock(kind="paragraph", text="Turner syndrome (TS)", words=words)
    assert not any(s.low_confidence for s in spans_from(dropped))
    for odd in ("ﬁrst", "f1rst"):  # a ligature, a letter the reading mended
        words = [Word("The", 95), Word(odd, 40), Word("case", 94), Word("(TS)", 96)]
        rewritten = ReadBlock(kind="paragraph", text="The first case (TS)", words=words)
        flagged = [s.text.strip() for s in spans_from(rewritten) if s.low_confidence]
        assert flagged == ["first"], odd


def test_lines_of_chinese_or_japanese_join_with_no_space():
    """Two lines of one Japanese sentence (pdfjs issue16063: "ことがで" / "きる") join with no
    space; a full-width number keeps the space before its title, Korean its word spaces."""

    def text(*words: str) -> str:
        block = ReadBlock(kind="paragraph", text=" ".join(words),
                          words=[Word(w, 100.0) for w in words])  # fmt: skip
        return "".join(s.text for s in spans_from(block))

    assert text("工具を用いずに電線の接続を行うことがで", "きる速結端子") == (
        "工具を用いずに電線の接続を行うことができる速結端子"
    )
    assert text("１．１", "絶縁電線関係") == "１．１ 絶縁電線関係"
    assert text("대학", "도서관은") == "대학 도서관은"
    assert text("the", "library") == "the library"


def test_a_title_with_a_footnote_star_stays_the_title():
    """\\thanks puts a star after the title: "Inference*" is no name with an affiliation's mark
    (the title of four capitalised words was made a paragraph as a byline)."""
    headings = _front_page(
        _heading_at("Towards Reliable Bayesian Inference*", (600, 300, 1500, 370), size=72.0),
        _para("Wei Rossi", (900, 420, 1150, 460), size=48.0),
    )
    assert headings == ["Towards Reliable Bayesian Inference*", "1. Introduction"]


def test_front_matter_fields_an_algorithms_caption_and_a_diagrams_labels_are_no_headings():
    headings = _front_page(
        _heading_at("Learning Time Series at Scale", (600, 300, 1500, 370), size=72.0),
        _heading_at("Keywords: runtime, baselines, datasets", (180, 450, 1200, 490), size=40.0),
        _heading_at("CCS Concepts: • Computing methodologies", (180, 500, 1200, 540), size=40.0),
        _heading_at("Reference Format:", (180, 550, 700, 590), size=40.0),
        _heading_at("Algorithm 1 Greedy selection", (180, 600, 900, 640), size=40.0),
        _heading_at("Encoder → Attention → Loss", (500, 680, 1300, 720), size=40.0),
    )
    assert headings == ["Learning Time Series at Scale", "1. Introduction"]


def _item(text, bbox):
    return ReadBlock(kind="list_item", text=text, bbox=bbox, font_size=40.0, marker="•")


def test_a_list_going_on_at_the_next_columns_top_is_not_nested_in_its_last_item():
    # tracemonkey.pdf (pdfjs) p. 11: three bullets at the foot of the left column, two at the
    # head of the right one, set further right: one list of five, not two nested under the
    # third. A deeper item in the right column still nests.
    items = [
        _item("First point of the list.", (100, 2000, 900, 2100)),
        _item("Second point of the list.", (100, 2150, 900, 2250)),
        _item("Third point of the list.", (100, 2300, 900, 2400)),
        _item("Fourth point, at the next column's top.", (1100, 300, 1900, 400)),
        _item("A point under the fourth.", (1200, 450, 1900, 550)),
        _item("Fifth point of the list.", (1100, 600, 1900, 700)),
    ]
    (block,) = _doc(items).pages[0].blocks
    texts = [" ".join(s.text for s in item.spans) for item in block.items]
    assert texts == ["First point of the list.", "Second point of the list.",
                     "Third point of the list.", "Fourth point, at the next column's top.",
                     "Fifth point of the list."]  # fmt: skip
    assert [len(item.children) for item in block.items] == [0, 0, 0, 1, 0]
