"""Engine output -> Document: reading order, heading levels, lists, page furniture, joins.

Pure functions over `models.engine.PageReading`; the same rules serve every engine.

Over 450 lines for now: reading order, furniture, heading levels, lists and joins read and
refine the same per-page state in one pass; splitting it by step is issue 15's to decide.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass

from conversion.pipeline.document import (
    Block,
    Cell,
    Document,
    Finding,
    ListItem,
    Page,
    Span,
)
from models.engine import PAGE_NUMBER, PageReading, ReadBlock, Word
from models.language import detect_language
from models.reading.kinds import real_words

LOW_CONFIDENCE = 60.0
_SENTENCE_END = re.compile(r"[.!?:;)\]\"”’]$")
LINE_CUT_GAP = 0.8  # a line cut at a column gap: its pieces this many line heights apart, or less
FURNITURE_BAND = 0.07  # top and bottom 7 % of the page height
EDGE_ROW_BAND = 0.15  # a running head's row (with its page number) lies in the top/bottom 15 %
_EDGE_KINDS = ("paragraph", "heading", "page_header", "page_footer")
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


@dataclass(frozen=True)
class AssembleOptions:
    default_title: str = "Untitled document"
    language: str | None = None  # forced by the user; otherwise detected


def assemble(readings: list[PageReading], opts: AssembleOptions) -> Document:
    readings = sorted(readings, key=lambda r: r.page_number)
    body_size = _body_font_size(readings)
    body_ink = _body_ink(readings)
    body_stroke = _body_stroke(readings)
    repeated = _repeated_furniture(readings)
    findings: list[Finding] = []
    pages: list[Page] = []
    for reading in readings:
        page = Page(
            number=reading.page_number,
            width=reading.width,
            height=reading.height,
            source=reading.source,
            rotation=reading.rotation,
        )
        blocks = [b for b in reading.blocks if b.kind == "figure" or b.text.strip() or b.rows]
        for rb in blocks:  # weight measured on a scan: a bold title is no body text
            rb.bold = rb.bold or _bold_scan(rb, body_size, body_stroke)
        blocks = _attach_table_captions(_attach_captions(_lines_cut_at_a_gutter(blocks)))
        blocks = _merge_broken_paragraphs(blocks)
        pending_items: list[ReadBlock] = []
        blocks = _dash_continuations(blocks)
        edge_rows = _edge_rows(blocks, reading)
        bold = _bold_titles(blocks, body_size, body_stroke) if reading.source == "ocr" else set()
        for rb in blocks:
            if rb.kind == "list_item":
                pending_items.append(rb)
                continue
            if pending_items:
                page.blocks.append(_list_block(pending_items))
                pending_items = []
            kind = edge_rows.get(id(rb)) or _classify(
                rb, reading, body_size, body_ink, repeated, bold_title=id(rb) in bold
            )
            if kind == "page_number":
                number = PAGE_NUMBER.match(rb.text.strip())
                if number:
                    page.label = number.group(1)
                    continue
                kind = "page_footer"  # an engine's page number that is not one: keep its text
            page.blocks.append(_block(rb, kind, body_size))
        if pending_items:
            page.blocks.append(_list_block(pending_items))
        for f in reading.findings:
            findings.append(
                Finding(
                    code=f.get("code", "ENGINE_NOTE"),
                    level=f.get("level", "warning"),
                    message=f.get("message", ""),
                    page=reading.page_number,
                )
            )
        if not page.blocks:
            findings.append(
                Finding(
                    code="BLANK_PAGE",
                    level="warning",
                    message=f"No text was found on page {reading.page_number}.",
                    page=reading.page_number,
                )
            )
        pages.append(page)

    for page in pages:
        page.blocks = _joined_headings(page.blocks, exact_sizes=page.source == "text_layer")
    _assign_heading_levels(pages)
    text = "\n".join(b.text for p in pages for b in p.blocks if b.kind == "paragraph")
    lang = opts.language or _majority_language(readings) or detect_language(text)
    title = _title(pages) or opts.default_title
    return Document(title=title, lang=lang, pages=pages, findings=findings)


# -- statistics over the whole document --------------------------------------------------------
def _body_font_size(readings: list[PageReading]) -> float:
    weighted: list[float] = []
    for r in readings:
        for b in r.blocks:
            if b.font_size and b.kind in ("paragraph", "list_item", "table"):
                chars = sum(len(c.get("text", "")) for row in b.rows or [] for c in row)
                weighted.extend([b.font_size] * max(1, (chars or len(b.text)) // 20))
    return statistics.median(weighted) if weighted else 0.0


def _body_ink(readings: list[PageReading]) -> float:
    inks = [b.ink for r in readings for b in r.blocks if b.ink]
    return statistics.median(inks) if inks else 0.0


def _body_stroke(readings: list[PageReading]) -> float:
    """The body text's stroke width on scans (the engine's per-line measure), by characters."""
    weighted: list[float] = []
    for r in readings:
        for b in r.blocks:
            if b.stroke and b.kind in ("paragraph", "list_item"):
                weighted.extend([b.stroke] * max(1, len(b.text) // 20))
    return statistics.median(weighted) if weighted else 0.0


def _furniture_key(text: str) -> str:
    return re.sub(r"\d+", "#", text.strip().lower())


def _in_band(rb: ReadBlock, reading: PageReading) -> str | None:
    if rb.bbox is None or not reading.height:
        return None
    if rb.bbox[3] <= reading.height * FURNITURE_BAND:
        return "top"
    if rb.bbox[1] >= reading.height * (1 - FURNITURE_BAND):
        return "bottom"
    return None


def _edge_rows(blocks: list[ReadBlock], reading: PageReading) -> dict[int, str]:
    """Running heads and feet told by their row, on a single page and whatever the page's
    margins (a book scanned with its margin puts them below the 7 % band): the page's first (or
    last) row of text, near its edge and apart from the rest, holding a page number, printed or
    misread by an OCR ("S69"), beside one or two short lines ("IN INDIA: BOOK II.   369")."""
    boxed = [b for b in blocks if b.bbox and b.text.strip() and b.kind in _EDGE_KINDS]
    if len(boxed) < 3 or not reading.height:
        return {}
    kinds: dict[int, str] = {}
    for top in (True, False):
        edge = min(boxed, key=lambda b: b.bbox[1]) if top else max(boxed, key=lambda b: b.bbox[3])
        row = [b for b in boxed if _same_row(b.bbox, edge.bbox)]
        in_row = {id(b) for b in row}  # blocks by identity: ReadBlock's == compares every field
        rest = [b for b in boxed if id(b) not in in_row]
        row_top, row_bottom = min(r.bbox[1] for r in row), max(r.bbox[3] for r in row)
        if top:
            apart = all(b.bbox[1] >= row_bottom for b in rest)
            near = row_bottom <= EDGE_ROW_BAND * reading.height
        else:
            apart = all(b.bbox[3] <= row_top for b in rest)
            near = row_top >= (1 - EDGE_ROW_BAND) * reading.height
        numbers = [b for b in row if _NUMBER_LIKE.match(b.text.strip())]
        lines = [b for b in row if not _NUMBER_LIKE.match(b.text.strip())]
        if not (rest and apart and near and len(numbers) == 1 and 1 <= len(lines) <= 2):
            continue
        if any(len(b.text.strip()) > 80 for b in lines):
            continue
        kind = "page_header" if top else "page_footer"
        for b in lines:
            kinds[id(b)] = kind
        (number,) = numbers
        kinds[id(number)] = "page_number" if PAGE_NUMBER.match(number.text.strip()) else kind
    for b in boxed:
        # A page number on a row of its own, near an edge, with only furniture between it and
        # that edge ("Page 3 of 6" over a form's disclaimer footer, above the 7 % band).
        if id(b) in kinds or b.kind != "paragraph" or not PAGE_NUMBER.match(b.text.strip()):
            continue
        bottom = b.bbox[1] >= (1 - EDGE_ROW_BAND) * reading.height
        if not bottom and b.bbox[3] > EDGE_ROW_BAND * reading.height:
            continue
        beyond = [
            o for o in boxed if (o.bbox[1] >= b.bbox[3] if bottom else o.bbox[3] <= b.bbox[1])
        ]
        if all(kinds.get(id(o), o.kind) in ("page_header", "page_footer") for o in beyond):
            kinds[id(b)] = "page_number"
    return kinds


def _beside(a, b) -> bool:
    """Side by side on one row: half the lower box's height or more in common, and apart."""
    common = min(a[3], b[3]) - max(a[1], b[1])
    return common >= 0.5 * min(a[3] - a[1], b[3] - b[1]) and (a[2] <= b[0] or b[2] <= a[0])


def _same_row(a, b) -> bool:
    """The vertical centre of each box lies within the other's span."""
    ca, cb = (a[1] + a[3]) / 2, (b[1] + b[3]) / 2
    return b[1] <= ca <= b[3] and a[1] <= cb <= a[3]


def _repeated_furniture(readings: list[PageReading]) -> set[str]:
    """Texts in the top or bottom band that recur on several pages: running headers/footers."""
    if len(readings) < 2:
        return set()
    counts: Counter[str] = Counter()
    for r in readings:
        seen = {_furniture_key(b.text) for b in r.blocks if b.text and _in_band(b, r)}
        counts.update(seen)
    return {key for key, n in counts.items() if n >= 2 and len(key) < 120}


def _majority_language(readings: list[PageReading]) -> str | None:
    langs = Counter(r.language for r in readings if r.language)
    return langs.most_common(1)[0][0] if langs else None


# -- per block ------------------------------------------------------------------------------------
def _classify(rb, reading, body_size, body_ink, repeated, *, bold_title: bool = False) -> str:
    text = rb.text.strip()
    if rb.kind in ("page_header", "page_footer"):
        if PAGE_NUMBER.match(text):
            return "page_number"
        if rb.kind == "page_header" and body_size and (rb.font_size or 0) >= 1.4 * body_size:
            # Running headers are small print: display type at the top is the page's title
            # (at the foot it is no title: a form's disclaimer set large is still its footer).
            return "heading" if real_words(rb.words, text) else "paragraph"
        return rb.kind
    if rb.kind != "paragraph":
        return rb.kind
    band = _in_band(rb, reading)
    if band and PAGE_NUMBER.match(text):
        return "page_number"
    if band and (_furniture_key(text) in repeated or _STAMP.search(text)
                 or _COPYRIGHT.search(text) and len(text) <= 300
                 or _small_margin_note(rb, body_size)):  # fmt: skip
        return "page_header" if band == "top" else "page_footer"
    if _STAMP.search(text) and len(text) < 200:
        return "page_footer"  # a download stamp anywhere on the page (often along a side)
    if rb.layout is None and _looks_like_heading(rb, body_size, body_ink):
        # Engines without a layout model (or blocks outside every region): size and weight.
        return "heading"
    if rb.layout == "text" and (
        _display_size(rb, body_size)
        or bold_title
        or (
            (rb.font_size or 0) >= 1.3 * body_size > 0
            and _looks_like_heading(rb, body_size, body_ink)
            and real_words(rb.words, rb.text)
        )
    ):
        # Display type or a short larger line the layout model took for text (a paper's title,
        # a word processor's heading): real words only. Bold alone is not enough there (the
        # bold names of a paper's authors are not headings).
        return "heading"
    return "paragraph"


BOLD_STROKE = 1.25  # a scanned line whose strokes are this much wider than the body's is bold
TITLE_WORDS = 14  # a title found by its weight alone is at most this many words ...
TITLE_LINES = 3  # ... on this many lines


def _bold_scan(rb: ReadBlock, body_size: float, body_stroke: float) -> bool:
    """Strokes wider than the body's by BOLD_STROKE, beyond what a larger size gives."""
    size = rb.font_size or body_size
    if not (rb.stroke and body_stroke and body_size):
        return False
    return rb.stroke >= BOLD_STROKE * body_stroke * max(1.0, size / body_size)


def _lines(rb: ReadBlock) -> int:
    """Lines of a block read in order: a word starting left of the end of the one before
    opens a line."""
    boxes = [w.bbox for w in rb.words if w.bbox]
    return 1 + sum(b[0] < a[2] for a, b in zip(boxes, boxes[1:], strict=False))


def _bold_titles(blocks: list[ReadBlock], body_size: float, body_stroke: float) -> set[int]:
    """Scanned titles the layout model calls text ("Part C - Applicant(s) Declaration", bold
    at the body's size; a paper's title a sixth larger than the body): bold lines (strokes
    measured on the scan against the body's, `_bold_scan`, already in `bold`) of real words,
    each alone on its row, opening with a capital or a digit and not ending as a sentence, a
    clause or a label does (".", ",", ";", ":"), with text in regular weight right under
    them. A run of such lines, one after another, is a title (and its subtitle) only while it
    is as short as one: TITLE_LINES lines or fewer; more is a list of names (a paper's bold
    authors, row after row, a larger name among them too) or of labels. A bold line on a row
    with others is a table's cell or a form's label; with nothing under it (at the foot), a
    signature or a footer. Ids."""
    rows = [b for b in blocks if b.bbox and b.kind in ("paragraph", "list_item", "table")]
    found: set[int] = set()
    run: list[ReadBlock] = []
    for rb in [*blocks, None]:
        heavy = rb is not None and (rb.bold or (rb.stroke or 0) >= BOLD_STROKE * body_stroke)
        if rb is not None and rb.kind == "paragraph" and heavy and rb.bbox:
            run.append(rb)
            continue
        if rb is not None and rb.kind not in ("paragraph", "list_item", "table", "heading"):
            continue  # a figure or furniture between them says nothing
        titled = [b for b in run if b.bold and _title_line(b, rows)]
        last = run[-1] if run else None
        under = (
            rb is not None
            and last is not None
            and rb.bbox is not None
            and rb.bbox[1] >= last.bbox[3] - 0.5 * (last.font_size or body_size)  # type: ignore[index]
        )
        worded = [b for b in run if real_words(b.words, b.text)]  # a form's number says nothing
        if titled and under and sum(_lines(b) for b in worded) <= TITLE_LINES:
            found.update(id(b) for b in titled)
        run = []
    return found


def _title_line(rb: ReadBlock, rows: list[ReadBlock]) -> bool:
    """One bold block that can be a title: see _bold_titles."""
    text = rb.text.strip()
    return (
        rb.layout == "text"
        and len(text.split()) <= TITLE_WORDS
        and (text[:1].isupper() or text[:1].isdigit())
        and not text.endswith((".", ",", ";", ":"))
        and real_words(rb.words, text)
        and not any(o is not rb and _beside(o.bbox, rb.bbox) for o in rows)
    )


def _display_size(rb: ReadBlock, body_size: float) -> bool:
    """Much larger than the body, short, real words: display type, i.e. a title."""
    text = rb.text.strip()
    size = rb.font_size or 0.0
    return (
        bool(body_size)
        and size >= 1.5 * body_size
        and len(text) <= 200
        and (rb.bbox is None or rb.bbox[3] - rb.bbox[1] <= 3.5 * size)
        and real_words(rb.words, text)
    )


def _small_margin_note(rb: ReadBlock, body_size: float) -> bool:
    """A short line in smaller print than the body, in the top or bottom margin: a running
    header or footer even on a single page."""
    size = rb.font_size or 0.0
    return bool(body_size) and 0 < size <= 0.9 * body_size and len(rb.text.strip()) <= 100


SAME_SIZE_MEASURED = 0.07  # two heading lines of one size, sizes measured from a scan's pixels
SAME_SIZE_EXACT = 0.05  # ... sizes given by a text layer


def _joined_headings(blocks: list[Block], *, exact_sizes: bool = False) -> list[Block]:
    """A heading set on two lines (an article title the layout model cut in two, a title and
    its subtitle after a colon) is one heading: consecutive headings of one size, the second
    right under the first (at a title's line spacing: less than 1.6 of its size apart) and not
    numbered itself ("2.1.1 Objectives" under "2.1 Introduction" is a section of its own). One
    size is within 10 % on a scan (sizes measured from pixels), within 5 % where the text layer
    gives them exactly (an author line set a point smaller under a title, a section head a point
    smaller under a running title, are not the same heading). A heading that reads "Table 3 ..."
    or "Figure 2 ..." is a caption, not a section."""
    same_size = SAME_SIZE_EXACT if exact_sizes else SAME_SIZE_MEASURED
    out: list[Block] = []
    for block in blocks:
        if block.kind == "heading" and (_TABLE_CAPTION.match(block.text) or
                                        _CAPTION.match(block.text) and any(
                                            c.isdigit() for c in block.text[:12])):  # fmt: skip
            block.kind = "paragraph"
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.kind == block.kind == "heading"
            and prev.bbox
            and block.bbox
            and abs(prev.font_key - block.font_key) <= same_size * max(prev.font_key, 1)
            and 0 <= block.bbox[1] - prev.bbox[3] <= 1.6 * block.font_key
            and not prev.text.strip().endswith((".", "!", "?"))
            and not _SECTION_NUMBER.match(block.text)
        ):
            prev.spans = prev.spans + [Span(text=" ")] + block.spans
            prev.bbox = (min(prev.bbox[0], block.bbox[0]), prev.bbox[1],
                         max(prev.bbox[2], block.bbox[2]), block.bbox[3])  # fmt: skip
            continue
        out.append(block)
    return out


def _looks_like_heading(rb: ReadBlock, body_size: float, body_ink: float) -> bool:
    text = rb.text.strip()
    words = text.split()
    if not words or len(text) > 160 or not any(c.isalpha() for c in text):
        return False
    size = rb.font_size or 0.0
    if body_size and size >= 1.3 * body_size and len(words) <= 20:
        return True
    ink = rb.ink or 0.0
    bold = rb.bold or (bool(body_ink) and ink >= 1.3 * body_ink)
    single_line = rb.bbox is None or (rb.bbox[3] - rb.bbox[1]) < 1.8 * max(size, 1.0)
    return (
        (bold or rb.kind == "heading")
        and single_line
        and len(words) <= 10
        and not text.endswith((".", ",", ";"))
        and text[:1].isupper()
    )


_CAPTION = re.compile(r"^(fig(ure)?|plate|illustration|image|photo|chart|map)\.?\s*\d*", re.I)


def _attach_captions(blocks: list[ReadBlock]) -> list[ReadBlock]:
    """The text right below a figure is its caption: a short paragraph, one that says "Figure
    3", or what the layout model marked as a caption (however long), when nothing stands
    between them ("Figure 3c shows the forward-pass..." at the foot of a column is the text
    going on, not the caption of the figure at the head of the page). A formula kept as an
    image has none: the line under a display equation is the text going on."""
    figures = [
        b for b in blocks if b.kind == "figure" and b.bbox and not b.text and b.layout != "formula"
    ]
    taken: set[int] = set()
    for fig in figures:
        fx0, _, fx1, fy1 = fig.bbox  # type: ignore[misc]
        under = [
            (rb.bbox[1], i) for i, rb in enumerate(blocks)
            if rb is not fig and rb.bbox and rb.bbox[1] >= fy1 - 0.5 * (rb.font_size or 20.0)
            and min(fx1, rb.bbox[2]) > max(fx0, rb.bbox[0])
        ]  # fmt: skip
        if not under:
            continue
        i = min(under)[1]  # the nearest block under the figure, and only it
        rb = blocks[i]
        if i in taken or rb.kind not in ("paragraph", "caption") or _TABLE_CAPTION.match(rb.text):
            continue  # "Table 2 ..." under a figure heads the table that follows
        size = rb.font_size or 20.0
        cx = (rb.bbox[0] + rb.bbox[2]) / 2  # type: ignore[index]
        near = rb.bbox[1] <= fy1 + 3 * size  # type: ignore[index]
        labelled = rb.kind == "caption" or bool(_CAPTION.match(rb.text))
        short = len(rb.text) <= 200 or rb.kind == "caption"
        if fx0 <= cx <= fx1 and short and (near or labelled):
            taken.add(i)
            fig.text = rb.text.strip()
    return [b for i, b in enumerate(blocks) if i not in taken]


# "Table 2", "Table IV", "Table S1" (not "Table of contents").
_TABLE_CAPTION = re.compile(r"^(?i:table|tab\.|exhibit|schedule)\s*(?:\d|[IVX]+\b|[A-Z]\d)")


def _attach_table_captions(blocks: list[ReadBlock]) -> list[ReadBlock]:
    """A caption right before or after a table ("Table 2. Budget", or a block the layout model
    calls a caption) becomes the table's <caption>."""
    out = list(blocks)
    for table in [b for b in blocks if b.kind == "table" and not b.text]:
        i = out.index(table)
        for j in (i - 1, i + 1):
            if not 0 <= j < len(out):
                continue
            other = out[j]
            text = other.text.strip()
            # (The layout model may call a printed "Table S1 ..." line a section header.)
            is_caption = other.kind == "caption" or (
                other.kind in ("paragraph", "heading") and _TABLE_CAPTION.match(text)
            )
            if is_caption and 0 < len(text) <= 300:
                table.text = text
                del out[j]
                break
    return out


def _dash_continuations(blocks: list[ReadBlock]) -> list[ReadBlock]:
    """A lone "item" opened by a dash right after an unfinished sentence is that sentence's
    continuation ("...into the track —existing notes are kept"), not a list."""
    out: list[ReadBlock] = []
    for i, rb in enumerate(blocks):
        prev = out[-1] if out else None
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        if (
            rb.kind == "list_item"
            and rb.marker in ("-", "–", "—")
            and prev is not None
            and prev.kind == "paragraph"
            and not _SENTENCE_END.search(prev.text.strip())
            and (nxt is None or nxt.kind != "list_item")
        ):
            prev.text = f"{prev.text.rstrip()} —{rb.text.lstrip()}"
            dashed = [Word(text="—" + w.text, confidence=w.confidence) for w in rb.words[:1]]
            prev.words = prev.words + dashed + rb.words[1:]
            continue
        out.append(rb)
    return out


def _same_body_text(prev: ReadBlock, rb: ReadBlock) -> bool:
    """Both several lines of the same weight: a paragraph cut in two, not a heading and text."""
    if not prev.bbox or not prev.font_size:
        return False
    multi_line = prev.bbox[3] - prev.bbox[1] > 1.8 * prev.font_size
    same_ink = (
        prev.ink is None or rb.ink is None or abs(prev.ink - rb.ink) <= 0.3 * max(rb.ink, 1e-6)
    )
    return multi_line and same_ink and not prev.bold and not rb.bold


_SECTION_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVX]+\.|[A-Z]\.)\s")


def _lines_cut_at_a_gutter(blocks: list[ReadBlock]) -> list[ReadBlock]:
    """A full-width line the engine cut where it crosses a column gap (the last line of a page
    running under an infobox): a one-line paragraph that starts in lowercase on the same line,
    just right of where a paragraph ends mid-sentence (less than LINE_CUT_GAP of a line height
    away), is the rest of that paragraph's last line."""
    joined: set[int] = set()  # ids: ReadBlock is a dataclass, == compares every field
    paragraphs = [b for b in blocks if b.kind == "paragraph" and b.bbox and b.text]
    for rb in paragraphs:
        if not rb.text[:1].islower() or id(rb) in joined:
            continue
        height = rb.bbox[3] - rb.bbox[1]  # type: ignore[index]
        words = [w.bbox[3] - w.bbox[1] for w in rb.words if w.bbox]
        if not words or height > 1.5 * max(words):
            continue  # not a single line
        for prev in paragraphs:
            if (
                prev is not rb
                and id(prev) not in joined
                and not _SENTENCE_END.search(prev.text.strip())
                and abs(prev.bbox[3] - rb.bbox[3]) <= 0.3 * height  # type: ignore[index]
                and 0 <= rb.bbox[0] - prev.bbox[2] <= LINE_CUT_GAP * height  # type: ignore[index]
            ):
                x0, y0, _, y1 = prev.bbox  # type: ignore[misc]
                _continue_with(prev, rb, bbox=(x0, y0, rb.bbox[2], max(y1, rb.bbox[3])))  # type: ignore[index]
                joined.add(id(rb))
                break
    return [b for b in blocks if id(b) not in joined]


def _continue_with(prev: ReadBlock, rb: ReadBlock, *, bbox: tuple) -> None:
    """prev's text goes on with rb's: the texts joined by a space, the words in order, and
    the box the caller gives the two."""
    prev.text = prev.text.rstrip() + " " + rb.text.lstrip()
    prev.words = prev.words + rb.words
    prev.bbox = bbox


def _merge_broken_paragraphs(blocks: list[ReadBlock]) -> list[ReadBlock]:
    """Join a paragraph split mid-sentence: same column, no sentence end, next starts lowercase.
    A figure placed between the two halves moves before the joined paragraph."""
    out: list[ReadBlock] = []
    for rb in blocks:
        figures_between: list[ReadBlock] = []
        while out and out[-1].kind == "figure" and rb.kind == "paragraph":
            figures_between.insert(0, out.pop())
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.kind == rb.kind == "paragraph"
            and prev.text
            and (rb.text[:1].islower() or _same_body_text(prev, rb))
            and not _SENTENCE_END.search(prev.text.strip())
            and prev.bbox
            and rb.bbox
            and abs(prev.bbox[0] - rb.bbox[0]) < 0.1 * max(prev.bbox[2] - prev.bbox[0], 1)
            and abs((prev.font_size or 0) - (rb.font_size or 0)) < 0.25 * (prev.font_size or 1)
        ):
            bbox = (min(prev.bbox[0], rb.bbox[0]), prev.bbox[1], max(prev.bbox[2], rb.bbox[2]),
                    rb.bbox[3])  # fmt: skip
            _continue_with(prev, rb, bbox=bbox)
            out[-1:-1] = figures_between
            continue
        out.extend(figures_between)
        out.append(rb)
    return out


def _pieces(word: Word) -> list[tuple[str, str | None]]:
    """A word cut at its exponents and indices: (text, None | "sup" | "sub") pieces."""
    pieces: list[tuple[str, str | None]] = []
    at = 0
    for start, end, kind in word.script or ():
        if start > at:
            pieces.append((word.text[at:start], None))
        pieces.append((word.text[start:end], kind))
        at = end
    if at < len(word.text):
        pieces.append((word.text[at:], None))
    return pieces


def spans_from(rb: ReadBlock) -> list[Span]:
    """Text as spans; runs of low-confidence words become their own flagged spans, exponents
    and indices their own `sup`/`sub` spans."""
    if not rb.words or " ".join(w.text for w in rb.words) != rb.text:
        low = bool(rb.words) and min(w.confidence for w in rb.words) < LOW_CONFIDENCE
        return [Span(text=rb.text, low_confidence=low, lang=rb.lang)]
    spans: list[Span] = []
    for i, word in enumerate(rb.words):
        low = word.confidence < LOW_CONFIDENCE
        lang = word.lang or rb.lang
        for j, (text, script) in enumerate(_pieces(word)):
            sep = " " if i and not j else ""
            last = spans[-1] if spans else None
            if last and (last.low_confidence, last.lang, last.script) == (low, lang, script):
                last.text += sep + text
                continue
            if last and sep and last.script is None:
                last.text, sep = last.text + sep, ""
            spans.append(Span(text=sep + text, low_confidence=low, lang=lang, script=script))
    return spans


def _block(rb: ReadBlock, kind: str, body_size: float) -> Block:
    if kind == "table" and rb.rows:
        rows = [
            [
                Cell(
                    text=str(c.get("text", "")),
                    header=bool(c.get("header")),
                    rowspan=max(1, int(c.get("rowspan", 1) or 1)),
                    colspan=max(1, int(c.get("colspan", 1) or 1)),
                )
                for c in row
            ]
            for row in rb.rows
        ]
        return Block(kind="table", rows=rows, caption=rb.text or None, bbox=rb.bbox)
    if kind == "figure":
        return Block(kind="figure", alt=rb.alt, caption=rb.text or None, bbox=rb.bbox)
    if kind == "formula":
        return Block(kind="formula", latex=rb.latex or rb.text, bbox=rb.bbox)
    if kind == "caption":
        kind = "paragraph"
    block = Block(kind=kind, spans=spans_from(rb), bbox=rb.bbox, lang=rb.lang)  # type: ignore[arg-type]
    if kind == "heading":
        # Provisional: a size rank, repaired into a clean outline in _assign_heading_levels.
        block.level = rb.level or 0
        block.font_key = rb.font_size or body_size
        block.is_title = rb.layout == "title"
    return block


def _list_block(items: list[ReadBlock]) -> Block:
    """Consecutive list items -> one list; deeper indentation nests under the previous item."""
    ordered = all(i.ordered for i in items)
    root: list[ListItem] = []
    stack: list[tuple[float, ListItem]] = []
    for rb in items:
        # Engines without boxes (the model) give the nesting depth instead.
        indent = rb.bbox[0] if rb.bbox else float(rb.level or 1) * 100.0
        step = (rb.font_size or 20) * 0.8
        item = ListItem(spans=spans_from(rb))
        while stack and indent <= stack[-1][0] + step:
            stack.pop()
        if stack:
            parent = stack[-1][1]
            parent.children.append(item)
            parent.ordered_children = rb.ordered
        else:
            root.append(item)
        stack.append((indent, item))
    x0 = min((i.bbox[0] for i in items if i.bbox), default=0)
    return Block(kind="list", ordered=ordered, items=root, bbox=(x0, 0, 0, 0))


SIZE_STEP = 1.1  # heading sizes within this ratio of each other are one level


def _assign_heading_levels(pages: list[Page]) -> None:
    """Heading levels from text size, one scale for the whole document: sizes are clustered
    (a cluster holds sizes within SIZE_STEP of its largest), the largest cluster is level 1 or,
    when the layout model marked a title, level 2 under it. Sections of one size keep one
    level on every page."""
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
        if top is None or size * SIZE_STEP < top:
            level += 1
            top = size
        rank[size] = level
    for b in titles:
        b.level = 1
    for b in sections:
        b.level = min(rank[b.font_key or 0.0] + (1 if titles else 0), 6)


def _trusted(block: Block) -> bool:
    """Mostly confident text: a title read from a decorative initial is not a title."""
    text = block.text.strip()
    doubtful = sum(len(s.text.strip()) for s in block.spans if s.low_confidence)
    return bool(text) and doubtful <= 0.3 * len(text)


def _running_title(block: Block) -> str | None:
    """A running head that names the work (a book's chapter, an article's short title and
    volume), without its page number: on a page that prints no heading, a truer title than the
    opening of its first paragraph ("CHAPTER 2. MATHEMATICAL INDUCTION" over "Next, we would
    fill in the gaps..."). A stamp, a copyright line or a lone number is none."""
    if block.kind != "page_header" or not _trusted(block):
        return None
    printed = " ".join(block.text.split())
    text = _PAGE_NUMBER_EDGE.sub("", printed)
    if (
        len(text.split()) < 2
        or _STAMP.search(printed)
        or _COPYRIGHT.search(printed)
        or not real_words([], text)
    ):
        return None
    return text


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


def _title(pages: list[Page]) -> str | None:
    """The real title: what the layout model marked as the title on the first pages, else the
    top-level heading of the first page with a heading, else the first trusted heading, else
    the start of the first trusted paragraph (the caller falls back to the file name). Generic
    section names ("References", "Contents") are never the title."""

    def clip(text: str, limit: int) -> str:
        text = " ".join(text.split())
        if len(text) <= limit:
            return text
        return text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"

    headings = [
        b for p in pages for b in p.blocks
        if b.kind == "heading" and _trusted(b) and not _GENERIC.match(b.text.strip())
    ]  # fmt: skip
    early = [b for p in pages[:2] for b in p.blocks if b in headings]
    for pick in (
        [b for b in early if b.is_title],
        [b for b in early if b.level == 1],
        headings,
    ):
        if pick:
            return clip(pick[0].text, 200)
    for page in pages[:2]:
        for block in page.blocks:
            running = _running_title(block)
            if running:
                return clip(running, 120)
    for page in pages:
        for block in page.blocks:
            if block.kind == "paragraph" and _trusted(block):
                return clip(block.text, 80)
    return None
