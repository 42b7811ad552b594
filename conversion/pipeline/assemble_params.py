"""The thresholds of the document-wide rules (assemble, furniture, headings, captions,
paragraphs), one frozen dataclass in one place, named as models/reading/params/ names its own.

Units: `_pt`-less sizes are the page's own font-size units (points on a text layer, pixels on a
scan), so most thresholds here are `_ratio`s of a size (the body's, a block's own) or `_share`s
(of the page height, of a box); `_chars`, `_words`, `_lines`, `_blocks` are counts.

A stage takes `params: AssembleParams = ASSEMBLE` (keyword), and `AssembleOptions.params` carries
another set through `assemble`, so a rule can be run alone with other values.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AssembleParams:
    # -- the body: statistics over the whole document
    # a block weighs once per this many characters in the body's size and stroke medians
    weight_chars: int = 20
    # a font size where a block gives none (page units): a caption's and a list's yardstick
    unknown_font_size: float = 20.0

    # -- furniture: running heads, feet, page numbers, stamps
    # the top and bottom share of the page height where running heads and feet are printed
    furniture_band_share: float = 0.07
    # a running head's row (with its page number) lies in this top/bottom share of the page
    edge_row_band_share: float = 0.15
    # a page with fewer boxed text blocks has no running row to tell from its text
    edge_rows_min_blocks: int = 3
    # a line beside a running head's page number is at most this long: longer is text
    running_head_max_chars: int = 80
    # a running head or foot holds at most this many lines: more is a letterhead, the page's text
    running_head_max_lines: int = 2
    # a page number read in one line with its running head stands this many line heights apart
    running_head_gap_ratio: float = 1.5
    # ... and is set no larger than this many times the body's size (larger is a title)
    running_head_max_size_ratio: float = 1.2
    # a text repeated in the bands of several pages is furniture below this length
    repeated_furniture_max_chars: int = 120
    # a copyright line in a band is a publisher's stamp up to this length, not an abstract
    copyright_max_chars: int = 300
    # a download stamp anywhere on the page is shorter than this
    stamp_max_chars: int = 200
    # a line this much smaller than the body (of its size), in a band, is a margin note
    margin_note_size_ratio: float = 0.9
    # ... and at most this long
    margin_note_max_chars: int = 100

    # -- tables folded into column groups side by side (table_folds)
    fold_min_columns: int = 2  # a group is this many columns or more (one is a list of values)
    fold_min_groups: int = 2  # ... and this many groups or more share one head
    fold_label_share: float = 0.5  # a group's first column: more than this share of words

    # -- headings: size, weight, display type, joined lines, levels
    # an engine's page header this much larger than the body is the page's title (display type)
    header_display_ratio: float = 1.4
    # a heading set under this share of the body's size, in regular weight, is small print
    small_heading_ratio: float = 0.93
    # a short line this much larger than the body is a heading
    heading_size_ratio: float = 1.3
    # a text-layer size carrying this share of the document's paragraph characters is body
    # text, however much smaller text outweighs it: a line at it is no heading by its size
    prose_size_share: float = 0.25
    # ... sizes this share of a size apart are that size: a text layer's (exact, but rounded)
    # and a scan's (its letters measured: a scanned body's paragraphs 1 % apart on the probe
    # pages, a heading found by size 30 % above the body)
    prose_size_exact_tolerance: float = 0.005
    prose_size_measured_tolerance: float = 0.06
    # a line set larger is a heading with at most this many words
    large_heading_max_words: int = 20
    # a heading found by size or weight is at most this long
    heading_max_chars: int = 160
    # a bold line is a heading with at most this many words
    bold_heading_max_words: int = 10
    # a line whose ink share is this much the body's is bold (engines giving no weight)
    bold_ink_ratio: float = 1.3
    # a block no taller than this many times its size is one line (more: several)
    one_line_height_ratio: float = 1.8
    # display type: this much larger than the body ...
    display_size_ratio: float = 1.5
    # ... at most this long ...
    display_max_chars: int = 200
    # ... and no taller than this many times its size (a few lines, not a paragraph)
    display_max_height_ratio: float = 3.5
    # a scanned line whose strokes are this much wider than the body's is bold
    bold_stroke_ratio: float = 1.25
    # a title found by its weight alone is at most this many words ...
    bold_title_max_words: int = 14
    # ... on this many lines
    bold_title_max_lines: int = 3
    # a line in capitals centred over the body text ("LETTER XXVII.", "CHAPTER THE FIRST": an
    # old book's or a typescript's titles, at the body's size and weight): capitals this share
    # of its letters, at least ...
    centred_capitals_share: float = 0.9
    # ... this many letters ...
    centred_min_letters: int = 5
    # ... each side's margin inside the text's width at least this share of that width ...
    centred_min_margin_share: float = 0.1
    # ... and the two margins differ by at most this share of it (a typist centres by eye, and
    # a ragged right edge widens the text: 9 % and 14 % on a typescript; a book 1 %)
    centred_balance_share: float = 0.15
    # two heading lines of one size, sizes measured from a scan's pixels (share of the larger)
    same_size_measured_share: float = 0.07
    # ... sizes given by a text layer
    same_size_exact_share: float = 0.05
    # a heading's second line lies less than this many times its size under the first
    joined_heading_gap_ratio: float = 1.6
    # a division's label ("Chapter 3") is no heading over a heading up to this many of its
    # sizes under it (a class leaves a wide gap between them)
    label_gap_ratio: float = 3.0
    # the blocks under a first heading that may show a paper's front matter (names, an
    # affiliation, a date, the abstract) and so make it the title
    front_matter_blocks: int = 3
    # a line of text numbered as the next section is a heading up to this many words long
    sequel_max_words: int = 10
    # heading sizes within this ratio of each other are one level
    heading_size_step_ratio: float = 1.1
    # a contents line's page number stands this many line heights right of its title
    contents_gap_ratio: float = 1.5
    # HTML's deepest heading level
    deepest_heading_level: int = 6
    # the file's outline (bookmarks, bookmarks.py) is used where it matches its pages: this many
    # of its entries found as whole blocks at least, and this share of them ...
    outline_min_matches: int = 2
    outline_match_share: float = 0.6
    # ... an entry's title found over this many consecutive blocks at most (a wrapped title)
    outline_max_blocks: int = 3
    # a title page (title_page.py) holds no paragraph of this many words or more ...
    title_page_max_words: int = 12
    # ... and is among the document's first this many pages; its foot (publisher, place) lies
    # below this share of its height
    title_page_within: int = 2
    title_page_foot_share: float = 0.75

    # -- the title
    # a title or heading is trusted with at most this share of its characters read doubtfully
    trusted_doubtful_share: float = 0.3
    # a heading taken as the title is clipped to this length
    title_max_chars: int = 200
    # a running head taken as the title is clipped to this length
    running_title_max_chars: int = 120
    # a paragraph's opening taken as the title is clipped to this length
    paragraph_title_max_chars: int = 80

    # -- captions
    # a caption lies under its figure within this many times its size
    caption_gap_ratio: float = 3
    # an unlabelled text under a figure is its caption up to this length
    caption_max_chars: int = 200
    # a caption beside a table is at most this long
    table_caption_max_chars: int = 300
    # a "Table N" line right over a caption's block (within this many of the shorter block's
    # heights) is the caption's first line, cut off by a hanging indent
    caption_wrap_gap_ratio: float = 1.0

    # -- broken paragraphs
    # a line cut at a column gap: its pieces this many line heights apart, or less
    line_cut_gap_ratio: float = 0.8
    # a block no taller than this many times its tallest word is a single line
    cut_line_height_ratio: float = 1.5
    # a section's number read apart from its title stands at most this many line heights left
    # of it (an em or two: a scanned manual's "2.2.1" | "Primary Source", 12 pt apart at 10 pt)
    number_title_gap_ratio: float = 3.0
    # the pieces of a cut line share their bottom within this share of the line's height
    cut_line_bottom_share: float = 0.3
    # the halves of a broken paragraph start within this share of the first one's width
    broken_indent_share: float = 0.1
    # ... and their sizes differ by less than this share of the first one's
    broken_size_share: float = 0.25
    # small print at a column's foot, set at most this share of the paragraph's size above it
    # (a paper's copyright block: 7.8 pt under 10 pt, 0.78)
    column_note_size_ratio: float = 0.85
    # a block whose first line starts this many of its words' heights right of its other
    # lines opens a paragraph (its first-line indent: 1.2 em set, five typewriter spaces,
    # about 1.5 to 3 word heights); the rest of a cut paragraph starts at its column's edge
    opening_indent_heights: float = 0.8
    # two paragraphs of one weight: their ink shares differ by at most this share
    same_ink_share: float = 0.3
    # the least ink share the comparison divides by (a blank block's ink is zero)
    ink_floor: float = 1e-6

    # -- spans and lists
    # a word read with less OCR confidence than this (percent) is flagged for review
    low_confidence_percent: float = 60.0
    # a bibliography's entry goes on in lines set in from its margin by this many sizes or more
    reference_hang_min_ratio: float = 0.5
    # ... and by at most this many (further in is another column's or a table's text)
    reference_hang_max_ratio: float = 6.0
    # entries open at one margin, within this many sizes
    reference_align_ratio: float = 0.5
    # an entry's next line lies less than this many sizes under its last
    reference_gap_ratio: float = 1.0
    # a bibliography holds this many entries or more
    reference_min_entries: int = 2
    # ... and entries opened by a number or an author hold a year, this share of them at least
    reference_dated_share: float = 0.8
    # an engine without boxes gives a list item's depth: this much indent per level (page units)
    list_depth_indent: float = 100.0
    # a list item indented more than this many times its size past the one before nests under it
    list_nest_step_ratio: float = 0.8

    # -- pages not transcribed (page_scans.py)
    # a figure covering this share of an unreadable page's area is the page itself: its scan
    page_scan_figure_share: float = 0.5


ASSEMBLE = AssembleParams()


@dataclass(frozen=True)
class DoubtParams:
    """The document-wide doubts (conversion.pipeline.doubts): shapes a wrong reading leaves."""

    # a header row (after the first) whose cells past the first column are numbers, this share
    # of them or more: data rows taken for the header
    header_number_share: float = 0.5
    # a table needs this many data rows, each one cell across all columns, to doubt its columns
    spanning_rows_min: int = 2
    # ... and at least this many columns
    spanning_cols_min: int = 2
    # a guessed header row needs no review where a column's label stands over at least this
    # many cells, all figures (conversion.pipeline.render)
    guess_figures_min: int = 3
    # a heading naming an institution has at least this many words ("University of Oslo"); an
    # e-mail address needs none
    affiliation_min_words: int = 2
    # a heading of more words than this is no person's name list
    name_max_words: int = 12
    # a heading that holds a date and at most this many other words is a date line
    date_other_words: int = 2


DOUBTS = DoubtParams()
