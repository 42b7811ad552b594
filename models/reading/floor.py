"""A floor under every page: the structured page against its plain reading (the lines Tesseract
read, in its order, before our stages dropped noise, illegible lines or words in figures; or a
text layer's own lines). Where the structure lost lines the plain reading holds, they come back
as paragraphs where they stood, with a finding; a page left empty takes the plain reading's
paragraphs. The plain reading is also what a page falls back to when a reading step fails
(`plain_blocks`, `fallback_finding`). Words are compared as multisets of case-folded `\\w+`
tokens, so a mended hyphen or a split block loses nothing.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections import Counter
from dataclasses import dataclass, replace
from functools import partial

from models.engine import BBox, ReadBlock, Word
from models.reading.boxes import area, centre_in, inside_share, union
from models.reading.page import ReadingPage
from models.reading.params.floor import FLOOR, FloorParams
from models.reading.params.text_layer import PERCENT

_TOKEN = re.compile(r"\w+")
_HYPHENS = "-\u2010\u00ad"  # a hyphen at a line's end: the ASCII one, U+2010, a soft one
RESTORED_CODE = "TEXT_RESTORED"
FALLBACK_CODE = "READING_FALLBACK"


@dataclass(frozen=True)
class PlainLine:
    """One line of the plain reading: its words (copies: no stage changes them), its box in the
    page's pixels, and the plain paragraph it belongs to."""

    words: tuple[Word, ...]
    bbox: BBox
    paragraph: int

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @property
    def confidence(self) -> float:
        return statistics.fmean(w.confidence for w in self.words) if self.words else 0.0


def _spacing_accent(char: str) -> bool:
    """´ ¨ ˜ ... (modifier symbols) and ˆ ˇ (the Spacing Modifier Letters block)."""
    return unicodedata.category(char) == "Sk" or "\u02b0" <= char <= "\u02ff"


def tokens(text: str) -> list[str]:
    """The words of a text, compared without case and accents: a text layer's spacing accent
    ("Jim´enez") and the composed letter the reader made of it ("Jiménez") are one word."""
    bare = "".join(c for c in text if not _spacing_accent(c))
    decomposed = unicodedata.normalize("NFKD", bare)
    return _TOKEN.findall("".join(c for c in decomposed if not unicodedata.combining(c)).casefold())


def scan_plain_lines(paragraphs) -> list[PlainLine]:
    """Tesseract's own lines (a scan's paragraphs of models.reading.scan_lines' Line), kept as
    read: the stages after it trim and drop lines in place."""
    return [
        PlainLine(tuple(replace(w) for w in line.words), tuple(map(float, line.bbox)), k)
        for k, para in enumerate(paragraphs)
        for line in para
        if line.words and line.bbox
    ]


def layer_plain_lines(page_words, to_pixels, params: FloorParams = FLOOR) -> list[PlainLine]:
    """A text layer's lines: PyMuPDF's words (x0, y0, x1, y1, text, block, line, word) grouped by
    line in the layer's order, boxes through `to_pixels`. A line drawn again over an equal one
    (a shadow, a stamp printed twice) is one line, as the structured reading keeps it."""
    grouped: dict[tuple[int, int], list[Word]] = {}
    for x0, y0, x1, y1, text, block_no, line_no, _ in page_words:
        box = to_pixels((x0, y0, x1, y1))
        word = Word(text=text, confidence=float(PERCENT), bbox=box)
        grouped.setdefault((block_no, line_no), []).append(word)
    lines: list[PlainLine] = []
    for (block_no, _), words in grouped.items():
        line = PlainLine(tuple(words), union([w.bbox for w in words if w.bbox]), block_no)
        if not any(_twins(line, other, params) for other in lines):
            lines.append(line)
    return lines


def _twins(line: PlainLine, other: PlainLine, params: FloorParams) -> bool:
    return (
        tokens(line.text) == tokens(other.text)
        and inside_share(line.bbox, other.bbox) >= params.twin_overlap_share
    )


def block_tokens(block: ReadBlock) -> Counter:
    """What of a block a reader gets: its text or words (whichever holds more of a token),
    its list marker, its table cells, a figure's description."""
    found = Counter(tokens(block.text)) | Counter(t for w in block.words for t in tokens(w.text))
    extra = [block.marker or "", block.alt or ""]
    extra += [str(cell.get("text", "")) for row in block.rows or () for cell in row]
    return found + Counter(t for text in extra for t in tokens(text))


def page_tokens(blocks: list[ReadBlock]) -> Counter:
    total: Counter = Counter()
    for block in blocks:
        total += block_tokens(block)
    return total


def line_tokens(plain: list[PlainLine]) -> list[list[tuple[str, ...]]]:
    """Each plain line's tokens, each with the forms a reading may hold it in: a word a hyphen
    cut at a line's end ("lim-" over "ited.") is held whole ("limited", as the stages mend it),
    so its second half counts as the whole word or itself, and its first half not at all (the
    half "ited." came back as a paragraph of its own, "lost" beside "limited")."""
    out = [[(t,) for t in tokens(line.text)] for line in plain]
    for k, (head, tail) in enumerate(zip(plain, plain[1:], strict=False)):
        if head.paragraph != tail.paragraph or not (head.words and tail.words):
            continue
        last, first = head.words[-1].text, tail.words[0].text
        cut = last[-1:] in _HYPHENS and len(last) > 1 and last[-2].isalpha()
        joined = tokens(last.rstrip(_HYPHENS) + first) if cut and first[:1].islower() else []
        if joined and out[k] and out[k + 1]:
            out[k] = out[k][:-1]
            out[k + 1][0] = (out[k + 1][0][0], joined[-1])
    return out


def _take(held: Counter, forms: tuple[str, ...]) -> bool:
    """Whether `held` holds one of the forms; that one taken."""
    form = next((f for f in forms if held[f] > 0), None)
    if form is not None:
        held[form] -= 1
    return form is not None


def word_recall(blocks: list[ReadBlock], plain: list[PlainLine]) -> float:
    """The share of the plain reading's words the blocks hold (1.0 when it holds none)."""
    wanted = [forms for line in line_tokens(plain) for forms in line]
    if not wanted:
        return 1.0
    held = page_tokens(blocks)
    return sum(_take(held, forms) for forms in wanted) / len(wanted)


def lost_lines(blocks: list[ReadBlock], plain: list[PlainLine], params: FloorParams = FLOOR):
    """Whether each plain line was lost: most of its words are in no block over its place
    (each block's words taken once, in the plain order; by place, so that a line of common
    words is not found in another paragraph)."""
    held = [block_tokens(block) for block in blocks]
    marks = []
    for line, words in zip(plain, line_tokens(plain), strict=True):
        over = [held[k] for k, b in enumerate(blocks) if b.bbox and _overlaps(b.bbox, line.bbox)]
        found = sum(any(_take(counter, forms) for counter in over) for forms in words)
        marks.append(bool(words) and found < params.lost_line_share * len(words))
    return marks


def _overlaps(a: BBox, b: BBox) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def is_scrap(line: PlainLine, median_confidence: float, min_confidence: float,
             params: FloorParams = FLOOR) -> bool:  # fmt: skip
    """Specks and strokes read as letters ("l i ,", "SA ar"): no word of a few letters, or
    read far less surely than the page's text."""
    longest = max((sum(c.isalpha() for c in w.text) for w in line.words), default=0)
    floor = max(min_confidence, median_confidence - params.scrap_confidence_gap)
    return longest < params.scrap_letters or line.confidence < floor


def paragraph_of(lines: list[PlainLine]) -> ReadBlock:
    """Plain lines as one paragraph (a hyphen at a line's end mended, as the stages do), of
    the body's size."""
    text = ""
    for line in lines:
        joined = line.text
        if text.endswith("-") and len(text) > 1 and text[-2].isalpha() and joined[:1].islower():
            text = text[:-1] + joined
        else:
            text = f"{text} {joined}" if text else joined
    words = [w for line in lines for w in line.words]
    # No text size: a line read without its structure is no heading by its size.
    bbox = union([line.bbox for line in lines])
    return ReadBlock(kind="paragraph", text=text, bbox=bbox, words=words)


def _runs(lines: list[PlainLine]) -> list[list[PlainLine]]:
    """Consecutive lines of one plain paragraph together."""
    runs: list[list[PlainLine]] = []
    for line in lines:
        if runs and runs[-1][-1].paragraph == line.paragraph:
            runs[-1].append(line)
        else:
            runs.append([line])
    return runs


def plain_blocks(plain: list[PlainLine]) -> list[ReadBlock]:
    """The plain reading as paragraphs, in its order."""
    return [paragraph_of(run) for run in _runs(plain)]


def _holder(blocks: list[ReadBlock], line: PlainLine) -> int | None:
    """The smallest block whose box holds the centre of the line."""
    holding = [k for k, b in enumerate(blocks) if b.bbox and centre_in(line.bbox, b.bbox)]
    return min(holding, key=lambda k: area(blocks[k].bbox), default=None)


def _placed(
    blocks: list[ReadBlock], plain: list[PlainLine], lost: list[bool], restore: list[bool]
) -> list[ReadBlock]:
    """`blocks` with the runs of restored lines each after the block that holds the kept plain
    line before it (before the block of the next kept line when none precedes; else last)."""
    before: dict[int, list[ReadBlock]] = {}
    after: dict[int, list[ReadBlock]] = {}
    waiting: list[ReadBlock] = []  # runs before any kept line was placed
    anchor: int | None = None
    run: list[PlainLine] = []

    def flush() -> None:
        if run:
            block = paragraph_of(list(run))
            (waiting if anchor is None else after.setdefault(anchor, [])).append(block)
            run.clear()

    for line, gone, back in zip(plain, lost, restore, strict=True):
        if back:
            if run and run[-1].paragraph != line.paragraph:
                flush()
            run.append(line)
            continue
        flush()
        holder = None if gone else _holder(blocks, line)
        if holder is not None:
            anchor = holder
            before.setdefault(holder, []).extend(waiting)
            waiting = []
    flush()
    out: list[ReadBlock] = []
    for k, block in enumerate(blocks):
        out += [*before.get(k, []), block, *after.get(k, [])]
    return out + waiting


def restored_finding(page_number: int, restored: list[PlainLine],
                     params: FloorParams = FLOOR) -> dict:  # fmt: skip
    """The finding of restored lines: it routes the page to review when they hold a few words;
    a scrap of one or two ("0 Tot" by a table's rule) is back in the text all the same, listed
    as a warning."""
    what = "a line" if len(restored) == 1 else f"{len(restored)} lines"
    text = " / ".join(line.text for line in restored)
    words = len(tokens(text))
    if len(text) > params.restored_quote_chars:
        text = text[: params.restored_quote_chars].rstrip() + "…"
    return {
        "code": RESTORED_CODE,
        "level": "needs_review" if words >= params.restored_route_words else "warning",
        "message": (
            f"Page {page_number}: {what} of text that the page's structure had left out "
            "(read as noise, illegible or part of a picture) came back as plain paragraphs "
            f"where they stand on the page (“{text}”); check that they belong there and read "
            "right."
        ),
    }


def fallback_finding(page_number: int) -> dict:
    return {
        "code": FALLBACK_CODE,
        "level": "needs_review",
        "message": (
            f"Page {page_number} was read without its structure because of an internal error: "
            "its text is complete but not its layout (headings, lists, tables, reading order)."
        ),
    }


def _covering(page: ReadingPage, params: FloorParams) -> list[ReadBlock]:
    """Blocks whose words are theirs whatever they show: a formula (its glyphs are its TeX now)
    and a figure (a chart's labels go with it), but a "figure" over most of the page (a scan
    taken for a picture: its text is the page's)."""
    most = params.page_figure_share * page.width * page.height
    return [
        b for b in page.blocks
        if b.bbox and (b.kind == "formula" or b.kind == "figure" and area(b.bbox) < most)
    ]  # fmt: skip


def _without_page_figure_text(page: ReadingPage, covering: list[ReadBlock]) -> ReadingPage:
    """A "figure" over most of the page holds no figure's text: its words are the page's, and
    come back as its text where the page lost them (a handwritten letter's printed letterhead
    inside the picture Tesseract made of the page)."""
    held = {id(b) for b in covering}
    big = [b for b in page.blocks if b.kind == "figure" and b.words and id(b) not in held]
    if not big:
        return page
    blocks = [replace(b, words=[]) if any(b is f for f in big) else b for b in page.blocks]
    return replace(page, blocks=blocks)


def _outside(plain: list[PlainLine], covering: list[ReadBlock]) -> list[PlainLine]:
    """The plain lines without their words inside a covering block, word by word: a line that
    runs from a drawing's strokes into the text beside it ("Saas) , says,") keeps its text."""
    out = []
    for line in plain:
        words = tuple(w for w in line.words if not _covered(w, covering))
        if words == line.words:
            out.append(line)
        elif words:
            out.append(_keeping(line, words))
    return out


def _covered(word: Word, covering: list[ReadBlock]) -> bool:
    return word.bbox is not None and any(centre_in(word.bbox, b.bbox) for b in covering)


def _sure(line: PlainLine, *, least: float) -> PlainLine:
    return _keeping(line, tuple(w for w in line.words if w.confidence >= least))


def _keeping(line: PlainLine, words: tuple[Word, ...]) -> PlainLine:
    """The line with only `words`, its box theirs."""
    boxes = [w.bbox for w in words if w.bbox]
    return replace(line, words=words, bbox=union(boxes) if boxes else line.bbox)


def with_floor(page: ReadingPage, plain: list[PlainLine], *, page_number: int,
               min_confidence: float | None = None,
               params: FloorParams = FLOOR) -> ReadingPage:  # fmt: skip
    """The page with the plain lines it lost back in place, when it holds less than
    `restore_below_recall_share` of the plain words; lines of scraps, or read less surely than
    `min_confidence` (a handwritten page's doubtful lines), stay out."""
    if min_confidence is not None:  # a handwritten page: only the words read surely count
        plain = [line for line in map(partial(_sure, least=min_confidence), plain) if line.words]
    covering = _covering(page, params)
    page = _without_page_figure_text(page, covering)
    plain = _outside(plain, covering)
    if not plain or word_recall(page.blocks, plain) >= params.restore_below_recall_share:
        return page
    lost = lost_lines(page.blocks, plain, params)
    median = statistics.median(w.confidence for line in plain for w in line.words)
    least = params.scrap_confidence_floor if min_confidence is None else min_confidence
    # A lost line read as a scrap comes back with its words read as surely as a line must be:
    # a form's "Income 7 Wages, tips, etc. Attach" keeps those, not its dot leader read as
    # "Spite eee noms" at 0 to 15, which made the whole line read at 44 on average.
    sure = max(least, median - params.scrap_confidence_gap)
    plain = [_sure(line, least=sure) if gone and is_scrap(line, median, least, params) else line
             for line, gone in zip(plain, lost, strict=True)]  # fmt: skip
    restore = [gone and bool(line.words) and not is_scrap(line, median, least, params)
               for line, gone in zip(plain, lost, strict=True)]  # fmt: skip
    if not any(restore):
        return page
    blocks = _placed(page.blocks, plain, lost, restore)
    back = [line for line, keep in zip(plain, restore, strict=True) if keep]
    finding = restored_finding(page_number, back, params)
    return replace(page, blocks=blocks, findings=[*page.findings, finding])
