"""A born-digital page with program listings end to end (tests/resources/code): each listing is
one preformatted block with its lines and indentation, between the paragraphs around it, and
the structured editor names it for people."""

from __future__ import annotations

from pathlib import Path

from bs4 import BeautifulSoup

from conversion.pipeline.convert import ConvertOptions, convert_pdf
from conversion.review_structure import kind_of, name_of
from models.ocr import TesseractEngine

CODE = Path(__file__).resolve().parents[1] / "resources" / "code"


def test_a_listing_is_one_preformatted_block_in_its_place(tmp_path):
    result = convert_pdf(CODE / "code-listings.pdf", tmp_path, TesseractEngine(), ConvertOptions())
    main = BeautifulSoup(result.html_path.read_text(encoding="utf-8"), "html.parser").main
    first, second = main.find_all("pre")
    assert first["class"] == ["code"]
    assert first.code.get_text() == (
        "def mean(values):\n    total = 0\n    for v in values:\n        total += v\n\n"
        "    return total / len(values)"
    )
    assert first.find_previous_sibling("p").get_text().endswith("keeps its indentation as printed:")
    assert first.find_next_sibling("p").get_text().startswith("The same structure holds")
    assert second.code.get_text().splitlines()[-1] == 'echo "$HOME"'
    assert kind_of(first) == "code"
    assert name_of(first).startswith("code listing")
    assert not [f for f in result.report["findings"] if f["level"] in ("error", "needs_review")]
