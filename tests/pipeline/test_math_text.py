"""Born-digital formula glyphs -> TeX (and MathML); what cannot be rebuilt gives None."""

from __future__ import annotations

from conversion.pipeline.math_text import Glyph, tex_from_glyphs

BASE, SMALL = 14.0, 11.2


def _g(char, x, y=100.0, size=BASE):
    return Glyph(char, size, x, y, (x, y - 0.8 * size, x + 0.6 * size, y + 0.2 * size))


def test_superscripts_and_math_letters():
    glyphs = [_g("𝐸", 0), _g("=", 12), _g("𝑚", 24), _g("𝑐", 34), _g("2", 42, 92, SMALL)]
    assert tex_from_glyphs(glyphs) == "E = m c ^{2}"


def test_subscripts_greek_and_limits_of_a_sum():
    glyphs = [
        _g("𝑆", 0), _g("=", 12),
        _g("∑", 30, 101), _g("𝑛", 32, 86, SMALL), _g("𝑖", 26, 114, SMALL), _g("=", 31, 114, SMALL),
        _g("1", 37, 114, SMALL),
        _g("𝛼", 46), _g("𝑖", 54, 101, SMALL),
    ]  # fmt: skip
    assert tex_from_glyphs(glyphs) == r"S = \sum _{i = 1} ^{n} \alpha _{i}"


def test_stacked_glyphs_and_unknown_glyphs_are_not_guessed():
    fraction = [_g("𝑎", 0, 90), _g("𝑏", 0, 112), _g("=", 14, 101), _g("1", 26, 101)]
    assert tex_from_glyphs(fraction) is None
    assert tex_from_glyphs([_g("𝑥", 0), _g("\ue001", 12)]) is None
    assert tex_from_glyphs([]) is None


def test_a_fraction_over_its_drawn_bar_and_a_sum_from_the_tex_extension_font():
    """∑ k² = 1/6 n as TeX sets it (bws_book_ch2.pdf, p. 111): the sum is the letter "X" of
    the cmex font (embedded without a Unicode map), the 1 and the 6 stand over and under a
    drawn bar at the math axis."""
    glyphs = [
        Glyph("X", BASE, 0, 96, (0, 90, 20, 99), "CMEX10"),  # a short box: no metrics
        _g("𝑛", 6, 80, SMALL), _g("𝑘", 2, 122, SMALL), _g("=", 8, 122, SMALL),
        _g("1", 14, 122, SMALL),
        _g("𝑘", 24), _g("2", 32, 92, SMALL), _g("=", 44),
        _g("1", 58, 90), _g("6", 58, 112),
        _g("𝑛", 70),
    ]  # fmt: skip
    tex = tex_from_glyphs(glyphs, [(56, 66, 96.0)])
    assert tex == r"\sum _{k = 1} ^{n} k ^{2} = \frac{1}{6} n"
    # Without the bar the same glyphs are a stack nobody can read for sure.
    assert tex_from_glyphs(glyphs) is None
    # Another slot of the extension font has no TeX name here: not guessed.
    assert (
        tex_from_glyphs([Glyph("g", BASE, 0, 96, (0, 90, 20, 99), "CMEX10"), _g("x", 24)]) is None
    )


def test_the_rows_of_a_display_one_under_the_other():
    rows = [_g("𝑎", 0), _g("=", 12), _g("1", 24), _g("𝑏", 0, 140), _g("=", 12, 140),
            _g("2", 24, 140)]  # fmt: skip
    assert tex_from_glyphs(rows) == r"\begin{array}{l} a = 1 \\ b = 2 \end{array}"


def test_a_fraction_in_a_numerator_and_one_in_a_denominator():
    """The glyphs and bars of a/b over c and of 1 over 1 + 1/x as Chromium prints MathML: the
    inner bar is the shorter; what stands under it stops at the outer bar, and the inner
    fraction is part of the outer one's numerator or denominator."""
    a_b_c = [_g("𝑎", 2, 68.25, SMALL), _g("𝑏", 2, 78.75, SMALL), _g("𝑐", 1, 90.75)]
    bars = [(1.5, 10.5, 81.375), (2.25, 9.75, 70.125)]
    assert tex_from_glyphs(a_b_c, bars) == r"\frac{\frac{a}{b}}{c}"
    continued = [
        _g("𝑦", -31, 142.5), _g("=", -16, 142.5), _g("1", 14, 136.5), _g("1", 0, 153.75),
        _g("+", 12, 153.75), _g("1", 28, 148.5, SMALL), _g("𝑥", 28, 156.0, SMALL),
    ]  # fmt: skip
    bars = [(0.0, 36.75, 139.125), (27.75, 36.0, 149.625)]
    assert tex_from_glyphs(continued, bars) == r"y = \frac{1}{1 + \frac{1}{x}}"


def test_numbers_primes_and_operator_names_as_a_reader_hears_them():
    """Digits set side by side are one number ("100", "2.5", not "1 0 0"); a raised prime is
    f' (f^{'} is a prime with no base in MathML); an upright "lim" is \\lim, with what stands
    under it as its limit."""
    number = [_g("𝑁", 0), _g("=", 12), _g("1", 24), _g("0", 32.4), _g("0", 40.8), _g("+", 52),
              _g("2", 64), _g(".", 72.4), _g("5", 76), _g("𝑡", 86)]  # fmt: skip
    for g in number[2:5] + number[6:9]:  # each digit as wide as its advance
        g.bbox = (g.x, g.bbox[1], g.x + (3.6 if g.char == "." else 8.4), g.bbox[3])
    assert tex_from_glyphs(number) == "N = 100 + 2.5 t"
    prime = [_g("𝑓", 0), _g("′", 9, 92, SMALL), _g("(", 14), _g("𝑥", 20), _g(")", 30)]
    assert tex_from_glyphs(prime) == "f ' ( x )"
    lim = [_g("l", 6), _g("i", 9.9), _g("m", 13.8), _g("𝑛", 0, 108, SMALL),
           _g("→", 10, 108, SMALL), _g("∞", 22, 108, SMALL), _g("𝑥", 32)]  # fmt: skip
    for g, right in zip(lim, (9.9, 13.8, 27.4), strict=False):  # (as Chromium sets "lim")
        g.bbox = (g.x, g.bbox[1], right, g.bbox[3])
    assert tex_from_glyphs(lim) == r"\lim _{n \to \infty} x"
    # Letters side by side that are no operator's name stay letters (a product).
    assert tex_from_glyphs([_g("a", 0), _g("b", 8.4)]) == "a b"
