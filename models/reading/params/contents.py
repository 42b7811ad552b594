"""A table of contents as a list (models.reading.contents): the lines of a page's blocks that end
in a page number set apart from their entry. Ratios are of the line's text height."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ContentsParams:
    page_gap_ratio: float = 1.5  # an entry's page number stands this far right of its title
    same_line_ratio: float = 0.5  # words whose middles lie within this of a line's are on it
    min_entries: int = 2  # a contents list holds this many entries or more
    max_page_digits: int = 4  # a page number has at most this many digits
    max_entry_lines: int = 3  # an entry wraps over at most this many lines


CONTENTS = ContentsParams()
