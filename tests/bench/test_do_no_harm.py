"""bench/do_no_harm.py: plain's words that ours keeps, counted as a reader hears them."""

from __future__ import annotations

from bench.do_no_harm import kept_words, spaced_runs
from bench.plain_reading import word_sequence, words


def _kept(ours: str, plain: str) -> tuple[int, int, list[str]]:
    return kept_words(words(ours), words(plain), spaced_runs(word_sequence(plain)))


def test_letter_spaced_type_read_as_words_loses_none():
    """MuPDF gives a letter-spaced title letter by letter ("C L A S S I C T H E S I S"); ours
    reads the words it spells: no word is lost. Letters ours does not spell stay lost."""
    assert _kept("Classic Thesis style", "C L A S S I C T H E S I S style") == (1, 14, [])
    # A kerned pair stays one piece in MuPDF's words ("T H AT"): it is spelled too.
    assert _kept("because that is", "B E C A U S E T H AT I S") == (0, 12, [])
    exact, matched, lost = _kept("Lorem dolor", "L o r e m i p s u m dolor")
    assert (exact, matched, sorted(lost)) == (1, 6, ["i", "m", "p", "s", "u"])


def test_single_letters_outside_a_spaced_run_are_not_spelled():
    """Variables in a sentence ("x and y") are no letter-spacing: ours' "xy" keeps neither, and
    a word is spelled from inside one run, not across two."""
    assert _kept("xy and", "x and y")[2] == ["x", "y"]
    assert sorted(_kept("abcdef and", "a b c and d e f")[2]) == ["a", "b", "c", "d", "e", "f"]
