"""Born-digital LaTeX pages (tests/resources/math, each PDF beside its .tex) end to end: a
display formula is MathML with its TeX, in its place in the sentence around it."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from conversion.pipeline.convert import ConvertOptions, convert_pdf
from models.ocr import TesseractEngine

MATH = Path(__file__).resolve().parents[1] / "resources" / "math"


@pytest.mark.slow
def test_a_display_formula_is_mathml_in_its_sentence(tmp_path):
    result = convert_pdf(MATH / "sentence.pdf", tmp_path, TesseractEngine(), ConvertOptions())
    main = BeautifulSoup(result.html_path.read_text(encoding="utf-8"), "html.parser").main
    assert not main.find_all("figure")  # no empty figure asking for a description
    (math,) = main.find_all("math")
    tex = math.find("annotation", attrs={"encoding": "application/x-tex"}).get_text()
    assert tex == r"\vec{x} \cdot \vec{b} = \sum _{i = 1} ^{8} x _{i} b _{i} \qquad (1)"
    # The sentence around it, in order: its words before, the formula, its words after.
    before = math.find_parent("div").find_previous_sibling("p").get_text()
    after = math.find_parent("div").find_next_sibling("p").get_text()
    assert before.endswith("In closed form the update rule reads")
    assert after.startswith("where the constant is fixed in advance. We remark")


@pytest.mark.slow
def test_inline_formulas_are_mathml_in_their_sentence(tmp_path):
    result = convert_pdf(MATH / "inline-cm.pdf", tmp_path, TesseractEngine(), ConvertOptions())
    main = BeautifulSoup(result.html_path.read_text(encoding="utf-8"), "html.parser").main
    maths = main.find_all("math")
    assert [m.get("display") for m in maths] == ["inline"] * 5
    tex = [m.find("annotation", attrs={"encoding": "application/x-tex"}).get_text() for m in maths]
    assert tex == [r"x ^{2} + y ^{2} = r ^{2}", r"\lambda > 0", r"w _{i}", r"f ( a ) \leq 1",
                   r"\frac{1}{8}"]  # fmt: skip
    # In the paragraph, where the page sets it; a reader without MathML hears it as printed.
    first = maths[0]
    assert first.find_parent("p") is not None
    assert first["alttext"] == "x2 + y2 = r2"
    assert str(first.previous_sibling).endswith("Every point of the circle satisfies ")
    assert str(first.next_sibling).startswith(", and the step size")
    assert "5 × 103 points" in main.get_text()  # no variable: text with its exponent


@pytest.mark.slow
def test_a_slides_sentence_beside_its_formulas_stays_a_sentence(tmp_path):
    """A beamer slide (lecturer's demo, p. 4): a bullet's sentence, and beside it a column of
    formulas. Read in the readers' process, the layout model once made one picture of both
    and the sentence went into the formula's MathML as \\text{And} \\text{but}..."""
    slide = MATH.parent / "corpus" / "texlive" / "lecturer-beamer-p4.pdf"
    result = convert_pdf(slide, tmp_path, TesseractEngine(), ConvertOptions())
    main = BeautifulSoup(result.html_path.read_text(encoding="utf-8"), "html.parser").main
    (math,) = main.find_all("math")
    assert "common factor" not in math.get("alttext", "") + math.get_text()
    assert any("have no common factor" in p.get_text() for p in main.find_all(["p", "li"]))


@pytest.mark.slow
def test_a_square_root_stays_in_its_formula_and_its_sentence(tmp_path):
    """Each radical sign MuPDF set apart was a "√" paragraph over its display formula, and cut
    the sentence "with √2 inline too" into three paragraphs."""
    result = convert_pdf(MATH / "radicals.pdf", tmp_path, TesseractEngine(), ConvertOptions())
    main = BeautifulSoup(result.html_path.read_text(encoding="utf-8"), "html.parser").main
    paragraphs = [p.get_text(" ", strip=True) for p in main.find_all("p")]
    assert "√" not in paragraphs
    assert paragraphs[-1].startswith("And so a is even, with √ 2 inline too, and the proof")
    tex = [m.find("annotation").get_text() for m in main.find_all("math", display="block")]
    assert tex[0] == r"\frac{a}{b} = \sqrt{2}"
    assert r"\sqrt{b ^{2} - 4 a c}" in tex[1]
