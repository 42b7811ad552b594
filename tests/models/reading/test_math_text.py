"""Born-digital formula glyphs -> TeX (and MathML); what cannot be rebuilt gives None."""

from __future__ import annotations

from dataclasses import replace

from models.reading.math_text import Glyph, tex_from_glyphs
from models.reading.params.math import MATH

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
    # Rows 40 pt apart, under three sizes: with rows asked three sizes apart, a stack.
    assert tex_from_glyphs(rows, params=replace(MATH, row_gap_ratio=3.0)) is None


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
    # Italic letters side by side are variables (a product); an upright word is text.
    italic = [Glyph(c, BASE, x, 100.0, (x, 88.8, x + 8.4, 102.8), "CMMI10") for c, x in
              (("a", 0), ("b", 8.4))]  # fmt: skip
    assert tex_from_glyphs(italic) == "a b"
    word = [Glyph(c, BASE, x, 100.0, (x, 88.8, x + 7, 102.8), "CMR10") for c, x in
            (("a", 20), ("n", 27), ("d", 34))]  # fmt: skip
    assert tex_from_glyphs(italic + word) == r"a b \text{and}"


def _tex_glyphs(spec: str) -> list[Glyph]:
    """Glyphs as pdf TeX set them: "char size x y x0 y0 x1 y1 font" a line ("␣": a space)."""
    out = []
    for line in spec.strip().splitlines():
        char, size, x, y, *box, font = line.split()
        char = char.replace("␣", " ")
        out.append(Glyph(char, float(size), float(x), float(y), tuple(map(float, box)), font))
    return out


def test_limits_belong_to_the_nearer_operator_and_stand_on_one_line():
    """bws_book_ch2.pdf p. 10: three sums side by side, the last one's "k" is in reach of the
    second; p. 45: the "−" of the upper limit n − 1 has a box that reaches down; p. 46: the
    summand's own index (f_i) stands in reach of the sum's lower limit."""
    sums = _tex_glyphs("""
        + 10 349.4 440.2 349.4 432.7 357.1 442.7 CMR10
        n 7 376.3 427.7 376.3 422.5 381.2 429.5 CMMI7
        X 10 371.6 430.7 371.56 430.3 385.94 436.7 CMEX10
        k 7 371.5 452.1 371.5 446.9 375.7 453.9 CMMI7
        = 7 375.9 452.1 375.9 446.9 382.0 453.9 CMR7
        1 7 382.0 452.1 382.0 446.9 386.0 453.9 CMR7
        k 10 387.7 440.2 387.7 432.7 392.8 442.7 CMMI10
        + 10 395.4 440.2 395.4 432.7 403.1 442.7 CMR10
        n 7 410.1 427.7 410.1 422.5 415.0 429.5 CMMI7
        X 10 405.4 430.7 405.4 430.3 419.8 436.7 CMEX10
        k 7 405.3 452.1 405.3 446.9 409.6 453.9 CMMI7
        = 7 409.7 452.1 409.7 446.9 415.8 453.9 CMR7
        1 7 415.8 452.1 415.8 446.9 419.8 453.9 CMR7
        1 10 421.5 440.2 421.5 432.7 426.5 442.7 CMR10
    """)
    assert tex_from_glyphs(sums) == r"+ \sum _{k = 1} ^{n} k + \sum _{k = 1} ^{n} 1"
    minus = _tex_glyphs("""
        n 7 266.3 286.2 266.3 281.0 271.2 287.9 CMMI7
        − 7 271.2 286.2 271.2 280.7 277.4 292.8 CMSY7
        1 7 277.4 286.2 277.4 281.0 281.4 287.9 CMR7
        X 10 266.6 289.2 266.6 288.8 281.0 295.2 CMEX10
        i 7 267.4 310.4 267.4 305.2 270.2 312.1 CMMI7
        = 7 270.2 310.4 270.2 305.2 276.3 312.1 CMR7
        0 7 276.3 310.4 276.3 305.2 280.3 312.1 CMR7
        q 10 283.1 298.6 283.1 291.2 287.5 301.1 CMMI10
        i 7 287.9 294.5 287.9 289.3 290.7 296.3 CMMI7
    """)
    assert tex_from_glyphs(minus) == r"\sum _{i = 0} ^{n - 1} q ^{i}"
    index = _tex_glyphs("""
        n 7 190.3 446.9 190.3 441.7 195.2 448.6 CMMI7
        X 10 185.6 449.9 185.6 449.5 200.0 455.9 CMEX10
        i 7 186.3 471.1 186.3 465.9 189.1 472.9 CMMI7
        = 7 189.1 471.1 189.1 465.9 195.3 472.9 CMR7
        0 7 195.3 471.1 195.3 465.9 199.2 472.9 CMR7
        f 10 201.6 459.4 201.6 451.9 206.5 461.8 CMMI10
        i 7 206.5 460.8 206.5 455.6 209.3 462.6 CMMI7
    """)
    assert tex_from_glyphs(index) == r"\sum _{i = 0} ^{n} f _{i}"


def test_a_subscript_and_a_superscript_set_one_over_the_other():
    """bws_book_ch2.pdf p. 46: f_{n+1}^2, the 2 set over the n: one subscript, one superscript
    (by x alone the 2 falls between the n and the + 1)."""
    stacked = _tex_glyphs("""
        f 10 208.2 564.3 208.2 556.9 213.1 566.8 CMMI10
        2 7 214.1 560.2 214.1 555.0 218.1 562.0 CMR7
        n 7 213.0 566.8 213.0 561.6 218.0 568.5 CMMI7
        + 7 218.0 566.8 218.0 561.6 224.1 568.5 CMR7
        1 7 224.1 566.8 224.1 561.6 228.1 568.5 CMR7
        = 10 231.3 564.3 231.3 556.9 239.1 566.8 CMR10
    """)
    assert tex_from_glyphs(stacked) == r"f _{n + 1} ^{2} ="


def test_big_delimiters_of_the_tex_extension_font():
    """bws_book_ch2.pdf p. 28: the \\bigg( and \\bigg) around a fraction are slots 0x12 and 0x13
    of cmex10 (embedded without a Unicode map), the sum its "X"."""
    glyphs = _tex_glyphs(
        """
        n 7 297.3 475.5 297.3 470.3 302.2 477.3 CMMI7
        X 10 292.5 478.5 292.5 478.1 306.9 484.5 CMEX10
        k 7 292.5 500.0 292.5 494.7 296.7 501.7 CMMI7
        = 7 296.9 500.0 296.9 494.7 303.0 501.7 CMR7
        1 7 303.0 500.0 303.0 494.7 307.0 501.7 CMR7
        k 10 308.6 488.0 308.6 480.5 313.8 490.5 CMMI10
        3 7 314.1 483.9 314.1 478.7 318.1 485.6 CMR7
        = 10 321.4 488.0 321.4 480.5 329.1 490.5 CMR10
        \x12 10 331.9 473.9 331.9 473.5 339.2 479.9 CMEX10
        n 10 340.4 481.3 340.4 473.8 346.4 483.7 CMMI10
        ( 10 346.4 481.3 346.4 473.8 350.3 483.7 CMR10
        n 10 350.3 481.3 350.3 473.8 356.2 483.7 CMMI10
        + 10 358.5 481.3 358.5 473.8 366.2 483.7 CMR10
        1 10 368.4 481.3 368.4 473.8 373.4 483.7 CMR10
        ) 10 373.4 481.3 373.4 473.8 377.3 483.7 CMR10
        2 10 356.4 494.8 356.4 487.4 361.3 497.3 CMR10
        \x13 10 378.5 473.9 378.5 473.5 385.8 479.9 CMEX10
        2 7 385.8 476.0 385.8 470.8 389.8 477.8 CMR7
    """
    )
    tex = tex_from_glyphs(glyphs, [(340.4, 377.3, 485.5)])
    assert tex == r"\sum _{k = 1} ^{n} k ^{3} = ( \frac{n ( n + 1 )}{2} ) ^{2}"
    # Slot 0x20 (a \Bigg "(") is a space character: still a delimiter.
    assert tex_from_glyphs(
        [Glyph(" ", BASE, 0, 100, (0, 90, 8, 96), "CMEX10"), _g("𝑥", 10),
         Glyph("!", BASE, 20, 100, (20, 90, 28, 96), "CMEX10")]
    ) == "( x )"  # fmt: skip


def test_three_dots_are_an_ellipsis():
    """bws_book_ch2.pdf p. 11 "1, 2, 3, 4, ..., 100" and p. 46 "+ · · · +": \\ldots and \\cdots
    (a reader says "and so on", not "dot dot dot"); one dot stays a dot."""
    low = _tex_glyphs("""
        , 10 276.8 578.3 276.8 570.8 279.6 580.8 CMMI10
        . 10 281.2 578.3 281.2 570.8 284.0 580.8 CMMI10
        . 10 285.6 578.3 285.6 570.8 288.4 580.8 CMMI10
        . 10 290.1 578.3 290.1 570.8 292.8 580.8 CMMI10
        , 10 294.5 578.3 294.5 570.8 297.3 580.8 CMMI10
        1 10 298.9 578.3 298.9 570.8 303.9 580.8 CMR10
        0 10 303.9 578.3 303.9 570.8 308.9 580.8 CMR10
        0 10 308.9 578.3 308.9 570.8 313.9 580.8 CMR10
    """)
    assert tex_from_glyphs(low) == r", \ldots , 100"
    centred = _tex_glyphs("""
        + 10 341.0 658.8 341.0 651.4 348.8 661.3 CMR10
        · 10 351.0 658.8 351.0 651.1 353.7 668.4 CMSY10
        · 10 355.4 658.8 355.4 651.1 358.2 668.4 CMSY10
        · 10 359.8 658.8 359.8 651.1 362.6 668.4 CMSY10
        + 10 364.8 658.8 364.8 651.4 372.6 661.3 CMR10
        n 10 375.0 658.8 375.0 651.4 381.0 661.3 CMMI10
        · 10 383.2 658.8 383.2 651.1 385.9 668.4 CMSY10
        n 10 388.1 658.8 388.1 651.4 394.1 661.3 CMMI10
    """)
    assert tex_from_glyphs(centred) == r"+ \cdots + n \cdot n"


def test_square_roots_under_their_rules():
    """Binet's formula (bws_book_ch2.pdf p. 46): three radicals, each with the rule TeX draws
    from its top right over the 5, two inside fractions; \\Bigg brackets and parentheses of
    the extension font (its "(" a space character)."""
    binet = _tex_glyphs("""
        f 10 246.1 378.4 246.1 370.9 251.0 380.9 CMMI10
        n 7 251.0 379.9 251.0 374.7 255.9 381.6 CMMI7
        = 10 259.2 378.4 259.2 370.9 267.0 380.9 CMR10
        1 10 275.1 371.7 275.1 364.2 280.0 374.2 CMR10
        √ 10 270.9 378.1 270.9 370.4 279.2 387.7 CMSY10
        5 10 279.2 386.4 279.2 378.9 284.2 388.8 CMR10
        " 10 287.1 361.4 287.1 361.0 292.9 367.3 CMEX10
        ␣ 10 292.9 361.4 292.9 361.0 300.8 367.3 CMEX10
        1 10 301.9 371.7 301.9 364.2 306.9 374.2 CMR10
        + 10 309.1 371.7 309.1 364.2 316.9 374.2 CMR10
        √ 10 319.1 363.4 319.1 355.7 327.4 373.0 CMSY10
        5 10 327.4 371.7 327.4 364.2 332.4 374.2 CMR10
        2 10 314.7 385.2 314.7 377.8 319.7 387.7 CMR10
        ! 10 333.6 361.4 333.6 361.0 341.5 367.3 CMEX10
        n 7 341.5 363.4 341.5 358.2 346.4 365.2 CMMI7
        − 10 349.1 378.4 349.1 370.7 356.9 388.0 CMSY10
        ␣ 10 359.1 361.4 359.1 361.0 367.0 367.3 CMEX10
        1 10 368.2 371.7 368.2 364.2 373.1 374.2 CMR10
        − 10 375.3 371.7 375.3 363.9 383.1 381.2 CMSY10
        √ 10 385.3 363.4 385.3 355.7 393.6 373.0 CMSY10
        5 10 393.6 371.7 393.6 364.2 398.6 374.2 CMR10
        2 10 380.9 385.2 380.9 377.8 385.9 387.7 CMR10
        ! 10 399.8 361.4 399.8 361.0 407.7 367.3 CMEX10
        n 7 407.7 363.4 407.7 358.2 412.6 365.2 CMMI7
        # 10 413.1 361.4 413.1 361.0 418.9 367.3 CMEX10
    """)
    bars = [
        (270.914, 284.198, 375.917), (279.216, 284.197, 377.910), (327.407, 332.388, 363.227),
        (301.947, 332.388, 375.917), (393.613, 398.594, 363.227), (368.153, 398.594, 375.917),
    ]  # fmt: skip
    assert tex_from_glyphs(binet, bars) == (
        r"f _{n} = \frac{1}{\sqrt{5}} [ ( \frac{1 + \sqrt{5}}{2} ) ^{n}"
        r" - ( \frac{1 - \sqrt{5}}{2} ) ^{n} ]"
    )
    # Without its rules a radical is not read: no TeX is guessed.
    assert tex_from_glyphs(binet) is None


def test_fractions_stacked_row_over_row_keep_their_own_glyphs():
    """bws_book_ch2.pdf p. 19: an aligned display whose rows each hold 1/6, the bars one under
    the other: the numerator of the row below stands in reach of the denominator of the row
    above, yet nearer its own bar."""
    rows = _tex_glyphs("""
        = 10 295.9 372.4 295.9 364.9 303.6 374.9 CMR10
        1 10 307.6 365.7 307.6 358.2 312.6 368.2 CMR10
        6 10 307.6 379.2 307.6 371.8 312.6 381.7 CMR10
        ( 10 313.8 372.4 313.8 364.9 317.6 374.9 CMR10
        1 10 317.6 372.4 317.6 364.9 322.6 374.9 CMR10
        ) 10 322.6 372.4 322.6 364.9 326.5 374.9 CMR10
        = 10 295.9 396.4 295.9 388.9 303.6 398.9 CMR10
        1 10 307.6 389.6 307.6 382.2 312.6 392.1 CMR10
        6 10 307.6 403.2 307.6 395.7 312.6 405.7 CMR10
        ( 10 313.8 396.4 313.8 388.9 317.6 398.9 CMR10
        2 10 317.6 396.4 317.6 388.9 322.6 398.9 CMR10
        ) 10 322.6 396.4 322.6 388.9 326.5 398.9 CMR10
    """)
    bars = [(307.589, 312.570, 369.913), (307.589, 312.570, 393.892)]
    assert tex_from_glyphs(rows, bars) == (
        r"\begin{array}{l} = \frac{1}{6} ( 1 ) \\ = \frac{1}{6} ( 2 ) \end{array}"
    )
