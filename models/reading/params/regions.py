"""Layout regions found from a scan's words (models.reading.regions): display formulas, tables
under a reversed header row."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RegionParams:
    formula_width_share: float = 0.75  # a display formula is at most this share of the text's width
    display_gap_lines: float = 2.5  # rows of one display stand less than this many lines apart
    formula_centre_share: float = (
        0.15  # a display's centre is off the text's by this share, at most
    )
    math_word_letters: int = 3  # a word with this many letters or more is looked up
    math_scrap_chars: int = 8  # a line of at most this many characters with a sign: a sum's limit
    header_slack_share: float = 0.05  # a text region under a header row may reach past it so far
    header_reach_rows: float = 1.5  # a table's rows follow within this many header heights


REGIONS = RegionParams()
