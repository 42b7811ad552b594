"""Headings over the whole document: which blocks are headings (size, weight measured on a scan,
display type), headings set on two lines joined, levels on one scale, and the document's title.
"""

from __future__ import annotations

import re

from conversion.pipeline.assemble_params import ASSEMBLE, AssembleParams
from conversion.pipeline.captions import numbered_caption
from conversion.pipeline.document import Block, Page, Span
from conversion.pipeline.furniture import is_stamp
from models.engine import ReadBlock
from models.reading.kinds import real_words

_SECTION_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVX]+\.|[A-Z]\.)\s")
# A page number printed before or after a running head ("42 CHAPTER 2. ...", "... EXAMPLES 33"),
# not a volume's ("Vol. 113").
_PAGE_NUMBER_EDGE = re.compile(r"^\d{1,4}\s+|(?<![.,])\s+\d{1,4}$")
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


def _lines(rb: ReadBlock) -> int:
    """Lines of a block read in order: a word starting left of the end of the one before
    opens a line."""
    boxes = [w.bbox for w in rb.words if w.bbox]
    return 1 + sum(b[0] < a[2] for a, b in zip(boxes, boxes[1:], strict=False))


def _beside(a, b) -> bool:
    """Side by side on one row: half the lower box's height or more in common, and apart."""
    common = min(a[3], b[3]) - max(a[1], b[1])
    return common >= 0.5 * min(a[3] - a[1], b[3] - b[1]) and (a[2] <= b[0] or b[2] <= a[0])


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
        if titled and under and sum(_lines(b) for b in worded) <= params.bold_title_max_lines:
            found.update(id(b) for b in titled)
        run = []
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
        and not any(o is not rb and _beside(o.bbox, rb.bbox) for o in rows)
    )


def _display_size(rb: ReadBlock, body_size: float, *, params: AssembleParams) -> bool:
    """Much larger than the body, short, real words: display type, i.e. a title."""
    text = rb.text.strip()
    size = rb.font_size or 0.0
    return (
        bool(body_size)
        and size >= params.display_size_ratio * body_size
        and len(text) <= params.display_max_chars
        and (rb.bbox is None or rb.bbox[3] - rb.bbox[1] <= params.display_max_height_ratio * size)
        and real_words(rb.words, text)
    )


def _looks_like_heading(
    rb: ReadBlock, body_size: float, body_ink: float, *, params: AssembleParams
) -> bool:
    text = rb.text.strip()
    words = text.split()
    if not words or len(text) > params.heading_max_chars or not any(c.isalpha() for c in text):
        return False
    size = rb.font_size or 0.0
    larger = body_size and size >= params.heading_size_ratio * body_size
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
    params: AssembleParams = ASSEMBLE,
) -> bool:
    """A paragraph that is a heading: by size and weight where no layout model placed it, by
    display type, weight measured on a scan (`bold_titles`) or a short larger line of real
    words where the layout model took it for text."""
    if rb.layout is None and _looks_like_heading(rb, body_size, body_ink, params=params):
        # Engines without a layout model (or blocks outside every region): size and weight.
        return True
    # Display type or a short larger line the layout model took for text (a paper's title,
    # a word processor's heading): real words only. Bold alone is not enough there (the
    # bold names of a paper's authors are not headings).
    return rb.layout == "text" and bool(
        _display_size(rb, body_size, params=params)
        or bold_title
        or (
            (rb.font_size or 0) >= params.heading_size_ratio * body_size > 0
            and _looks_like_heading(rb, body_size, body_ink, params=params)
            and real_words(rb.words, rb.text)
        )
    )


# -- headings over the document -------------------------------------------------------------------
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
    same_size = params.same_size_exact_share if exact_sizes else params.same_size_measured_share
    out: list[Block] = []
    for block in blocks:
        if block.kind == "heading" and numbered_caption(block.text):
            block.kind = "paragraph"
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.kind == block.kind == "heading"
            and prev.bbox
            and block.bbox
            and abs(prev.font_key - block.font_key) <= same_size * max(prev.font_key, 1)
            and 0
            <= block.bbox[1] - prev.bbox[3]
            <= params.joined_heading_gap_ratio * block.font_key
            and not prev.text.strip().endswith((".", "!", "?"))
            and not _SECTION_NUMBER.match(block.text)
        ):
            prev.spans = prev.spans + [Span(text=" ")] + block.spans
            prev.bbox = (min(prev.bbox[0], block.bbox[0]), prev.bbox[1],
                         max(prev.bbox[2], block.bbox[2]), block.bbox[3])  # fmt: skip
            continue
        out.append(block)
    return out


def assign_heading_levels(pages: list[Page], *, params: AssembleParams = ASSEMBLE) -> None:
    """Heading levels from text size, one scale for the whole document: sizes are clustered
    (a cluster holds sizes within `heading_size_step_ratio` of its largest), the largest cluster
    is level 1 or, when the layout model marked a title, level 2 under it. Sections of one size
    keep one level on every page."""
    headings = [b for p in pages for b in p.blocks if b.kind == "heading"]
    if not headings:
        return
    if all(b.level for b in headings):
        return  # the engine gave the levels (the model engine)
    titles = [b for b in headings if b.is_title]
    sections = [b for b in headings if b not in titles]
    sizes = sorted({b.font_key or 0.0 for b in sections}, reverse=True)
    rank: dict[float, int] = {}
    level, top = 0, None
    for size in sizes:
        if top is None or size * params.heading_size_step_ratio < top:
            level += 1
            top = size
        rank[size] = level
    for b in titles:
        b.level = 1
    for b in sections:
        b.level = min(rank[b.font_key or 0.0] + (1 if titles else 0), params.deepest_heading_level)


# -- the title ------------------------------------------------------------------------------------
def _trusted(block: Block, *, params: AssembleParams) -> bool:
    """Mostly confident text: a title read from a decorative initial is not a title."""
    text = block.text.strip()
    doubtful = sum(len(s.text.strip()) for s in block.spans if s.low_confidence)
    return bool(text) and doubtful <= params.trusted_doubtful_share * len(text)


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
