"""Headings of real pdflatex papers (tests/resources/latex_headings, sources beside them): the
heading styles of classes other than article's (IEEE's Roman and lettered heads, the AMS
title at the body's size, the report's chapter labels) and a paper's front matter."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conversion.pipeline.convert import ConvertOptions, convert_pdf
from models.ocr import TesseractEngine

PAPERS = Path(__file__).resolve().parents[1] / "resources" / "latex_headings"
HEAD = re.compile(r"<h([1-6])[^>]*>(.*?)</h\1>", re.S)


def _headings(name: str, folder: Path) -> list[tuple[int, str]]:
    """(level, text) of the document's title (<header>'s h1) and its main text's headings."""
    result = convert_pdf(PAPERS / f"{name}.pdf", folder, TesseractEngine(), ConvertOptions())
    html = result.html_path.read_text(encoding="utf-8")
    return [(int(level), " ".join(re.sub(r"<[^>]+>", "", text).split()))
            for level, text in HEAD.findall(html[html.index("<main") :])]  # fmt: skip


def _level(headings: list[tuple[int, str]], text: str) -> int:
    return next(level for level, t in headings if t == text)


@pytest.fixture(scope="module")
def ieee(tmp_path_factory) -> list[tuple[int, str]]:
    return _headings("ieee", tmp_path_factory.mktemp("ieee"))


def test_lettered_subsections_sit_under_roman_sections(ieee):
    """IEEE's "II. Method" over "A. Datasets", both at the body's size: the lettered heads
    are one level under the Roman ones, and the next Roman section is level with the first."""
    section = _level(ieee, "I. INTRODUCTION")
    assert _level(ieee, "II. METHOD") == section
    assert _level(ieee, "A. Datasets") == section + 1
    assert _level(ieee, "B. Baselines") == section + 1
    assert _level(ieee, "III. RESULTS") == section
    assert _level(ieee, "IV. CONCLUSION") == section


def test_an_authors_name_over_an_affiliation_is_no_heading(ieee):
    assert ieee[0] == (1, "Sparse Regression at Scale")
    assert not any("Tanaka" in text for _, text in ieee)


def test_a_title_in_the_sections_size_over_the_authors_is_the_h1_once(tmp_path):
    """The AMS class sets the title in capitals at the body's size, as its sections: the
    front matter under it (authors, the abstract) says it is the title, the h1; not an h2
    beside the sections."""
    heads = _headings("amsart", tmp_path)
    assert heads[0] == (1, "ON THE STABILITY OF SPARSE REGRESSION")
    assert [text for _, text in heads].count("ON THE STABILITY OF SPARSE REGRESSION") == 1
    assert _level(heads, "1. Introduction") == 2


def test_a_chapter_label_is_no_heading_over_its_title_and_a_draft_date_is_none(tmp_path):
    """report: "Chapter 1" on a line of its own over "Introduction" is read before the
    heading, not a heading of its own; the chapter's title is level with the next chapter's
    and over its sections; "Draft of September 2015" and the author over his affiliation
    are no headings."""
    heads = _headings("report", tmp_path)
    texts = [text for _, text in heads]
    assert "Chapter 1" not in texts and "Chapter 2" not in texts
    chapter = _level(heads, "Introduction")
    assert _level(heads, "Related Work") == chapter
    assert _level(heads, "1.1 Problem Statement") == chapter + 1
    assert not any("Draft" in text or "Kenji" in text for text in texts)
