"""Pages that already carry text (born-digital, or exported from a word processor): read the text
layer instead of OCR when it is trustworthy - exact and much faster. Trust is decided by
evidence (layer_trust): an earlier OCR run's layer is kept only when a fresh read of a sample
of its lines agrees, and text that is not language is never trusted. The words and lines of
the layer make the blocks (layer_words); the layout model then gives the blocks their kinds
(models.reading.layout_regions), with the page's vector drawings as pictures (layer_drawings),
its ruled tables read from their rules (layer_tables) and formulas rebuilt as TeX from their
glyphs where they can be (math_text).
"""

from __future__ import annotations

import logging
import statistics
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

import pymupdf
from PIL import Image

from models.engine import PageReading, ReadBlock, Word
from models.layout import page_regions
from models.reading.boxes import union
from models.reading.code_blocks import code_blocks
from models.reading.contents import contents_lists
from models.reading.doubts import engine_ranks, with_doubts
from models.reading.floor import fallback_finding, layer_plain_lines, plain_blocks, with_floor
from models.reading.inline_math import inline_formulas
from models.reading.layer_doubts import layer_table_doubts
from models.reading.layer_drawings import formula_transcriber, rules_in, with_drawings
from models.reading.layer_image import LayerImage
from models.reading.layer_tables import ruled_tables_finder
from models.reading.layer_trust import (
    is_junk_line,
    is_ocr_layer,
    line_text,
    looks_like_language,
    ocr_layer_agrees,
    reads_as_drawn,
)
from models.reading.layer_words import (
    attach,
    block_words,
    drawn_twice,
    expanded,
    join_text,
    joined_lines,
    page_words,
    radicals_joined,
    without_controls,
    word_styles,
)
from models.reading.layout_regions import apply_layout
from models.reading.line_numbers import line_number_words
from models.reading.page import ReadingPage
from models.reading.params.text_layer import (
    FULL_TURN_DEG,
    PERCENT,
    POINTS_PER_INCH,
    TEXT_LAYER,
    TextLayerParams,
)
from models.reading.scan_blocks import join_list_continuations

log = logging.getLogger(__name__)


def _ink_meter(image: Image.Image | None, params: TextLayerParams = TEXT_LAYER):
    """Share of dark pixels in a box of the page image (figures must hold an image)."""
    if image is None:
        return lambda box: params.unknown_ink_share
    gray = image.convert("L")

    def ink(box) -> float:
        x0, y0, x1, y1 = (int(v) for v in box)
        if x1 <= x0 or y1 <= y0:
            return 0.0
        hist = gray.crop((x0, y0, x1, y1)).histogram()
        return sum(hist[: params.dark_gray_level]) / (sum(hist) or 1)

    return ink


def _upright_in_own_frame(data: dict, params: TextLayerParams) -> bool:
    """Most of the page's letters lie on lines that run left to right in the page's own
    coordinates (get_text's "dir" of (1, 0))."""
    upright = other = 0
    for block in data["blocks"]:
        for line in block.get("lines", ()):
            letters = sum(len(span["text"].strip()) for span in line["spans"])
            dx, dy = line["dir"]
            if dx > params.upright_dx and abs(dy) < params.upright_dy:
                upright += letters
            else:
                other += letters
    return upright > other


def _owner(
    rects: list[pymupdf.Rect], word_box: tuple, block_no: int, params: TextLayerParams
) -> int | None:
    """The text block a word lies in. Words and blocks come from two extractions whose
    numbers need not agree (images, empty blocks): the word's centre decides. A block with
    no visible character (`rects` holds it empty) owns no word: a form's blocks of spaces lie
    over its text, and the words they took were lost with them."""
    x0, y0, x1, y1 = word_box
    centre = pymupdf.Point((x0 + x1) / 2, (y0 + y1) / 2)
    m = params.owner_margin_pt

    def holds(rect: pymupdf.Rect) -> bool:
        return not rect.is_empty and centre in rect + (-m, -m, m, m)

    if block_no < len(rects) and holds(rects[block_no]):
        return block_no
    holding = [k for k, rect in enumerate(rects) if holds(rect)]
    return min(holding, key=lambda k: abs(rects[k])) if holding else None


def _visible(block: dict) -> bool:
    """The dict text block draws a character that is not a space."""
    return any(span["text"].strip() for line in block.get("lines", ()) for span in line["spans"])


def _text_block(
    block: dict,
    skipped: set[int],
    words: list[Word],
    *,
    box: tuple,
    scale: float,
    params: TextLayerParams,
) -> ReadBlock | None:
    """A paragraph of a dict text block, its lines but those `skipped`, its words `words`
    (in pixels at `scale` per point, as `box`): its text, median text size and boldness; None
    when no line of text is left."""
    lines, sizes, bold_chars, chars = [], [], 0, 0
    for i, line in enumerate(block["lines"]):
        if i in skipped:
            continue
        text = without_controls("".join(span["text"] for span in line["spans"])).strip()
        if text:
            lines.append(text)
        for span in line["spans"]:
            n = len(span["text"].strip())
            chars += n
            sizes.extend([span["size"] * scale] * max(n, 1))
            if span["flags"] & pymupdf.TEXT_FONT_BOLD or "Bold" in span["font"]:
                bold_chars += n
    if not lines:
        return None
    if words:
        text = " ".join(word.text for word in words)
    else:
        text = lines[0]
        for line in lines[1:]:
            text = join_text(text, line)
    return ReadBlock(
        kind="paragraph",
        text=text,
        bbox=box,
        words=words,
        font_size=statistics.median(sizes) if sizes else None,
        bold=chars > 0 and bold_chars / chars > params.bold_share,
    )


def text_layer_reading(
    page: pymupdf.Page,
    *,
    page_number: int,
    dpi: int,
    image: Image.Image | None = None,
    params: TextLayerParams = TEXT_LAYER,
) -> PageReading | None:
    """A PageReading from the page's own text, or None when OCR must read it. `image` (the
    page rendered at `dpi`) lets figures be checked for content. When a step of ours fails on a
    trusted layer, the page is its layer's plain lines, with a finding (the error logged)."""
    try:
        ocr_layer = _trusted_layer(page, dpi=dpi, image=image, params=params)
    except Exception:
        log.exception("page %d: the text layer's check failed; OCR reads the page", page_number)
        return None
    if ocr_layer is None:
        return None
    try:
        reading = _layer_reading(page, ocr_layer, page_number=page_number, dpi=dpi,
                                 image=image, params=params)  # fmt: skip
    except Exception:
        log.exception("page %d: a reading step failed; its plain text layer is kept", page_number)
        reading = _plain_layer_reading(page, page_number=page_number, dpi=dpi)
    reading.outline = outline_entries(page, params=params)
    return reading


def outline_entries(
    page: pymupdf.Page, *, params: TextLayerParams = TEXT_LAYER
) -> list[tuple[int, str]]:
    """The file's outline entries (bookmarks) that point at this page, in the outline's order:
    (depth from 1, title). A broken outline is none: it is evidence, never needed."""
    try:
        toc = page.parent.get_toc(simple=True)
    except Exception:
        log.warning("page %d: the file's outline could not be read", page.number + 1)
        return []
    out = []
    for entry in toc:
        if len(out) == params.outline_max_entries:
            break
        level, title, target = entry[:3]
        if target == page.number + 1 and isinstance(title, str) and title.strip():
            depth = min(max(int(level), 1), params.outline_max_depth)
            out.append((depth, " ".join(title.split())[: params.outline_title_max_chars]))
    return out


def _trusted_layer(
    page: pymupdf.Page, *, dpi: int, image: Image.Image | None, params: TextLayerParams
) -> bool | None:
    """None when the page's layer is not to be trusted; else whether it is an OCR layer."""
    raw = page.get_text("text")
    if len(raw.strip()) < params.min_layer_chars:
        return None
    # Invisible text, or text under a page-size image: an earlier OCR run's layer, kept only
    # when a fresh read of a sample of its lines agrees (then the scan is its background, not
    # a figure).
    language = looks_like_language(raw, params=params)
    if is_ocr_layer(page, params=params):
        agrees = (
            language
            and image is not None
            and ocr_layer_agrees(page, image, dpi=dpi, text=raw, params=params)
        )
        return True if agrees else None
    # Letters in no language's proportions: a shifted font encoding ("Opnbddchmfr ne sgd")
    # reads otherwise than it is drawn; a code listing's identifiers ("\cs_new:Npn
    # \__gtl_concat:nnn", few vowels) read as drawn and are the page's text.
    if not language and (
        image is None or not reads_as_drawn(page, image, dpi=dpi, text=raw, params=params)
    ):
        return None
    return False


def _plain_layer_reading(page: pymupdf.Page, *, page_number: int, dpi: int) -> PageReading:
    """The layer's lines as paragraphs, in its order, on the page as shown."""
    to_pixels = _to_pixels(page.rotation_matrix * (dpi / POINTS_PER_INCH))
    plain = layer_plain_lines(page_words(page), to_pixels)
    rect = page.rect * (dpi / POINTS_PER_INCH)
    return PageReading(page_number=page_number, blocks=plain_blocks(plain), width=int(rect.width),
                       height=int(rect.height), source="text_layer",
                       findings=[fallback_finding(page_number)])  # fmt: skip


def _centre(word: tuple) -> pymupdf.Point:
    return pymupdf.Point((word[0] + word[2]) / 2, (word[1] + word[3]) / 2)


def _to_pixels(matrix: pymupdf.Matrix):
    def to_pixels(box) -> tuple[float, float, float, float]:
        rect = pymupdf.Rect(box) * matrix
        return (rect.x0, rect.y0, rect.x1, rect.y1)

    return to_pixels


@contextmanager
def _shown_upright(page: pymupdf.Page) -> Iterator[pymupdf.Page]:
    """A one-page copy of `page` without /Rotate that looks as the page is shown."""
    doc = pymupdf.open()
    try:
        doc.insert_pdf(page.parent, from_page=page.number, to_page=page.number)
        doc[0].remove_rotation()
        yield doc[0]
    finally:
        doc.close()


def _layer_reading(
    page: pymupdf.Page,
    ocr_layer: bool,
    *,
    page_number: int,
    dpi: int,
    image: Image.Image | None,
    params: TextLayerParams,
) -> PageReading:
    scale = dpi / POINTS_PER_INCH
    data = page.get_text("dict", sort=False)
    if page.rotation and not _upright_in_own_frame(data, params):
        # Lines upright only as the page is shown: read on a copy whose own frame is the page
        # as shown (its /Rotate folded into its content), where the table finder, the words,
        # the drawings and the layout model's regions all share one frame. PyMuPDF's table
        # finder works in the shown frame, its words in the page's own: tables were lost.
        with _shown_upright(page) as upright:
            return _layer_reading(upright, ocr_layer, page_number=page_number, dpi=dpi,
                                  image=image, params=params)  # fmt: skip
    # A page turned by /Rotate whose lines run upright in its own coordinates (a landscape
    # page set on its side, a scan's layer under a turned page) is read in those coordinates,
    # as a sideways scan is read turned upright: the layout model, reading order and boxes
    # all see upright lines, and the reading says how the page image turns to match them.
    # Lines upright only as the page is shown keep its turn (and their own blocks' order).
    own_frame = page.rotation == 0 or _upright_in_own_frame(data, params)
    rot = pymupdf.Identity if own_frame else page.rotation_matrix
    turn = (FULL_TURN_DEG - page.rotation) % FULL_TURN_DEG if own_frame else 0
    if turn and image is not None:
        image = image.rotate(page.rotation, expand=True)
    # Words are numbered by text block (image blocks do not count), dict blocks by block.
    text_blocks = [block for block in data["blocks"] if block["type"] == 0]
    text_no = {id(block): k for k, block in enumerate(text_blocks)}
    rects = [pymupdf.Rect(block["bbox"]) if _visible(block) else pymupdf.Rect()
             for block in text_blocks]  # fmt: skip
    radicals = radicals_joined(text_blocks, params=params)  # a radical sign's blocks: one
    joined = radicals.hosts
    # An OCR layer's lines of specks (a picture or a rule read as "RO", ";") leave its text.
    junk = {
        (k, i)
        for k, block in enumerate(text_blocks) if ocr_layer
        for i, line in enumerate(block.get("lines", ()))
        if is_junk_line(line_text(line), params=params)
    }  # fmt: skip
    junk_rects = [pymupdf.Rect(text_blocks[k]["lines"][i]["bbox"]) for k, i in junk]
    words_on_page = page_words(page)  # once: word_styles reads the same words
    # Line numbers in the margin (a manuscript's, pleading paper's) are no text of the page.
    numbered = line_number_words([(tuple(w[:4]), w[4]) for w in words_on_page])
    numbers_only = {words_on_page[k][5] for k in numbered} - {
        w[5] for k, w in enumerate(words_on_page) if k not in numbered
    }  # text blocks of line numbers alone
    words_on_page = [w for k, w in enumerate(words_on_page) if k not in numbered]
    # The plain reading under the structured one: the layer's lines, but its specks (above).
    plain = layer_plain_lines(
        [w for w in words_on_page if not any(_centre(w) in r for r in junk_rects)],
        _to_pixels(rot * scale),
    )
    styles = word_styles(page, words_on_page, params=params)
    scripts, word_size, word_text = styles.scripts, styles.sizes, styles.texts
    mono_words: set[int] = set()  # id() of the words set in a monospaced font
    # Inline formulas: their words made one, its TeX a "math" run over the formula's text.
    # (An OCR layer's fonts tell nothing of mathematics.)
    rules = rules_in(page, params=params)  # the inline and display formulas' bars, walked once
    formulas = {} if ocr_layer else inline_formulas(words_on_page, styles.glyphs, rules)
    head_of = {key: head for head, f in formulas.items() for key in f.keys[1:]}
    heads: dict[tuple, Word] = {}
    size_of: dict[int, float] = {}  # id(word) -> its text size in pixels
    words_in: dict[int, list[tuple[tuple[int, int], Word]]] = {}
    for x0, y0, x1, y1, text, block_no, line_no, word_no in words_on_page:
        k = _owner(rects, (x0, y0, x1, y1), block_no, params)
        centre = pymupdf.Point((x0 + x1) / 2, (y0 + y1) / 2)
        if k is None or any(centre in rect for rect in junk_rects):
            continue
        if k in radicals.feet:  # the sign reaches down to its radicand's line
            y1 = max(y1, radicals.feet[k])
        k = joined.get(k, k)
        box = pymupdf.Rect(x0, y0, x1, y1) * rot * scale
        key = (block_no, line_no, word_no)
        text = word_text.get(key) or expanded(text)  # accents composed, ligatures expanded
        head = heads.get(head_of.get(key))
        if head is not None:
            tail = Word(text=text, confidence=float(PERCENT), script=scripts.get(key))
            attach(head, tail, join=" ")
            head.bbox = union((head.bbox, (box.x0, box.y0, box.x1, box.y1)))
            continue
        word = Word(text=text, confidence=float(PERCENT), bbox=(box.x0, box.y0, box.x1, box.y1),
                    script=scripts.get(key))  # fmt: skip
        if key in formulas:
            heads[key] = word
        if key in word_size:
            size_of[id(word)] = word_size[key] * scale
        if key in styles.mono:
            mono_words.add(id(word))
        words_in.setdefault(k, []).append(((block_no, line_no), word))
    for key, word in heads.items():
        formula = formulas[key]
        end = len(word.text) - formula.trail  # a note's mark after it keeps its own run
        word.script = [[0, end, "math", formula.tex]] + [
            run for run in word.script or () if run[0] >= end
        ]
    blocks: list[ReadBlock] = []
    for number, block in enumerate(data["blocks"]):
        bbox = pymupdf.Rect(block["bbox"]) * rot * scale
        box = (bbox.x0, bbox.y0, bbox.x1, bbox.y1)
        if block["type"] == 1:
            scan = params.page_scan_block_share * abs(page.rect)
            if ocr_layer and abs(pymupdf.Rect(block["bbox"]) & page.rect) >= scan:
                continue  # the scan under the layer
            figure = ReadBlock(kind="figure", bbox=box)
            figure.order = (number,)
            blocks.append(figure)
            continue
        k = text_no[id(block)]
        if k in joined:
            continue  # its words are its host's
        parts = [text_blocks[j]["bbox"] for j, to in joined.items() if to == k]
        if parts:
            bbox = pymupdf.Rect(union([block["bbox"], *parts])) * rot * scale
            box = (bbox.x0, bbox.y0, bbox.x1, bbox.y1)
        skipped = {i for j, i in junk if j == k}
        words = block_words(words_in.get(k, []), params=params)
        if (words_in.get(k) and not words) or (k in numbers_only and not words):
            continue  # a dot leader alone, line numbers alone
        read = _text_block(block, skipped, words, box=box, scale=scale, params=params)
        if read is None:
            continue
        read.order = (number,)
        if any(drawn_twice(read, other, params=params) for other in blocks):
            continue  # the same text drawn again, shifted (a shadow, a stamp printed twice)
        blocks.append(read)
    if ocr_layer:
        blocks = joined_lines(blocks, params=params)
    rect = page.rect * page.derotation_matrix * scale if own_frame else page.rect * scale
    findings: list[dict] = []
    if own_frame:
        layout = page_regions(page, scale=scale)
        regions = with_drawings(page, layout, text_blocks, scale=scale, params=params)
        transcribe = formula_transcriber(page, scale=scale, rules=rules, params=params)
        ruled_tables = ruled_tables_finder(page, scale=scale, params=params)

        def text_size(words: list[Word]) -> float | None:
            """A part of a block cut by the layout (a heading MuPDF ran into its paragraph)
            has its own size: the median of its words' (weighted by length)."""
            known = [size_of[id(w)] for w in words for _ in w.text if id(w) in size_of]
            return statistics.median(known) if known else None

        # An OCR layer's words are a reading of ink: a ruling line may be one of its "|".
        answers = LayerImage(ink=_ink_meter(image), transcribe=transcribe,
                             ruled_tables=ruled_tables, text_size=text_size,
                             drawn=not ocr_layer)  # fmt: skip
        layered = ReadingPage(blocks=blocks, regions=regions, width=rect.width,
                              height=rect.height, dpi=dpi, source="text_layer")  # fmt: skip
        ranks = engine_ranks(blocks)  # the layer's own order, a second opinion on ours
        layered = apply_layout(layered, answers)
        # Listings first: a line of code is no list item, contents entry or heading.
        layered = replace(
            layered, blocks=code_blocks(layered.blocks, lambda w: id(w) in mono_words)
        )
        # A numbered note's lines after its first are its own, as on a scan (the layout
        # model's list-item region holds them all; its marker opens only the first).
        # A contents page's lines are entries, one list item each.
        layered = replace(layered, blocks=contents_lists(join_list_continuations(layered.blocks)))
        layered = with_doubts(layered, ranks)
        blocks, findings = layered.blocks, layered.findings
        findings += layer_table_doubts(page, blocks, scale=scale)
    floored = with_floor(
        ReadingPage(blocks=blocks, regions=[], width=rect.width, height=rect.height, dpi=dpi,
                    source="text_layer", findings=findings),
        plain,
        page_number=page_number,
    )  # fmt: skip
    blocks, findings = floored.blocks, floored.findings
    return PageReading(
        page_number=page_number,
        blocks=blocks,
        width=int(rect.width),
        height=int(rect.height),
        rotation=turn,
        source="text_layer",
        findings=findings,
    )
