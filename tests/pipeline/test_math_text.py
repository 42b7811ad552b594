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
