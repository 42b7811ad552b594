"""Each word of a text layer keeps its own text size, read from its glyphs."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from models.engine import Word
from models.reading.layer_words import block_words, expanded, page_words, word_styles
from models.reading.textlayer import text_layer_reading
from tests.conftest import CORPUS

MATH = Path(__file__).resolve().parents[2] / "resources" / "math"


def test_each_word_has_its_own_size_even_in_a_block_with_its_paragraph(tmp_path):
    """A section heading MuPDF puts in one block with the paragraph under it: the heading's
    words keep their own size (the block's median is the body's), so a heading cut out of the
    block by the layout has the size of its section level on every page."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "4.3. Human activity detection", fontsize=10.96, fontname="hebo")
    for k in range(6):
        page.insert_text((72, 114 + 12 * k), "body text of the section goes on here", fontsize=9.96)
    doc.save(tmp_path / "mixed.pdf")
    page = pymupdf.open(tmp_path / "mixed.pdf")[0]
    sizes = word_styles(page).sizes
    by_text = {w[4]: sizes.get(tuple(w[5:8])) for w in page.get_text("words")}
    assert round(by_text["Human"], 2) == 10.96
    assert round(by_text["body"], 2) == 9.96


def _accented_page(tmp_path, accent_over: bool):
    """ "Jim´enez" as TeX sets it: the acute a glyph of its own, drawn before the "e" and
    centred over it (accent_over), or set after the "m" with its own width (as "don´t" is)."""
    doc = pymupdf.open()
    page = doc.new_page()
    size = 12
    font = pymupdf.Font("helv")
    x = 72 + font.text_length("Jim", size)
    page.insert_text((72, 100), "Jim", fontsize=size)
    e = font.text_length("e", size)
    acute = font.text_length("´", size)
    if accent_over:
        page.insert_text((x + (e - acute) / 2, 100), "´", fontsize=size)
        page.insert_text((x, 100), "enez", fontsize=size)
    else:
        page.insert_text((x, 100), "´enez", fontsize=size)
    doc.save(tmp_path / "accent.pdf")
    return pymupdf.open(tmp_path / "accent.pdf")[0]


def test_a_spacing_accent_set_over_a_letter_is_composed_with_it(tmp_path):
    page = _accented_page(tmp_path, accent_over=True)
    words = page.get_text("words", sort=False)
    assert [w[4] for w in words] == ["Jim´enez"]  # MuPDF reads the accent as its own glyph
    texts = word_styles(page, words).texts
    assert list(texts.values()) == ["Jiménez"]


def test_a_spacing_accent_with_its_own_width_stays(tmp_path):
    """An acute typed for an apostrophe ("don´t") is set beside the letters, over none."""
    page = _accented_page(tmp_path, accent_over=False)
    texts = word_styles(page).texts
    assert texts == {}


def test_ligature_glyphs_are_written_as_their_letters(tmp_path):
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_font(fontname="F0", fontbuffer=pymupdf.Font("cjk").buffer)
    page.insert_text((72, 100), "\ufb01nd the \ufb02ow", fontname="F0", fontsize=12)
    doc.save(tmp_path / "ligatures.pdf")
    page = pymupdf.open(tmp_path / "ligatures.pdf")[0]
    words = page.get_text("words", sort=False)
    assert "\ufb01nd" in [w[4] for w in words]
    texts = word_styles(page, words).texts
    assert sorted(texts.values()) == ["find", "flow"]
    assert expanded("e\ufb03cient") == "efficient"


def test_a_mark_of_mathematics_glued_to_the_word_before_a_formula_leaves_it():
    """pdfTeX sets \\vec's arrow with no width before its letter: MuPDF glues it to the last
    word before the display (tests/resources/math/sentence.pdf: "reads⃗")."""
    page = pymupdf.open(
        Path(__file__).resolve().parents[2] / "resources" / "math" / "sentence.pdf"
    )[0]
    glued = [w[4] for w in page.get_text("words", sort=False) if w[4].startswith("reads")]
    assert glued == ["reads\u20d7"] and expanded(glued[0]) == "reads"
    assert expanded("a\u0338") == "a" and expanded("caf\u00e9") == "caf\u00e9"


def _words(*texts: str, line: int = 0) -> list[tuple[tuple[int, int], Word]]:
    return [((0, line), Word(text=t, confidence=100.0, bbox=(0, 0, 1, 1))) for t in texts]


def test_dot_leaders_go_and_the_entry_stays():
    """A table of contents' line: the leader goes (a word of dots, spaced dots, dots run into
    the entry), the entry and its page number stay; an ellipsis is text."""
    assert [w.text for w in block_words(_words("Introduction", "..........", "3"))] == [
        "Introduction",
        "3",
    ]
    spaced = _words("Methods", ".", ".", ".", ".", ".", "7")
    assert [w.text for w in block_words(spaced)] == ["Methods", "7"]
    assert [w.text for w in block_words(_words("Results.........", "12"))] == ["Results", "12"]
    assert [w.text for w in block_words(_words("and", "so", "on", "..."))] == [
        "and",
        "so",
        "on",
        "...",
    ]


def test_an_arabic_word_is_one_word_not_the_pieces_its_joined_letters_make():
    """MuPDF cuts "اﻧﻮاع" into "ا", "ﻧﻮ", "اع" (pieces whose boxes touch, right to left): a
    screen reader spelt out pieces of words. The page's words are its lines' words, and the
    reading's text is the layer's text."""
    with pymupdf.open(CORPUS / "pdfjs" / "ArabicCIDTrueType.pdf") as doc:
        page = doc[0]
        lines = [line.split() for line in page.get_text("text").splitlines() if line.strip()]
        assert [w[4] for w in page_words(page)] == [word for line in lines for word in line]
        assert len(page.get_text("words")) > len(page_words(page))  # MuPDF's own: pieces
        reading = text_layer_reading(page, page_number=1, dpi=150)
    text = " ".join(b.text for b in reading.blocks)
    assert text.split() == [word for line in lines for word in line]


def test_a_logos_raised_letter_is_no_exponent_but_a_words_end_is():
    """pdfTeX's \\LaTeX logo raises a small "A" between "L" and "TEX": it was an exponent, and
    the HTML said "L<sup>A</sup>TEX" (a reader heard "L, A, TEX"). Letters raised or lowered
    between letters of one word are a logo's; "x2" and "1st" keep theirs."""
    page = pymupdf.open(CORPUS / "logos" / "latex-logo.pdf")[0]
    words = page_words(page)
    scripts = word_styles(page, words).scripts
    script_of = {w[4]: scripts.get(tuple(w[5:8])) for w in words}
    assert script_of["LATEX"] is None and script_of["TEX"] is None
    assert script_of["x2"] == [[1, 2, "sup"]] and script_of["1st"] == [[1, 3, "sup"]]


def test_letter_spaced_type_reads_as_its_words_not_as_letters():
    """The Tufte sample book's epigraphs, set in letter-spaced capitals: MuPDF makes each
    letter a word ("T H E P U B L I C"), which a screen reader spells out. The letters between
    the wide gaps are one word, and a word's end alone on its line ("S U R I N G .") is parted
    by the gap of the letters at its size."""
    with pymupdf.open(CORPUS / "texlive" / "tufte-sample-book-p2.pdf") as doc:
        texts = [w[4] for w in page_words(doc[0])]
    line = " ".join(texts[:12])
    assert line.startswith("THE PUBLIC IS MORE FAMILIAR WITH BAD DESIGN THAN GOOD DESIGN.")
    assert "SURING." in texts and "PARTICIPATED" in texts and "SAINT-EXUPÉRY" in texts


def test_single_letters_spaced_evenly_stay_apart(tmp_path):
    """Variables named in a sentence's list, a row of grades, an alphabet shown letter by
    letter before its ellipsis (textalpha's Greek alphabet): one size of gap between letters,
    so no word, though a wider gap stands before the dots."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "x y z w v", fontsize=11)
    page.insert_text((72, 130), "A B C D E F", fontsize=11)
    page.insert_text((72, 160), "a b c d e f g h i j k    . . .", fontsize=11)
    doc.save(tmp_path / "letters.pdf")
    with pymupdf.open(tmp_path / "letters.pdf") as doc:
        assert [w[4] for w in page_words(doc[0])] == [*"xyzwv", *"ABCDEF", *"abcdefghijk", *"..."]


def test_pieces_set_at_uneven_gaps_stay_apart(tmp_path):
    """A formula's or a list's pieces ("S/pn ~t (n -1).", "A. B. C- a,") have gaps of many sizes,
    however wide the widest: no even letter gap, so no letter-spaced word."""
    doc = pymupdf.open()
    page = doc.new_page()
    x = 72.0
    for text, gap in zip(["A.", "B.", "C", "a,", "D.", "E."], [1.7, 2.9, 3.3, 1.7, 2.9, 0],
                         strict=True):  # fmt: skip
        page.insert_text((x, 100), text, fontsize=11)
        x += pymupdf.get_text_length(text, fontsize=11) + gap
    doc.save(tmp_path / "pieces.pdf")
    with pymupdf.open(tmp_path / "pieces.pdf") as doc:
        assert [w[4] for w in page_words(doc[0])] == ["A.", "B.", "C", "a,", "D.", "E."]


def test_a_radical_sign_mupdf_set_apart_joins_its_line():
    """MuPDF sets a radical sign in a text block of its own, its box above its line: "with
    √2 inline too" was three paragraphs ("with", "√", "2 inline too"), and each display
    formula's root a "√" paragraph of its own. The sign joins its radicand's block, and that
    block the one its line goes on from (tests/resources/math/radicals.tex)."""
    page = pymupdf.open(MATH / "radicals.pdf")[0]
    reading = text_layer_reading(page, page_number=1, dpi=150)
    texts = [b.text for b in reading.blocks if b.kind != "figure"]
    assert "√" not in texts
    assert any(
        t.startswith("And so a is even, with √ 2 inline too, and the proof goes on") for t in texts
    )
    roots = [b.latex for b in reading.blocks if b.kind == "formula"]
    assert roots == [r"\frac{a}{b} = \sqrt{2}", r"a ^{2} = 2 b ^{2} x = \frac{- b \pm \sqrt{b ^{2}"
                     r" - 4 a c}}{2 a}"]  # fmt: skip
    # The sign's box reaches down to its radicand's line: inside the formula's region.
    (sentence,) = [b for b in reading.blocks if b.text.startswith("And so")]
    sign = next(w for w in sentence.words if w.text == "√")
    two = next(w for w in sentence.words if w.text.startswith("2"))
    assert sign.bbox[3] >= two.bbox[3]
