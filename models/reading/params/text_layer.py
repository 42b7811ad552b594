"""The thresholds of the born-digital reader (models/reading/textlayer.py and its layer_*
modules): whether a page's text layer is trusted, how its words, lines, ruled tables and vector
drawings are read. Lengths in PDF points (`_pt`), the page's own unit.
"""

from __future__ import annotations

from dataclasses import dataclass

POINTS_PER_INCH = 72  # PDF's unit: a page in points times dpi / 72 is the page image in pixels
PERCENT = 100  # rapidfuzz's ratios run 0-100; a text layer's word is read with 100 % confidence
FULL_TURN_DEG = 360  # a page's /Rotate, in degrees: turning back is 360 - rotation
INVISIBLE_RENDER_MODE = 3  # PDF text render mode 3: neither filled nor stroked (OCR layers)


@dataclass(frozen=True)
class TextLayerParams:
    # Trusting a layer: is its text language, is it an earlier OCR run's?
    min_layer_chars: int = 40  # a page with fewer characters of text is read by OCR
    unmapped_share: float = 0.02  # glyphs without a character a trusted layer may hold (of all)
    cid_code_weight: int = 5  # a "(cid:N)" code (an unmapped glyph) counts as this many marks
    # Private-use glyphs a trusted layer may hold (of all): a few are a font's extra glyphs (a
    # Greek thesis's lambda, a Chinese exam's brace pieces, Adobe's small capitals: 1.1-4.4 %
    # of the unseen pages'), which OCR would not read better (English OCR garbles the Greek
    # or Chinese around them); a font whose text is encoded away is mostly such glyphs.
    private_use_share: float = 0.05
    letters_digits_share: float = 0.6  # letters and digits together must exceed this share
    letters_share: float = 0.25  # letters alone must exceed this share (a statement is figures)
    min_words: int = 5  # words of two letters or more a layer of language holds at least
    # Letters of Latin-1's accented range (U+00C0-U+00FF) this share of a text's letters or
    # more: a Greek or Cyrillic font encoded over Latin-1 ("Þ à ß Þ â ã"; 96 % on a Greek
    # page), where languages written with them use them for a few letters (Hungarian 14 %).
    latin1_letter_share: float = 0.5
    latin_share: float = 0.8  # a text this Latin (of its letters) or more has its vowels counted
    latin_min_letters: int = 40  # ...when it holds this many Latin letters or more
    vowel_share_low: float = 0.25  # vowels of a Latin language's letters: at least this share
    vowel_share_high: float = 0.6  # ...and at most this one (a shifted encoding has few)
    common_words_min_words: int = 30  # a text of this many words or more must hold common words
    common_words_per_word: float = 0.03  # ...at least this many of "the", "de", "und" a word
    visible_text_share: float = 0.9  # a layer with less of its characters visible is OCR's
    page_image_share: float = 0.8  # an image covering this share of the page or more is a scan
    hidden_text_share: float = 0.5  # text drawn under a scan, of all its drawing operations
    page_scan_block_share: float = 0.5  # an OCR layer's image this big (of the page): its scan
    # An OCR layer is kept when a fresh read of a sample of its lines agrees with it.
    sample_lines: int = 10  # lines of the layer read afresh
    sample_min_alnum: int = 10  # a line sampled holds this many letters and digits or more
    sample_min_lines: int = 3  # a layer of fewer such lines is not kept
    agree_mean: float = 0.9  # mean similarity of a sampled line with the fresh read of its crop
    # The file's outline (bookmarks), kept per page as a heading's evidence: untrusted, bounded.
    outline_max_entries: int = 64  # entries kept for one page at most
    outline_max_depth: int = 9  # an entry nested deeper is kept at this depth
    outline_title_max_chars: int = 300  # an entry's title is clipped to this length
    agree_line: float = 0.85  # a line that agrees this much...
    agree_share: float = 0.8  # ...and this share of the sample must
    junk_share: float = 0.1  # a layer with more of its text in lines of specks is not kept
    junk_alnum_share: float = 0.6  # a line of fewer letters and digits (of its characters): specks
    junk_max_alnum: int = 2  # ...or of this many or fewer that are not a number
    # The page image's ink, to tell a figure from an empty box.
    unknown_ink_share: float = 0.5  # the ink of a box when no page image was given
    dark_gray_level: int = 160  # a pixel darker than this gray level (0-255) is ink
    # Words, lines and blocks.
    script_size_ratio: float = 0.85  # an exponent or index is set this much smaller, or more
    script_shift_ratio: float = 0.15  # and its baseline moved by this share of the line's size
    glyph_bucket_pt: int = 8  # glyphs bucketed by the height of their centre, in bands this tall
    glyph_in_word_pt: float = 0.5  # a glyph's centre this far outside a word's box is in it
    # right-to-left pieces of one word touch: the next one's edge within this share of the
    # line's height (MuPDF's Arabic pieces meet exactly; a space is about a quarter)
    rtl_touch_share: float = 0.05
    # Letter-spaced type ("T H E  P U B L I C", a title's or an epigraph's tracking): MuPDF
    # makes each letter a word. A line of `letterspaced_min_pieces` pieces or more, at least
    # `letterspaced_letter_share` of them a letter alone, whose gaps fall in two sizes (a word's
    # gap at least `letterspaced_word_gap_ratio` times the least): its letters joined into words.
    letterspaced_min_pieces: int = 4
    letterspaced_letter_share: float = 0.7
    letterspaced_word_gap_ratio: float = 1.8
    letterspaced_piece_chars: int = 3  # letters MuPDF keeps together in one piece (kerned)
    letterspaced_gap_spread: float = 0.1  # the letters' gaps within this share of their median
    letterspaced_size_step_pt: float = 0.5  # lines of one size: heights within this step
    owner_margin_pt: int = 1  # a word's centre this far outside a block's box is in it
    bold_share: float = 0.6  # a block is bold when more of its characters are
    drawn_twice_min_chars: int = 12  # text this long drawn twice, overlapping, is read once
    script_gap_low_ratio: float = -0.1  # an exponent MuPDF put apart touches its word from
    script_gap_high_ratio: float = 0.15  # ...this far back to this far on (of the word's height)
    hyphenated_over_chars: int = 2  # a word mended across a line end is longer than this
    # A radical sign MuPDF set apart in a block of its own (it hangs above its line): it joins
    # the block of its radicand, which starts within this share of the sign's height of its
    # right edge, the sign's foot inside the radicand's line; and that block joins the block
    # before the sign when that block's last line ends within radical_gap_ratio of a line's
    # height before the sign, its foot within radical_row_ratio of the radicand line's.
    radical_touch_ratio: float = 0.25
    radical_gap_ratio: float = 0.6
    radical_row_ratio: float = 0.2
    joined_size_ratio: float = 0.2  # OCR lines joined differ in size by this share at most
    joined_gap_low_ratio: float = 0.2  # ...the next starts this far up into the last at most
    joined_gap_high_ratio: float = 0.9  # ...and this far below it, plus that much, at most
    joined_overlap_share: float = 0.5  # ...and overlap across by this share of the narrower
    upright_dx: float = 0.9  # a line runs left to right when its direction's x is over this
    upright_dy: float = 0.1  # ...and its y's size under this
    leader_min_dots: int = 4  # this many dots in a row are a leader, fewer an ellipsis ("...")
    # Ruled tables from PyMuPDF's table finder.
    grid_line_pt: float = 2.0  # cell edges (and line centres) closer than this are one line
    lined_up_pt: int = 2  # lines of two cells whose centres are this close line up
    lined_up_share: float = 0.6  # two cells' lines line up when this share of the shorter do
    stacked_lines: int = 3  # a grid cell holding this many lines that line up with...
    stacked_cells: int = 3  # ...those of this many cells of its row, less one: unparted rows
    ruled_region_share: float = 0.5  # a ruled table under a region covers this share of it
    gap_cell_min_words: int = 2  # a cell of this many words or more shows a column's gap
    gap_min_cells: int = 3  # a gap that this many body cells or more leave free parts columns
    filled_cells_share: float = 0.7  # rules of fewer cells with text do not part the text
    table_inside_share: float = 0.9  # a ruled table this share inside a region: taken in whole
    # A grid's column edge between two words of a line closer than this share of their height
    # (a word space) cuts a phrase: the grid is no printed one (the words decide).
    phrase_cut_gap_share: float = 0.35
    span_reach_pt: int = 1  # a cell spans the grid's columns and rows whose middles lie this near
    # A ruled cell spanning columns whose words leave a stretch at least this many of their
    # heights wide with a column's line in it is parted there: heads of column groups in one
    # unruled box ("12/31/2009  12/31/2010  6/30/2011" over "$000's | %" pairs, ICDAR us-004).
    # A label across the table keeps its word spaces, far narrower.
    group_gap_share: float = 1.5
    # The table finder's ways tried per region, the first kept on a tie: (strategy, gated by
    # the layout model: its tables matched to its boxes, a box no grid matches read as the
    # layout's own grid). Drawn lines only (a filled background is no rule) with the layout,
    # then from the drawings alone, then lines and filled boxes (cells drawn as fills). The
    # layout runs once (a model run per call): its other strategy is not tried.
    table_finders: tuple[tuple[str, bool], ...] = (
        ("lines_strict", True), ("lines_strict", False), ("lines", False),
    )  # fmt: skip
    # Vector drawings: pictures and formulas' rules. A drawing is a picture when it is big
    # enough and enough of its strokes are curves or slanted lines: a table, a form or a frame is
    # drawn with level and upright lines and boxes alone (0 % on the realworld pages' tables and
    # forms, 19-47 % on a text-book's diagrams, a paper's chart and a chemistry paper's
    # structures).
    max_drawings: int = 20_000  # a page of more paths (a map) is not looked through: ~80 us a path
    picture_min_width_pt: float = 72.0  # a picture is this wide or more...
    picture_min_height_pt: float = 50.0  # ...and this tall or more
    page_frame_share: float = 0.8  # a drawing over this share of the page is a frame around it
    picture_min_strokes: int = 10  # a picture is drawn with this many strokes or more...
    slanted_share: float = 0.15  # ...this share of them curves or slanted (0 % in forms, tables)
    slant_min_pt: int = 1  # a line slanted this much across and up is no level or upright rule
    # A drawing whose paths are all boxes across it (a remark's rounded frame and title bar) is
    # a box round text: edges level and upright, curves only this near a corner (tcolorbox's
    # arcs are 2-6 pt), each box over this share of the drawing's width or height.
    box_corner_pt: float = 12.0
    box_across_share: float = 0.9
    label_max_lines: int = 2  # a drawing's label (a tick's number, an axis title) has few lines
    label_max_words: int = 6  # ...and few words
    label_passes: int = 3  # labels taken around a drawing, grown from those already taken
    label_reach_ratio: float = 1.5  # a label this many of its own heights away or less is taken
    bar_level_pt: float = 0.5  # a stroked line whose ends differ less in height is level
    bar_max_thick_pt: float = 1.5  # a filled box thinner than this is a rule (TeX's bars)...
    bar_min_length_pt: int = 2  # ...when it is longer than this
    bar_reach_pt: int = 1  # a rule may reach this far past a formula's region
    bar_inside_share: float = 0.8  # ...with this share of its length inside it


TEXT_LAYER = TextLayerParams()
