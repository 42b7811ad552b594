"""A scan's lines as an engine read them (words with boxes and confidences, in paragraphs), and
the plain measures over them: ink and stroke width from the binarized page, text size, how well
a page read. No engine here: the OCR engine builds these from Tesseract's iterator."""

from __future__ import annotations

import statistics

import numpy as np
from PIL import Image

from models.engine import Word
from models.reading.boxes import share_a_row, union
from models.reading.params.scan import SCAN


class Line:
    __slots__ = ("words", "bbox", "ink", "stroke", "size", "confirmed")

    def __init__(self, words: list[Word], bbox, ink: float) -> None:
        self.words = words
        self.bbox = bbox
        self.ink = ink
        self.stroke = 0.0
        self.size = 0.0  # text size in pixels, when Tesseract gives one
        # read the same word for word by a second read at another scale: legible, however
        # doubtful each read was (models.ocr.rereads._doubtful_lines)
        self.confirmed = False

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @property
    def height(self) -> float:
        return self.bbox[3] - self.bbox[1]


class ParaLines(list):
    order: tuple[int, int] = (0, 0)


class InkMeter:
    """Share of dark pixels in a box of the binarized page: bold text scores higher."""

    def __init__(self, binary: Image.Image | None) -> None:
        self._image = binary.convert("L") if binary is not None else None

    def __call__(self, bbox) -> float:
        if self._image is None or bbox[2] <= bbox[0] or bbox[3] <= bbox[1]:
            return 0.0  # no image, or an empty box (a grid row thinner than its margins)
        crop = self._image.crop(bbox)
        hist = crop.histogram()
        total = sum(hist) or 1
        return sum(hist[: SCAN.dark_level]) / total

    def stroke(self, bbox) -> float:
        """Mean width in pixels of the dark runs across a line's box, those no longer than a
        quarter of its height: its letters' strokes (bars, rules and filled boxes left out). A
        bold line's strokes are a third or more wider than the body's at one size, where its
        share of dark pixels says as much of how close its letters stand."""
        if self._image is None or bbox[2] <= bbox[0] or bbox[3] <= bbox[1]:
            return 0.0
        dark = np.asarray(self._image.crop(tuple(int(v) for v in bbox))) < SCAN.dark_level
        edges = np.diff(dark.astype(np.int8), axis=1, prepend=0, append=0).ravel()
        runs = np.flatnonzero(edges == -1) - np.flatnonzero(edges == 1)
        strokes = runs[runs <= SCAN.stroke_run_share * (bbox[3] - bbox[1])]
        return float(strokes.mean()) if strokes.size else 0.0


def keep_lines(paragraphs: list[ParaLines], keep) -> list[ParaLines]:
    """The paragraphs with only the lines `keep` accepts (it may trim a line's words first);
    emptied paragraphs go, the others keep their place in the reading order."""
    kept = []
    for para in paragraphs:
        lines = [line for line in para if keep(line)]
        if lines:
            new = ParaLines(lines)
            new.order = para.order
            kept.append(new)
    return kept


def move_lines(paragraphs: list[ParaLines], x0: float, y0: float) -> None:
    """Lines and words read in a crop, moved to the page's coordinates."""
    for para in paragraphs:
        for line in para:
            line.bbox = (line.bbox[0] + x0, line.bbox[1] + y0, line.bbox[2] + x0,
                         line.bbox[3] + y0)  # fmt: skip
            for w in line.words:
                w.bbox = (w.bbox[0] + x0, w.bbox[1] + y0, w.bbox[2] + x0, w.bbox[3] + y0)


def scale_lines(paragraphs: list[ParaLines], factor: float) -> None:
    """Lines and words read in a crop resized by 1 / `factor`, in the crop's own pixels."""
    for para in paragraphs:
        for line in para:
            line.bbox = tuple(v * factor for v in line.bbox)
            for w in line.words:
                w.bbox = tuple(v * factor for v in w.bbox)  # type: ignore[assignment]


def has_words(line: Line) -> bool:
    """A line that holds words (and a box): what a read keeps of a page's lines."""
    return bool(line.words and line.bbox)


def fill_in(paragraphs: list[ParaLines], found: list[ParaLines]) -> list[ParaLines]:
    """A second read of a region (`found`, in page coordinates) over the page's own lines: its
    words that a line already holds go, those on a line's row join it in place, and the rest
    are returned as lines of their own. The page's read stays as it is: a second read only adds
    what it lacked (an "image" whose box spans lines read already reads them again)."""
    held = [line for para in paragraphs for line in para if line.bbox]
    boxes = np.array([w.bbox for line in held for w in line.words if w.bbox], dtype=float)
    boxes = boxes.reshape(-1, 4)  # x0, y0, x1, y1 (a page with no word read: none)
    areas = np.maximum((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 1.0)
    share = SCAN.fill_overlap_share

    def read_already(box) -> bool:
        """Half of the word's box or more inside a word read, or of that word's inside it."""
        w = np.clip(np.minimum(boxes[:, 2], box[2]) - np.maximum(boxes[:, 0], box[0]), 0, None)
        h = np.clip(np.minimum(boxes[:, 3], box[3]) - np.maximum(boxes[:, 1], box[1]), 0, None)
        common = w * h
        own = max((box[2] - box[0]) * (box[3] - box[1]), 1.0)
        return bool(((common >= share * own) | (common >= share * areas)).any())

    for para in found:
        for line in para:
            rest = []
            for word in line.words:
                if word.bbox is None or read_already(word.bbox):
                    continue
                gaps = [(gap, k) for k, ln in enumerate(held)
                        if (gap := _gap_beside(word.bbox, ln.bbox)) is not None]  # fmt: skip
                if not gaps:
                    rest.append(word)
                    continue
                home = held[min(gaps)[1]]  # the nearest line on the word's row
                home.words = sorted([*home.words, word], key=lambda w: w.bbox[0] if w.bbox else 0)
                home.bbox = union([home.bbox, word.bbox])
            line.words = rest
            line.bbox = union(w.bbox for w in rest)
    return keep_lines(found, has_words)


def _gap_beside(box, line) -> float | None:
    """How far a word stands from a line's ends when it is on the line's row (most of the lower
    one's height shared) and near them; None when it is not."""
    if not share_a_row(box, line, SCAN.fill_row_share):
        return None
    gap = max(box[0] - line[2], line[0] - box[2], 0)
    return gap if gap <= SCAN.fill_join_heights * (line[3] - line[1]) else None


_DESCENDERS = set("gjpqy,;()[]{}|/$@")
_ASCENDERS = set("bdhklt") | set("ij")  # letters reaching about the cap height (a dot too)


def words_size(words: list[Word]) -> float | None:
    """Text size in pixels from the height of the words that reach the cap height and do not
    descend ("Income", not "by"): steady for one style of heading however its letters fall."""
    heights = [
        w.bbox[3] - w.bbox[1]
        for w in words
        if w.bbox
        and not _DESCENDERS & set(w.text)
        and any(c.isupper() or c.isdigit() or c in "bdfhklt" for c in w.text)
    ]
    return statistics.median(heights) / SCAN.cap_height_ratio if heights else None


def _reaches(text: str) -> tuple[bool, float] | None:
    """(up, down) for a word: whether its letters reach the cap height (a capital, a digit, an
    ascender) and how far below the baseline they reach, as a share of the size (the
    descenders' depth; half of it for an "f" as the only one, which descends in italics and
    not in roman). None for no letter."""
    letters = set(c for c in text if c.isalnum())
    if not letters:
        return None
    up = any(c.isupper() or c.isdigit() or c in _ASCENDERS for c in letters)
    if _DESCENDERS & letters:
        return up, SCAN.descender_ratio
    return up, SCAN.descender_ratio / 2 if "f" in letters else 0.0  # an "f": either


def letter_sizes(words: list[Word]) -> tuple[float, float] | None:
    """The text sizes (lowest, highest) in pixels that the words' heights allow, each word
    judged by what its letters reach (cap height or x-height, and the descenders below): one
    size, the median of the words' estimates, where a word tells surely; a range where every
    word's only descender may be an "f" (it descends in italics, not in roman: "References"
    is 0.72 or 0.94 of its size tall). Steadier than `words_size` for a heading of few words,
    each with a descender ("Typefaces", "Page Layout"), where that falls back on Tesseract's
    line size."""
    sure, unsure = [], []
    for w in words:
        reach = _reaches(w.text) if w.bbox else None
        if reach is None:
            continue
        up, down = reach
        top = SCAN.cap_height_ratio if up else SCAN.x_height_ratio
        height = w.bbox[3] - w.bbox[1]  # type: ignore[index]
        if down in (0.0, SCAN.descender_ratio):
            sure.append(height / (top + down))
        else:
            unsure.append((height / (top + SCAN.descender_ratio), height / top))
    if sure:
        size = statistics.median(sure)
        return size, size
    if unsure:
        return statistics.median(u[0] for u in unsure), statistics.median(u[1] for u in unsure)
    return None


def letter_size(words: list[Word]) -> float | None:
    """The middle of `letter_sizes`."""
    sizes = letter_sizes(words)
    return (sizes[0] + sizes[1]) / 2 if sizes else None


def text_size(line: Line) -> float:
    """The line's text size in pixels (words_size; else Tesseract's estimate, or the box)."""
    return words_size(line.words) or line.size or line.height


def read_score(paragraphs: list[ParaLines]) -> float:
    """Confident characters read: how well a page read."""
    return sum(
        len(w.text) * w.confidence / SCAN.confidence_scale
        for para in paragraphs
        for line in para
        for w in line.words
    )


def reads_well(paragraphs: list[ParaLines]) -> bool:
    """Confident words on horizontal lines: an upright page (Tesseract also reads some
    sideways pages, as vertical lines, but their layout is then lost)."""
    words = [w for para in paragraphs for line in para for w in line.words]
    if len(words) < SCAN.upright_min_words:
        return False
    lines = [line for para in paragraphs for line in para if len(line.words) >= 2]
    vertical = sum(1 for ln in lines if ln.height > SCAN.vertical_ratio * (ln.bbox[2] - ln.bbox[0]))
    if lines and vertical > len(lines) / 2:
        return False
    chars = sum(len(w.text) for w in words)
    mean = sum(len(w.text) * w.confidence for w in words) / max(chars, 1)
    return mean >= SCAN.upright_confidence


def _cuts_word(left: Line, right: Line) -> bool:
    """`right` goes on `left`'s row a fraction of a word space after it, mid-word: a line
    Tesseract cut in two ("Le problém" | "e des hommages"), a letter then a lower-case one, or
    any two characters closer than the lines' own spaces between words."""
    height = min(left.height, right.height)
    overlap = min(left.bbox[3], right.bbox[3]) - max(left.bbox[1], right.bbox[1])
    gap = right.bbox[0] - left.bbox[2]
    if (
        overlap < height / 2
        or not -SCAN.cut_gap_ratio * height <= gap <= SCAN.cut_gap_ratio * height
    ):
        return False
    if left.words[-1].text[-1:].isalpha() and right.words[0].text[:1].islower():
        return True
    spaces = _word_spaces(left) + _word_spaces(right)
    return bool(spaces) and gap < SCAN.cut_word_space_share * statistics.median(spaces)


def _word_spaces(line: Line) -> list[float]:
    """The gaps between the line's words, in pixels."""
    boxes = [w.bbox for w in line.words if w.bbox]
    return [b[0] - a[2] for a, b in zip(boxes, boxes[1:], strict=False) if b[0] > a[2]]


def cut_lines(paragraphs: list[ParaLines]) -> int:
    """Lines of one paragraph that a line of another one continues mid-word on their row."""
    lines = sorted(
        ((k, line) for k, para in enumerate(paragraphs) for line in para if has_words(line)),
        key=lambda kl: kl[1].bbox[1],
    )
    cut: set[int] = set()
    for i, (k, line) in enumerate(lines):
        for j, other in lines[i + 1 :]:
            if other.bbox[1] >= line.bbox[3]:
                break  # sorted by top: no later line shares this one's row
            if j != k and _cuts_word(line, other):
                cut.add(id(line))
            elif j != k and _cuts_word(other, line):
                cut.add(id(other))
    return len(cut)


def columns_cut(paragraphs: list[ParaLines]) -> bool:
    """The page's layout cut its lines: columns found where the text runs across (a
    typewritten page's hanging indents aligned like a gutter). Read as one column, it reads
    whole lines again."""
    cut = cut_lines(paragraphs)
    total = sum(has_words(line) for para in paragraphs for line in para)
    return cut >= SCAN.cut_min_lines and cut >= SCAN.cut_min_share * total


def index_runs(indices: np.ndarray) -> list[tuple[int, int]]:
    """Sorted indices (rows or columns with ink) as runs of consecutive ones, [start, end)."""
    if not indices.size:
        return []
    breaks = np.flatnonzero(np.diff(indices) > 1)
    starts = np.concatenate(([indices[0]], indices[breaks + 1]))
    ends = np.concatenate((indices[breaks], [indices[-1]])) + 1
    return [(int(a), int(b)) for a, b in zip(starts, ends, strict=True)]


def _ink_runs(dark: np.ndarray, least: int) -> list[tuple[int, int]]:
    """Runs of consecutive rows of `dark` (a boolean crop) with ink, at least `least` tall."""
    inked = np.flatnonzero(dark.sum(axis=1) >= SCAN.missed_row_ink_share * dark.shape[1])
    return [(a, b) for a, b in index_runs(inked) if b - a >= least]


def unread_rows(dark: np.ndarray, para: ParaLines) -> list[tuple[Line, tuple[int, int, int, int]]]:
    """Rows of ink between two lines of a paragraph where no line was read: (the line they
    follow, their box), on the binarized page `dark` (True: ink). Given the page's lines from
    the top as one `para`, the rows between its paragraphs too, across its text's width."""
    lines = [line for line in para if has_words(line)]
    if len(lines) < 2:
        return []
    height = statistics.median(line.height for line in lines)
    x0 = int(max(0, min(line.bbox[0] for line in lines)))
    x1 = int(min(dark.shape[1], max(line.bbox[2] for line in lines)))
    found = []
    for above, below in zip(lines, lines[1:], strict=False):
        top, bottom = int(above.bbox[3]), int(below.bbox[1])
        if bottom - top < SCAN.missed_gap_ratio * height or x1 <= x0:
            continue
        least = max(1, int(SCAN.missed_min_height_ratio * height))
        for a, b in _ink_runs(dark[top:bottom, x0:x1], least):
            cols = np.flatnonzero(dark[top + a : top + b, x0:x1].any(axis=0))
            found.append((above, (x0 + int(cols[0]), top + a, x0 + int(cols[-1]) + 1, top + b)))
    return found


def ink_patches(mask: np.ndarray) -> list[tuple[tuple[int, int, int, int], int]]:
    """The 4-connected patches of a mask of a page's pixels (a small copy's: a word, a tint,
    a rule): each one's box (x0, y0, x1, y1, ends excluded) and its count of pixels."""
    seen = np.zeros_like(mask)
    height, width = mask.shape
    patches = []
    for y, x in zip(*np.nonzero(mask), strict=True):
        if seen[y, x]:
            continue
        seen[y, x] = True
        stack, count, box = [(y, x)], 0, [x, y, x, y]
        while stack:
            cy, cx = stack.pop()
            count += 1
            box = [min(box[0], cx), min(box[1], cy), max(box[2], cx), max(box[3], cy)]
            for ny, nx in ((cy + 1, cx), (cy - 1, cx), (cy, cx + 1), (cy, cx - 1)):
                if 0 <= ny < height and 0 <= nx < width and mask[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    stack.append((ny, nx))
        patches.append(((box[0], box[1], box[2] + 1, box[3] + 1), count))
    return patches
