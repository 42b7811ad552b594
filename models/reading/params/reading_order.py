"""Reading order of a page's regions (models.reading.reading_order)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReadingOrderParams:
    # A stripe of whitespace is a gutter while the boxes crossing it (wrapped photos, pull
    # quotes, a title) weigh, in height, no more than this share of the busiest x's boxes.
    gutter_crossed_share: float = 0.35
    # A vertical rule this long or longer may part columns (a newspaper's column rules; a
    # table's inner rules and a letter's stroke are shorter, or crossed by their table).
    column_rule_min_inch: float = 1.5
    column_rule_picture_share: float = 0.5  # ... unless this share of it lies in a picture
    column_rule_reach_gaps: float = 3.0  # text on both sides this many narrowest gutters near it
    nested_share: float = 0.8  # a box this share inside another (a drop cap) is read before it
    drop_cap_lines: float = 2.0  # an initial this many word heights tall (or more) is a drop cap
    drop_cap_reach_lines: float = 1.5  # the line beside it starts within this many word heights
    # A left column of labels beside their entries (read label, entry, label, entry): at
    # least this many boxes, in a column no wider than this share of the entries' column,
    # filling no more than this share of their column's height, this share of them each
    # heading a box on the right: the label's middle from half its height above the box's
    # top to this many of its heights below.
    side_label_min: int = 2
    side_label_width_share: float = 0.5
    side_label_fill: float = 0.5
    side_label_heading_share: float = 0.75
    side_label_reach_heights: float = 1.5


READING_ORDER = ReadingOrderParams()
