"""Line numbers in a page's margin (models.reading.line_numbers): a manuscript's lineno numbers,
pleading paper's 1-28, a bill's or a poem's every fifth line. Ratios are of the page's usual
word height (a line's height) or of the prose's line pitch, so the rules hold at any
resolution."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LineNumberParams:
    min_numbers: int = 5  # a column of line numbers holds this many or more
    max_digits: int = 4  # a line number has at most this many digits
    align_ratio: float = 0.3  # the numbers' aligned edges (right, or left) differ this much at most
    same_row_ratio: float = 0.5  # words whose middles lie within this of each other share a row
    # No prose line of the page has a word in the numbers' lane or this close to it (lineno
    # sets them 10 pt off the text: about a word's height; a word space is a third of it).
    margin_gap_ratio: float = 0.6
    prose_min_words: int = 5  # a row of this many words or more is a prose line...
    prose_word_share: float = 0.7  # ...when this share of them are words of letters
    prose_min_rows: int = 3  # the prose's line pitch is measured over this many steps or more
    growing_share: float = 0.8  # this share of a column grows down the page (OCR misreads a few)
    even_step_share: float = 0.7  # ...and this share of its steps are one step (1, 5, 10)
    # One number a line: the height per unit of numbering (every line numbered, or every fifth)
    # is at most this many of the prose's line pitches (paragraph numbers step a paragraph:
    # two lines or more and its gap).
    max_pitch_ratio: float = 1.6


LINE_NUMBERS = LineNumberParams()
