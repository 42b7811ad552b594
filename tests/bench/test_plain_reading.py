"""bench/plain_reading.py: the words a page's plain reading has, counted as a reader counts them."""

from __future__ import annotations

from collections import Counter

from bench.plain_reading import words


def test_a_word_hyphenated_at_a_line_end_is_one_word():
    """Plain Tesseract's "pub-" / "lic" is the word our pages hold mended ("public"); a hyphen
    before a capital or a figure, or inside a line, stays one."""
    assert words("the pub-\nlic") == Counter({"the": 1, "public": 1})
    assert words("Anglo-\nSaxon 1990-\n91 well-known") == Counter(
        {"anglo": 1, "saxon": 1, "1990": 1, "91": 1, "well": 1, "known": 1}
    )
