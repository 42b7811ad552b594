"""bench/code_listings.py's scoring: what counts as a listing found, its indentation kept and a
prose line taken for code."""

from __future__ import annotations

from bench.code_listings import score

TRUTH = {"listings": [["def f(x):", "    return x", "", "print(f(1))"], ["}", "int y;"]],
         "typewriter": False}  # fmt: skip


def test_a_listing_whole_in_one_pre():
    html = "<pre><code>def f(x):\n    return x\n\nprint(f(1))</code></pre><pre>}\nint y;</pre>"
    got = score(html, TRUTH)
    assert (got["recall"], got["indent"], got["precision"]) == (1.0, 1.0, 1.0)
    assert got["listings_whole"] == 2


def test_lines_as_paragraphs_lost_indentation_and_prose_in_pre_count():
    html = (
        "<p>def f(x): return x</p>"  # the first listing read as prose
        "<pre>}\nint y;\nThe text goes on here.</pre>"  # a prose line taken into a listing
    )
    got = score(html, TRUTH)
    assert got["recall"] == 2 / 5 and got["listings_whole"] == 1
    assert got["wrong_pre_lines"] == 1 and got["precision"] == 2 / 3
    flat = score("<pre>def f(x):\nreturn x\nprint(f(1))</pre>", TRUTH)
    assert flat["indent"] == 2 / 3  # "return x" lost its four spaces
