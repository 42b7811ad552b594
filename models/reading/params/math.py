"""The thresholds of rebuilding a born-digital formula as TeX from its glyphs (models/reading/
math_text.py). Most are ratios of a glyph's size or of the formula's full size (`base`, its
largest glyph); lengths in PDF points (`_pt`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MathParams:
    # Glyphs read as one word: digits of a number, an operator name, an ellipsis.
    same_size_ratio: float = 0.05  # glyphs of one word differ in size by less (of their size)
    same_baseline_ratio: float = 0.1  # ...and in baseline by less
    word_overlap_ratio: float = -0.1  # ...and each starts after the last ends, from this far back
    word_gap_ratio: float = 0.15  # ...to this far on (digits, letters of a name)
    dots_gap_ratio: float = 0.3  # ...or this far on (the dots of an ellipsis)
    ellipsis_min_dots: int = 3  # dots side by side, this many or more: an ellipsis
    dots_step_low_ratio: float = 0.15  # dots of \vdots / \ddots step down at least this much
    dots_step_high_ratio: float = 0.6  # ...and at most this much (of their size)
    accent_reach_ratio: float = 0.5  # an accent marks a glyph starting this near after it
    blank_mark_ratio: float = 0.05  # an accent or a slash narrower (of its size) has no width
    # "(3)" at a row's right end, this far (of its size) from the formula: its number.
    equation_number_gap_ratio: float = 1.5
    # Inline formulas (inline_math.py): this many glyphs or more that are no fence or point.
    inline_min_glyphs: int = 2
    inline_gap_ratio: float = 0.6  # ...its words this near (of the word's height) one another
    # An inline fraction: a word over a word, overlapping across by this share of the narrower
    fraction_overlap_share: float = 0.5
    fraction_gap_ratio: float = 0.6  # ...this far apart at most (of the upper one's height)
    fraction_touch_ratio: float = 0.25  # ...or their boxes overlapping this much at most
    fraction_width_share: float = 0.8  # ...the wider of them this share of the bar's length
    fraction_beside_ratio: float = 1.0  # ...a word of the line this near it (of its height)
    # Script sizes and rows.
    full_size_ratio: float = 0.9  # a glyph this large (of the full size) or more is no script
    raised_ratio: float = 0.15  # a script raised this far (of the full size) is a superscript
    row_join_ratio: float = 0.45  # full-size baselines this close (of the size) are one row
    row_gap_ratio: float = 1.3  # rows of a display stand at least this many sizes apart
    # Limits over and under a big operator (a sum) or an operator name (lim).
    big_op_reach_ratio: float = (
        1.5  # a limit's centre lies this far beside a big operator (of its width)
    )
    name_reach_ratio: float = 0.5  # ...or beside an operator name (of its size)
    name_limit_low_ratio: float = 0.3  # a name's limit's baseline lies this far under its own
    name_limit_high_ratio: float = 1.5  # ...and at most this far (of the full size)
    limit_above_ratio: float = (
        1.2  # a limit over an operator reaches this far over it (of the size)
    )
    limit_box_share: float = 0.25  # ...and into its box by this share of its height at most
    limit_below_ratio: int = 2  # a limit under an operator reaches this far under it (of the size)
    limit_line_ratio: float = 0.15  # glyphs of one limit's line differ in baseline by this much
    limit_beside_ratio: float = 0.3  # a small glyph this near a limit's line (of its size) joins it
    limit_run_gap_ratio: float = 0.6  # a limit's glyphs follow one another this near (of a size)
    # Fractions and radicals over their drawn rules.
    bar_reach_pt: int = 1  # a glyph or an inner rule this far past a rule's ends is within it
    numerator_ratio: float = 1.5  # a numerator's baselines lie this far over its bar (of the size)
    denominator_ratio: int = 2  # a denominator's lie this far under it
    overline_depth_ratio: float = 1.2  # a rule with nothing over it: an overline over glyphs
    # whose baselines lie this far under it at most (of the size)
    denominator_drop_ratio: float = 0.5  # ...each at least this much under it (of its own size)
    math_axis_ratio: float = 0.25  # a fraction's baseline lies this far under its bar (the axis)
    radical_reach_ratio: float = (
        0.3  # a radical's rule starts this near its top right (of its size)
    )
    radicand_depth_ratio: float = (
        1.5  # what a radical holds has its baseline this far under its rule
    )
    # Matrices, binomials and cases: rows inside tall delimiters.
    tall_fence_ratio: float = 1.6  # a delimiter this tall (of the text size) or more is tall
    fence_share: float = 0.5  # ...and holds what lies this share of its height within its own
    matrix_column_gap_ratio: float = 0.6  # columns: space running down all rows this wide
    radicand_bars_ratio: int = 2  # fractions inside a radical lie this far under its rule


MATH = MathParams()
