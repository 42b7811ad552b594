"""A scan's lines and the steps over them (models.reading.scan_lines, scan_blocks). Confidences
are Tesseract's (0-100); sizes are pixels of the page image, as read (not scaled by DPI)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScanParams:
    cap_height_ratio: float = 0.72  # cap height / font size of most text faces
    descender_ratio: float = 0.22  # descender depth / font size of most text faces
    x_height_ratio: float = 0.48  # x-height / font size of most text faces
    dark_level: int = 128  # a binarized pixel darker than this grey level is ink
    stroke_run_share: float = (
        0.25  # a dark run longer than this share of a line's height: no stroke
    )
    confidence_scale: float = 100  # Tesseract's confidences run 0-100: to a fraction
    upright_min_words: int = 8  # a page that read fewer words did not read well
    vertical_ratio: float = 1.5  # a line this many times taller than wide runs vertically
    upright_confidence: float = 75  # mean confidence (by characters) of a page that read well
    scrap_confidence: float = 50  # a word read with less confidence is a scrap
    noise_min_words: int = 3  # a line of this many scraps or more may be noise
    noise_word_letters: int = 3  # a word of at most this many characters is a scrap
    noise_confidence: float = 60  # a line of scraps read with less mean confidence is noise
    known_word_letters: int = 3  # a word this long or longer is looked up in the dictionary
    illegible_confidence: float = 45  # a line read with less mean confidence is illegible
    doubtful_confidence: float = 70  # a line read with less is illegible when few words are known
    illegible_known_share: float = 0.4  # dictionary words of a doubtful line, fewer: illegible
    # A paragraph of a printed page holding this many lines of computer text read with
    # doubtful_confidence or more is a listing: its other lines of computer text, which
    # Tesseract reads right at 20 to 45 (no dictionary holds "\\let\\CurrentOption"), are
    # illegible only under listing_line_confidence.
    listing_sure_lines: int = 2
    listing_line_confidence: float = 15
    # A web or mail address (kinds.WEB_ADDRESS) of this many characters or more, this share of its
    # line's characters: read at 0 to 40 however right (a bibliography's collection address
    # under a "Sample" watermark read at 34, the same twice), it is print, never illegible.
    address_min_chars: int = 10
    address_line_share: float = 0.8
    address_max_words: int = 3  # ...its words joined when the line holds this many at most
    unreadable_lines: int = 3  # illegible lines that may make a page unreadable
    unreadable_char_share: float = 0.25  # ...when they hold this share of its characters
    # ...each of at least this many characters: a chart's markers and swatches read as one or
    # two ("x", "*", "=-", ocrmypdf multipage.pdf p4: six such lines) are marks, not writing.
    writing_min_chars: int = 3
    # An illegible line reaching this share of its box into the layout model's pictures is a
    # drawing's label (a text line beside a picture does not cross into it).
    picture_label_share: float = 0.25
    # A printed page's illegible lines that stay out of its text (a script or signs its
    # languages do not read: a manual's Greek words, Cyrillic abstracts) are said, not left
    # silent: lines of at least this many letters (a chart's marks, a speck read as "SEC",
    # a formula's scraps are fewer)...
    not_read_min_letters: int = 8
    # ...a lone word with this many (a name in a family tree, "Ælfthryth": a chart's label)
    not_read_word_letters: int = 12
    not_read_min_lines: int = 2  # ...when this many stay out (one stray line is no page's loss)
    not_read_quote_words: int = 8  # the words of the text before them the finding quotes
    not_read_held_share: float = 0.5  # ...a line is in the text when words cover this share
    # A page's print not found at all (scan_blocks.unread_print_finding): on a copy of this
    # resolution, a cell darker than this grey holds ink; patches of ink no word holds, of this
    # height (a letter's, a word's: 3.6 to 36 pt), this many or more, holding this share of
    # the page's ink or more. The corpus's pages leave at most 0.35 of it out (a page of
    # pictures with labels), a page read as three words of its 78, 0.98.
    unread_sample_dpi: int = 50
    unread_ink_level: int = 192
    unread_min_height_inch: float = 0.05
    unread_max_height_inch: float = 0.5
    unread_min_patches: int = 20
    unread_print_share: float = 0.6
    sure_word_letters: int = 2  # a word of this many letters or more tells how surely a page read
    sure_confidence: float = 80  # a word read with this confidence or more was read surely
    printed_sure_share: float = 0.5  # a page with this share of its words read surely is print
    # A page whose surely read words (this many letters or more, this many words at least) are
    # fewer than this share dictionary words is in a language the dictionary lacks (English
    # pages of fresh TeX Live samples: 73-95 %; German, Portuguese, Czech, Latin: 19-49 %).
    dictionary_word_letters: int = 4
    dictionary_min_words: int = 20
    dictionary_known_share: float = 0.5
    size_jump_ratio: float = 1.6  # a line this many times taller (or shorter) starts a block
    continuation_indent_ratio: float = 0.4  # an item's continuation is indented this many sizes
    continuation_gap_ratio: float = 1.5  # and stands less than this many text sizes under it
    fallback_size_px: float = 10  # the text size of a block with none read
    # A "picture" this many text lines run across (words inside it and more outside) is text:
    # a faded margin or a shadow over the lines' first words (typewritten-fr 10763_2: 44 lines).
    figure_crossing_lines: int = 3
    # A "picture" over this share of the page or more, holding this many lines read as text or
    # more, is the page's ground: a dark page read inverted (a listing in a dark theme: 54 and
    # 64 lines) comes out as one image block from edge to edge, its text inside it.
    ground_page_share: float = 0.8
    ground_text_lines: int = 10
    # A word cut by a column Tesseract took for a gutter: its two halves on one row, no further
    # apart than this many line heights (a gutter or a tab stands a word space or more apart).
    cut_gap_ratio: float = 0.35
    # ... or, whatever the letters, narrower than this share of the two lines' median space
    # between words: no word space at all (a listing's "\changes{4." | "0c}{1999/11/13}{New",
    # 7 pixels apart where its words stand 18 to 21, the dot's blank cell taken for a gutter).
    cut_word_space_share: float = 0.5
    cut_min_lines: int = 3  # lines cut so, at least: the page's columns are wrong...
    cut_min_share: float = 0.1  # ...and at least this share of its lines
    # A line Tesseract's line finder skipped (typewritten-fr 24_3cb67: a typed line over a pencil
    # underline): a gap between two lines of one paragraph at least this many line heights...
    missed_gap_ratio: float = 2.0
    missed_row_ink_share: float = 0.01  # ...whose rows hold ink over this share of its width
    missed_min_height_ratio: float = 0.5  # ...for at least this many line heights in a run
    missed_margin_ratio: float = 0.25  # the run read again with this many heights around it
    missed_confidence: float = 70  # ...is a line when read with this mean confidence or more
    missed_min_words: int = 2  # ...in at least this many words of letters
    missed_max_reads: int = 6  # runs read again on a page, at most (a picture read as text)
    # A short line read doubtfully is read again alone at another scale (a bold head in a word
    # Tesseract does not know read right at 13, 67 at 1.5 times): at most this many words,
    # under this mean confidence, on a page of at most this many such lines (more: writing);
    # its words are taken when both reads agree (letter for letter, however spaced) and the
    # second is this sure, or when the second reads at `missed_confidence` or more.
    reread_max_words: int = 8
    reread_below_confidence: float = 40
    reread_max_lines: int = 4
    reread_max_figure_lines: int = 10  # lines of figures alone read so again, at most
    reread_scale: float = 1.5
    reread_agree_confidence: float = 50
    # A word on a line of figures that does not read as the figures of its column do (a blurred
    # scan's "4.1" read "41", "7.2" read "ee") is read again alone as a figure of the column's
    # shape (each run of digits a 9: "9.9", "9,9"), and takes that read when it has the shape and
    # is sure. The column: figures of other lines over the word's extent across (overlapping
    # `column_overlap_share` of the narrower), within `column_lines` of the word's heights above
    # and below, `column_min_figures` of them or more, `column_shape_share` of one shape. The
    # word's line holds `column_line_figures` figures or more (prose around a table does not).
    column_min_figures: int = 3
    column_shape_share: float = 0.75
    column_overlap_share: float = 0.5
    column_lines: float = 12
    column_line_figures: int = 2
    column_read_confidence: float = 70  # the second read is taken at this confidence or more
    column_sure_confidence: float = 95  # a word read this surely is not read again
    column_max_chars: int = 8  # nor a word longer than this (a cell's figure misread is short)
    column_max_reads: int = 40  # words read so again on a page, at most
    # A line with a dot leader ("2.1 Main bounds . . . . . 1") is read again without it:
    # Tesseract reads the dots as letters and loses the words beside them. A leader is a run
    # of `leader_min_dots` small marks or more, each at most `leader_dot_ratio` of the line's
    # height wide and tall, their middles below `leader_low_ratio` of it (on the baseline),
    # spaced evenly (each step within `leader_step_spread` of their median, which is at most
    # `leader_step_ratio` of the line's height), over `leader_min_span_ratio` of it or more.
    leader_min_dots: int = 5
    leader_min_span_ratio: float = 2.0
    leader_dot_ratio: float = 0.3
    leader_low_ratio: float = 0.5
    leader_step_spread: float = 0.35
    leader_step_ratio: float = 1.5
    leader_max_reads: int = 60  # lines with a leader read again on a page, at most
    # A region read again (an "image" read as text) fills in what the page's read lacks: its word
    # over one read already (this share of either's box) is dropped...
    fill_overlap_share: float = 0.5
    # ...and one on a read line's row (this share of the lower's height shared) joins that line
    # when it stands no more than this many of the line's heights beyond it: a word space, not
    # a column's gutter.
    fill_row_share: float = 0.5
    fill_join_heights: float = 1.0
    # A panel printed reversed (light text on a flat dark fill: a banner, a coloured box, a
    # table of white names on dark cells), which Tesseract takes for a picture: a picture whose
    # commonest grey is this many levels darker than the page's paper or more, and whose
    # `panel_fills` commonest greys hold this share of its pixels or more, each within this
    # many grey levels (a photograph's greys spread; a table's cells may be filled dark, mid
    # and light grey: ICDAR us-010's three hold 0.66, a screenshot's photograph 0.46), read
    # again. Flattened for one of the reads: ink where a pixel stands this many grey levels
    # from the median grey around it (over this many inches, a median of this many pixels on
    # a reduced copy). The read replaces what was read there when this share of its words of
    # three letters or digits or more are dictionary words or read this surely (a grey tab's
    # sideways "Prepare" read as "uv me iJ ao] oO" holds none: no text), and it holds more
    # words of two characters or more read at `panel_word_confidence` or more: this many
    # more...
    panel_paper_levels: int = 40
    panel_fills: int = 3
    panel_fill_share: float = 0.6
    panel_fill_levels: int = 16
    panel_ink_levels: int = 40
    panel_window_inch: float = 0.12
    panel_median_px: int = 9
    panel_known_share: float = 0.6
    panel_sure_confidence: float = 85
    panel_word_confidence: float = 60
    panel_gain_words: int = 3
    # ...or more such words with a mean confidence this much higher (a short banner).
    panel_confidence_gain: float = 20
    # A line read with a mean confidence under this, standing on a flat dark fill, is read
    # again as a panel too (a row of white names on dark cells Tesseract read as scraps).
    panel_line_confidence: float = 50
    # A large picture read as text is read again flattened when its read lines stand over
    # less than this share of its height (a tint's lines read as nothing beside them)
    tint_read_span: float = 0.5
    # A page whose middle (the page less this share of it on each side) is a flat fill of
    # this grey or darker, holding this share of its pixels or more, is light print on a dark
    # ground: read inverted (a listing in a dark theme: 0.85; a black panel holding a photograph
    # beside a quote, 0.61, is read as a panel, models.ocr.rereads).
    dark_fill_margin_share: float = 0.2
    dark_fill_grey: int = 100
    dark_fill_share: float = 0.75
    inverted_read_gain: float = 2.0  # ...kept when it reads more than this many times better
    # A page that reads badly deskewed is read as scanned too, and kept so when that reads well
    # and better, or, reading badly too, more than this many times better (read_score).
    straight_read_gain: float = 2.0
    # A picture gives way to the text read in it only where nothing but flat fill lies away
    # from that text: of its tiles of `panel_tile_inch` farther than `panel_reach_inch` from
    # every word, no more than this share hold under `panel_tile_flat_share` of their pixels
    # near their two commonest greys (`panel_fill_levels`). A quote printed beside a portrait
    # on one black fill keeps its portrait (0.16 of such tiles); a table's grey cells around
    # their figures, 0.01 (ICDAR us-010).
    panel_busy_share: float = 0.08
    panel_reach_inch: float = 0.2
    panel_tile_inch: float = 0.1
    panel_tile_flat_share: float = 0.8
    # Print on a tint the page's read left empty (a listing's caption on a grey bar, a shaded
    # box): Tesseract's one threshold for the page makes the tint ink and its letters with it.
    # A tint: where the median grey around a pixel (over `tint_window_px` pixels of a copy of
    # `tint_sample_dpi`) stands `panel_paper_levels` or more under the paper's, in patches this
    # wide and tall or more that fill this share of their box or more (a bold headline's
    # letters blur to grey too, in patches that fill about half their box at body sizes); each
    # read again as a panel when it holds no word the page read, at most this many a page.
    tint_sample_dpi: int = 40
    tint_window_px: int = 5
    tint_min_width_inch: float = 0.5
    tint_min_height_inch: float = 0.12
    tint_fill_share: float = 0.7
    tint_max_reads: int = 6


SCAN = ScanParams()
