"""When a page's reading is doubtful (models.reading.doubts, layer_doubts): agreement between
two reading orders, a big initial standing alone, our tables against PyMuPDF's table finder and
the words printed inside them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DoubtParams:
    # Reading order: ours against the engine's own (Tesseract's, or the text layer's stream).
    order_block_min_words: int = 5  # a block of fewer words is no running text (a label, a head)
    order_body_size_ratio: float = 1.25  # running text is within this ratio of the body's size
    order_min_blocks: int = 4  # fewer text blocks than this: too few to doubt their order
    order_min_words: int = 40  # fewer words in them: too little text to doubt its order
    order_max_discord_share: float = 0.15  # word-weighted block pairs the two orders swap: more
    # is doubtful
    # A picture's text kept as text: labels standing apart on one line (a diagram's boxes).
    label_gap_heights: float = 3.0  # a gap wider than this many text heights parts two labels
    label_line_shift_heights: float = 1.0  # words whose middles are this many heights apart or
    # less stand on one line (a diagram's boxes sit a little higher or lower)
    # A big initial (drop cap) read as its own block.
    drop_cap_size_ratio: float = 1.8  # a lone letter this many times the body's text size
    drop_cap_reach_heights: float = 1.0  # ... with text starting this many of its heights right
    # Tables against PyMuPDF's table finder and the words inside the table's box.
    table_overlap_share: float = 0.5  # a found table covering this share of ours is the same one
    table_rows_lost_min: int = 2  # the finder reads at least this many rows ours lacks: rows lost
    table_row_missing_share: float = 0.5  # a finder's row with more of its cells missing is lost
    table_words_lost_share: float = 0.2  # words inside the table missing from its cells: more
    table_words_lost_min: int = 5  # ... and at least this many
    table_box_slack_pt: float = 1.0  # a word's centre this far outside the table's box is out


DOUBTS = DoubtParams()
