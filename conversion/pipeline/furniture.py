"""Page furniture over the whole document: running heads and feet, page numbers, stamps.

Pure functions over `models.engine.PageReading`: which texts recur in the page bands
(`repeated_furniture`), which row of a page is its running head or foot (`edge_rows`), what a
paragraph in a band is (`band_furniture`), and which page headers of the layout model are the
page's text (`headers_in_text`: a letterhead).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from conversion.pipeline.assemble_params import ASSEMBLE, AssembleParams
from conversion.pipeline.heading_numbers import section_depth
from models.engine import PAGE_NUMBER, PageReading, ReadBlock
from models.reading.kinds import real_words

_EDGE_KINDS = ("paragraph", "heading", "page_header", "page_footer")
_FURNITURE_KINDS = ("page_header", "page_footer", "page_number")
_TEXT_KINDS = ("paragraph", "heading", "list_item")  # what a running head stands apart from
# A page number as printed or as an OCR misreads it (S for 5 or 3, l or I for 1, O for 0).
_NUMBER_LIKE = re.compile(r"^[\[(]?(?=[^\d]*\d)[\dSIlO]{1,4}[\])]?$")
# Stamps that libraries and publishers print on a page: never part of the text.
_STAMP = re.compile(
    r"^(?:this content )?downloaded (?:from|by)\b|\ball use subject to\b|"
    r"^for personal use only\b|^provided by\b.{0,80}\blibrary\b",
    re.IGNORECASE,
)
# A copyright line ("This journal is © The Royal Society of Chemistry 2016", "© The Author
# 2014. Published by ..."): in the top or bottom band, a publisher's stamp.
_COPYRIGHT = re.compile(r"(?:©|\(c\)|\bcopyright\b).{0,80}\b(?:1[89]|20)\d\d\b|"
                        r"\b(?:1[89]|20)\d\d\b.{0,20}©", re.IGNORECASE)  # fmt: skip


# A document's revision or version label, alone in a margin ("Revision: 2.4", "Rev. 3",
# "Version 1.2b"): furniture, like a page number.
_REVISION = re.compile(r"^(?:rev(?:ision)?|version|ver)\.?\s*:?\s*\d{1,3}(?:\.\d{1,3})*[a-z]?$",
                       re.IGNORECASE)  # fmt: skip


def is_stamp(text: str) -> bool:
    """A library's or publisher's stamp, or a copyright line: never a title."""
    return bool(_STAMP.search(text) or _COPYRIGHT.search(text))


def _furniture_key(text: str) -> str:
    return re.sub(r"\d+", "#", text.strip().lower())


def line_count(rb: ReadBlock) -> int:
    """Lines of a block read in order: a word starting left of the end of the one before
    opens a line."""
    boxes = [w.bbox for w in rb.words if w.bbox]
    return 1 + sum(b[0] < a[2] for a, b in zip(boxes, boxes[1:], strict=False))


def _in_band(rb: ReadBlock, reading: PageReading, *, params: AssembleParams) -> str | None:
    if rb.bbox is None or not reading.height:
        return None
    if rb.bbox[3] <= reading.height * params.furniture_band_share:
        return "top"
    if rb.bbox[1] >= reading.height * (1 - params.furniture_band_share):
        return "bottom"
    return None


def repeated_furniture(
    readings: list[PageReading], *, params: AssembleParams = ASSEMBLE
) -> set[str]:
    """Texts in the top or bottom band, or that the layout model calls page headers or
    footers (a letterhead reaches below the band), that recur on several pages: running heads
    and feet."""
    if len(readings) < 2:
        return set()
    counts: Counter[str] = Counter()
    for r in readings:
        seen = {
            _furniture_key(b.text)
            for b in r.blocks
            if b.text and (b.kind in _FURNITURE_KINDS or _in_band(b, r, params=params))
        }
        counts.update(seen)
    limit = params.repeated_furniture_max_chars
    return {key for key, n in counts.items() if n >= 2 and len(key) < limit}


def _small_margin_note(rb: ReadBlock, body_size: float, *, params: AssembleParams) -> bool:
    """A short line in smaller print than the body, in the top or bottom margin: a running
    header or footer even on a single page."""
    size = rb.font_size or 0.0
    return (
        bool(body_size)
        and 0 < size <= params.margin_note_size_ratio * body_size
        and len(rb.text.strip()) <= params.margin_note_max_chars
    )


def band_furniture(
    rb: ReadBlock,
    reading: PageReading,
    body_size: float,
    repeated: set[str],
    *,
    params: AssembleParams = ASSEMBLE,
) -> str | None:
    """What a paragraph is when it is furniture ("page_number", "page_header", "page_footer"):
    a page number in a band; a repeated text, a stamp, a copyright line, a revision label
    ("Revision: 2.4") or a small note in a band; a download stamp anywhere on the page. None:
    not furniture."""
    text = rb.text.strip()
    band = _in_band(rb, reading, params=params)
    if band and PAGE_NUMBER.match(text):
        return "page_number"
    if band and (_furniture_key(text) in repeated or _STAMP.search(text) or _REVISION.match(text)
                 or _COPYRIGHT.search(text) and len(text) <= params.copyright_max_chars
                 or _small_margin_note(rb, body_size, params=params)):  # fmt: skip
        return "page_header" if band == "top" else "page_footer"
    if _STAMP.search(text) and len(text) < params.stamp_max_chars:
        return "page_footer"  # a download stamp anywhere on the page (often along a side)
    return None


def section_at_foot(rb: ReadBlock, body_size: float, repeated: set[str]) -> bool:
    """A footer of the layout model's that is a section's head opening at the page's foot (a
    generated AMS paper's "2.2. Hyperparameters.", its text on the next page): numbered real
    words, in bold at the body's size or larger, and no text another page's bands repeat. A
    running foot is small print, or repeated, or a page number."""
    text = rb.text.strip()
    return (
        rb.kind == "page_footer"
        and bool(rb.bold and body_size)
        and (rb.font_size or 0.0) >= body_size
        and section_depth(text) > 0
        and _furniture_key(text) not in repeated
        and real_words(rb.words, text)
    )


def _same_row(a, b) -> bool:
    """The vertical centre of each box lies within the other's span."""
    ca, cb = (a[1] + a[3]) / 2, (b[1] + b[3]) / 2
    return b[1] <= ca <= b[3] and a[1] <= cb <= a[3]


def _numbered_head(rb: ReadBlock, body_size: float, *, params: AssembleParams) -> bool:
    """One line that holds a running head and its page number, read as one ("400 BRITISH
    HUSBANDRY. [Ch. XIX."): a page number at either end (a count from 1), set apart
    from the words beside it by a wide gap (a page number at the margin, the head centred),
    short, and no larger than the body's print (a paper's title behind its logo read as "0"
    is display type). A section's number ("2 Methods") stands a space from its title."""
    words = [w for w in rb.words if w.bbox]
    if len(words) < 2 or len(rb.text.strip()) > params.running_head_max_chars:
        return False
    if body_size and (rb.font_size or 0) > params.running_head_max_size_ratio * body_size:
        return False
    height = max(w.bbox[3] - w.bbox[1] for w in words)  # type: ignore[index]
    if max(w.bbox[1] for w in words) > min(w.bbox[3] for w in words):  # type: ignore[index]
        return False  # more than one line
    for number, neighbour in ((words[0], words[1]), (words[-1], words[-2])):
        gap = max(number.bbox[0] - neighbour.bbox[2], neighbour.bbox[0] - number.bbox[2])  # type: ignore[index]
        page_number = number.text.isdigit() and int(number.text) > 0
        if page_number and gap >= params.running_head_gap_ratio * height:
            return True
    return False


def edge_rows(
    blocks: list[ReadBlock],
    reading: PageReading,
    *,
    body_size: float = 0.0,
    params: AssembleParams = ASSEMBLE,
) -> dict[int, str]:
    """Running heads and feet told by their row, on a single page and whatever the page's
    margins (a book scanned with its margin puts them below the 7 % band): the page's first (or
    last) row of text, near its edge and apart from the rest, holding a page number, printed or
    misread by an OCR ("S69"), beside one or two short lines ("IN INDIA: BOOK II.   369").
    Kinds by block id."""
    boxed = [b for b in blocks if b.bbox and b.text.strip() and b.kind in _EDGE_KINDS]
    if len(boxed) < params.edge_rows_min_blocks or not reading.height:
        return {}
    kinds: dict[int, str] = {}
    band = params.edge_row_band_share
    for top in (True, False):
        edge = min(boxed, key=lambda b: b.bbox[1]) if top else max(boxed, key=lambda b: b.bbox[3])
        row = [b for b in boxed if _same_row(b.bbox, edge.bbox)]
        in_row = {id(b) for b in row}  # blocks by identity: ReadBlock's == compares every field
        rest = [b for b in boxed if id(b) not in in_row]
        row_top, row_bottom = min(r.bbox[1] for r in row), max(r.bbox[3] for r in row)
        if top:
            apart = all(b.bbox[1] >= row_bottom for b in rest)
            near = row_bottom <= band * reading.height
        else:
            apart = all(b.bbox[3] <= row_top for b in rest)
            near = row_top >= (1 - band) * reading.height
        if (
            rest
            and apart
            and near
            and len(row) == 1
            and _numbered_head(row[0], body_size, params=params)
        ):
            kinds[id(row[0])] = "page_header" if top else "page_footer"
            continue
        numbers = [b for b in row if _NUMBER_LIKE.match(b.text.strip())]
        lines = [b for b in row if not _NUMBER_LIKE.match(b.text.strip())]
        if not (rest and apart and near and len(numbers) == 1 and 1 <= len(lines) <= 2):
            continue
        if any(
            len(b.text.strip()) > params.running_head_max_chars
            or line_count(b) > params.running_head_max_lines
            for b in lines
        ):
            continue  # text, or a letterhead beside a folio number
        kind = "page_header" if top else "page_footer"
        for b in lines:
            kinds[id(b)] = kind
        (number,) = numbers
        kinds[id(number)] = "page_number" if PAGE_NUMBER.match(number.text.strip()) else kind
    for b in boxed:
        # A page number on a row of its own, near an edge, with only furniture between it and
        # that edge ("Page 3 of 6" over a form's disclaimer footer, above the 7 % band); at
        # the foot, a line or two of small print under it is a footer too (a letterhead's
        # address under the folio).
        number = b.kind in ("paragraph", "page_footer") and PAGE_NUMBER.match(b.text.strip())
        if id(b) in kinds or not number:
            continue
        bottom = b.bbox[1] >= (1 - band) * reading.height
        if not bottom and b.bbox[3] > band * reading.height:
            continue
        beyond = [
            o for o in boxed if (o.bbox[1] >= b.bbox[3] if bottom else o.bbox[3] <= b.bbox[1])
        ]
        under = [
            o for o in beyond if kinds.get(id(o), o.kind) not in ("page_header", "page_footer")
        ]
        # (alone on its row: a footnote's number beside its text is no folio)
        alone = not any(_same_row(o.bbox, b.bbox) for o in boxed if o is not b)
        if all(bottom and alone and _foot_print(o, body_size, params=params) for o in under):
            kinds[id(b)] = "page_number"
            kinds.update((id(o), "page_footer") for o in under)
    return kinds


def _foot_print(rb: ReadBlock, body_size: float, *, params: AssembleParams) -> bool:
    """A paragraph of a line or two set smaller than the body: what a page's foot holds under
    its number (an institution's address, a publisher's line)."""
    size = rb.font_size or 0.0
    return (
        rb.kind == "paragraph"
        and bool(body_size)
        and 0 < size < body_size
        and line_count(rb) <= params.running_head_max_lines
    )


def _plain_furniture(rb: ReadBlock, repeated: set[str]) -> bool:
    """Furniture by its text wherever it stands: a page number, a text the bands of other pages
    repeat, a stamp, a copyright line, a revision label."""
    text = rb.text.strip()
    return bool(
        PAGE_NUMBER.match(text)
        or _furniture_key(text) in repeated
        or is_stamp(text)
        or _REVISION.match(text)
    )


def _masthead(rb: ReadBlock, body_size: float, *, params: AssembleParams) -> bool:
    """More lines than a running head holds, in print no smaller than the body's: a letter's
    letterhead, a form's or a memo's heading block (a journal's masthead is small print)."""
    size = rb.font_size or 0.0
    small = bool(body_size) and 0 < size <= params.margin_note_size_ratio * body_size
    # Lines of words set across: a stamp printed up the margin, read with the head, is none.
    across = [w for w in rb.words if w.bbox and w.bbox[2] - w.bbox[0] >= w.bbox[3] - w.bbox[1]]
    lines = line_count(replace(rb, words=across))
    return lines > params.running_head_max_lines and not small


def _beside_text(rb: ReadBlock, text: list[ReadBlock]) -> bool:
    """A block sharing rows with the page's text (its span and one text block's overlap): a
    running head stands apart, above (or below) all the text."""
    top, bottom = rb.bbox[1], rb.bbox[3]  # type: ignore[index]
    return any(o.bbox and o.bbox[1] < bottom and top < o.bbox[3] for o in text)


def headers_in_text(
    blocks: list[ReadBlock],
    body_size: float,
    repeated: set[str],
    *,
    params: AssembleParams = ASSEMBLE,
) -> list[ReadBlock]:
    """The blocks with the page headers the layout model saw that are no running heads made
    text again: a head is a line or two repeated on the pages, or apart at the page's edge;
    the block of lines at the top of a letter, a form or a memo (its letterhead) and what
    shares its rows ("Circulaire n°2" beside it) are the page's text, read once, not
    furniture. Page numbers, stamps and texts other pages repeat stay furniture."""
    heads = [b for b in blocks if b.kind == "page_header" and b.bbox and b.text.strip()]
    heads = [b for b in heads if not _plain_furniture(b, repeated)]
    text_ids = {id(b) for b in heads if _masthead(b, body_size, params=params)}
    if not text_ids:
        return blocks
    text = [
        b for b in blocks
        if b.bbox and (b.kind in _TEXT_KINDS and not is_stamp(b.text) or id(b) in text_ids)
    ]  # fmt: skip
    text_ids |= {id(b) for b in heads if _beside_text(b, [t for t in text if t is not b])}
    return [replace(b, kind="paragraph") if id(b) in text_ids else b for b in blocks]
