"""A scan's text size from its words' heights (models/reading/scan_lines.py)."""

from __future__ import annotations

import pytest

from models.engine import Word
from models.reading.scan_lines import letter_sizes, words_size


def _words(*heights: tuple[str, float]) -> list[Word]:
    return [Word(text, 95.0, (100 * k, 500, 100 * k + 90, 500 + h))
            for k, (text, h) in enumerate(heights)]  # fmt: skip


def test_every_word_tells_the_size_by_what_its_letters_reach():
    """A 12 pt head at 244 dpi (41 px): "Typefaces" reaches cap height and descends, "Page"
    descends from the cap height, "Layout" too; words_size, reading only words that do not
    descend, has nothing to go on for either."""
    typefaces = _words(("Typefaces", 39.0))
    page_layout = _words(("Page", 38.5), ("Layout", 38.5))
    assert words_size(typefaces) is None and words_size(page_layout) is None
    assert letter_sizes(typefaces) == pytest.approx((41.5, 41.5), abs=0.1)
    assert letter_sizes(page_layout) == pytest.approx((41.0, 41.0), abs=0.1)
    assert letter_sizes(_words(("Contents", 50.0)))[0] == pytest.approx(69.4, abs=0.1)
    assert letter_sizes(_words(("on", 20.0)))[0] == pytest.approx(41.7, abs=0.1)


def test_a_word_whose_only_descender_is_an_f_leaves_its_size_open():
    """An "f" descends in italics, not in roman: "References" 40 px tall is 42.6 to 55.6 px
    type; another word of the line that tells surely decides."""
    low, high = letter_sizes(_words(("References", 40.0)))
    assert (low, high) == pytest.approx((42.6, 55.6), abs=0.1)
    assert letter_sizes(_words(("of", 70.0), ("List", 50.0))) == pytest.approx(
        (69.4, 69.4), abs=0.1
    )
