"""Engine output -> Document: the document-wide rules over every page's reading, composed.

Pure functions over `models.engine.PageReading`; the same rules serve every engine. The body's
size, ink and stroke are measured over the whole document here; the stages live beside it:
`furniture` (running heads, page numbers, stamps), `captions`, `paragraphs` (broken paragraphs
joined), `headings` (heading detection, joined headings, levels, the title). Their thresholds
are `assemble_params.AssembleParams`, carried by `AssembleOptions.params`.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections import Counter
from dataclasses import dataclass

from conversion.pipeline import (
    bookmarks,
    captions,
    furniture,
    heading_numbers,
    headings,
    paragraphs,
    references,
    table_folds,
)
from conversion.pipeline.assemble_params import ASSEMBLE, AssembleParams
from conversion.pipeline.document import (
    Block,
    Cell,
    Document,
    Finding,
    ListItem,
    Page,
    Span,
)
from conversion.pipeline.doubts import document_doubts
from conversion.pipeline.title_page import title_page
from models.engine import PAGE_NUMBER, PageReading, ReadBlock, Word
from models.language import detect_language
from models.reading.kinds import real_words
from models.reading.markers import number_the_title
from models.reading.params.layout_regions import LAYOUT
from models.reading.scan_lines import letter_sizes


@dataclass(frozen=True)
class AssembleOptions:
    default_title: str = "Untitled document"
    language: str | None = None  # forced by the user; otherwise detected
    params: AssembleParams = ASSEMBLE  # the thresholds of every document-wide rule


def _page_blocks(
    reading: PageReading, body_size: float, body_stroke: float, *, params: AssembleParams
) -> list[ReadBlock]:
    """A page's blocks with text, weighed on a scan, captions attached, broken paragraphs and
    dashed clauses joined."""
    blocks = [b for b in reading.blocks if b.kind == "figure" or b.text.strip() or b.rows]
    for rb in blocks:  # weight measured on a scan: a bold title is no body text
        rb.bold = rb.bold or headings.bold_scan(rb, body_size, body_stroke, params=params)
    blocks = paragraphs.lines_cut_at_a_gutter(blocks, params=params)
    blocks = paragraphs.numbers_beside_headings(blocks, params=params)
    blocks = table_folds.unfold_tables(blocks, params=params)
    blocks = captions.attach_captions(blocks, params=params)
    blocks = captions.attach_table_captions(blocks, params=params)
    blocks = references.reference_entries(blocks, params=params)
    blocks = paragraphs.merge_broken_paragraphs(blocks, params=params)
    blocks = paragraphs.notes_after_a_column_break(blocks, params=params)
    return paragraphs.dash_continuations(blocks)


def assemble(readings: list[PageReading], opts: AssembleOptions) -> Document:
    params = opts.params
    readings = sorted(readings, key=lambda r: r.page_number)
    body_size = _body_font_size(readings, params=params)
    prose = _prose_sizes(readings, params=params)
    body_ink = _body_ink(readings)
    body_stroke = _body_stroke(readings, params=params)
    repeated = furniture.repeated_furniture(readings, params=params)
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
        blocks = _page_blocks(reading, body_size, body_stroke, params=params)
        blocks = furniture.headers_in_text(blocks, body_size, repeated, params=params)
        pending_items: list[ReadBlock] = []
        edge_rows = furniture.edge_rows(blocks, reading, body_size=body_size, params=params)
        bold = (
            headings.bold_titles(blocks, body_size, body_stroke, params=params)
            if reading.source == "ocr"
            else set()
        ) | headings.centred_titles(blocks, params=params)
        for rb in blocks:
            if rb.kind == "list_item" and id(rb) in bold:
                # A centred title, its number read as a list's marker.
                number_the_title(rb, full_confidence=LAYOUT.full_confidence)
                rb.kind = "paragraph"
            if rb.kind == "list_item":
                pending_items.append(rb)
                continue
            if pending_items:
                page.blocks.append(_list_block(pending_items, params=params))
                pending_items = []
            kind = edge_rows.get(id(rb)) or _classify(
                rb, reading, body_size, body_ink, repeated, bold_title=id(rb) in bold,
                prose=prose[reading.source == "ocr"], params=params,
            )  # fmt: skip
            if kind == "heading" and headings.contents_entry(rb, params=params):
                kind = "paragraph"  # a line of a table of contents, its page number apart
            if kind == "page_number":
                number = PAGE_NUMBER.match(rb.text.strip())
                if number:
                    page.label = number.group(1)
                    continue
                kind = "page_footer"  # an engine's page number that is not one: keep its text
            block = _block(rb, kind, body_size, params=params)
            if reading.source == "ocr":
                block.font_range = letter_sizes(rb.words)  # steadier, for heading levels
            page.blocks.append(block)
        if pending_items:
            page.blocks.append(_list_block(pending_items, params=params))
        for f in reading.findings:
            findings.append(
                Finding(
                    code=f.get("code", "ENGINE_NOTE"),
                    level=f.get("level", "warning"),
                    message=f.get("message", ""),
                    page=reading.page_number,
                    printed=f.get("printed"),
                    script=f.get("script"),
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

    bookmarks.outline_headings(pages, {r.page_number: r.outline for r in readings}, params=params)
    for page in pages:
        exact = page.source == "text_layer"
        page.blocks = headings.no_bylines(page.blocks)
        page.blocks = headings.joined_headings(page.blocks, exact_sizes=exact, params=params)
        page.blocks = heading_numbers.split_numbered(page.blocks)
    heading_numbers.mended_roman_numbers(pages)
    heading_numbers.numbered_sequels(pages, params=params)
    title_page(pages, body_size, params=params)
    headings.assign_heading_levels(pages, body_size=body_size, params=params)
    text = "\n".join(b.text for p in pages for b in p.blocks if b.kind == "paragraph")
    lang = opts.language or _majority_language(readings) or detect_language(text)
    title = headings.title(pages, params=params) or opts.default_title
    doc = Document(title=title, lang=lang, pages=pages, findings=findings)
    doc.findings += document_doubts(doc)  # shapes a wrong reading leaves: for a reviewer
    return doc


# -- statistics over the whole document --------------------------------------------------------
def _body_font_size(readings: list[PageReading], *, params: AssembleParams) -> float:
    weighted: list[float] = []
    for r in readings:
        for b in r.blocks:
            if b.font_size and b.kind in ("paragraph", "list_item", "table"):
                chars = sum(len(c.get("text", "")) for row in b.rows or [] for c in row)
                weighted.extend(
                    [b.font_size] * max(1, (chars or len(b.text)) // params.weight_chars)
                )
    return statistics.median(weighted) if weighted else 0.0


def _prose_sizes(
    readings: list[PageReading], *, params: AssembleParams
) -> tuple[headings.ProseSizes, headings.ProseSizes]:
    """The sizes the document's prose is set in, as its text layers give them (exact) and as
    its scans measure them: [text layer, scan]. Lines in capitals are no prose (a thesis's
    title page, scanned: its title in capitals held 30 % of the page's characters, and its
    size passed for the prose's); they count in the whole."""
    exact: Counter[float] = Counter()
    measured: Counter[float] = Counter()
    capitals: Counter[float] = Counter()
    for r in readings:
        for b in r.blocks:
            if b.font_size and b.kind in ("paragraph", "list_item"):
                caps = headings.in_capitals(b.text, params=params)
                sizes = capitals if caps else measured if r.source == "ocr" else exact
                sizes[round(b.font_size, 1)] += len(b.text)
    total = sum(exact.values()) + sum(measured.values()) + sum(capitals.values())
    return (
        headings.ProseSizes(tuple(exact.items()), total, params.prose_size_exact_tolerance),
        headings.ProseSizes(tuple(measured.items()), total, params.prose_size_measured_tolerance),
    )


def _body_ink(readings: list[PageReading]) -> float:
    inks = [b.ink for r in readings for b in r.blocks if b.ink]
    return statistics.median(inks) if inks else 0.0


def _body_stroke(readings: list[PageReading], *, params: AssembleParams) -> float:
    """The body text's stroke width on scans (the engine's per-line measure), by characters."""
    weighted: list[float] = []
    for r in readings:
        for b in r.blocks:
            if b.stroke and b.kind in ("paragraph", "list_item"):
                weighted.extend([b.stroke] * max(1, len(b.text) // params.weight_chars))
    return statistics.median(weighted) if weighted else 0.0


def _majority_language(readings: list[PageReading]) -> str | None:
    langs = Counter(r.language for r in readings if r.language)
    return langs.most_common(1)[0][0] if langs else None


# -- per block ------------------------------------------------------------------------------------
def _classify(
    rb, reading, body_size, body_ink, repeated, *, bold_title: bool = False,
    prose: headings.ProseSizes = headings.ProseSizes(), params: AssembleParams,
) -> str:  # fmt: skip
    text = rb.text.strip()
    if rb.kind in ("page_header", "page_footer"):
        if PAGE_NUMBER.match(text):
            return "page_number"
        display = body_size and (rb.font_size or 0) >= params.header_display_ratio * body_size
        if rb.kind == "page_header" and display:
            # Running headers are small print: display type at the top is the page's title
            # (at the foot it is no title: a form's disclaimer set large is still its footer).
            return "heading" if real_words(rb.words, text) else "paragraph"
        if furniture.section_at_foot(rb, body_size, repeated):
            return "heading"
        return rb.kind
    if rb.kind == "heading" and headings.small_print(
        rb, body_size, measured=reading.source == "ocr", params=params
    ):
        return "paragraph"
    if rb.kind != "paragraph":
        return rb.kind
    kind = furniture.band_furniture(rb, reading, body_size, repeated, params=params)
    if kind:
        return kind
    heading = headings.is_heading(
        rb, body_size, body_ink, bold_title=bold_title, prose=prose, params=params
    )
    return "heading" if heading else "paragraph"


def _pieces(word: Word) -> list[tuple[str, str | None, str | None]]:
    """A word cut at its exponents, indices and inline formula: (text, None | "sup" | "sub" |
    "math", the formula's TeX) pieces."""
    pieces: list[tuple[str, str | None, str | None]] = []
    at = 0
    for start, end, kind, *tex in word.script or ():
        if start > at:
            pieces.append((word.text[at:start], None, None))
        pieces.append((word.text[start:end], kind, tex[0] if tex else None))
        at = end
    if at < len(word.text):
        pieces.append((word.text[at:], None, None))
    return pieces


_HYPHENS = "-\u2010\u00ad"


def _word_places(text: str, words: list[Word]) -> list[tuple[int, int] | None]:
    """Where each word stands in a block's text that the reading changed (a line-end hyphen
    mended: "compo-" "nents" -> "components"), in order: a word is found where the last one
    ended, past spaces and signs but no other letters than those of the words not found
    since (a word rewritten past finding); a word not found is None."""
    places: list[tuple[int, int] | None] = []
    at = skippable = 0
    for word in words:
        place = None
        plain = unicodedata.normalize("NFKC", word.text)  # a ligature "ﬁ" as "fi"
        for form in dict.fromkeys((word.text, word.text.rstrip(_HYPHENS), plain)):
            start = text.find(form, at) if form else -1
            if start >= 0 and sum(c.isalnum() for c in text[at:start]) <= skippable:
                place = (start, start + len(form))
                break
        places.append(place)
        if place:
            at, skippable = place[1], 0
        else:
            skippable += len(plain)
    return places


def _low_mask(text: str, words: list[Word], params: AssembleParams) -> list[bool]:
    """Which characters of the text belong to low-confidence words, whole printed words; a low
    word the text changed past finding marks what stands between its found neighbours."""
    places = _word_places(text, words)
    mask = [False] * len(text)
    for k, word in enumerate(words):
        if word.confidence >= params.low_confidence_percent:
            continue
        start, end = places[k] or (
            max((p[1] for p in places[:k] if p), default=0),
            min((p[0] for p in places[k + 1 :] if p), default=len(text)),
        )
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start == end:
            continue  # a word the reading dropped (noise) left nothing to doubt
        while start > 0 and not text[start - 1].isspace():
            start -= 1  # the whole printed word: a mended word is flagged whole
        while end < len(text) and not text[end].isspace():
            end += 1
        mask[start:end] = [True] * (end - start)
    return mask


def _changed_text_spans(rb: ReadBlock, params: AssembleParams) -> list[Span]:
    """Spans of a block whose text is not its words joined: only its low-confidence words
    flagged (one uncertain word no longer flags a whole paragraph)."""
    mask = _low_mask(rb.text, rb.words, params)
    spans: list[Span] = []
    for k, ch in enumerate(rb.text):
        low = mask[k] and not ch.isspace()
        if spans and (spans[-1].low_confidence == low or ch.isspace()):
            spans[-1].text += ch
        else:
            spans.append(Span(text=ch, low_confidence=low, lang=rb.lang))
    return spans or [Span(text=rb.text, lang=rb.lang)]


# Chinese and Japanese (ideographs, kana, their punctuation) are written without spaces between
# words: two such words were two lines of one sentence (MuPDF and Tesseract part words at
# spaces and line ends), and join with no space. Full-width digits and letters ("１．１ 絶縁",
# "ａ ねじ") keep their space; Korean spaces its words and Thai its phrases: they keep theirs.
_UNSPACED = re.compile(
    "[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]"
)


def _unspaced(before: str, after: str) -> bool:
    return bool(before and after and _UNSPACED.match(before[-1]) and _UNSPACED.match(after[0]))


def spans_from(rb: ReadBlock, *, params: AssembleParams = ASSEMBLE) -> list[Span]:
    """Text as spans; runs of low-confidence words become their own flagged spans, exponents
    and indices their own `sup`/`sub` spans."""
    if not rb.words:
        return [Span(text=rb.text, lang=rb.lang)]
    if " ".join(w.text for w in rb.words) != rb.text:
        return _changed_text_spans(rb, params)
    spans: list[Span] = []
    for i, word in enumerate(rb.words):
        low = word.confidence < params.low_confidence_percent
        lang = word.lang or rb.lang
        cjk = i and _unspaced(rb.words[i - 1].text, word.text)
        for j, (text, script, tex) in enumerate(_pieces(word)):
            sep = " " if i and not j and not cjk else ""
            last = spans[-1] if spans else None
            same = last and (last.low_confidence, last.lang, last.script) == (low, lang, script)
            if same and script != "math":  # each formula a span of its own
                last.text += sep + text
                continue
            if last and sep and last.script is None:
                last.text, sep = last.text + sep, ""
            elif sep and script == "math":
                spans.append(Span(text=sep, low_confidence=low, lang=lang))
                sep = ""
            spans.append(
                Span(text=sep + text, low_confidence=low, lang=lang, script=script, tex=tex)
            )
    return spans


def _block(rb: ReadBlock, kind: str, body_size: float, *, params: AssembleParams) -> Block:
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
        labels = " ".join(w.text for w in rb.words) or None
        return Block(kind="figure", alt=rb.alt, caption=rb.text or None, bbox=rb.bbox,
                     labels=labels)  # fmt: skip
    if kind == "formula":
        return Block(kind="formula", latex=rb.latex or rb.text, bbox=rb.bbox)
    if kind == "code":  # its lines and indentation as read: one span, no word spans
        return Block(kind="code", spans=[Span(text=rb.text, lang=rb.lang)], bbox=rb.bbox)
    if kind == "caption":
        kind = "paragraph"
    block = Block(kind=kind, spans=spans_from(rb, params=params), bbox=rb.bbox, lang=rb.lang)  # type: ignore[arg-type]
    block.font_key = rb.font_size or body_size
    block.bold = rb.bold
    if kind == "heading":
        # Provisional: a size rank, repaired into a clean outline in headings.assign_heading_levels.
        block.level = rb.level or 0
        block.is_title = rb.layout == "title"
    return block


def _list_block(items: list[ReadBlock], *, params: AssembleParams) -> Block:
    """Consecutive list items -> one list; deeper indentation nests under the previous item.
    An item standing higher than the one before opens the next column (or page): it stands at
    that item's depth, and the column's indents count from it (a bibliography's right column
    is no list nested in its left column's last entry)."""
    ordered = all(i.ordered for i in items)
    root: list[ListItem] = []
    stack: list[tuple[float, ListItem]] = []
    shift = 0.0  # the current column's indents, moved to line up with the column before
    for k, rb in enumerate(items):
        before = items[k - 1].bbox if k else None
        if rb.bbox and before and stack and rb.bbox[3] <= before[1]:
            shift = stack[-1][0] - rb.bbox[0]
        # Engines without boxes (the model) give the nesting depth instead.
        indent = rb.bbox[0] + shift if rb.bbox else float(rb.level or 1) * params.list_depth_indent
        step = (rb.font_size or params.unknown_font_size) * params.list_nest_step_ratio
        item = ListItem(spans=spans_from(rb, params=params), marker=rb.marker)
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
