"""Blocks + layout regions -> kinds: real-word headings, furniture, tables, figures, formulas."""

from __future__ import annotations

from models.engine import ReadBlock, Word
from models.layout import Region
from models.structure import FORMULA_FINDING, apply_layout, figure_worthy, real_words

WIDTH, HEIGHT = 2000, 3000


def _ink(_box) -> float:
    return 0.3  # every box holds an image


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


def _run(blocks, regions, ink=_ink):
    return apply_layout(blocks, regions, width=WIDTH, height=HEIGHT, ink=ink)


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


def test_specks_are_no_figures_and_real_pictures_are():
    speck = ReadBlock(kind="figure", bbox=(500, 500, 511, 508))
    speck.order = (1, 0)
    picture = Region("picture", (100, 1200, 1500, 2000))
    blocks, _ = _run([speck, _block("Text.", 100, 900, 2)], [picture])
    assert [b.kind for b in blocks] == ["paragraph", "figure"]
    assert not figure_worthy((0, 0, 1000, 800), WIDTH, HEIGHT, lambda box: 0.0)  # a blank box
    assert figure_worthy((0, 0, 1000, 800), WIDTH, HEIGHT, _ink)


def test_a_formula_not_transcribed_is_an_image_with_a_finding():
    scraps = _block("λg = ∑ s∈S", 600, 700, 1)
    body = _block("Text after the formula.", 100, 900, 2)
    blocks, findings = _run([scraps, body], [Region("formula", (590, 690, 1200, 760))])
    assert [b.kind for b in blocks] == ["figure", "paragraph"]
    assert "not transcribed" in (blocks[0].alt or "")
    assert findings == [FORMULA_FINDING]


def test_a_transcribed_formula_is_a_formula_block():
    scraps = _block("E = mc2", 600, 700, 1)
    blocks, findings = apply_layout(
        [scraps], [Region("formula", (590, 690, 1200, 760))], width=WIDTH, height=HEIGHT,
        ink=_ink, transcribe=lambda box: "E = m c^{2}",
    )  # fmt: skip
    assert [(b.kind, b.latex) for b in blocks] == [("formula", "E = m c^{2}")]
    assert findings == []


def test_the_layout_model_runs_single_threaded():
    """One thread per ONNX session: the same regions in every process (see models.layout)."""
    from models.layout import _single_threaded_model

    session = _single_threaded_model()._model.session
    assert session.get_session_options().intra_op_num_threads == 1


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
