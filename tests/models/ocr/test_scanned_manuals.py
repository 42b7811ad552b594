"""Scanned pages of TeX Live manuals read as plain Tesseract reads them, or better: a listing's
lines no dictionary holds, an index the layout model boxes as a picture, a paper's contents
the layout model boxes as one table with the column of text beside it."""

from __future__ import annotations

import random

import pymupdf
import pytest

from bench.structure_corpus import scan
from models.engine import PageImage
from tests.conftest import CORPUS

pytestmark = pytest.mark.slow


def _read(engine, name: str, seed: int, tmp_path):
    scan(CORPUS / "texlive" / f"{name}.pdf", tmp_path / "scan.pdf", random.Random(seed))
    with pymupdf.open(tmp_path / "scan.pdf") as doc:
        pix = doc[0].get_pixmap(dpi=240, colorspace=pymupdf.csGRAY)
    (reading,) = engine.predict_batch([PageImage(image=pix.pil_image(), page_number=1, dpi=240)])
    return reading


def _text(reading) -> str:
    """The page's text in its order, a table's cells in place, figures' labels aside."""
    return " ".join(
        " ".join(c["text"] for row in b.rows for c in row) if b.rows else b.text
        for b in reading.blocks
        if b.kind != "figure"
    )


@pytest.mark.parametrize("seed", [369956792, 5])
def test_a_listings_lines_read_unsurely_are_kept(engine, tmp_path, seed):
    """expkv-opt p. 8: "\\let\\CurrentOption\\ekvo@unpreparedCurrentOption" and
    "#1\\ekv@mark\\ekvo@prepare@unusedoption@c" read right at 21 to 40, between lines of the
    listing read at 84 and 92, were dropped as illegible; plain Tesseract keeps them."""
    reading = _read(engine, "expkv-opt-p8", seed, tmp_path)
    lines = [b.text for b in reading.blocks]
    assert sum(line.startswith("\\let") for line in lines) == 2  # (read "Current0ption" too)
    assert any(line.startswith("{\\expandafter\\ekvo@prepare@unusedoption") for line in lines)


@pytest.mark.parametrize("seed", [473084700, 5])
def test_an_index_the_layout_model_boxes_as_a_picture_is_text(engine, tmp_path, seed):
    """eufrak p. 2: the index's three columns of macro names and page numbers, boxed as a
    picture; its words are no dictionary's, but nearly all its ink is theirs: it is text, not
    a figure described by the few words read surely."""
    reading = _read(engine, "eufrak-p2", seed, tmp_path)
    figures = [b for b in reading.blocks if b.kind == "figure"]
    assert all(b.bbox[3] - b.bbox[1] < 100 for b in figures)  # (a formula's scraps, a line)
    text = _text(reading)
    assert "\\NeedsTeXFormat" in text and "\\SetMathAlphabet" in text


@pytest.mark.parametrize("seed", [481572444, 5])
def test_contents_beside_a_column_of_text_are_read_column_by_column(engine, tmp_path, seed):
    """mnras_guide p. 1: the contents in the first column and the introduction's lines beside
    them, boxed as one table (numbers, titles, "...the final appear-" / "ance of the
    journal"): no table holds that column's text, and the contents read before it."""
    reading = _read(engine, "mnras_guide-p1", seed, tmp_path)
    cells = [c["text"] for b in reading.blocks for row in b.rows or [] for c in row]
    assert not [c for c in cells if "journal" in c or "authors" in c]
    text = _text(reading)
    assert text.index("Additional commands for editors") < text.index("encourages authors")


@pytest.mark.parametrize("seed", [3, 5])
def test_a_dark_listing_read_inverted_is_text_not_a_pictures_labels(engine, tmp_path, seed):
    """hlist-fr p. 12 (a listing in a dark theme) scanned: read inverted, Tesseract gives one
    image block from edge to edge, and every line went into that figure as its labels (the
    text came back only as far as the floor brings a plain read back). The page's ground is
    no picture: its lines are the page's text."""
    reading = _read(engine, "hlist-fr-p12", seed, tmp_path)
    with pymupdf.open(CORPUS / "texlive" / "hlist-fr-p12.pdf") as doc:
        truth = doc[0].get_text().split()
    assert not [b for b in reading.blocks if b.kind == "figure"]
    words = set(_text(reading).split())
    assert sum(w in words for w in truth) >= 0.6 * len(truth)
