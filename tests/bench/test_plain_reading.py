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


def test_text_without_spaces_counts_by_character_wherever_its_lines_break():
    """Japanese is written without spaces: one reading's lines broken where the page's are
    ("がマ" / "クロ") and another's joined are the same words, counted by character."""
    by_lines = words("「取引できない商品」がマ\nクロ経済変数 2 次元")
    joined = words("「取引できない商品」がマクロ経済変数 2 次元")
    assert by_lines == joined
    assert by_lines["マ"] == 1 and by_lines["2"] == 1
    assert words("a Thai word ภาษา") == Counter({"a": 1, "thai": 1, "word": 1, "ภ": 1, "า": 2,
                                                 "ษ": 1})  # fmt: skip
