"""A born-digital page's vector drawings with slanted strokes are pictures; a page of too many
paths is not looked through. Formulas of real pdflatex pages (tests/resources/math/*.tex, their
PDFs beside them) are rebuilt from their glyphs and drawn rules."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pymupdf
import pytest

from models.reading.layer_drawings import formula_transcriber, with_drawings
from models.reading.params.text_layer import TEXT_LAYER
from models.reading.textlayer import text_layer_reading
from tests.conftest import CORPUS


def _text_blocks(page):
    return [b for b in page.get_text("dict")["blocks"] if b["type"] == 0]


def test_a_page_of_too_many_paths_is_not_looked_through_for_drawings():
    """A map or a plot of many thousand markers keeps what the layout model saw: clustering its
    paths would cost seconds for a figure the model may have found already."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for a, b in [((200, 160), (300, 260)), ((300, 160), (200, 260))] * 6:
        page.draw_line(a, b)
    found = with_drawings(page, [], _text_blocks(page), scale=1.0)
    assert [r.kind for r in found] == ["drawing"]
    few = dataclasses.replace(TEXT_LAYER, max_drawings=5)
    assert with_drawings(page, [], _text_blocks(page), scale=1.0, params=few) == []


def _rounded_box(page, rect, radius: float = 4.0, *, fill=(0.9, 0.95, 1.0)):
    """A box with rounded corners, one path of four lines and four arcs (as tcolorbox draws)."""
    shape = page.new_shape()
    shape.draw_rect(rect, radius=radius / min(rect.width, rect.height))
    shape.finish(color=None, fill=fill)
    shape.commit()


def test_a_box_with_rounded_corners_round_text_is_no_picture_but_a_chart_in_one_is():
    """A remark's frame and title bar (half their strokes are the corners' arcs) round a
    paragraph are no drawing; a plotted curve inside such a frame is one, and rings across
    their box (a logo) are one too."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        _rounded_box(page, pymupdf.Rect(72, 100, 540, 220), fill=(0.0, 0.6, 0.75))
        _rounded_box(page, pymupdf.Rect(74, 118, 538, 218))
        page.insert_text((80, 112), "Remark 5.1: showing the acknowledgements", fontsize=10)
        sentence = "For the acknowledgements to be shown, the command must be used at the end. "
        page.insert_textbox(pymupdf.Rect(80, 125, 530, 215), sentence * 3, fontsize=10)
        assert with_drawings(page, [], _text_blocks(page), scale=1.0) == []
        _rounded_box(page, pymupdf.Rect(72, 300, 540, 500))
        page.draw_polyline([(90 + 10 * k, 480 - 150 * (k / 44) ** 2) for k in range(45)])
        (drawing,) = with_drawings(page, [], _text_blocks(page), scale=1.0)
        assert drawing.kind == "drawing" and drawing.bbox[1] >= 290
    with pymupdf.open() as doc:  # a logo of rings across its box: curves away from corners
        page = doc.new_page(width=612, height=792)
        for r in (100, 97, 94):
            page.draw_circle((300, 400), r)
        (drawing,) = with_drawings(page, [], _text_blocks(page), scale=1.0)
        assert drawing.kind == "drawing"


def test_a_remark_box_and_the_heading_under_it_stay_text():
    """nwejm's French manual, p. 11: a "Remarque" box (tcolorbox, rounded) was taken for a
    picture, and the section heading under it for its label: the remark's sentence and the
    heading "6 Commandes de structuration" were only the figure's text."""
    with pymupdf.open(CORPUS / "texlive" / "nwejm-fr-p11.pdf") as doc:
        reading = text_layer_reading(doc[0], page_number=11, dpi=150)
    kinds = {b.text: b.kind for b in reading.blocks}
    assert "figure" not in kinds.values()
    assert kinds["6 Commandes de structuration"] == "heading"
    assert any(t.startswith("Pour que les remerciements") for t, k in kinds.items()
               if k == "paragraph")  # fmt: skip


MATH = Path(__file__).resolve().parents[2] / "resources" / "math"


def _transcriber(name: str):
    """The formulas of a resource PDF's first page, by their boxes in points."""
    with pymupdf.open(MATH / name) as doc:
        yield formula_transcriber(doc[0], scale=1.0)


@pytest.fixture(scope="module")
def cm():
    """formulas-cm.pdf: Computer Modern."""
    yield from _transcriber("formulas-cm.pdf")


def test_an_equation_number_stays_at_the_end_of_its_row_apart_from_the_formula(cm):
    """ "(1)" at the right margin is the equation's number, not a parenthesis of the formula;
    the zero-width vector accents set before their letters mark those letters."""
    assert cm((250, 150, 500, 190)) == (
        r"\vec{x} \cdot \vec{b} = \sum _{i = 1} ^{8} x _{i} b _{i} \qquad (1)"
    )


def test_a_hat_over_its_letter_and_a_slash_over_a_relation(cm):
    assert cm((250, 212, 360, 236)) == r"\hat{\theta} \neq a ^{3} + b ^{3}"


def test_a_matrix_inside_parentheses_built_from_pieces(cm):
    """Three rows: each parenthesis is a top and a bottom piece of the extension font."""
    assert cm((250, 262, 360, 310)) == (
        r"\det \begin{pmatrix} a & b & 0 \\ 0 & c & 5 \\ 4 & 0 & 1 \end{pmatrix} = 0"
    )


def test_cases_right_of_a_brace_and_a_binomial(cm):
    assert cm((240, 335, 380, 372)) == (
        r"f ( x ) = \begin{cases} x ^{2} & \text{if} x \geq 0 \\ - x & \text{otherwise}"
        r" \end{cases}"
    )
    assert cm((260, 388, 360, 420)) == (
        r"\begin{pmatrix} 4 \\ k \end{pmatrix} = \frac{4 !}{k ! ( 4 - k ) !}"
    )


def test_big_braces_and_blackboard_letters(cm):
    assert cm((240, 432, 370, 453)) == (r"S = \{ v \in \mathbb{R} ^{6} : \| v \| _{2} \leq 8 \}")


@pytest.fixture(scope="module")
def palatino():
    """formulas-palatino.pdf: mathpazo, whose extension font has no Unicode map."""
    yield from _transcriber("formulas-palatino.pdf")


def test_a_palatino_sum_is_larger_than_the_text_and_its_limit_is_one_run(palatino):
    """mathpazo sets its sum at 14 pt over 10 pt letters (the letters are no scripts), and
    the "(k)" of f^{(k)} stands on the height of the sum's upper limit (it is f's script)."""
    assert palatino((240, 145, 370, 180)) == (
        r"f ( y ) = \sum _{k = 0} ^{\infty} \frac{f ^{( k )} ( d )}{k !} ( y - d ) ^{k}"
    )


def test_braces_by_their_slots_and_a_blackboard_letter_of_another_font(palatino):
    """Palatino's pages embed the extension font with no Unicode map: \\Big braces are its
    slots "n" and "o"; \\mathbb{R} is an "R" of PazoMathBlackboardBold."""
    assert palatino((240, 204, 370, 228)) == (
        r"S = \{ v \in \mathbb{R} ^{6} : \| v \| _{2} \leq 8 \}"
    )


@pytest.fixture(scope="module")
def paper():
    """formulas-paper.pdf: what papers set beyond the textbook."""
    yield from _transcriber("formulas-paper.pdf")


def test_a_rule_with_nothing_over_it_is_an_overline(paper):
    assert paper((100, 138, 520, 157)) == r"\overline{a + b} = \overline{a} + \overline{b}"


def test_a_sum_under_a_fraction_bar_is_part_of_the_denominator(paper):
    assert paper((100, 168, 520, 199)) == (
        r"\sigma ( z ) _{i} = \frac{\exp ( z _{i} )}{\sum _{j = 1} ^{K} \exp ( z _{j} )}"
    )


def test_vertical_and_diagonal_dots_of_a_matrix(paper):
    assert paper((100, 210, 520, 256)) == (
        r"A = \begin{pmatrix} a _{11} & \cdots & a _{1 n} \\ \vdots & \ddots & \vdots \\"
        r" a _{m 1} & \cdots & a _{m n} \end{pmatrix}"
    )


def test_a_symbol_with_no_name_here_is_itself(paper):
    assert paper((100, 267, 520, 286)) == "x ⋆ y ≲ z"


def test_the_extension_symbol_and_blackboard_fonts_of_txfonts():
    """txfonts' extension font is "txex" (its sum, its parentheses' pieces and \\Big slots),
    its calligraphic L of "txsy", its blackboard R of "txsyb"."""
    with pymupdf.open(MATH / "formulas-txfonts.pdf") as doc:
        tex = formula_transcriber(doc[0], scale=1.0)
        assert tex((100, 138, 520, 172)) == (
            r"\mathcal{L} = - \frac{1}{N} \sum _{i = 1} ^{N} \log p ( y _{i} )"
        )
        assert tex((100, 183, 520, 229)) == (
            r"A = \begin{pmatrix} a _{11} & \cdots & a _{1 n} \\ \vdots & \ddots & \vdots \\"
            r" a _{m 1} & \cdots & a _{m n} \end{pmatrix}"
        )
        assert tex((100, 240, 520, 268)) == (
            r"\Pr [ X \in \mathbb{R} ] \leq \exp ( - \frac{2 t ^{2}}{n} )"
        )


def test_euler_letters_side_by_side_are_a_product():
    with pymupdf.open(MATH / "formulas-euler.pdf") as doc:
        assert formula_transcriber(doc[0], scale=1.0)((100, 139, 520, 157)) == "E = m c ^{2} + x y"
