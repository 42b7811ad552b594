"""Inline formulas of born-digital LaTeX pages (tests/resources/math, each PDF beside its .tex):
the words of a line that are mathematics become one formula with its TeX; prose, italic prose
and a lone variable stay text."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from models.reading.inline_math import MathGlyph, inline_formulas
from models.reading.layer_drawings import rules_in
from models.reading.layer_words import page_words, word_styles
from models.reading.math_text import Glyph

MATH = Path(__file__).resolve().parents[2] / "resources" / "math"


def _formulas(name: str) -> dict[str, tuple[str, int]]:
    """The page's inline formulas: their words' text -> (TeX, characters left to the sentence)."""
    with pymupdf.open(MATH / name) as doc:
        page = doc[0]
        words = page_words(page)
        found = inline_formulas(words, word_styles(page, words).glyphs, rules_in(page))
    text = {(w[5], w[6], w[7]): w[4] for w in words}
    return {" ".join(text[k] for k in f.keys): (f.tex, f.trail) for f in found.values()}


COMPUTER_MODERN = {
    # The sentence's comma after the formula is the sentence's.
    "x2 + y2 = r2,": (r"x ^{2} + y ^{2} = r ^{2}", 1),
    "λ > 0": (r"\lambda > 0", 0),
    "wi": (r"w _{i}", 0),
    "f(a) ≤1": (r"f ( a ) \leq 1", 0),
    # A fraction in the line: its numerator and denominator over and under their bar.
    "1 8": (r"\frac{1}{8}", 0),
}  # not: a lone "x" or "α", the italic "i.e. (a) a short one", "5 × 10^3" (no variable)
# mathptmx: math letters in the text's italic font, Greek in the Symbol font.
TIMES = {
    "θ > 0,": (r"\theta > 0", 1),
    "ci": (r"c _{i}", 0),
    "b ∈K,": (r"b \in K", 1),
    "ψ3": (r"\psi _{3}", 0),
    "z(v)": (r"z ( v )", 0),
    "s2 +v2": (r"s ^{2} + v ^{2}", 0),
}  # not: the italic "as a careful analysis shows"


@pytest.mark.parametrize(
    ("name", "formulas"), [("inline-cm.pdf", COMPUTER_MODERN), ("inline-times.pdf", TIMES)]
)
def test_inline_formulas_are_rebuilt_and_prose_stays_text(name, formulas):
    assert _formulas(name) == formulas


# Points inside the formula's fences are the formula's: an information measure's semicolons,
# set apart or not; the sentence's comma after the last fence stays outside. Not: the letters
# of a parenthesis in prose, "(π, µ and ∂)" (a fence that never closes: its points the
# sentence's).
POINTS = {
    "p(x; θ)": (r"p ( x ; \theta )", 0),
    "I(X; Y, Z) = I(X; Z)+I(X; Y | Z)": (r"I ( X ; Y , Z ) = I ( X ; Z ) + I ( X ; Y | Z )", 0),
    "I(X; Y ; Z)": (r"I ( X ; Y ; Z )", 0),
    "H(Z) ≤H(Y )": (r"H ( Z ) \leq H ( Y )", 0),
    "I(X; Z),": (r"I ( X ; Z )", 1),
}


def test_a_point_inside_a_formulas_fences_is_the_formulas():
    """Cut at each semicolon, "I(X; Y, Z)" was read as "I(X", then "Y, Z) = I(X": formulas
    whose fences do not close (a homework page in Chinese, all its measures so cut)."""
    assert _formulas("inline-points.pdf") == POINTS


def _glyph(char: str, size: float, x: float, y: float, font: str = "NimbusRomNo9L-ReguItal",
           mark: str | None = None) -> MathGlyph:  # fmt: skip
    box = (x, y - 0.7 * size, x + 0.5 * size, y + 0.2 * size)
    return MathGlyph(Glyph(char, size, x, y, box, font), mark, "Ital" in font)


def test_an_index_mupdf_put_on_a_line_of_its_own_is_still_an_index():
    # math-000 of bench/latex_math.py (mathptmx): "c_i" at a line's end, its "i" a text line
    # of its own, so not marked lowered; smaller than its letter, it is an index all the same.
    words = [(100.0, 90.0, 110.0, 102.0, "ci", 0, 0, 0)]
    glyphs = {(0, 0, 0): [_glyph("c", 10.9, 100, 100), _glyph("i", 8.0, 105.5, 101.6)]}
    (formula,) = inline_formulas(words, glyphs, lambda box: []).values()
    assert formula.tex == r"c _{i}"


def test_a_table_row_on_one_line_is_no_formula_across_its_columns():
    # "a = 1" and "b = 2" in two columns an inch apart, MuPDF's words of one line.
    words, glyphs = [], {}
    for n, (char, x) in enumerate([("a", 100), ("=", 108), ("1", 116), ("b", 180), ("=", 188),
                                   ("2", 196)]):  # fmt: skip
        words.append((x, 90.0, x + 5.0, 102.0, char, 0, 0, n))
        glyphs[(0, 0, n)] = [_glyph(char, 10.0, x, 100)]
    found = inline_formulas(words, glyphs, lambda box: [])
    assert sorted(f.tex for f in found.values()) == ["a = 1", "b = 2"]


def test_figures_over_and_under_a_table_rule_are_no_fraction():
    # us-033 of ICDAR 2013: a column's figures over and under a rule, a row label beside the
    # upper one. The same pair with a word of a line across the rule's height is a fraction.
    def word(text, x, y, n):
        glyphs = [_glyph(c, 8.0, x + 4.0 * k, y) for k, c in enumerate(text)]
        return (x, y - 6.0, x + 4.0 * len(text), y + 2.0, text, 0, n, 0), glyphs

    upper, upper_glyphs = word("138", 200, 100, 0)
    lower, lower_glyphs = word("14", 202, 109, 1)
    label, label_glyphs = word("Total", 100, 100, 2)
    glyphs = {(0, 0, 0): upper_glyphs, (0, 1, 0): lower_glyphs, (0, 2, 0): label_glyphs}
    rule = [(199.0, 213.0, 103.0)]  # x0, x1, y: as wide as the wider figure
    assert inline_formulas([upper, lower, label], glyphs, lambda box: rule) == {}
    prose = (170.0, 96.0, 196.0, 108.0, "share", 0, 3, 0)
    glyphs[(0, 3, 0)] = [_glyph(c, 10.0, 170 + 5 * k, 105) for k, c in enumerate("share")]
    (fraction,) = inline_formulas([upper, lower, prose], glyphs, lambda box: rule).values()
    assert fraction.tex == r"\frac{138}{14}"


def test_a_notes_mark_after_the_sentences_point_is_no_part_of_the_formula():
    # badlines.pdf (realworld) p. 3: "... (u, v) ∈ E_T.¹", the note's mark raised after the
    # sentence's point; "a ∈ K," keeps its comma outside.
    words = [(100.0, 90.0, 130.0, 102.0, "a∈K.1", 0, 0, 0)]
    glyphs = {(0, 0, 0): [_glyph("a", 10, 100, 100), _glyph("∈", 10, 106, 100, "CMSY10"),
                          _glyph("K", 10, 114, 100), _glyph(".", 10, 121, 100, "NimbusRomNo9L"),
                          _glyph("1", 7, 124, 96, "NimbusRomNo9L", "sup")]}  # fmt: skip
    (formula,) = inline_formulas(words, glyphs, lambda box: []).values()
    assert (formula.tex, formula.trail) == (r"a \in K", 2)


def test_greek_prose_is_no_formula_and_an_upright_capital_greek_letter_is_a_variable():
    # textalpha's manual: Greek words set in a text font ("ΣΣ", "και") are prose, and so
    # are its articles, letters alone; TeX sets a capital Greek letter upright in its text
    # font: "Φ(x)" is a formula.
    def upright(char: str, x: float) -> MathGlyph:
        return _glyph(char, 10, x, 100, "CMR10")

    words = [
        (100.0, 90.0, 118.0, 102.0, "και", 0, 0, 0),
        (122.0, 90.0, 138.0, 102.0, "η", 0, 0, 1),  # "η 3η" (or the third): an article
        (142.0, 90.0, 150.0, 102.0, "3η", 0, 0, 2),
        (170.0, 90.0, 190.0, 102.0, "Φ(x)", 0, 0, 3),
    ]
    glyphs = {
        (0, 0, 0): [upright("κ", 100), upright("α", 106), upright("ι", 112)],
        (0, 0, 1): [upright("η", 122)],
        (0, 0, 2): [upright("3", 142), upright("η", 146)],
        (0, 0, 3): [upright("Φ", 170), upright("(", 177), _glyph("x", 10, 181, 100, "CMMI10"),
                    upright(")", 186)],
    }  # fmt: skip
    assert [f.tex for f in inline_formulas(words, glyphs, lambda box: []).values()] == [
        r"\Phi ( x )"
    ]
