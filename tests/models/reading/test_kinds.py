"""What a line of front matter reads as (models/reading/kinds.py): names, affiliations, dates."""

from __future__ import annotations

from models.engine import Word
from models.reading.kinds import (
    reads_as_affiliation,
    reads_as_byline,
    reads_as_diagram,
    reads_as_front_field,
    reads_as_name,
    reads_as_names,
    real_words,
)


def test_a_draft_or_version_date_is_a_byline():
    assert reads_as_byline("Draft of September 2015")
    assert reads_as_byline("This version: March 3, 2024")
    assert not reads_as_byline("Results of the Survey")


def test_authors_in_capitals_joined_by_and_are_a_byline():
    """The AMS classes set the authors in capitals: "A, B, C, AND D"."""
    assert reads_as_byline("SOFIA TANAKA, ELENA OKAFOR, OMAR CHEN, AND OMAR SCHMIDT")
    assert not reads_as_byline("MATERIALS AND METHODS")


def test_a_name_alone_reads_as_one_but_only_a_short_line_as_an_affiliation():
    assert reads_as_name("Kenji Chen") and reads_as_name("Kola O. Odeku")
    assert not reads_as_name("Kenji") and not reads_as_name("On the Stability of Models")
    assert reads_as_affiliation("Department of Physics, Kyoto University")
    assert reads_as_affiliation("chen@example.org")
    prose = ("Questions about the class may be sent to the mailing list at users@example.org, "
             "where the authors and many users of the package answer them, usually within a "
             "day or two.")  # fmt: skip
    assert not reads_as_affiliation(prose)


def test_dictionary_words_read_less_surely_in_a_heading_box_are_real_words():
    """Tesseract reads a scanned paper's bold "3.1 Complexity" at 64: in a box the layout model
    drew as a heading, dictionary words are enough at that confidence; words it does not know
    at that confidence are not, nor are the same words outside such a box."""
    heading = [Word("3.1", 63.7, known=False), Word("Complexity", 63.7, known=True)]
    assert real_words(heading, "3.1 Complexity", boxed=True)
    assert not real_words(heading, "3.1 Complexity")
    garbled = [Word("3.1", 63.7, known=False), Word("Cornplexitv", 63.7, known=False)]
    assert not real_words(garbled, "3.1 Cornplexitv", boxed=True)
    murky = [Word("3.1", 50.0, known=False), Word("Complexity", 50.0, known=True)]
    assert not real_words(murky, "3.1 Complexity", boxed=True)


def test_names_joined_by_and_read_as_names_and_a_starred_title_is_no_byline():
    assert reads_as_names("SOFIA OKAFOR AND MARIA OKAFOR") and reads_as_names("Kenji Chen")
    assert not reads_as_names("Related Work and Future Directions of Research")
    assert not reads_as_names("Bus Routes and Village Life")
    assert reads_as_byline("Alice Martin1, Bob Chen2")
    assert not reads_as_byline("Towards Reliable Bayesian Inference*")


def test_a_filled_front_matter_field_and_labels_joined_by_arrows():
    assert reads_as_front_field("Keywords: sparse regression, noise")
    assert reads_as_front_field("Index Terms—graph neural networks")
    assert reads_as_front_field("ACM Reference Format:")
    assert not reads_as_front_field("Keywords") and not reads_as_front_field("Key Results")
    assert reads_as_diagram("Encoder → Decoder → Loss")
    assert reads_as_diagram("Input | — | Encoder | + | Sampler")
    assert reads_as_diagram("Input -> Encoder --> Loss")
    assert not reads_as_diagram("Results > 90 % of the Time") and not reads_as_diagram("A|B")
    assert not reads_as_diagram("From Pixels to Words")


def test_a_numbered_title_in_a_heading_box_needs_no_dictionary_word():
    """A scanned manual's "4 Hyphenation" (read at 77, no word of Tesseract's English
    dictionary) and a Hungarian thesis's chapter label "1. fejezet" (its "1." a list item's
    marker, "fejezet" at 88), each in a box the layout model drew as a heading: the number and
    the box make them headings. Unnumbered, outside such a box, or read less surely, not."""
    hyphenation = [Word("4", 91.1, known=False), Word("Hyphenation", 77.4, known=False)]
    assert real_words(hyphenation, "4 Hyphenation", boxed=True)
    assert not real_words(hyphenation, "4 Hyphenation")
    assert not real_words(hyphenation[1:], "Hyphenation", boxed=True)
    chapter = [Word("fejezet", 87.9, known=False)]
    assert real_words(chapter, "fejezet", boxed=True, numbered=True)
    assert not real_words(chapter, "fejezet", boxed=True)
    murky = [Word("4", 70.0, known=False), Word("Hyphenation", 70.0, known=False)]
    assert not real_words(murky, "4 Hyphenation", boxed=True)
