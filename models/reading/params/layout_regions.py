"""Blocks + the layout model's regions -> kinds, tables, figures (models.reading.layout_regions).
Shares are of the page's width, height or area, or of a box's area."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LayoutParams:
    figure_min_side_share: float = 0.06  # a figure's width (2x height) of the page's, at least
    figure_min_area_share: float = 0.006  # a figure's area of the page's, at least: no speck
    figure_min_ink_share: float = 0.01  # dark pixels a figure holds at least (no blank box)
    figure_max_ink_share: float = 0.97  # and at most (no solid black bar)
    # A figure's ink is counted this far in from a page border it reaches (inches): a scan's
    # own edge (the book's next leaf, the scanner's lid, a dark margin) is no illustration. A
    # typescript's top 0.2 in of edge held its "figure"'s ink (4 %); past it, 0.02 %.
    figure_page_edge_in: float = 0.25
    # ... at most this share of the page's side (a label or a card a few inches across: a
    # 120 x 30 pt page had no inside left at all)
    figure_page_edge_max_share: float = 0.05
    nested_text_share: float = 0.8  # a text region this much inside a bigger one is part of it
    grid_table_share: float = 0.7  # a table region this much inside one printed grid is that grid
    column_gap_share: float = 0.01  # the narrowest gutter between columns, of the page's width
    order_slack_px: float = 5  # a block this far above a picture's top still follows it (unscaled)
    readable_picture_words: int = 8  # a "picture" of this many real words or more is text
    # ... or of this many words of any kind holding this share of its ink or more: an index's
    # columns of macro names and page numbers (0.94 on eufrak p. 2 scanned), not a chart's
    # labels beside its axes and bars (0.35 to 0.50 on 128 fresh TeX Live scans)
    text_picture_ink_share: float = 0.75
    # A readable "picture" over this share of the page or more is the page the model took for
    # one picture (a sheet of four title pages, their frames and logos): its blocks are text
    page_picture_share: float = 0.5
    prose_long_words: int = 20  # running text: this many words of four letters or more
    # A table region is a formula when this share of its letters or more are mathematical ones
    math_table_letter_share: float = 0.5
    # A table region over columns of running text: this many rows or more, in every column
    # this share of the filled cells or more lines of prose (models.reading.kinds.prose_line).
    prose_columns_min_rows: int = 12
    prose_columns_cell_share: float = 0.6
    # A column of running text beside a table's entries: in this many rows or more, and this
    # share of its filled cells or more, its line runs on from the row above (a line of prose
    # broken mid-sentence or by a hyphen) while another column starts an entry.
    running_column_rows: int = 4
    running_column_share: float = 0.4
    # A "formula" region the glyphs do not transcribe is a passage of words when this share of
    # its characters are letters (their marks with them: Thai, Devanagari) ...
    formula_words_letter_share: float = 0.5
    formula_words_alnum_share: float = 0.75  # ... this share letters and digits ...
    formula_words_min_letters: int = 40  # ... and it holds this many letters at least
    # A line right above a table region, of one line (at most this many of its word heights
    # tall) and at most this many word heights above it, may be the table's column heads
    # (ICDAR us-033's scanned "Age Group   Proportion", 1.7 heights above its figures), its
    # right end at most this share of the region's width past the region's (a head wider than
    # its column of figures: "Proportion" over "0.2650", 0.22).
    head_line_heights: float = 1.6
    head_above_gap_lines: float = 2.5
    head_overhang_share: float = 0.5
    full_confidence: float = 100.0  # a section number's confidence when no word gives one


LAYOUT = LayoutParams()
