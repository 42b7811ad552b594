"""Thresholds of the table readers: tables from word positions (models.reading.word_tables),
key/value tables (models.reading.kv_tables) and ruled tables found in the page image
(models.reading.ruled_tables).

Word and key/value tables measure in the words' own height (`_share`: a fraction of it), so they
hold on points and pixels alike. The ruled-table fields ending in `_px` are pixels of a page
image at REFERENCE_DPI (they were measured on 300 DPI scans), scaled to the page's DPI with
`at_dpi`, except `bar_window_min_px`: a fixed floor on the reversed bars' half-size copy, whose
other thresholds are inches of the page (`_inch`). Gray levels (`_level`) are 0 (black) to 255
(white).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WordTableParams:
    """Tables from the positions of the words inside a table region."""

    min_rows: int = 2  # text rows a table needs
    min_cols: int = 2  # columns a table needs
    phrase_gap_share: float = 0.9  # words closer than this many word heights are one cell
    column_gap_share: float = 0.6  # a column gap is at least this many word heights wide
    # ... or this many where only figures stand close across it (a monospaced table's columns
    # of figures set a character apart: a space is 0.5 of Courier's word height, 0.25 of Times')
    figure_gap_share: float = 0.2
    # A space inside a phrase this many times the table's common word space, with a column's
    # cut inside it, parts two cells of narrow columns set closer than `phrase_gap_share`
    # ("Total Costs | Exclusions &": 8.7 pt where its words stand 2.3 pt apart).
    cut_space_ratio: float = 2.5
    # A column's figures set flush right: this share of them end within this many word heights
    # of their median end (a born-digital layer's: within a hundredth; a scan's: a tenth)
    aligned_edge_share: float = 0.8
    aligned_edge_heights: float = 0.15
    # A group's head centred over its columns' heads: within this many word heights
    group_centre_heights: float = 0.5
    # Two figures side by side are two cells, but a group of this many digits goes on with
    # the figure before it ("1 087 948": thousands set with spaces).
    number_group_digits: int = 3
    rows_per_crossing_phrase: int = 5  # one row in this many may cover a column gap (a span)
    title_row_share: float = 0.6  # one phrase this share of the table's width: a title row
    columned_rows_share: float = 0.5  # rows of several phrases this share of all: they alone cut
    between_rows_pitch_share: float = 2.6  # a row set between two: those at most this far apart
    between_rows_centre_share: float = 0.35  # ... and its middle this close to theirs
    lonely_column_min_rows: int = 4  # tables shorter than this keep a column of one cell
    data_row_number_share: float = 0.5  # a row whose filled cells are this share numbers is data
    # A header's cells stack at most this many lines (then: body rows): ICDAR us-020's five.
    header_max_lines: int = 6
    # A header line that fills every column is the last line of cells set bottom-aligned when
    # the lines above it fill at least this share of its columns (the first aside: the stub's
    # head), and it holds no figure: group labels over a few of its columns fill fewer.
    stacked_header_share: float = 0.66
    # A region where fewer rows than this share hold two cells or more (wrapped lines joined) is
    # no table: a form's title, sentences and check-box lines boxed with a few labelled boxes.
    min_several_rows_share: float = 0.3
    caption_word_gap_share: float = 2.0  # a "Table N" first row with a wider gap is a header row
    # ... unless that gap follows the label alone and this many words of letters follow it: a
    # caption whose label hangs in a column of its own ("Table 8:", a tab, "Number of ...")
    caption_min_words: int = 3
    # A top cell whose text recurs in this share of its column's rows below ("yes" on every
    # line of a questionnaire) is data, and its row no header (a label names its column once).
    header_repeat_share: float = 0.5
    # A block of text no table region holds is a table when its lines part into at least
    # this many columns, at least this many of its rows figures in that many cells or more,
    # this share of all its rows (a booktabs table on a scan that the layout model read as
    # text: ICDAR eu-026's "I/we kept the assets | 344 | 75.2 | 12196 | 17.4%").
    figure_table_min_cols: int = 3
    figure_table_min_rows: int = 3
    figure_table_data_share: float = 0.6
    # A table's words on a scan read as scanned (the page not deskewed: Tesseract read it
    # better so) slope: its rows are found after the words are turned level, by the angle
    # (up to `level_max_deg`, in steps of `level_step_deg`) that stacks their middles into
    # the peakiest rows (bins of `level_bin_heights` word heights), when that angle is
    # `level_min_deg` or more and stacks them `level_gain` times peakier than level (ICDAR
    # us-033's wide table, 0.9 degrees: its rows' right ends stood a row higher than their
    # left).
    level_max_deg: float = 2.0
    level_step_deg: float = 0.1
    level_min_deg: float = 0.3
    level_bin_heights: float = 0.3
    level_gain: float = 1.2


@dataclass(frozen=True)
class KeyValueParams:
    """Key/value tables: a label column beside a value column, without a ruling or a region."""

    min_rows: int = 4  # labelled rows with a value beside them
    label_max_words: int = 5  # a label is a few words; a cell beside a value as short: a 3rd column
    phrase_gap_share: float = 0.9  # words closer than this many word heights are one phrase
    edge_tolerance_share: float = 0.6  # labels (values) start at one edge within this many heights
    value_gap_share: float = 0.9  # the clear gap between a label and its value, in word heights
    max_gap_lines: int = 6  # a run stops at a gap of more than this many word heights
    continued_value_gap_share: float = 1.5  # a value line this close under a value goes on with it
    min_capitals_share: float = 0.75  # labels starting with a capital or a digit (prose does not)
    justified_labels_share: float = 0.6  # this share of labels ending together: justified prose
    # Labelled rows whose value runs on from the row above (a sentence broken mid-way or by a
    # hyphen: the column of text beside a paper's contents), this many or more and this share
    # of the rows after the first or more: no table.
    running_rows: int = 2
    running_share: float = 0.5


@dataclass(frozen=True)
class RuledTableParams:
    """Ruled tables: a grid of rules printed on a scan, its rows' rules, reversed header bars."""

    dark_below_level: int = 128  # a pixel darker than this is ink (bars)
    # ... and a rule's pixel for the grid finder: a thin rule of a scan read at a lower DPI is
    # gray (111-141 on ICDAR eu-001's scan at 240 DPI), a cell's shading lighter (205-226).
    rule_dark_below_level: int = 170
    rule_ends_tolerance_px: int = (
        20  # runs in adjacent pixel rows whose ends are this close: one rule
    )
    rule_max_thickness_px: int = 12  # a thicker run is a filled box, not a rule
    rule_gap_px: int = 2  # a rule's run goes on over a gap this wide (a scan's noise)
    rule_overlap_share: float = 0.5  # runs in adjacent rows overlapping this share: one rule
    h_rule_min_px: int = 80  # a horizontal rule is at least this long...
    h_rule_min_per_width: int = 12  # ... and at least the page's width over this
    v_rule_min_px: int = 40  # a vertical rule is at least this long...
    v_rule_min_per_height: int = 40  # ... and at least the page's height over this
    grid_ends_tolerance_px: int = 30  # a grid's horizontal rules start and end this close together
    grid_min_h_rules: int = 3  # horizontal rules of one grid
    grid_rule_min_share: float = 0.5  # a grid's rule runs along this share of its longest one
    grid_min_v_rules: int = 3  # vertical rules of one grid (two at its edges, but see find_grids)
    grid_min_column_px: int = 60  # a grid's columns are this wide or more (median)
    grid_slack_px: int = 15  # a rule meets a grid's edge, or lies on one of its lines, this close
    v_rule_reach_px: int = 10  # a vertical rule goes at least this far below the grid's top
    # A grid this close to all four edges of the image, its first and last columns this share
    # dark or more, is the page's own border: an inverted page's margins, a scanner's dark
    # surround (a figure's table cropped to its frame has its labels in those columns).
    page_border_px: int = 8
    page_border_dark_share: float = 0.9
    v_rule_row_share: float = 0.5  # an inner vertical runs along this share of a row or more
    cell_rule_share: float = 0.6  # a rule along this share of a cell's side parts it from the next
    header_rule_ratio: float = 1.6  # the rule under the first row this times the median: a header
    cell_margin_px: int = 4  # a cell's ink is measured this far inside its rules
    cell_inset_px: int = 10  # ... and an empty cell's this far (clear of a scan's thick rules)
    cell_min_ink_share: float = 0.001  # a cell with no word and this share of ink: read again
    cell_sure_confidence: float = 60  # a cell holding no word read this surely: read again
    cell_max_reads: int = 200  # cells read again on a page, at most (a read: about 3 ms)
    cell_read_margin_px: int = 15  # ... each its ink alone, on this much paper around it
    cell_min_confidence: float = 30  # a cell's word read again is kept at this confidence
    header_ink_ratio: float = 1.3  # a first row this times darker than the rest: bold, a header
    words_over_grid_ratio: float = 1.5  # words filling this times the grid's cells: words decide
    # ... where a cell holds figures on two lines, or words this many word heights apart on one
    # (a column's rule missing); not where the words' extra cells are a label's wrapped lines
    cell_column_gap_heights: float = 1.0
    # ... but not over a form's boxes: a label in small print over the answer in each box, the
    # label's words at most this share of the answer's height (6.5 over 12 pt: 0.55) ...
    label_height_ratio: float = 0.8
    # ... in at least this share of the boxes holding two lines or more, two boxes at least
    labelled_box_share: float = 0.5
    min_filled_share: float = 0.4  # a grid with fewer filled cells is a frame or a form, no table
    # Rules framing columns of running text (a newspaper's): a row between two rules holding
    # this many lines of prose or more, prose holding this share of the grid's words or more ...
    frame_min_prose_lines: int = 25
    frame_prose_word_share: float = 0.4
    row_rules_min_width_px: int = 20  # a narrower table region has no row rules to look for
    row_rules_min_height_px: int = 3  # nor a shorter one
    paper_percentile: int = 90  # the paper's gray: this percentile of the region's pixels
    rule_below_paper_level: int = 30  # a rule's pixel is this many gray levels darker than paper
    rule_askew_px: int = 2  # a rule's pixel may lie this many pixel rows up or down (askew)
    row_rule_width_share: float = 0.9  # a row rule runs across this share of the region's width
    row_rule_max_thickness_px: int = 16  # a thicker dark band is a filled bar, not a rule
    light_rule_inset_px: int = 6  # a grid's light rules are looked for this far inside its own
    # ... this many gray levels under the paper around them (a gray rule read at 240 DPI: 20-35)
    light_rule_below_paper_level: int = 20
    light_rule_min_spans: int = 2  # a light rule inside a grid crosses this many rows or columns
    light_rule_max_ink_share: float = 0.5  # a light column rule black along more: figures
    bar_window_inch: float = 0.1  # a bar's pixel row is dark around each point over this width
    bar_window_min_px: int = 3  # ... and at least this many pixels of the half-size copy (fixed)
    bar_window_dark_share: float = 0.66  # dark share of that window
    bar_min_length_inch: int = 1  # a bar's dark stretch is at least this long
    bar_letter_gap_inch: float = 0.3  # gaps narrower than this in a bar's stretch are its letters
    bar_row_dark_share: float = 0.5  # the bar goes down while its stretch is this share dark
    bar_min_height_inch: float = 0.1  # a bar is at least this tall (a line of type)...
    bar_max_height_inch: float = 0.6  # ... and at most this tall (two lines)
    bar_min_aspect_ratio: int = 4  # a bar is at least this many times as wide as it is tall
    bar_min_light_share: float = 0.04  # light pixels inside a bar: its letters (else a black band)


@dataclass(frozen=True)
class TableFigureParams:
    """A scanned table's figures (models.reading.table_figures)."""

    # A colon read in a figure ("15:2") is its decimal point where the cell's column holds at
    # least this many figures set with a point and as many decimals.
    column_min_points: int = 2


WORD_TABLES = WordTableParams()
KEY_VALUE = KeyValueParams()
RULED_TABLES = RuledTableParams()
TABLE_FIGURES = TableFigureParams()
