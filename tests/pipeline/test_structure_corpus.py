"""End to end on documents whose structure is known by construction (bench/structure_corpus.py:
HTML printed by Chromium, then scanned with noise, blur, skew and JPEG), measured with the
structure bench's own measures (bench/structure_quality.py)."""

from __future__ import annotations

import random
import shutil

import pytest

from bench import structure_quality as measure
from bench.structure_corpus import DOCUMENTS, SEED, _Deck, print_pdf, scan
from conversion.pipeline.convert import ConvertOptions, convert_pdf
from models.ocr import TesseractEngine

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium"),
]


@pytest.fixture(scope="module")
def engine():
    return TesseractEngine()


def _convert(name, tmp_path, engine, *, scanned: bool):
    rng = random.Random(f"{SEED}-{name}")
    html = tmp_path / f"{name}.html"
    html.write_text(DOCUMENTS[name](_Deck(rng)), encoding="utf-8")
    pdf = tmp_path / f"{name}.pdf"
    print_pdf(html, pdf)
    if scanned:
        scan(pdf, tmp_path / f"{name}.scan.pdf", rng)
        pdf = tmp_path / f"{name}.scan.pdf"
    result = convert_pdf(pdf, tmp_path / "out", engine, ConvertOptions())
    truth = measure.structure_of(html.read_text(encoding="utf-8"), truth=True)
    return truth, measure.structure_of(result.html_path.read_text(encoding="utf-8"))


def test_scanned_tables_headings_and_furniture(engine, tmp_path):
    truth, got = _convert("tables", tmp_path, engine, scanned=True)
    assert measure.cell_score(truth, got) >= 0.85
    assert measure.heading_scores(truth, got)[0] >= 0.9
    assert measure.furniture_score(truth, got) == 1.0


def test_scanned_two_columns_are_read_in_order_without_the_stamp(engine, tmp_path):
    truth, got = _convert("columns", tmp_path, engine, scanned=True)
    assert measure.order_score(truth, got) == 1.0
    assert measure.furniture_score(truth, got) == 1.0  # running footer and download stamp
    assert measure.heading_scores(truth, got)[0] >= 0.9


def test_born_digital_formulas_become_mathml(engine, tmp_path):
    truth, got = _convert("math", tmp_path, engine, scanned=False)
    assert measure.math_score(truth, got) >= 0.8
    assert len(got.maths) == len(truth.maths)
