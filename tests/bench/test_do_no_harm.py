"""bench/do_no_harm.py: plain's words that ours keeps, counted as a reader hears them."""

from __future__ import annotations

from bench.do_no_harm import icdar_tables, kept_words, spaced_runs
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


PANELS = """<document><table id="1">
 <region id="1" page="3"><cell start-row="1" start-col="1"><content>Alder</content></cell>
  <cell start-row="1" start-col="2"><content>12</content></cell></region>
 <region id="2" page="3"><cell start-row="1" start-col="1"><content>Birch</content></cell>
  <cell start-row="1" start-col="2"><content>7</content></cell></region>
</table></document>"""


def test_each_region_of_an_icdar_table_is_a_grid_of_its_own(tmp_path):
    """ICDAR 2013's us-035a: one long list printed in three panels side by side, each region
    numbering its rows from 1. The panels overlaid, only the last one's cells were truth."""
    xml = tmp_path / "panels-str.xml"
    xml.write_text(PANELS)
    grids = icdar_tables(xml, None).tables
    assert [[cell for row in grid for cell, _ in row if cell] for grid in grids] == [
        ["alder", "12"],
        ["birch", "7"],
    ]
    assert icdar_tables(xml, {1}).tables == []  # a page without the table
