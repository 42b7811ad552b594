"""Pages that already carry text (born-digital, or exported from a word processor): read the text
layer instead of OCR when it is trustworthy - exact and much faster. Trust is decided by
evidence: an earlier OCR run's layer (invisible text, or text under a page-size image) is kept
only when a fresh read of a sample of its lines agrees, else the page is read again; text that is
not language (shifted font encodings, private-use glyphs) is never trusted. The layout model
then gives the blocks their kinds (models.structure), and formulas are rebuilt as TeX from their
glyphs where they can be (math_text).

Over 450 lines: deciding whether to trust a layer and turning its words into blocks (lists,
tables, exponents) read the same words and spans of the page.
"""

from __future__ import annotations

import re
import statistics

import pymupdf
from PIL import Image
from rapidfuzz import fuzz

from models.engine import PageReading, ReadBlock, Word
from models.language import detect_language, language_scores
from models.layout import Region, page_regions
from models.ocr.lines import read_crops
from models.reading.kinds import CAPTION_LABEL
from models.reading.layer_image import LayerImage
from models.reading.layout_regions import apply_layout, overlap
from models.reading.markers import BULLET
from models.reading.math_text import Bar, Glyph, tex_from_glyphs
from models.reading.page import ReadingPage

MIN_CHARS = 40
UNMAPPED_SHARE = 0.02  # glyphs without a character a trusted layer may hold (of its characters)
_OCR_FONTS = ("GlyphLessFont", "GlyphLess")
_BOLD_FLAG = 16
# A grid cell holding this many lines that line up with those of STACKED_CELLS - 1 other cells
# of its row: rows the rules do not part.
STACKED_LINES = 3
STACKED_CELLS = 3


def _visible_text_fraction(page: pymupdf.Page) -> float:
    """Share of characters drawn visibly (render mode 3, used by OCR layers, is invisible)."""
    total = visible = 0
    for trace in page.get_texttrace():
        n = len(trace.get("chars", ()))
        total += n
        invisible = trace.get("type") == 3 or trace.get("opacity", 1) == 0
        if not invisible and not any(f in trace.get("font", "") for f in _OCR_FONTS):
            visible += n
    return visible / total if total else 0.0


_PRIVATE_USE = re.compile("[\ue000-\uf8ff]")
_VOWELS = set("aeiouyàáâäãåèéêëìíîïòóôöõùúûüæœ")


def looks_like_language(text: str) -> bool:
    """Text a reader can use, not glyph codes: few replacement marks, no private-use glyphs,
    mostly letters, words of two letters or more, and letters in the proportions of a
    language (a shifted font encoding, "Opnbddchmfr ne sgd", has few vowels and none of the
    short common words)."""
    visible = sum(not c.isspace() for c in text) or 1
    # A few glyphs without a character (a figure's labels, math italics: "node \ufffd") leave
    # the rest of a good layer good; more, and the font's text is not to be trusted.
    if text.count("\ufffd") + 5 * text.count("(cid:") > UNMAPPED_SHARE * visible:
        return False
    if len(_PRIVATE_USE.findall(text)) > 0.01 * visible:
        return False
    letters = [c for c in text.lower() if c.isalpha()]
    digits = sum(c.isdigit() for c in text)
    words = re.findall(r"[^\W\d_]{2,}", text)
    # A financial statement is half figures: letters and digits together make the text.
    if (len(letters) + digits) / visible <= 0.6 or len(letters) / visible <= 0.25:
        return False
    if len(words) < 5:
        return False
    latin = [c for c in letters if c.isascii() or c in _VOWELS]
    if len(latin) >= 0.8 * len(letters) and len(latin) >= 40:
        vowels = sum(c in _VOWELS for c in latin) / len(latin)
        if not 0.25 <= vowels <= 0.6:
            return False
        if len(words) >= 30 and max(language_scores(text).values()) < 0.03 * len(words):
            return False  # hardly a "the", "de" or "und" in thirty words: not a language
    return True


def _hidden_under_image(page: pymupdf.Page) -> bool:
    """Most of the text is drawn before an image that covers nearly the whole page: a scan
    laid over an earlier OCR run's text. (Text drawn over a page-size image, as on a slide
    with a background picture, is visible and stays.)"""
    area = abs(page.rect) or 1.0
    text_ops = hidden = pending = 0
    for kind, rect in page.get_bboxlog():
        if kind.endswith("-text"):
            text_ops += 1
            pending += 1
        elif kind == "fill-image" and abs(pymupdf.Rect(rect) & page.rect) >= 0.8 * area:
            hidden += pending
            pending = 0
    return text_ops > 0 and hidden >= 0.5 * text_ops


# An OCR layer is kept when a fresh read of a sample of its lines agrees with it.
SAMPLE_LINES = 10
AGREE_MEAN = 0.9  # mean similarity of a sampled line with the fresh read of its crop
AGREE_LINE = 0.85  # a line that agrees this much...
AGREE_SHARE = 0.8  # ...and this share of the sample must
JUNK_SHARE = 0.1  # a layer with more of its text in lines of specks is not kept


def is_junk_line(text: str) -> bool:
    """A line an OCR run read from specks, rules or a picture ("a. t>.", "RO", ";"): few
    letters or digits, or a short run that is no number."""
    chars = text.replace(" ", "")
    alnum = sum(c.isalnum() for c in chars)
    return alnum < 0.6 * len(chars) or (alnum <= 2 and not chars.isdigit())


def _line_text(line: dict) -> str:
    """A dict line's text, each run of white space one space."""
    return " ".join("".join(span["text"] for span in line["spans"]).split())


def _layer_lines(page: pymupdf.Page) -> list[tuple[str, pymupdf.Rect]]:
    lines = []
    for block in page.get_text("dict", sort=True)["blocks"]:
        for line in block.get("lines", ()):
            text = _line_text(line)
            if text:
                lines.append((text, pymupdf.Rect(line["bbox"])))
    return lines


def ocr_layer_agrees(page: pymupdf.Page, image: Image.Image, *, dpi: int, text: str) -> bool:
    """An earlier OCR run's layer is kept only when it is mostly real lines and Tesseract,
    reading the crops of a sample of them afresh, finds the same text (case and punctuation
    count: a lower-cased layer or a layer of misread handwriting does not agree)."""
    lines = _layer_lines(page)
    chars = sum(len(line) for line, _ in lines) or 1
    if sum(len(line) for line, _ in lines if is_junk_line(line)) > JUNK_SHARE * chars:
        return False
    # Lines long enough that agreeing says something (a short word is found in any read).
    real = [(line, rect) for line, rect in lines
            if sum(c.isalnum() for c in line) >= 10 and rect.height > 0]  # fmt: skip
    if len(real) < 3:
        return False
    step = max(1.0, len(real) / SAMPLE_LINES)
    sample = [real[int(i * step)] for i in range(min(SAMPLE_LINES, len(real)))]
    scale = dpi / 72
    boxes = []
    for _, rect in sample:
        box = rect * page.rotation_matrix * scale
        boxes.append((box.x0, box.y0, box.x1, box.y1))
    lang = detect_language(text, default=None) or "en"
    reads = read_crops(image, boxes, dpi=dpi, lang=lang)
    scores = [fuzz.partial_ratio(line, read) / 100 if read else 0.0
              for (line, _), read in zip(sample, reads, strict=True)]  # fmt: skip
    agreeing = sum(score >= AGREE_LINE for score in scores)
    return statistics.fmean(scores) >= AGREE_MEAN and agreeing >= AGREE_SHARE * len(scores)


def _ink_meter(image: Image.Image | None):
    """Share of dark pixels in a box of the page image (figures must hold an image)."""
    if image is None:
        return lambda box: 0.5
    gray = image.convert("L")

    def ink(box) -> float:
        x0, y0, x1, y1 = (int(v) for v in box)
        if x1 <= x0 or y1 <= y0:
            return 0.0
        hist = gray.crop((x0, y0, x1, y1)).histogram()
        return sum(hist[:160]) / (sum(hist) or 1)

    return ink


def _lines_at(edges: list[float], tolerance: float = 2.0) -> list[float]:
    """Cell edges merged into the grid's lines (edges closer than `tolerance` are one)."""
    lines: list[float] = []
    for edge in sorted(edges):
        if not lines or edge - lines[-1] > tolerance:
            lines.append(edge)
    return lines


def _words_in(box, words: list[tuple]) -> list[tuple]:
    """The words (PyMuPDF "words" tuples) whose centre lies in box."""
    return [w for w in words if box[0] <= (w[0] + w[2]) / 2 <= box[2]
            and box[1] <= (w[1] + w[3]) / 2 <= box[3]]  # fmt: skip


def _rows_not_ruled(rows: list, words: list[tuple]) -> bool:
    """Rules that frame the table but do not part its printed rows (a rule under the header and
    one at the foot, as journals print them): one grid row in which three cells or more stack
    several lines that line up with the other cells' lines holds many printed rows. (Two cells
    side by side, each a list of a few lines, are cells of their own.)"""
    for row in rows:
        stacks = []
        for box in row.cells:
            if box is None:
                continue
            # Centres within 2 pt are one line.
            lines = _lines_at([round((w[1] + w[3]) / 2) for w in _words_in(box, words)])
            if len(lines) >= STACKED_LINES:
                stacks.append(lines)
        for a in stacks:
            lined_up = sum(
                sum(any(abs(y - z) <= 2 for z in b) for y in a) >= 0.6 * min(len(a), len(b))
                for b in stacks
                if b is not a
            )
            if lined_up >= STACKED_CELLS - 1:
                return True
    return False


def _unruled_column_gaps(rows: list, words: list[tuple]) -> list[float]:
    """Where rules do not part two printed columns (a category beside its description, no rule
    between them): the middle of a vertical gap that every body cell of one grid column, three
    or more, leaves free, wider than a line is tall."""
    if not words:
        return []
    height = statistics.median(w[3] - w[1] for w in words)
    gaps = []
    for c in range(max((len(row.cells) for row in rows), default=0)):
        shared: list[tuple[float, float]] | None = None
        cells = 0
        for row in rows[1:]:
            box = row.cells[c] if c < len(row.cells) else None
            inside = _words_in(box, words) if box else []
            if len(inside) < 2:
                continue
            cells += 1
            spans = sorted((w[0], w[2]) for w in inside)
            free, reach = [], spans[0][1]
            for a, b in spans[1:]:
                if a > reach:
                    free.append((reach, a))
                reach = max(reach, b)
            shared = free if shared is None else [
                (max(a, x), min(b, y)) for a, b in shared for x, y in free if min(b, y) > max(a, x)
            ]  # fmt: skip
        if cells >= 3 and shared:
            a, b = max(shared, key=lambda gap: gap[1] - gap[0])
            if b - a >= height:
                gaps.append((a + b) / 2)
    return gaps


def _ruled_table(tables: list, region: pymupdf.Rect, page: pymupdf.Page) -> list[list[dict]] | None:
    """The table drawn with rules under a table region, from PyMuPDF's table finder (its
    vector lines give cells and spans exactly); None when no single ruled table holds most of
    the region (then the words decide)."""
    area = abs(region) or 1.0
    under = [t for t in tables if abs(pymupdf.Rect(t.bbox) & region) >= 0.5 * area]
    if len(under) != 1:
        return None
    table = under[0]
    boxes = [c for c in table.cells if c]
    xs = _lines_at([b[0] for b in boxes] + [max(b[2] for b in boxes)])
    ys = _lines_at([b[1] for b in boxes] + [max(b[3] for b in boxes)])
    # Cell text from the page's words (extract() joins glyphs placed without space characters).
    words = page.get_text("words", clip=pymupdf.Rect(table.bbox))

    def text_in(box) -> str:
        inside = _words_in(box, words)
        return " ".join(w[4] for w in sorted(inside, key=lambda w: (w[5], w[6], w[7])))

    if _rows_not_ruled(table.rows, words):
        return None  # the words decide
    # A column the rules do not part is parted at its gap; a cell whose words cross the gap (a
    # header over both) spans both.
    splits = _unruled_column_gaps(table.rows, words)
    xs = sorted(xs + splits)
    rows: list[list[dict]] = []
    # Each ruled cell's text, read once: for the share of cells filled, and for the cell itself
    # when no gap parts it.
    whole_texts = [text_in(box) for row in table.rows for box in row.cells if box is not None]
    if sum(map(bool, whole_texts)) < 0.7 * len(whole_texts):
        return None  # rules that do not separate the text (a spreadsheet's partial grid)
    texts = iter(whole_texts)
    for row in table.rows:
        cells = []
        for whole in row.cells:
            if whole is None:
                continue  # covered by a spanning cell
            whole_text = next(texts)
            inner = [x for x in splits if whole[0] < x < whole[2]]
            if any(w[0] < x < w[2] for x in inner for w in _words_in(whole, words)):
                inner = []
            edges = [whole[0], *inner, whole[2]]
            for x0, x1 in zip(edges, edges[1:], strict=False):
                box = (x0, whole[1], x1, whole[3])
                colspan = sum(
                    box[0] - 1 <= (a + b) / 2 <= box[2] + 1
                    for a, b in zip(xs, xs[1:], strict=False)
                )
                rowspan = sum(
                    box[1] - 1 <= (a + b) / 2 <= box[3] + 1
                    for a, b in zip(ys, ys[1:], strict=False)
                )
                text = text_in(box) if inner else whole_text
                cells.append({"text": text, "header": False,
                              "rowspan": max(rowspan, 1), "colspan": max(colspan, 1)})  # fmt: skip
        rows.append(cells)
    head = 2 if len(rows) > 2 and any(c["colspan"] > 1 for c in rows[0]) else 1
    if not table.header.external:
        for row in rows[:head]:
            for cell in row:
                cell["header"] = True
    return rows


SCRIPT_SIZE = 0.85  # an exponent or index is set this much smaller than its line, or more
SCRIPT_SHIFT = 0.15  # and its baseline moved by this share of the line's size, or more


def _line_glyphs(line: dict) -> list[tuple[dict, float, str | None]]:
    """Each character of a rawdict line with its size and its mark: "sup" (smaller and raised
    above the line's baseline), "sub" (smaller and lowered) or None."""
    chars = [(char, span["size"]) for span in line["spans"] for char in span["chars"]]
    sizes = [size for char, size in chars if not char["c"].isspace()]
    if not sizes:
        return [(char, size, None) for char, size in chars]
    body = max(set(sizes), key=sizes.count)
    base = statistics.median(c["origin"][1] for c, size in chars if size == body)
    out: list[tuple[dict, float, str | None]] = []
    for char, size in chars:
        shift = char["origin"][1] - base
        if char["c"].isspace() or size > SCRIPT_SIZE * body or abs(shift) < SCRIPT_SHIFT * body:
            out.append((char, size, None))
        else:
            out.append((char, size, "sup" if shift < 0 else "sub"))
    return out


def word_styles(
    page: pymupdf.Page, words: list[tuple] | None = None
) -> tuple[dict[tuple[int, int, int], list], dict[tuple[int, int, int], float]]:
    """Per word (text block, line, word): its exponents and indices ("2t3" with a raised "3",
    from the glyphs' sizes and baselines) as [[start, end, "sup" | "sub"], ...], and its own
    text size in points (a heading's, not that of the paragraph MuPDF put it in). `words`: the
    page's `get_text("words", sort=False)` when the caller already has it."""
    scripts: dict[tuple[int, int, int], list] = {}
    sizes: dict[tuple[int, int, int], float] = {}
    # Words and glyphs come from two extractions whose lines need not be numbered alike: a
    # word's glyphs are those whose centres lie in its box (glyphs bucketed by height).
    buckets: dict[int, list[tuple[float, float, dict, float, str | None]]] = {}
    for block in page.get_text("rawdict", sort=False)["blocks"]:
        for line in block.get("lines", ()):
            for char, size, mark in _line_glyphs(line):
                if not char["c"].isspace():
                    cx = (char["bbox"][0] + char["bbox"][2]) / 2
                    cy = (char["bbox"][1] + char["bbox"][3]) / 2
                    buckets.setdefault(int(cy // 8), []).append((cx, cy, char, size, mark))
    if words is None:
        words = page.get_text("words", sort=False)
    for x0, y0, x1, y1, text, k, i, n in words:
        inside = [
            (char, size, mark)
            for bucket in range(int(y0 // 8), int(y1 // 8) + 1)
            for cx, cy, char, size, mark in buckets.get(bucket, ())
            if x0 - 0.5 <= cx <= x1 + 0.5 and y0 - 0.5 <= cy <= y1 + 0.5
        ]
        inside.sort(key=lambda item: item[0]["origin"][0])
        if "".join(c["c"] for c, _, _ in inside) != text:
            continue
        body = [size for _, size, m in inside if not m] or [size for _, size, _ in inside]
        sizes[(k, i, n)] = max(set(body), key=body.count)
        kinds = [m for _, _, m in inside]
        if not any(kinds):
            continue
        runs: list[list] = []
        for at, kind in enumerate(kinds):
            if kind and runs and runs[-1][1] == at and runs[-1][2] == kind:
                runs[-1][1] = at + 1
            elif kind:
                runs.append([at, at + 1, kind])
        scripts[(k, i, n)] = runs
    return scripts, sizes


def _glyphs(page: pymupdf.Page, clip: pymupdf.Rect) -> list[Glyph]:
    glyphs = []
    for block in page.get_text("rawdict", clip=clip)["blocks"]:
        for line in block.get("lines", ()):
            for span in line["spans"]:
                for char in span["chars"]:
                    glyphs.append(Glyph(char["c"], span["size"], char["origin"][0],
                                        char["origin"][1], tuple(char["bbox"]),
                                        span["font"]))  # fmt: skip
    return glyphs


# A drawing is a picture when it is this big (points) or more, and this share of its strokes or
# more are curves or slanted lines: a table, a form or a frame is drawn with level and upright
# lines and boxes alone (0 % on the realworld pages' tables and forms, 19-47 % on a text-book's
# diagrams, a paper's chart and a chemistry paper's structures).
DRAWN_PICTURE = (72.0, 50.0)
SLANTED_SHARE = 0.15
# A page of more vector paths than this (a map, a plot of many thousand markers) is not looked
# through for drawings: clustering them costs about 80 us a path, and such a page keeps what the
# layout model saw.
MAX_DRAWINGS = 20_000


def with_drawings(
    page: pymupdf.Page, regions: list[Region], text_blocks: list[dict], *, scale: float
) -> list[Region]:
    """The layout regions of a born-digital page with its vector drawings that are pictures
    (PyMuPDF's `cluster_drawings`) as "drawing" regions (in the regions' pixels). The model
    reads text boxes and a small image of the page: it missed diagrams drawn without any text
    (a text-book's cubes came out as nothing at all), and a picture region it found over a
    chart was kept as text for the labels in it (the axes' numbers and legend read as
    paragraphs). A drawing takes the place of the picture regions it overlaps (their union);
    none is made where the model saw a table or a formula. `apply_layout` makes figures of
    drawings as of pictures, the labels inside taken into the figure unless they are prose.
    `text_blocks`: the page's text blocks as `get_text("dict")` gives them."""
    drawings = page.get_drawings()
    if not drawings or len(drawings) > MAX_DRAWINGS:
        return regions
    kept = [r for r in regions if r.kind in ("table", "formula")]
    page_area = abs(page.rect)
    labels = [pymupdf.Rect(block["bbox"]) for block in text_blocks if _label(block)]
    replaced: list[Region] = []
    found: list[Region] = []
    for rect in page.cluster_drawings(drawings=drawings):
        if rect.width < DRAWN_PICTURE[0] or rect.height < DRAWN_PICTURE[1]:
            continue
        if abs(rect) > 0.8 * page_area:
            continue  # a frame around the page
        strokes = slanted = 0
        for drawing in drawings:
            if rect.contains(drawing["rect"]):
                for item in drawing["items"]:
                    strokes += 1
                    slanted += _slanted(item)
        if strokes < 10 or slanted < SLANTED_SHARE * strokes:
            continue
        rect = _with_labels(rect, labels)
        box = (rect.x0 * scale, rect.y0 * scale, rect.x1 * scale, rect.y1 * scale)
        if any(overlap(box, region.bbox) for region in kept):
            continue
        pictures = [r for r in regions if r.kind == "picture" and overlap(box, r.bbox)]
        replaced += pictures
        boxes = [box] + [r.bbox for r in pictures]
        union = tuple(f(b[k] for b in boxes) for k, f in enumerate((min, min, max, max)))
        found.append(Region("drawing", union))  # type: ignore[arg-type]
    return [r for r in regions if r not in replaced] + found


def _label(block: dict) -> bool:
    """A text block that can be a drawing's label (a tick's number, an axis title, a legend's
    entry): two lines and six words at most, and no caption ("Fig. 2 ...")."""
    text = " ".join(span["text"] for line in block["lines"] for span in line["spans"])
    return len(block["lines"]) <= 2 and len(text.split()) <= 6 and not CAPTION_LABEL.match(text)


def _with_labels(rect: pymupdf.Rect, labels: list[pymupdf.Rect]) -> pymupdf.Rect:
    """A drawing with the labels set around it (each less than one and a half of its own height
    away from the drawing, or from a label already taken: a chart's axis title beyond its
    ticks' numbers)."""
    grown = pymupdf.Rect(rect)
    for _ in range(3):
        before = pymupdf.Rect(grown)
        for label in labels:
            reach = 1.5 * min(label.width, label.height)  # a turned label's height is its width
            if not grown.contains(label) and _gap(grown, label) < reach:
                grown |= label
        if grown == before:
            break
    return grown


def _gap(a: pymupdf.Rect, b: pymupdf.Rect) -> float:
    """The distance between two boxes (0 when they touch or overlap)."""
    dx = max(0.0, b.x0 - a.x1, a.x0 - b.x1)
    dy = max(0.0, b.y0 - a.y1, a.y0 - b.y1)
    return max(dx, dy)


def _slanted(item: tuple) -> bool:
    """A curve, a slanted line or a quad that is no upright rectangle."""
    if item[0] == "c":
        return True
    if item[0] == "l":
        a, b = item[1], item[2]
        return abs(a.x - b.x) > 1 and abs(a.y - b.y) > 1
    return item[0] == "qu" and not item[1].is_rectangular


def _page_bars(page: pymupdf.Page) -> list[Bar]:
    """The page's horizontal rules (a stroked line, or a filled box thinner than a point and a
    half, as TeX draws fraction bars): x0, x1, y."""
    bars = []
    for drawing in page.get_drawings():
        for item in drawing["items"]:
            if item[0] == "l":
                a, b = item[1], item[2]
                if abs(a.y - b.y) < 0.5:
                    bars.append((min(a.x, b.x), max(a.x, b.x), (a.y + b.y) / 2))
            elif item[0] == "re" and item[1].height < 1.5 and item[1].width > 2:
                bars.append((item[1].x0, item[1].x1, (item[1].y0 + item[1].y1) / 2))
    return bars


def _bars_in(bars: list[Bar], clip: pymupdf.Rect) -> list[Bar]:
    """The rules drawn inside clip: most of their length (a browser draws a fraction bar a
    point or two past the glyphs the layout model boxes; a table's rule crossing the region
    is not one)."""
    x0, y0, x1, y1 = clip.x0 - 1, clip.y0, clip.x1 + 1, clip.y1
    return [
        bar for bar in bars
        if y0 <= bar[2] <= y1 and min(bar[1], x1) - max(bar[0], x0) >= 0.8 * (bar[1] - bar[0])
    ]  # fmt: skip


_HYPHENS = ("-", "\xad", "¬")  # a hyphen, a soft hyphen, an old OCR's "not" sign


def _drawn_twice(block: ReadBlock, other: ReadBlock) -> bool:
    """The same line or more of text as `other`, in a box overlapping it (a stamp or running
    header a PDF draws twice, a little apart)."""
    if len(block.text) < 12 or block.text != other.text or not block.bbox or not other.bbox:
        return False
    return abs(pymupdf.Rect(block.bbox) & pymupdf.Rect(other.bbox)) > 0


def _join_text(text: str, line: str) -> str:
    if text.endswith(_HYPHENS) and line[:1].islower():
        return text[:-1] + line
    return f"{text} {line}"


def _shifted(script: list | None, by: int) -> list:
    return [[start + by, end + by, kind] for start, end, kind in script or ()]


def _attach(prev: Word, word: Word, *, join: str = "") -> None:
    """`word` appended to `prev` (its exponents moved along)."""
    by = len(prev.text) + len(join) - (1 if join in _HYPHENS else 0)
    head = prev.text[:-1] if join in _HYPHENS else prev.text + join
    prev.script = (prev.script or []) + _shifted(word.script, by) or None
    prev.text = head + word.text


def _block_words(entries: list[tuple[tuple[int, int], Word]]) -> list[Word]:
    """A block's words in order, each a word of the text: an exponent MuPDF put apart (a
    raised "2" after "3t", its own word or even its own line) joins the word it is set
    against, and a word hyphenated at a line end is mended, so the block's text is its words
    joined by spaces (and its spans keep exponents and languages)."""
    out: list[Word] = []
    last_line = None
    for line, word in entries:
        prev = out[-1] if out else None
        whole = word.script and word.script[0][:2] == [0, len(word.text)]
        if prev and whole and prev.bbox and word.bbox:
            height = prev.bbox[3] - prev.bbox[1]
            touching = -0.1 * height <= word.bbox[0] - prev.bbox[2] <= 0.15 * height
            if touching and word.bbox[1] < prev.bbox[3] and word.bbox[3] > prev.bbox[1]:
                _attach(prev, word)
                continue
        if whole:
            word.script = None  # a marker set small on its own: plain text
        if (
            prev and line != last_line and prev.text.endswith(_HYPHENS) and len(prev.text) > 2
            and prev.text[-2].isalpha() and word.text[:1].islower()
        ):  # fmt: skip
            _attach(prev, word, join=prev.text[-1])
        else:
            out.append(word)
        last_line = line
    return out


def _joined_lines(blocks: list[ReadBlock]) -> list[ReadBlock]:
    """An OCR layer is written line by line (MuPDF makes each line a block): lines of one
    column that follow closely, at one size, join again; the layout regions then cut the run
    into its paragraphs and headings (models.structure)."""
    out: list[ReadBlock] = []
    for block in blocks:
        last = out[-1] if out else None
        bullet = BULLET.match(block.text) if block.kind == "paragraph" else None
        if bullet:  # a printed bullet (read as "¢", "©", "e") starts a list item, as in OCR
            block.kind = "list_item"
            block.marker = bullet.group(0).strip()
            block.text = block.text[bullet.end() :]
            block.words = block.words[1:] if len(block.words) > 1 else block.words
        elif (
            last is not None and last.kind in ("paragraph", "list_item")
            and block.kind == "paragraph"
            and last.bbox and block.bbox and last.font_size and block.font_size
            and abs(last.font_size - block.font_size) <= 0.2 * last.font_size
            and 0 <= block.bbox[1] - last.bbox[3] + 0.2 * last.font_size <= 0.9 * last.font_size
            and min(last.bbox[2], block.bbox[2]) - max(last.bbox[0], block.bbox[0])
            >= 0.5 * min(last.bbox[2] - last.bbox[0], block.bbox[2] - block.bbox[0])
        ):  # fmt: skip
            last.text = _join_text(last.text, block.text)
            if (
                last.words
                and block.words
                and last.text != " ".join(w.text for w in last.words + block.words)
            ):
                mended = last.words[-1]  # hyphenated across the two lines
                _attach(mended, block.words[0], join=mended.text[-1])
                last.words = last.words + block.words[1:]
            else:
                last.words = last.words + block.words
            last.bbox = (min(last.bbox[0], block.bbox[0]), last.bbox[1],
                         max(last.bbox[2], block.bbox[2]), block.bbox[3])  # fmt: skip
            last.bold = last.bold and block.bold
            continue
        out.append(block)
    return out


def _upright_in_own_frame(data: dict) -> bool:
    """Most of the page's letters lie on lines that run left to right in the page's own
    coordinates (get_text's "dir" of (1, 0))."""
    upright = other = 0
    for block in data["blocks"]:
        for line in block.get("lines", ()):
            letters = sum(len(span["text"].strip()) for span in line["spans"])
            dx, dy = line["dir"]
            if dx > 0.9 and abs(dy) < 0.1:
                upright += letters
            else:
                other += letters
    return upright > other


def text_layer_reading(
    page: pymupdf.Page, *, page_number: int, dpi: int, image: Image.Image | None = None
) -> PageReading | None:
    """A PageReading from the page's own text, or None when OCR must read it. `image` (the
    page rendered at `dpi`) lets figures be checked for content."""
    raw = page.get_text("text")
    if len(raw.strip()) < MIN_CHARS or not looks_like_language(raw):
        return None
    # Invisible text, or text under a page-size image: an earlier OCR run's layer, kept only
    # when a fresh read of a sample of its lines agrees (then the scan is its background, not
    # a figure).
    ocr_layer = _visible_text_fraction(page) < 0.9 or _hidden_under_image(page)
    if ocr_layer and (image is None or not ocr_layer_agrees(page, image, dpi=dpi, text=raw)):
        return None
    scale = dpi / 72
    data = page.get_text("dict", sort=False)
    # A page turned by /Rotate whose lines run upright in its own coordinates (a landscape
    # page set on its side, a scan's layer under a turned page) is read in those coordinates,
    # as a sideways scan is read turned upright: the layout model, reading order and boxes
    # all see upright lines, and the reading says how the page image turns to match them.
    # Lines upright only as the page is shown keep its turn (and their own blocks' order).
    own_frame = page.rotation == 0 or _upright_in_own_frame(data)
    rot = pymupdf.Identity if own_frame else page.rotation_matrix
    turn = (360 - page.rotation) % 360 if own_frame else 0
    if turn and image is not None:
        image = image.rotate(page.rotation, expand=True)
    # Words are numbered by text block (image blocks do not count), dict blocks by block.
    text_blocks = [block for block in data["blocks"] if block["type"] == 0]
    text_no = {id(block): k for k, block in enumerate(text_blocks)}
    rects = [pymupdf.Rect(block["bbox"]) for block in text_blocks]
    # An OCR layer's lines of specks (a picture or a rule read as "RO", ";") leave its text.
    junk = {
        (k, i)
        for k, block in enumerate(text_blocks) if ocr_layer
        for i, line in enumerate(block.get("lines", ()))
        if is_junk_line(_line_text(line))
    }  # fmt: skip
    junk_rects = [pymupdf.Rect(text_blocks[k]["lines"][i]["bbox"]) for k, i in junk]

    def owner(x0: float, y0: float, x1: float, y1: float, block_no: int) -> int | None:
        """The text block a word lies in. Words and blocks come from two extractions whose
        numbers need not agree (images, empty blocks): the word's centre decides."""
        centre = pymupdf.Point((x0 + x1) / 2, (y0 + y1) / 2)
        if block_no < len(rects) and centre in rects[block_no] + (-1, -1, 1, 1):
            return block_no
        holding = [k for k, rect in enumerate(rects) if centre in rect + (-1, -1, 1, 1)]
        return min(holding, key=lambda k: abs(rects[k])) if holding else None

    page_words = page.get_text("words", sort=False)  # once: word_styles reads the same words
    scripts, word_size = word_styles(page, page_words)
    size_of: dict[int, float] = {}  # id(word) -> its text size in pixels
    words_in: dict[int, list[tuple[tuple[int, int], Word]]] = {}
    for x0, y0, x1, y1, text, block_no, line_no, word_no in page_words:
        k = owner(x0, y0, x1, y1, block_no)
        centre = pymupdf.Point((x0 + x1) / 2, (y0 + y1) / 2)
        if k is None or any(centre in rect for rect in junk_rects):
            continue
        box = pymupdf.Rect(x0, y0, x1, y1) * rot * scale
        key = (block_no, line_no, word_no)
        word = Word(text=text, confidence=100.0, bbox=(box.x0, box.y0, box.x1, box.y1),
                    script=scripts.get(key))  # fmt: skip
        if key in word_size:
            size_of[id(word)] = word_size[key] * scale
        words_in.setdefault(k, []).append(((block_no, line_no), word))
    blocks: list[ReadBlock] = []
    for number, block in enumerate(data["blocks"]):
        bbox = pymupdf.Rect(block["bbox"]) * rot * scale
        box = (bbox.x0, bbox.y0, bbox.x1, bbox.y1)
        if block["type"] == 1:
            if ocr_layer and abs(pymupdf.Rect(block["bbox"]) & page.rect) >= 0.5 * abs(page.rect):
                continue  # the scan under the layer
            figure = ReadBlock(kind="figure", bbox=box)
            figure.order = (number,)
            blocks.append(figure)
            continue
        lines, sizes, bold_chars, chars = [], [], 0, 0
        for i, line in enumerate(block["lines"]):
            if (text_no[id(block)], i) in junk:
                continue
            text = "".join(span["text"] for span in line["spans"]).strip()
            if text:
                lines.append(text)
            for span in line["spans"]:
                n = len(span["text"].strip())
                chars += n
                sizes.extend([span["size"] * scale] * max(n, 1))
                if span["flags"] & _BOLD_FLAG or "Bold" in span["font"]:
                    bold_chars += n
        if not lines:
            continue
        words = _block_words(words_in.get(text_no[id(block)], []))
        if words:
            text = " ".join(word.text for word in words)
        else:
            text = lines[0]
            for line in lines[1:]:
                text = _join_text(text, line)
        read = ReadBlock(
            kind="paragraph",
            text=text,
            bbox=box,
            words=words,
            font_size=statistics.median(sizes) if sizes else None,
            bold=chars > 0 and bold_chars / chars > 0.6,
        )
        read.order = (number,)
        if any(_drawn_twice(read, other) for other in blocks):
            continue  # the same text drawn again, shifted (a shadow, a stamp printed twice)
        blocks.append(read)
    if ocr_layer:
        blocks = _joined_lines(blocks)
    rect = page.rect * page.derotation_matrix * scale if own_frame else page.rect * scale
    findings: list[dict] = []
    if own_frame:
        regions = with_drawings(page, page_regions(page, scale=scale), text_blocks, scale=scale)

        bars: list[Bar] | None = None

        def transcribe(box) -> str | None:
            nonlocal bars
            if bars is None:  # the page's drawn rules, walked once (only if a formula asks)
                bars = _page_bars(page)
            clip = pymupdf.Rect(box) / scale
            return tex_from_glyphs(_glyphs(page, clip), _bars_in(bars, clip))

        ruled: list | None = None

        def ruled_table(box) -> list[list[dict]] | None:
            nonlocal ruled
            if ruled is None:  # the page's ruled tables, found once (only if a region asks)
                found = page.find_tables(strategy="lines").tables
                ruled = [t for t in found if t.row_count >= 2 and t.col_count >= 2]
            return _ruled_table(ruled, pymupdf.Rect(box) / scale, page)

        def text_size(words: list[Word]) -> float | None:
            """A part of a block cut by the layout (a heading MuPDF ran into its paragraph)
            has its own size: the median of its words' (weighted by length)."""
            known = [size_of[id(w)] for w in words for _ in w.text if id(w) in size_of]
            return statistics.median(known) if known else None

        answers = LayerImage(ink=_ink_meter(image), transcribe=transcribe,
                             ruled_table=ruled_table, text_size=text_size)  # fmt: skip
        layered = ReadingPage(blocks=blocks, regions=regions, width=rect.width,
                              height=rect.height, dpi=dpi, source="text_layer")  # fmt: skip
        layered = apply_layout(layered, answers)
        blocks, findings = layered.blocks, layered.findings
    return PageReading(
        page_number=page_number,
        blocks=blocks,
        width=int(rect.width),
        height=int(rect.height),
        rotation=turn,
        source="text_layer",
        findings=findings,
    )
