"""Headings over the whole document: which blocks are headings (size, weight measured on a scan,
display type), headings set on two lines joined, levels on one scale, and the document's title.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from conversion.pipeline.assemble_params import ASSEMBLE, AssembleParams
from conversion.pipeline.captions import numbered_caption
from conversion.pipeline.document import Block, Page, Span
from conversion.pipeline.furniture import is_stamp, line_count
from conversion.pipeline.heading_numbers import (
    roman_sections,
    section_depth,
)
from models.engine import ReadBlock
from models.reading.boxes import share_a_row, union
from models.reading.kinds import (
    reads_as_affiliation,
    reads_as_byline,
    reads_as_code,
    reads_as_diagram,
    reads_as_front_field,
    reads_as_names,
    reads_as_prose,
    real_words,
)
from models.reading.scan_lines import letter_size

# A section's number: "2.1", "IV.", "B.", and an appendix's subsection "A.1." / "B.2.3"
_SECTION_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVX]+\.|[A-Z]\.|[A-Z](?:\.\d+)+\.?)\s")
# A page number printed before or after a running head ("42 CHAPTER 2. ...", "... EXAMPLES 33"),
# not a volume's ("Vol. 113").
_PAGE_NUMBER_EDGE = re.compile(r"^\d{1,4}\s+|(?<![.,])\s+\d{1,4}$")
# A division's label alone on its line: "Chapter 3", "CHAPTER III", "Appendix B", "Part 2".
_DIVISION_LABEL = re.compile(
    r"^(?:chapter|appendix|part|lecture|book)\s+(?:\d{1,3}|[A-Z]|[IVXLC]{1,6})\.?$", re.IGNORECASE
)
# What a reader reads as text (a figure and a running head are set apart from it).
_TEXT_KINDS = ("paragraph", "heading", "list_item", "table", "caption")
# A division's number, Roman or Arabic ("XXVII.", "12."): no dictionary word, no misreading.
_NUMERAL = re.compile(r"[IVXLCDM]+\.?|\d+\.?")
# An abstract's name, as its heading or run in ("Abstract. We study ...").
_ABSTRACT = re.compile(r"^(?:abstract|summary)\b", re.IGNORECASE)
# Section names that open many documents: never the document's title.
_GENERIC = re.compile(
    r"^(?:\d+(?:\.\d+)*\.?\s+|[ivx]+\.\s+)?"
    r"(abstract|contents|table of contents|references|bibliography|introduction|appendix"
    r"|summary|preface|foreword|acknowledge?ments?|index|notes|chapter \w+"
    r"|supporting information|supplementary (?:information|materials?|data))\W*$",
    re.IGNORECASE,
)


# -- which blocks are headings --------------------------------------------------------------------
def bold_scan(
    rb: ReadBlock, body_size: float, body_stroke: float, *, params: AssembleParams = ASSEMBLE
) -> bool:
    """Strokes wider than the body's by `bold_stroke_ratio`, beyond what a larger size gives."""
    size = rb.font_size or body_size
    if not (rb.stroke and body_stroke and body_size):
        return False
    return rb.stroke >= params.bold_stroke_ratio * body_stroke * max(1.0, size / body_size)


def _beside(a, b) -> bool:
    """Side by side on one row: half the lower box's height or more in common, and apart."""
    return share_a_row(a, b, 0.5) and (a[2] <= b[0] or b[2] <= a[0])


def _alone_on_its_row(rb: ReadBlock, others: list[ReadBlock]) -> bool:
    """No other block beside rb on its row (a table's cell, a form's label, a name in a row)."""
    return not any(o is not rb and o.bbox and _beside(o.bbox, rb.bbox) for o in others)


def _column(rb: ReadBlock, blocks: list[ReadBlock]) -> tuple[float, float] | None:
    """The span across of the text rb stands in: the paragraphs and list items of several
    lines above or under it, from the leftmost to the rightmost; None where there are none."""
    around = [b for b in blocks if b.kind in ("paragraph", "list_item") and b.bbox
              and line_count(b) > 1 and b.bbox[2] > rb.bbox[0] and b.bbox[0] < rb.bbox[2]]  # type: ignore[index]  # fmt: skip
    if not around:
        return None
    return min(b.bbox[0] for b in around), max(b.bbox[2] for b in around)  # type: ignore[index]


def _alone_in_its_column(
    rb: ReadBlock, blocks: list[ReadBlock], span: tuple[float, float] | None
) -> bool:
    """Alone on its row among the blocks of its column (`span`, from `_column`; the page where
    it has none): the next column's text is beside every title of a column."""
    if span is not None:
        blocks = [b for b in blocks if b.bbox and b.bbox[2] > span[0] and b.bbox[0] < span[1]]
    return _alone_on_its_row(rb, blocks)


def bold_titles(
    blocks: list[ReadBlock],
    body_size: float,
    body_stroke: float,
    *,
    params: AssembleParams = ASSEMBLE,
) -> set[int]:
    """Scanned titles the layout model calls text ("Part C - Applicant(s) Declaration", bold
    at the body's size; a paper's title a sixth larger than the body): bold lines (strokes
    measured on the scan against the body's, `bold_scan`, already in `bold`) of real words,
    each alone on its row, opening with a capital or a digit and not ending as a sentence, a
    clause or a label does (".", ",", ";", ":"), with text in regular weight right under
    them. A run of such lines, one after another, is a title (and its subtitle) only while it
    is as short as one: `bold_title_max_lines` lines or fewer; more is a list of names (a
    paper's bold authors, row after row, a larger name among them too) or of labels. A bold
    line on a row with others is a table's cell or a form's label; with nothing under it (at
    the foot), a signature or a footer. Ids."""
    rows = [b for b in blocks if b.bbox and b.kind in ("paragraph", "list_item", "table")]
    found: set[int] = set()
    run: list[ReadBlock] = []
    for rb in [*blocks, None]:
        heavy = rb is not None and (
            rb.bold or (rb.stroke or 0) >= params.bold_stroke_ratio * body_stroke
        )
        if rb is not None and rb.kind == "paragraph" and heavy and rb.bbox:
            run.append(rb)
            continue
        if rb is not None and rb.kind not in ("paragraph", "list_item", "table", "heading"):
            continue  # a figure or furniture between them says nothing
        titled = [b for b in run if b.bold and _title_line(b, rows, params=params)]
        last = run[-1] if run else None
        under = (
            rb is not None
            and last is not None
            and rb.bbox is not None
            and rb.bbox[1] >= last.bbox[3] - 0.5 * (last.font_size or body_size)  # type: ignore[index]
        )
        worded = [b for b in run if real_words(b.words, b.text)]  # a form's number says nothing
        if titled and under and sum(line_count(b) for b in worded) <= params.bold_title_max_lines:
            found.update(id(b) for b in titled)
        run = []
    return found


def in_capitals(text: str, *, params: AssembleParams = ASSEMBLE) -> bool:
    """Set in capitals: `centred_min_letters` letters or more, `centred_capitals_share` of
    them capitals."""
    letters = [c for c in text if c.isalpha()]
    capitals = sum(c.isupper() for c in letters)
    return len(letters) >= params.centred_min_letters and capitals >= (
        params.centred_capitals_share * len(letters)
    )


def centred_titles(blocks: list[ReadBlock], *, params: AssembleParams = ASSEMBLE) -> set[int]:
    """Titles set in capitals at the body's size, centred over the text (an old book's
    "LETTER XXVII.", a typescript's "ET LA CHEVELURE"): one line of real words in capitals
    between paragraphs several lines long, centred within their width (each margin at least
    `centred_min_margin_share` of it, the two within `centred_balance_share`), with a
    paragraph or a list right under it and no heading or line of its own before it (a paragraph of
    several lines, a list's item or a table; or nothing: "REFERENCES" after a list).
    A line beside another on its row in its column is a table's cell or a form's label (a
    column's title has the next column's text beside it: IEEE's centred heads); at the foot, a
    signature; under a title or another line, front matter (an AMS paper's authors). A
    numbered one ("3. EXPERIMENTAL SETUP" on a scanned AMS paper) is such a title too, its
    number read as a list's marker (lists are set from the margin, not centred). Ids."""
    found: set[int] = set()
    for i, rb in enumerate(blocks):
        numbered = rb.kind == "list_item" and rb.ordered and rb.marker  # "3." read as a marker
        if not (rb.kind == "paragraph" or numbered) or not rb.bbox or line_count(rb) != 1:
            continue
        text = rb.text.strip()
        if (
            not in_capitals(text, params=params)
            or len(text.split()) > params.bold_title_max_words
            or not real_words([w for w in rb.words if not _NUMERAL.fullmatch(w.text)], text)
            or numbered_caption(text)
        ):
            continue
        after = blocks[i + 1] if i + 1 < len(blocks) else None
        if not (after and after.kind in ("paragraph", "list_item") and after.bbox
                and after.bbox[1] >= rb.bbox[3]):  # fmt: skip
            continue
        before = next((b for b in reversed(blocks[:i]) if b.kind in _TEXT_KINDS), None)
        if before is not None and (
            before.kind == "heading" or before.kind == "paragraph" and line_count(before) == 1
        ):
            continue  # under a title or a line of its own: front matter (the authors' names)
        span = _column(rb, blocks)
        if span is None or not _alone_in_its_column(rb, blocks, span):
            continue
        left, right = span
        width = right - left
        margins = (rb.bbox[0] - left, right - rb.bbox[2])
        if (
            width > 0
            and min(margins) >= params.centred_min_margin_share * width
            and abs(margins[0] - margins[1]) <= params.centred_balance_share * width
        ):
            found.add(id(rb))
    return found


def _title_line(rb: ReadBlock, rows: list[ReadBlock], *, params: AssembleParams) -> bool:
    """One bold block that can be a title: see bold_titles."""
    text = rb.text.strip()
    return (
        rb.layout == "text"
        and len(text.split()) <= params.bold_title_max_words
        and (text[:1].isupper() or text[:1].isdigit())
        and not text.endswith((".", ",", ";", ":"))
        and real_words(rb.words, text)
        and _alone_in_its_column(rb, rows, _column(rb, rows))
    )


@dataclass(frozen=True)
class ProseSizes:
    """The sizes a document's prose is set in, from one kind of reading: its paragraphs' and
    list items' characters by text size (px), beside the document's characters of every kind
    of reading. Sizes `tolerance` apart (a share of the size) are one: a text layer's sizes are
    exact, a scan's are measured."""

    chars_by_size: tuple[tuple[float, int], ...] = ()
    total: int = 0
    tolerance: float = 0.0

    def holds(self, size: float, *, params: AssembleParams) -> bool:
        """`size` carries `prose_size_share` or more of the document's prose."""
        near = sum(n for s, n in self.chars_by_size if abs(s - size) <= self.tolerance * size)
        return self.total > 0 and near >= params.prose_size_share * self.total


def _set_larger(
    rb: ReadBlock, ratio: float, body_size: float, prose: ProseSizes, *, params: AssembleParams
) -> bool:
    """Set `ratio` times the body's size or larger, and at no size the document's prose is
    set in (a paper's first page whose smaller abstract outweighs its body had its body's
    short lines, "To appear in ...", its keywords, taken for headings)."""
    size = rb.font_size or 0.0
    return bool(body_size) and size >= ratio * body_size and not prose.holds(size, params=params)


def _display_size(
    rb: ReadBlock, body_size: float, prose: ProseSizes, *, params: AssembleParams
) -> bool:
    """Much larger than the body, short, real words: display type, i.e. a title."""
    text = rb.text.strip()
    size = rb.font_size or 0.0
    return (
        _set_larger(rb, params.display_size_ratio, body_size, prose, params=params)
        and len(text) <= params.display_max_chars
        and (rb.bbox is None or rb.bbox[3] - rb.bbox[1] <= params.display_max_height_ratio * size)
        and real_words(rb.words, text)
    )


def _looks_like_heading(
    rb: ReadBlock, body_size: float, body_ink: float, prose: ProseSizes, *,
    params: AssembleParams,
) -> bool:  # fmt: skip
    text = rb.text.strip()
    words = text.split()
    if not words or len(text) > params.heading_max_chars or not any(c.isalpha() for c in text):
        return False
    size = rb.font_size or 0.0
    larger = _set_larger(rb, params.heading_size_ratio, body_size, prose, params=params)
    if larger and len(words) <= params.large_heading_max_words:
        return True
    ink = rb.ink or 0.0
    bold = rb.bold or (bool(body_ink) and ink >= params.bold_ink_ratio * body_ink)
    one_line = params.one_line_height_ratio * max(size, 1.0)
    single_line = rb.bbox is None or (rb.bbox[3] - rb.bbox[1]) < one_line
    return (
        (bold or rb.kind == "heading")
        and single_line
        and len(words) <= params.bold_heading_max_words
        and not text.endswith((".", ",", ";"))
        and text[:1].isupper()
    )


def is_heading(
    rb: ReadBlock,
    body_size: float,
    body_ink: float,
    *,
    bold_title: bool = False,
    prose: ProseSizes = ProseSizes(),
    params: AssembleParams = ASSEMBLE,
) -> bool:
    """A paragraph that is a heading: by size and weight where no layout model placed it, by
    display type, weight measured on a scan (`bold_titles`) or a short larger line of real
    words where the layout model took it for text. Larger than the body means at no size
    the document's prose is set in (`prose`)."""
    if rb.layout is None and _looks_like_heading(rb, body_size, body_ink, prose, params=params):
        # Engines without a layout model (or blocks outside every region): size and weight.
        return True
    # Display type or a short larger line the layout model took for text (a paper's title,
    # a word processor's heading): real words only. Bold alone is not enough there (the
    # bold names of a paper's authors are not headings).
    return rb.layout == "text" and bool(
        _display_size(rb, body_size, prose, params=params)
        or bold_title
        or (
            _set_larger(rb, params.heading_size_ratio, body_size, prose, params=params)
            and _looks_like_heading(rb, body_size, body_ink, prose, params=params)
            and real_words(rb.words, rb.text)
        )
    )


def small_print(
    rb: ReadBlock, body_size: float, *, measured: bool = False, params: AssembleParams = ASSEMBLE
) -> bool:
    """A line the layout model boxed as a heading that is set smaller than the body (under
    `small_heading_ratio` of its size), in regular weight, unnumbered and not in capitals: an
    index entry ("environments"), a quoted message ("Error: Too many unprocessed floats"), a
    margin note. No heading: a heading stands out from the text it heads; capitals (small
    caps measure smaller than the body on a scan) and numbers mark one at any size. On a scan
    (`measured`) the size is the words' `letter_size`."""
    text = rb.text.strip()
    size = (letter_size(rb.words) if measured else None) or rb.font_size or 0.0
    letters = [c for c in text if c.isalpha()]
    smaller = size < params.small_heading_ratio * body_size
    # At about the body's size, a line opening in lower case continues something: a list's
    # item that lost its bullet ("chngpage or changepage"), an index entry.
    lower = size < params.heading_size_ratio * body_size and text[:1].islower()
    return (
        bool(body_size and size)
        and (smaller or lower)
        and not rb.bold
        and not section_depth(text)
        and not (letters and all(c.isupper() for c in letters))
    )


# -- headings over the document -------------------------------------------------------------------
def no_bylines(blocks: list[Block]) -> list[Block]:
    """Authors, affiliations, e-mail addresses and dates are no headings, however large or
    bold they are set and whatever region the layout model drew around them; nor is a filled
    front-matter field ("Keywords: ...", "CCS Concepts: ..."), a line of source code a manual
    prints ("\\newthought{...}"), a sentence (a dedication set large) or a diagram's labels
    joined by arrows. A block the file's outline names is a heading. Done before headings
    are joined, so a title is not run into the names and the date under it."""
    names = {id(b) for b in _names(blocks)}
    for block in blocks:
        if block.kind != "heading" or block.outline_level:
            continue
        text = block.text
        front = reads_as_byline(text) or id(block) in names or reads_as_front_field(text)
        if front or reads_as_code(text) or reads_as_prose(text) or reads_as_diagram(text):
            block.kind = "paragraph"
            block.level = None
    return blocks


def _names(blocks: list[Block], *, params: AssembleParams = ASSEMBLE) -> list[Block]:
    """Headings that are an author's name: a run of headings that each read as names
    ("Kenji Chen", "SOFIA OKAFOR AND MARIA OKAFOR", set large under a paper's title), the
    block right after the run an affiliation, an e-mail address or a date
    (`reads_as_affiliation`), or the abstract (AMS classes print the addresses at the
    paper's end). Two capitalised words alone are no name ("Related Work"); what a paper
    prints under a name tells. Names are set in one size: a heading of the run set in
    another is none (a four-word title, "Towards Reliable Time Series", reads as a name too,
    in display type over the author's)."""
    out: list[Block] = []
    run: list[Block] = []
    for block in blocks:
        if block.kind == "heading" and reads_as_names(block.text):
            run.append(block)
            continue
        if run and (reads_as_affiliation(block.text) or _ABSTRACT.match(block.text.strip())):
            out.extend(b for b in run if _one_size(run[-1], b, exact=False, params=params))
        run = []
    return out


def contents_entry(rb: ReadBlock, *, params: AssembleParams = ASSEMBLE) -> bool:
    """A line of a table of contents ("The Design of Tufte's Books    15"): its last word a
    page number set apart from the title by a wide gap (a leader or a right-aligned column),
    on one line. No heading, however large it is set."""
    words = [w for w in rb.words if w.bbox]
    if len(words) < 2 or not words[-1].text.isdigit():
        return False
    last, before = words[-1].bbox, words[-2].bbox
    height = max(last[3] - last[1], before[3] - before[1])  # type: ignore[index]
    one_line = max(w.bbox[1] for w in words) < min(w.bbox[3] for w in words)  # type: ignore[index]
    return one_line and last[0] - before[2] >= params.contents_gap_ratio * height  # type: ignore[index]


def _one_size(a: Block, b: Block, *, exact: bool, params: AssembleParams) -> bool:
    """Two headings set in one size: `b`'s size within `same_size_measured_share` of `a`'s on
    a scan (sizes measured from pixels), within `same_size_exact_share` on a text layer."""
    share = params.same_size_exact_share if exact else params.same_size_measured_share
    size_a, size_b = a.font_key or 0.0, b.font_key or 0.0
    return abs(size_a - size_b) <= share * max(size_a, 1)


def joined_headings(
    blocks: list[Block], *, exact_sizes: bool = False, params: AssembleParams = ASSEMBLE
) -> list[Block]:
    """A heading set on two lines (an article title the layout model cut in two, a title and
    its subtitle after a colon) is one heading: consecutive headings of one size, the second
    right under the first (at a title's line spacing: less than 1.6 of its size apart) and not
    numbered itself ("2.1.1 Objectives" under "2.1 Introduction" is a section of its own). One
    size is within 7 % on a scan (sizes measured from pixels), within 5 % where the text layer
    gives them exactly (an author line set a point smaller under a title, a section head a point
    smaller under a running title, are not the same heading). A heading that reads "Table 3 ..."
    or "Figure 2 ..." is a caption, not a section."""
    out: list[Block] = []
    for block in blocks:
        if block.kind == "heading" and numbered_caption(block.text):
            block.kind = "paragraph"
        prev = out[-1] if out else None
        if prev is not None and _labels(prev, block, params=params):
            prev.kind, prev.level = "paragraph", None  # the label, read before its title
            prev = None
        if (
            prev is not None
            and prev.kind == block.kind == "heading"
            and not (prev.outline_level or block.outline_level)  # an entry is whole
            and prev.bbox
            and block.bbox
            and _one_size(prev, block, exact=exact_sizes, params=params)
            and 0
            <= block.bbox[1] - prev.bbox[3]
            <= params.joined_heading_gap_ratio * block.font_key
            and not prev.text.strip().endswith((".", "!", "?"))
            and not _SECTION_NUMBER.match(block.text)
        ):
            prev.spans = prev.spans + [Span(text=" ")] + block.spans
            prev.bbox = union((prev.bbox, block.bbox))
            continue
        out.append(block)
    return out


def _labels(label: Block, block: Block, *, params: AssembleParams) -> bool:
    """`label` is a heading that only names a division and its number ("Chapter 3",
    "APPENDIX B", "Part II"; a class sets it on a line of its own, in another size) and
    `block` the heading right under it (within `label_gap_ratio` of its size): the
    division's title is the heading, the label a line read before it (as two headings the
    label took a level of its own over its title, and a heading "Chapter 3 Introduction"
    is not the title "Introduction" a reader searches for)."""
    return (
        label.kind == block.kind == "heading"
        and _DIVISION_LABEL.match(label.text.strip()) is not None
        and label.bbox is not None
        and block.bbox is not None
        and 0 <= block.bbox[1] - label.bbox[3] <= params.label_gap_ratio * (block.font_key or 0)
    )


def _size_ranks(
    blocks: list[Block], exact: set[int], *, params: AssembleParams
) -> dict[float, int]:
    """Text sizes clustered, largest first: size -> rank from 1. A cluster holds sizes within
    `heading_size_step_ratio` of its largest, or within `same_size_exact_share` where the text
    layer gives both sizes exactly (`exact`: ids of blocks on text-layer pages): a book's 12
    and 11 pt heads are two levels there, while a scan's sizes, measured from pixels, vary by
    more than that. Judged per size, so one scanned page (a title page read by OCR) does not
    blur the exact sizes of every other page into one level."""
    measured = {b.font_key or 0.0 for b in blocks if id(b) not in exact}
    rank: dict[float, int] = {}
    level, top = 0, None
    for size in sorted({b.font_key or 0.0 for b in blocks}, reverse=True):
        both_exact = top is not None and not ({size, top} & measured)
        step = 1 + params.same_size_exact_share if both_exact else params.heading_size_step_ratio
        if top is None or size * step < top:
            level += 1
            top = size
        rank[size] = level
    return rank


def _letter_sizes(blocks: list[Block], *, params: AssembleParams) -> None:
    """Scanned headings ranked by the size their letters tell (`Block.font_range`, steadier
    than the reader's), the middle of it; one whose letters leave it open ("References", its
    one descender an "f") takes the surely measured size of another heading that lies in its
    range (widened by `same_size_measured_share`, a scan's measuring error), the nearest to
    its middle: the document's other heads of its style tell. A generic name ("References",
    "Acknowledgments") takes a section's size (numbered one deep) where one lies in its range:
    a paper's back matter stands at its sections' level, and the middle of "References"' range
    lay nearer its subsections' size (an h3 after the appendix's last subsection)."""
    for b in blocks:
        if b.font_range:
            b.font_key = (b.font_range[0] + b.font_range[1]) / 2
    sure = [b for b in blocks if b.font_key and not _open(b)]
    roman = roman_sections([b.text for b in blocks])
    sections = {b.font_key for b in sure if section_depth(b.text, roman=roman) == 1}
    sizes = [b.font_key or 0.0 for b in sure]
    slack = params.same_size_measured_share
    for b in blocks:
        if _open(b):
            low, high = b.font_range  # type: ignore[misc]
            inside = [size for size in sizes if low * (1 - slack) <= size <= high * (1 + slack)]
            if _GENERIC.match(b.text.strip()) and sections.intersection(inside):
                inside = sorted(sections.intersection(inside))
            if inside:
                b.font_key = min(inside, key=lambda size: abs(size - (b.font_key or 0.0)))


def _open(block: Block) -> bool:
    return block.font_range is not None and block.font_range[0] < block.font_range[1]


def _numbered_ranks(blocks: list[Block], ranks: dict[int, float]) -> None:
    """Numbering outranks size where both speak: all headings of one numbering depth take one
    rank (the one most of them have by size), each depth below the one above it, so "2.1"
    comes under "2" even when both are set in one size (a paper's 12 and 11 pt heads)."""
    roman = roman_sections([b.text for b in blocks])
    by_depth: dict[int, list[float]] = {}
    for b in blocks:
        depth = section_depth(b.text, roman=roman)
        if depth:
            by_depth.setdefault(depth, []).append(ranks[id(b)])
    depth_rank: dict[int, float] = {}
    above = None
    for depth in sorted(by_depth):
        seen = by_depth[depth]
        rank = max(set(seen), key=lambda r: (seen.count(r), -r))
        if above is not None and rank <= above:
            rank = above + 0.5  # deeper than its parents, whatever its size says
        depth_rank[depth] = above = rank
    for b in blocks:
        depth = section_depth(b.text, roman=roman)
        if depth:
            ranks[id(b)] = depth_rank[depth]


def _outline_ranks(
    headings: list[Block], sections: list[Block], ranks: dict[int, float], body: Block, *,
    exact: bool, params: AssembleParams,
) -> list[Block]:  # fmt: skip
    """Where the file's outline named headings (`Block.outline_level`, bookmarks.py), its depth
    is their rank, and every other heading is weighed against them:
    - set as an outline heading set unlike the body is (one size, one weight): its rank
      ("References", a starred section the outline leaves out);
    - set larger than every outline heading, before the first of them: over them (a title's
      display lines; after them, a line that large is a diagram's or an algorithm's label,
      set in the body's size where the sections are set smaller);
    - numbered: the rank of the outline's headings numbered as deep, or one under the deepest
      (an outline that stops at subsections);
    - a generic section name ("Abstract"): the rank of the outline heading nearest its size;
    - set smaller than every outline heading: one rank under the deepest (the Tufte book's
      "Headings" under "Page Layout": its outline stops a level above).
    An outline of one depth over headings set in several styles (a word processor's export
    lists every heading at depth 1) tells which lines are headings, not how they nest: the
    sizes rank them then, and nothing is made text. Otherwise any other heading is no
    heading, returned to be made text: set as no heading of the outline is set, it is an
    author's name, a theorem's or an algorithm's label, a line of a diagram."""
    outlined = [b for b in sections if b.outline_level]
    styles: list[Block] = []  # one outline heading of each style (weight, size), the title's too
    for b in (b for b in headings if b.outline_level):
        if not any(o.bold == b.bold and _one_size(o, b, exact=exact, params=params)
                   for o in styles):  # fmt: skip
            styles.append(b)
    flat = len({b.outline_level for b in headings if b.outline_level}) == 1
    if not outlined or (flat and len(styles) > 1):
        return []  # a flat outline over headings set in several styles lost their nesting
    roman = roman_sections([b.text for b in sections])
    depths = {o.outline_level: section_depth(o.text, roman=roman) for o in outlined}

    def most(levels: list[int]) -> int:
        return min(levels, key=lambda level: (-levels.count(level), level))

    def nearest(size: float) -> int:
        near = min(outlined, key=lambda o: (abs((o.font_key or 0.0) - size), o.outline_level))
        return near.outline_level or 0

    first_at = next(at for at, b in enumerate(sections) if b.outline_level)
    # outline headings set unlike the body: a heading set as the body is (an AMS subsection)
    # tells nothing of the lines set as it
    set_apart = [
        o for o in outlined if o.bold or not _one_size(o, body, exact=exact, params=params)
    ]
    demoted = []
    for at, b in enumerate(sections):
        if b.outline_level:
            ranks[id(b)] = b.outline_level
            continue
        size, depth = b.font_key or 0.0, section_depth(b.text, roman=roman)
        twins = [o.outline_level for o in set_apart
                 if o.bold == b.bold and _one_size(o, b, exact=exact, params=params)]  # fmt: skip
        if twins:
            ranks[id(b)] = most(twins)
        elif first_at > at and all(
            size > (o.font_key or 0.0) and not _one_size(o, b, exact=exact, params=params)
            for o in outlined
        ):
            ranks[id(b)] = 0
        elif depth:
            same = [level for level, d in depths.items() if d == depth]
            deeper = depth > max(depths.values())
            ranks[id(b)] = most(same) if same else max(depths) + 1 if deeper else nearest(size)
        elif _GENERIC.match(b.text.strip()):
            ranks[id(b)] = nearest(size)
        elif all(size < (o.font_key or 0.0) and not _one_size(o, b, exact=exact, params=params)
                 for o in outlined):  # fmt: skip
            ranks[id(b)] = max(depths) + 1  # deeper than the outline goes (LaTeX's tocdepth)
        else:
            demoted.append(b)
    return demoted


def _outline(
    ranks: list[float], root: int, deepest: int, repeats: frozenset[int] = frozenset()
) -> list[int]:
    """Ranks (smaller is higher) to levels with no level skipped: a heading is one level under
    the nearest heading before it that ranks higher, and level with one that ranks the same. A
    section of one size stays one level after its chapter whatever sizes lie between them in
    the document (a title page's or a contents page's), rather than being clipped level by
    level (h3, h4, h5 for three sections of one size).

    `repeats` (indexes): the title printed again on a later page. It takes the root level and
    closes every open heading, but opens none: what follows it stands as it stood under the
    title, so identical pages get identical levels (issue 33: every page after the first
    pushed its headings one level down, h2 -> h3, h3 -> h4)."""
    stack: list[tuple[float, int]] = []  # (rank, level) of the open headings
    out = []
    for index, rank in enumerate(ranks):
        if index in repeats:
            stack.clear()
            out.append(root)
            continue
        while stack and stack[-1][0] > rank:
            stack.pop()
        if stack and stack[-1][0] == rank:
            level = stack.pop()[1]
        else:
            level = stack[-1][1] + 1 if stack else root
        level = min(level, deepest)
        stack.append((rank, level))
        out.append(level)
    return out


def _said(text: str) -> str:
    """A heading's words, for sameness: case and spacing aside."""
    return " ".join(text.split()).casefold()


def _opening_title(
    pages: list[Page], headings: list[Block], *, exact: bool, params: AssembleParams
) -> list[Block]:
    """The document's first heading, on its first page, unnumbered, no generic section name
    and set in a size no other later heading shares: its title, level 1 over everything after
    it, whatever size the headings under it measure ("Abstract" measured larger than a paper's
    title on its text layer took level 1 beside it, and the title lost its h1). A first
    heading of its sections' size is the first of them, level with them (a report of
    same-size sections had its first section made the title, the rest one level under it).
    The title printed again on later pages is the same title, not a section of its size."""
    first = next((b for b in pages[0].blocks if b.kind == "heading"), None) if pages else None
    if first is None or section_depth(first.text) or _GENERIC.match(first.text.strip()):
        return []
    same = _said(first.text)
    others = (b for b in headings if b is not first and _said(b.text) != same)
    if any(_one_size(first, b, exact=exact, params=params) for b in others) and not _bylined(
        pages[0].blocks, first, params=params
    ):
        return []
    return [first]


def _bylined(blocks: list[Block], first: Block, *, params: AssembleParams) -> bool:
    """Front matter under the first heading, before any other, in the `front_matter_blocks`
    blocks after it: authors, affiliations or a date (`reads_as_byline`), or the abstract. A
    title then, whatever its size (AMS classes set a paper's title in the body's size, as
    its sections)."""
    at = next(i for i, b in enumerate(blocks) if b is first)
    for block in blocks[at + 1 : at + 1 + params.front_matter_blocks]:
        text = block.text.strip()
        if _ABSTRACT.match(text) or (block.kind != "heading" and reads_as_byline(text)):
            return True
        if block.kind == "heading":
            return False
    return False


def assign_heading_levels(
    pages: list[Page], *, body_size: float = 0.0, params: AssembleParams = ASSEMBLE
) -> None:
    """Heading levels over the whole document: a rank from text size (`_size_ranks`), then
    from numbering depth (`_numbered_ranks`), then levels in reading order (`_outline`). The
    layout model's titles are level 1 and the sections follow under them."""
    headings = [b for p in pages for b in p.blocks if b.kind == "heading"]
    if not headings:
        return
    if all(b.level for b in headings):
        return  # the engine gave the levels (the model engine)
    headed = [p for p in pages if any(b.kind == "heading" for b in p.blocks)]
    exact = all(p.source == "text_layer" for p in headed)
    titles = [b for b in headings if b.is_title] or _opening_title(
        pages, headings, exact=exact, params=params
    )
    sections = [b for b in headings if all(b is not t for t in titles)]
    _letter_sizes(sections, params=params)
    on_layer = {id(b) for p in headed if p.source == "text_layer" for b in p.blocks}
    by_size = _size_ranks(sections, on_layer, params=params)
    ranks: dict[int, float] = {id(b): by_size[b.font_key or 0.0] for b in sections}
    _numbered_ranks(sections, ranks)
    body = Block(kind="paragraph", font_key=body_size)
    for b in _outline_ranks(headings, sections, ranks, body, exact=exact, params=params):
        b.kind, b.level = "paragraph", None
        sections.remove(b)
    for b in titles:
        b.level = 1
    root = 2 if titles else 1
    said = {_said(t.text) for t in titles}
    repeats = frozenset(i for i, b in enumerate(sections) if _said(b.text) in said)
    levels = _outline([ranks[id(b)] for b in sections], root, params.deepest_heading_level, repeats)
    for b, level in zip(sections, levels, strict=True):
        b.level = level


# -- the title ------------------------------------------------------------------------------------
def _trusted(block: Block, *, params: AssembleParams) -> bool:
    """Mostly confident text, a letter or digit in it: a title read from a decorative initial,
    or a logo read as "©", is not a title."""
    text = block.text.strip()
    doubtful = sum(len(s.text.strip()) for s in block.spans if s.low_confidence)
    return any(c.isalnum() for c in text) and doubtful <= params.trusted_doubtful_share * len(text)


def _running_title(block: Block, *, params: AssembleParams) -> str | None:
    """A running head that names the work (a book's chapter, an article's short title and
    volume), without its page number: on a page that prints no heading, a truer title than the
    opening of its first paragraph ("CHAPTER 2. MATHEMATICAL INDUCTION" over "Next, we would
    fill in the gaps..."). A stamp, a copyright line or a lone number is none."""
    if block.kind != "page_header" or not _trusted(block, params=params):
        return None
    printed = " ".join(block.text.split())
    text = _PAGE_NUMBER_EDGE.sub("", printed)
    if len(text.split()) < 2 or is_stamp(printed) or not real_words([], text):
        return None
    return text


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def title(pages: list[Page], *, params: AssembleParams = ASSEMBLE) -> str | None:
    """The real title: what the layout model marked as the title on the first pages, else the
    top-level heading of the first page with a heading, else the first trusted heading, else
    a running head that names the work, else the start of the first trusted paragraph (the
    caller falls back to the file name). Generic section names ("References", "Contents") are
    never the title."""
    headings = [
        b for p in pages for b in p.blocks
        if b.kind == "heading" and _trusted(b, params=params) and not _GENERIC.match(b.text.strip())
    ]  # fmt: skip
    early = [b for p in pages[:2] for b in p.blocks if b in headings]
    for pick in (
        [b for b in early if b.is_title],
        [b for b in early if b.level == 1],
        headings,
    ):
        if pick:
            return _clip(pick[0].text, params.title_max_chars)
    for page in pages[:2]:
        for block in page.blocks:
            running = _running_title(block, params=params)
            if running:
                return _clip(running, params.running_title_max_chars)
    for page in pages:
        for block in page.blocks:
            if block.kind == "paragraph" and _trusted(block, params=params):
                return _clip(block.text, params.paragraph_title_max_chars)
    return None
