"""The validation split every bench shares (bench/splits.py): stable, disjoint, covering each
corpus, with names given here (no corpus folder needed)."""

from __future__ import annotations

import random

import pytest

from bench.splits import (
    CORPORA,
    TUNE,
    VALIDATION,
    hash_fraction,
    is_validation,
    split_of,
    validation_members,
)

REALWORLD = [
    "ambiguous.pdf", "badlines.pdf", "bws_book_ch2.pdf", "dolma-page-1.pdf", "edgar-rotated90.pdf",
    "edgar.pdf", "edgar_image.pdf", "failing_anchor_pg4.pdf", "form_on_later_pages.pdf",
    "handwriting_bad_ocr.pdf", "horribleocr.pdf", "lots_of_chem_tables.pdf",
    "lots_of_sci_tables.pdf", "most_content_in_image_form.pdf", "newspaper.pdf",
    "olmo-page-1.pdf", "pdftotext_two_column_issue.pdf", "repeating_references_on_pg9_pg10.pdf",
    "skinnypage.pdf", "some_ocr1.pdf",
]  # fmt: skip


def test_the_split_is_pinned():
    """The hash rule must not drift: a change would put tuned pages into validation."""
    assert validation_members("realworld", REALWORLD) == {
        "dolma-page-1.pdf",
        "lots_of_chem_tables.pdf",
        "repeating_references_on_pg9_pg10.pdf",
    }
    assert hash_fraction("realworld", "edgar.pdf") == pytest.approx(0.8931554502)
    assert hash_fraction("realworld", "dolma-page-1.pdf") == pytest.approx(0.0576754240)


def test_pages_tuned_on_before_are_never_validation():
    """bws_book_ch2 draws validation by its hash, but earlier sessions' rules were fitted to it."""
    assert hash_fraction("realworld", "bws_book_ch2.pdf") < 1 / 3
    assert split_of("realworld", "bws_book_ch2.pdf", REALWORLD) == "tune"
    assert split_of("ocrmypdf", "linn.pdf", ["linn.pdf", "francais.pdf", "c02-22.pdf"]) == "tune"


def test_the_split_does_not_depend_on_listing_order():
    shuffled = random.Random(3).sample(REALWORLD, len(REALWORLD))
    assert validation_members("realworld", shuffled) == validation_members("realworld", REALWORLD)


def test_a_member_keeps_its_side_when_the_corpus_grows():
    names = [f"page-{n}.jpg" for n in range(30)]
    before = {n: split_of("typewritten-fr", n, names) for n in names}
    grown = names + [f"new-{n}.jpg" for n in range(10)]
    assert {n: split_of("typewritten-fr", n, grown) for n in names} == before


@pytest.mark.parametrize("corpus", CORPORA)
def test_each_corpus_is_cut_in_two_disjoint_covering_sides(corpus):
    names = [f"{corpus}-{n:02d}.pdf" for n in range(12)]
    sides = {TUNE: set(), VALIDATION: set()}
    for name in names:
        sides[split_of(corpus, name, names)].add(name)
    assert sides[TUNE] | sides[VALIDATION] == set(names)
    assert not sides[TUNE] & sides[VALIDATION]
    assert len(sides[VALIDATION]) >= 2 and sides[TUNE]


def test_about_a_third_is_held_out():
    names = [f"doc-{n}.pdf" for n in range(600)]
    share = len(validation_members("pdfjs", names)) / len(names)
    assert 0.28 < share < 0.39


@pytest.mark.parametrize(("count", "held"), [(1, 0), (2, 1), (3, 2)])
def test_a_small_corpus_holds_some_out_and_keeps_one_to_tune(count, held):
    names = [f"scan-{n}.tif" for n in range(count)]
    assert len(validation_members("tesseract", names)) == held


def test_copies_of_a_page_split_with_it():
    names = ["linn.pdf", "skew.pdf", "multipage.pdf", "c02-22.pdf", "francais.pdf"]
    sides = {name: is_validation("ocrmypdf", name, names) for name in names}
    assert sides["skew.pdf"] == sides["linn.pdf"] == sides["multipage.pdf"]


def test_the_same_name_may_fall_differently_in_another_corpus():
    """The corpus is part of the hash: a name shared by two corpora is drawn twice."""
    fractions = {hash_fraction(corpus, "linn.pdf") for corpus in CORPORA}
    assert len(fractions) == len(CORPORA)
