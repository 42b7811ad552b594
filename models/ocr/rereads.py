"""The OCR engine's second reads of parts of a page: lines in another language, pictures that
hold text, rows and panels printed white on dark. Each crops the page and reads it again with a
recognizer fitted to the part (a language, one block, inverted), and keeps the read when it
reads better. A mixin of TesseractEngine (its recognizers and languages), apart so that the
engine module stays the page's own read.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections import Counter

import numpy as np
from PIL import Image, ImageFilter, ImageOps

from models.engine import ReadBlock, Word
from models.language import language_and_scores, long_prose
from models.ocr.iterate import read_paragraphs
from models.reading.boxes import area, inside_share, share_a_column
from models.reading.kinds import is_figure
from models.reading.markers import BULLET
from models.reading.params import at_dpi
from models.reading.params.scan import SCAN, ScanParams
from models.reading.params.tables import RULED_TABLES
from models.reading.ruled_tables import Grid, find_grids, reversed_bars, unread_cells
from models.reading.scan_blocks import outside_figures, read_surely, without_scraps
from models.reading.scan_lines import (
    InkMeter,
    Line,
    ParaLines,
    fill_in,
    index_runs,
    ink_patches,
    keep_lines,
    move_lines,
    scale_lines,
    unread_rows,
)
from models.reading.word_rows import RULE_GLYPHS

_ADDRESS = re.compile(r"\S*\w[./@:]\w\S*")  # web and mail addresses, file paths, 12.5 %
# An image region this share of the page or more is read again as text (see _text_in_images).
TEXT_IMAGE_SHARE = 0.04
# A picture read as many words of letters, few of them read well, holds text Tesseract cannot
# read (handwriting): a handwritten page's picture read 268 and 302 such "words"; a typewritten
# title page's binder edges and faint show-through, 15 (typewritten-fr).
ILLEGIBLE_MIN_WORDS = 30
# ...and fewer than this share of them read surely (80 or more): the handwritten pages' pictures
# 0.09 and 0.00, a typescript page's faded picture 0.59 (typewritten-fr).
ILLEGIBLE_SURE_SHARE = 0.3
# ...in at least this many lines of ILLEGIBLE_LINE_WORDS such words or more: the handwritten
# pages' pictures 24 and 22 lines; a line chart's (ocrmypdf multipage.pdf p4: series markers and
# slanted names read as 42 such words), 5.
ILLEGIBLE_MIN_LINES = 10
ILLEGIBLE_LINE_WORDS = 2
# ...unless the picture is a photograph, whose texture (foliage, a street) reads as such words
# too (a landscape filling its page was called handwriting): this share of its pixels or more
# stand PHOTO_TONE_LEVELS grey levels or more from its commonest grey. Set midway between tune
# members (400-pixel samples): writing on paper is paper mostly (handwritten pages 0.11 and
# 0.12, typescripts 0.01-0.25, an old book's yellowed page 0.03, a newspaper 0.17), a street
# photograph 0.47 (pdfjs issue5475).
PHOTO_TONE_SHARE = 0.36
PHOTO_TONE_LEVELS = 50
PHOTO_SAMPLE_PX = 400
PAPER = 255  # the white a cell's crop is set on


def _tones(picture: Image.Image) -> np.ndarray:
    """A picture's greys on a copy of at most PHOTO_SAMPLE_PX a side."""
    sample = picture.convert("L")
    sample.thumbnail((PHOTO_SAMPLE_PX, PHOTO_SAMPLE_PX))
    return np.asarray(sample, dtype=np.int16).ravel()


def photographic(picture: Image.Image) -> bool:
    """A photograph rather than writing on paper: many of its pixels far from its commonest
    grey (PHOTO_TONE_SHARE), where a page of writing is mostly its paper."""
    tones = _tones(picture)
    return float((np.abs(tones - np.median(tones)) >= PHOTO_TONE_LEVELS).mean()) >= PHOTO_TONE_SHARE


def light_on_dark(page: Image.Image) -> bool:
    """The middle of the page is a flat dark fill (SCAN.dark_fill_*): light print on a dark
    ground (a listing in a dark theme, a slide), which Tesseract, its inversion off, reads as
    nothing. A scan's black surround (a microfilm's) leaves the middle paper; a photograph's
    darks are no flat fill."""
    width, height = page.size
    cut = SCAN.dark_fill_margin_share
    middle = page.crop((int(width * cut), int(height * cut),
                        int(width * (1 - cut)), int(height * (1 - cut))))  # fmt: skip
    fill, share = _fills(_tones(middle), 1)
    return fill <= SCAN.dark_fill_grey and share >= SCAN.dark_fill_share


def paper_grey(page: Image.Image) -> int:
    """The page's commonest grey: its paper."""
    return int(np.bincount(_tones(page), minlength=256).argmax())


def _fills(tones: np.ndarray, count: int) -> tuple[int, float]:
    """The commonest grey of `tones`, and the share of them within SCAN.panel_fill_levels of
    one of its `count` commonest greys (each taken from the greys the ones before leave)."""
    near = np.zeros(tones.size, dtype=bool)
    fills = []
    for _ in range(count):
        fills.append(int(np.bincount(tones[~near], minlength=256).argmax()))
        near |= np.abs(tones - fills[-1]) <= SCAN.panel_fill_levels
    return fills[0], float(near.mean())


def on_flat_fills(picture: Image.Image, paper: int = PAPER) -> bool:
    """A panel on flat fills, not a photograph nor a picture on paper: its commonest grey is
    darker than the paper (by SCAN.panel_paper_levels) and most of its pixels
    (SCAN.panel_fill_share) stand within SCAN.panel_fill_levels of one of its first
    SCAN.panel_fills greys (a banner's one fill; a table's cells filled dark, mid and light
    grey)."""
    if min(picture.size) == 0:  # a figure box without width (a rule): nothing to read
        return False
    commonest, share = _fills(_tones(picture), SCAN.panel_fills)
    return commonest <= paper - SCAN.panel_paper_levels and share >= SCAN.panel_fill_share


def picture_beside(panel: Image.Image, word_boxes: list, dpi: int, pictures: list = ()):
    """The box of what lies beside the words read on a panel and is no flat fill (a portrait
    by a quote on one black fill; a chart's bars), or None: of its tiles of
    SCAN.panel_tile_inch farther than SCAN.panel_reach_inch from every word, more than
    SCAN.panel_busy_share are not flat (under SCAN.panel_tile_flat_share of their pixels near
    their two commonest greys), and the box holds most of them (from the 5th to the 95th
    percentile each way: a stray tile on the fill's edge does not stretch it). Tiles inside
    `pictures` (found on their own) don't count. Boxes are on the panel's own pixels."""
    size = max(4, round(dpi * SCAN.panel_tile_inch))
    tones = np.asarray(panel.convert("L"), dtype=np.int16)
    rows, cols = tones.shape[0] // size, tones.shape[1] // size
    if not rows or not cols:
        return None
    covered = np.zeros((rows, cols), dtype=bool)
    reach = dpi * SCAN.panel_reach_inch
    for boxes, grown in ((word_boxes, reach), (pictures, 0.0)):
        for x0, y0, x1, y1 in boxes:
            top, bottom = max(0, int((y0 - grown) // size)), max(0, int((y1 + grown) // size) + 1)
            left, right = max(0, int((x0 - grown) // size)), max(0, int((x1 + grown) // size) + 1)
            covered[top:bottom, left:right] = True
    away = np.argwhere(~covered)
    busy = [
        (r, c) for r, c in away
        if _fills(tones[r * size : (r + 1) * size, c * size : (c + 1) * size].ravel(), 2)[1]
        < SCAN.panel_tile_flat_share
    ]  # fmt: skip
    if len(busy) <= SCAN.panel_busy_share * len(away):
        return None
    (top, left), (bottom, right) = np.percentile(np.array(busy), [5, 95], axis=0).astype(int)
    return tuple(
        float(v) for v in (left * size, top * size, (right + 1) * size, (bottom + 1) * size)
    )


def _within(box, boxes, sign: int = 1) -> list[tuple[float, float, float, float]]:
    """Page boxes on the pixels of the part `box` crops (`sign` -1: a part's boxes back on
    the page)."""
    dx, dy = sign * box[0], sign * box[1]
    return [(x0 - dx, y0 - dy, x1 - dx, y1 - dy) for x0, y0, x1, y1 in boxes]


def _split_at(words: list[Word], x: float) -> tuple[list[Word], list[Word]]:
    """Words whose middles lie left of x, and the others."""
    left: list[Word] = []
    rest: list[Word] = []
    for w in words:
        (left if w.bbox and (w.bbox[0] + w.bbox[2]) / 2 < x else rest).append(w)
    return left, rest


def _mean_confidence(words: list[Word]) -> float:
    return statistics.mean(w.confidence for w in words) if words else 0.0


def _padded(box, size: tuple[int, int]) -> tuple[int, int, int, int]:
    """A line's box grown by half its height each way (its fill around it), on the page."""
    x0, y0, x1, y1 = box
    pad = (y1 - y0) / 2
    return (max(0, int(x0 - pad)), max(0, int(y0 - pad)), min(size[0], int(x1 + pad)),
            min(size[1], int(y1 + pad)))  # fmt: skip


def _sure_words(words: list[Word]) -> int:
    return sum(map(read_surely, words))


def flattened(panel: Image.Image, dpi: int) -> Image.Image:
    """The panel as dark print on white whatever its polarity: a pixel is ink where it stands
    more than SCAN.panel_ink_levels from its neighbourhood's grey (the median over
    SCAN.panel_window_inch, on a reduced copy): white letters on a dark cell and dark
    figures on a light one alike."""
    factor = max(1, round(dpi * SCAN.panel_window_inch / SCAN.panel_median_px))
    background = panel.reduce(factor).filter(ImageFilter.MedianFilter(SCAN.panel_median_px))
    near = np.asarray(background.resize(panel.size, Image.Resampling.BILINEAR), dtype=np.int16)
    ink = np.abs(np.asarray(panel, dtype=np.int16) - near) > SCAN.panel_ink_levels
    return Image.fromarray(np.where(ink, 0, 255).astype(np.uint8))


def tinted_boxes(gray: Image.Image, dpi: int, *, paper: int) -> list[tuple[int, int, int, int]]:
    """Boxes of the page on a flat tint darker than its `paper` grey (paper_grey: a caption's
    grey bar, a shaded box or table row, a banner), SCAN.tint_*: the median grey around each
    pixel of a small copy, tint where it stands SCAN.panel_paper_levels or more under paper; its
    patches (4-connected) large enough, filling most of their box, and clear of the page's
    edges (a scan's dark surround). A large bold headline's letters make such a patch too: it
    holds the words the page read there."""
    factor = max(1, round(dpi / SCAN.tint_sample_dpi))
    around = gray.reduce(factor).filter(ImageFilter.MedianFilter(SCAN.tint_window_px))
    tint = np.asarray(around, dtype=np.int16) <= paper - SCAN.panel_paper_levels
    boxes = []
    rows, columns = tint.shape
    for (x0, y0, x1, y1), filled in ink_patches(tint):
        width, height = (x1 - x0) * factor, (y1 - y0) * factor
        if (
            x0 > 0
            and y0 > 0
            and x1 < columns
            and y1 < rows  # a scan's dark surround: no tint
            and width >= SCAN.tint_min_width_inch * dpi
            and height >= SCAN.tint_min_height_inch * dpi
            and filled >= SCAN.tint_fill_share * (x1 - x0) * (y1 - y0)
        ):
            boxes.append((x0 * factor, y0 * factor, x1 * factor, y1 * factor))
    return boxes


def _unread_tints(gray: Image.Image, paper: int, figures: list[ReadBlock], paragraphs, dpi: int):
    """The page's tints (tinted_boxes) holding no word it read and in no figure, each with the
    order of the paragraph above it (the top of the page for none): a caption's grey bar
    Tesseract read nothing on. At most SCAN.tint_max_reads of them."""
    words = [w.bbox for para in paragraphs for line in para for w in line.words if w.bbox]
    found = []
    for box in tinted_boxes(gray, dpi, paper=paper):
        if any(inside_share(w, box) >= 0.5 for w in words) or any(
            inside_share(box, f.bbox) >= 0.5 for f in figures if f.bbox
        ):
            continue
        above = [para for para in paragraphs if para and para[-1].bbox[3] <= box[1]]
        last = max(above, key=lambda para: para[-1].bbox[3], default=None)
        order = (*last.order[:-1], last.order[-1] + 0.5) if last is not None else (-1, 0)
        found.append((order, box))
    return found[: SCAN.tint_max_reads]


def _reads_as_text(words: list[Word]) -> bool:
    """Words that are text, not a picture's scraps: most of those of three letters or digits
    or more (a bracket read beside two letters, "ao]", makes no word of three) are
    dictionary words or read surely (SCAN.panel_known_share, panel_sure_confidence)."""
    sure = [w.known or w.confidence >= SCAN.panel_sure_confidence
            for w in words if len(re.sub(r"\W", "", w.text)) >= 3]  # fmt: skip
    return bool(sure) and sum(sure) >= SCAN.panel_known_share * len(sure)


def _words(found: list[ParaLines]) -> list[Word]:
    return [w for para in found for line in para for w in line.words]


def _lines_span(found: list[ParaLines]) -> float:
    """How much of a part's height its read lines stand over (pixels, overlaps once)."""
    spans = sorted((line.bbox[1], line.bbox[3]) for para in found for line in para if line.bbox)
    total, reach = 0.0, float("-inf")
    for top, bottom in spans:
        total += max(0.0, bottom - max(top, reach))
        reach = max(reach, bottom)
    return total


def _block_of_text(found: list[ParaLines]) -> bool:
    """A picture's read that is text: 8 words or more, read with a mean confidence of 65 or
    more, most of those of 3 characters or more dictionary words."""
    words = _words(found)
    known = [w.known for w in words if len(w.text) >= 3]
    return (
        len(words) >= 8
        and statistics.mean(w.confidence for w in words) >= 65
        and sum(known) >= 0.6 * max(len(known), 1)
    )


def _without_marks(line: Line) -> bool:
    """A line without its words of no letter or digit (a fill's edge read as "|"); False
    when none is left."""
    line.words = [w for w in line.words if any(c.isalnum() for c in w.text)]
    return bool(line.words)


def _lettered(word: Word) -> bool:
    return sum(c.isalpha() for c in word.text) >= 2


def _digits(words: list[Word]) -> str:
    return "".join(c for w in words for c in w.text if c.isdigit())


def _figure_word(word: Word) -> bool:
    """A figure of two digits or more ("20-29", "0.2650"): a table's cell."""
    return is_figure(word.text) and sum(c.isdigit() for c in word.text) >= 2


_FOOTNOTE_MARK = re.compile(r"(?<=\d)[a-z]{1,2}$")  # "12.5a", "1,204ab": a note's letter
_THOUSANDS = re.compile(r"(?<=\d)[,\u2009](?=\d{3}(?!\d))")  # "1,040": a thousands separator


def figure_shape(text: str) -> str | None:
    """A figure's shape, each run of digits a 9, thousands apart or not ("2.6" and "15.8" ->
    "9.9", "960" and "1,040" -> "9"); None for a word that is no figure."""
    return re.sub(r"\d+", "9", _THOUSANDS.sub("", text)) if is_figure(text) else None


def misread_figures(lines: list[Line], params: ScanParams = SCAN) -> list[tuple[Word, str]]:
    """The words on lines of figures without the shape of their column's figures, each with
    that shape (ScanParams.column_min_figures): a blurred scan's misread cells. Not a word
    read surely, nor a long one."""
    shapes_of = [[figure_shape(w.text) for w in line.words] for line in lines]
    figures = [(k, w.bbox, shape) for k, line in enumerate(lines)
               for w, shape in zip(line.words, shapes_of[k], strict=True)
               if w.bbox and shape]  # fmt: skip
    found = []
    for k, line in enumerate(lines):
        if sum(shape is not None for shape in shapes_of[k]) < params.column_line_figures:
            continue
        for word, own in zip(line.words, shapes_of[k], strict=True):
            if (
                not word.bbox
                or word.confidence >= params.column_sure_confidence
                or len(word.text) > params.column_max_chars
            ):
                continue
            reach = params.column_lines * (word.bbox[3] - word.bbox[1])
            middle = (word.bbox[1] + word.bbox[3]) / 2
            shapes = Counter(
                shape for j, box, shape in figures
                if j != k and abs((box[1] + box[3]) / 2 - middle) <= reach
                and share_a_column(word.bbox, box, params.column_overlap_share)
            )  # fmt: skip
            if not shapes:
                continue
            shape, count = shapes.most_common(1)[0]
            if (
                count >= params.column_min_figures
                and count >= params.column_shape_share * shapes.total()
                and own != shape
                # a figure of the shape with a footnote's letter ("12.5a") is read right
                and figure_shape(_FOOTNOTE_MARK.sub("", word.text)) != shape
            ):
                found.append((word, shape))
    return found


def illegible_text(lines: list[list[Word]]) -> bool:
    """Whether a picture's lines of words, read again as text and found no text, are text
    Tesseract cannot read (handwriting): many words of letters, some of them real, few read
    surely, in many lines of writing. A chart's marks and slanted labels read as a few long
    rows of letters: a figure, not handwriting."""
    words = [w for line in lines for w in line]
    known = [w.known for w in words if len(w.text) >= 3]
    lettered = [w for w in words if _lettered(w)]
    sure = sum(w.confidence >= 80 for w in lettered) / max(len(lettered), 1)
    written = sum(sum(map(_lettered, line)) >= ILLEGIBLE_LINE_WORDS for line in lines)
    return (
        len(lettered) >= ILLEGIBLE_MIN_WORDS
        and sure < ILLEGIBLE_SURE_SHARE
        and sum(bool(k) for k in known) >= 0.25 * len(known)
        and written >= ILLEGIBLE_MIN_LINES
    )


def leader_runs(dark: np.ndarray, params: ScanParams = SCAN) -> list[tuple[int, int]]:
    """The dot leaders of one line's crop (`dark`: its ink, rows by columns), as column spans
    [x0, x1): runs of small marks on the baseline, evenly spaced (params.leader_*). A full
    stop, an ellipsis or a word's dots are fewer; letters are taller."""
    height = dark.shape[0]
    if height == 0:
        return []
    dots = []
    # The marks: runs of inked columns with blank columns between them.
    for x0, x1 in index_runs(np.flatnonzero(dark.any(axis=0))):
        rows = np.flatnonzero(dark[:, x0:x1].any(axis=1))
        tall, wide = rows[-1] - rows[0] + 1, x1 - x0
        low = (rows[0] + rows[-1]) / 2 >= params.leader_low_ratio * height
        small = max(tall, wide) <= params.leader_dot_ratio * height
        dots.append((x0, x1) if small and low else None)
    runs: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []

    def close() -> None:
        if len(run) >= params.leader_min_dots:
            steps = np.diff([(a + b) / 2 for a, b in run])
            usual = float(np.median(steps))
            # A small mark at a step of its own ends the leader, not the whole run: the foot
            # of an italic page number just past the dots ("\AcceptText ....... 3").
            if usual <= params.leader_step_ratio * height:  # marks farther apart: no leader
                uneven = np.flatnonzero(np.abs(steps - usual) > params.leader_step_spread * usual)
                bounds = [0, *(uneven + 1).tolist(), len(run)]
                parts = [run[start:stop] for start, stop in itertools.pairwise(bounds)]
                runs.extend(
                    (part[0][0], part[-1][1]) for part in parts
                    if len(part) >= params.leader_min_dots
                    and part[-1][1] - part[0][0] >= params.leader_min_span_ratio * height
                )  # fmt: skip
        run.clear()

    for dot in dots:
        if dot is None:
            close()
        else:
            run.append(dot)
    close()
    return runs


class PartRereads:
    """Second reads of parts of a page. The engine provides what they use: `_tesserocr`, its
    recognizers (`_recognize`, `_api_for`), its languages (`primary`, `_available`)."""

    def _foreign_lines(self, gray: Image.Image, paragraphs, *, page_lang: str, dpi: int) -> None:
        """Lines in another language than the page are read again with that language too (its
        letters: "über", "cão", which the page's model reads "tiber", "cao"); the re-read is
        kept when it is more confident. Only long prose with clear evidence carries the
        language (rendered as `lang` on the passage: a screen reader switches voice)."""
        tess = self._tesserocr
        # A list bullet read as a letter ("e", "o") is no word of any language, nor is an
        # address ("github.com/...": "com" is Portuguese for "with").
        texts = [BULLET.sub("", line.text, count=1) for para in paragraphs for line in para]
        k = -1
        for para in paragraphs:
            for line in para:
                k += 1
                words_only = _ADDRESS.sub(" ", texts[k])
                lang, scores = language_and_scores(words_only, default=None)
                if not lang or lang == page_lang:
                    continue
                if scores[lang] <= scores.get(page_lang, 0.0):
                    continue  # as much of the page's own language: a name, a borrowed word
                # A voice switch needs clear evidence: several of the language's own short
                # words, far more than of the page's language or of any other.
                runner_up = max(v for key, v in scores.items() if key != lang)
                voice = long_prose(texts[k]) and scores[lang] >= 3 and scores[lang] >= 2 * runner_up
                if voice:
                    for word in line.words:
                        word.lang = lang
                if not self._available(lang):
                    continue
                # A printed bullet stays as it was read (a line read alone takes it for "O").
                lead = line.words[:1] if BULLET.match(line.text) and len(line.words) > 1 else []
                x0, y0, x1, y1 = line.bbox
                if lead and line.words[1].bbox:
                    x0 = line.words[1].bbox[0]
                pad = int((y1 - y0) * 0.3)
                box = (max(0, x0 - pad), max(0, y0 - pad), min(gray.width, x1 + pad),
                       min(gray.height, y1 + pad))  # fmt: skip
                api = self._recognize(
                    self._api_for(lang, psm=tess.PSM.SINGLE_LINE), gray.crop(box), dpi
                )
                words = [
                    w for para2 in read_paragraphs(tess, api) for ln in para2 for w in ln.words
                ]
                if not words:
                    continue
                before = line.words[len(lead) :]
                old = sum(w.confidence for w in before) / len(before)
                new = sum(w.confidence for w in words) / len(words)
                # Without the evidence for a voice, the other reading must be better, not as good.
                if new > old or (voice and new == old):
                    for w in words:
                        w.lang = lang if voice else None
                        if w.bbox:
                            w.bbox = (w.bbox[0] + box[0], w.bbox[1] + box[1],
                                      w.bbox[2] + box[0], w.bbox[3] + box[1])  # fmt: skip
                    line.words = lead + words

    def _text_in_images(self, gray: Image.Image, figures: list[ReadBlock], paragraphs, dpi: int):
        """Tesseract takes text on a dark or mottled page (an old book's scan) for images and
        does not read it. A large "image" is read again as one block of text; when that reads
        as text (confident dictionary words), it is text and not a figure."""
        kept, read_as_text = [], []
        # Largest first: an image region inside one read as text is text too (read once).
        for figure in sorted(figures, key=lambda f: -area(f.bbox)):
            x0, y0, x1, y1 = (int(v) for v in figure.bbox)  # type: ignore[union-attr]
            if any(inside_share(figure.bbox, box) >= 0.8 for box in read_as_text):
                continue
            if (x1 - x0) * (y1 - y0) < TEXT_IMAGE_SHARE * gray.width * gray.height:
                kept.append(figure)
                continue
            crop = gray.crop((x0, y0, x1, y1))
            found = self._block_read(crop, dpi)
            text = _block_of_text(found)
            if not _words(found) or text and _lines_span(found) < SCAN.tint_read_span * crop.height:
                # Print on a screened tint (a box shaded with a halftone's dots, a magazine's
                # sidebar) reads as nothing, alone or beside the lines on paper around it (a
                # photograph reads as scraps, and is not read again): the part is read
                # flattened too (each pixel against its neighbourhood's grey: the dots
                # go), and that read taken when it is text with more words read surely: as
                # what the first read lacks where that was text (its lines on paper read better
                # as they stand), else whole.
                flat = self._block_read(flattened(crop, dpi), dpi)
                if _block_of_text(flat) and _sure_words(_words(flat)) > _sure_words(_words(found)):
                    found = found + fill_in(found, flat) if text else flat
                    text = _block_of_text(found)
            if not text:
                writing = illegible_text([line.words for para in found for line in para])
                if writing and not photographic(crop):
                    figure.illegible_text = True
                kept.append(figure)
                continue
            move_lines(found, x0, y0)
            # The "image" may span lines the page's read holds (a scan's dark edge beside
            # them): those stay as read, the image's read adds only what they lack.
            found = fill_in(paragraphs, found)
            for k, para in enumerate(found):
                para.order = (figure.order[0], k)
                paragraphs.append(para)
            read_as_text.append(figure.bbox)
        kept = [f for f in kept if not any(inside_share(f.bbox, b) >= 0.8 for b in read_as_text)]
        kept.sort(key=lambda f: f.order)
        paragraphs.sort(key=lambda para: para.order)
        return kept, paragraphs

    def _block_read(self, crop: Image.Image, dpi: int) -> list[ParaLines]:
        """A part of the page read as one block of text, in the page's first language."""
        api = self._api_for(self.primary, psm=self._tesserocr.PSM.SINGLE_BLOCK)
        return read_paragraphs(self._tesserocr, self._recognize(api, crop, dpi), dpi)

    def _reversed_rows(self, gray: Image.Image, figures: list[ReadBlock], paragraphs, dpi: int):
        """Rows printed white on dark (a table's header row: ruled_tables.reversed_bars),
        which Tesseract takes for pictures or reads as scraps: each bar is read inverted, and
        when that reads as text (confident, mostly dictionary words) its words replace what
        was read there, and the "picture" goes. With the bars read, and their lines."""
        heads: list[tuple[tuple[int, int, int, int], list[ParaLines]]] = []
        for bar in reversed_bars(gray, dpi):
            x0, y0, x1, y1 = bar
            found = keep_lines(self._block_read(ImageOps.invert(gray.crop(bar)), dpi),
                               without_scraps)  # fmt: skip
            words = _words(found)
            # A head is often a term of art, and two words are few to judge by: a word read
            # surely counts as known (garbage read from a picture is not read surely).
            known = [w.known or w.confidence >= 85 for w in words if len(w.text) >= 3]
            if (
                not words
                or statistics.mean(w.confidence for w in words) < 70
                or sum(known) < 0.6 * max(len(known), 1)
            ):
                continue
            move_lines(found, x0, y0)
            paragraphs = outside_figures(paragraphs, [ReadBlock(kind="figure", bbox=bar)])
            # In the reading order just before the first paragraph under it.
            under = [p for p in paragraphs if p[0].bbox[1] >= y0]
            order = min((p.order for p in under), default=(len(paragraphs) + 1, 0))
            for k, para in enumerate(found):
                para.order = (order[0] - 0.5, k)
                paragraphs.append(para)
            figures = [f for f in figures if f.bbox is None or inside_share(f.bbox, bar) < 0.5]
            heads.append((bar, found))
        paragraphs.sort(key=lambda para: para.order)
        return figures, paragraphs, heads

    def _reversed_panels(self, gray: Image.Image, figures: list[ReadBlock], paragraphs, *,
                         lang: str, dpi: int):  # fmt: skip
        """Panels on flat dark fills (a banner, a coloured box of text, a table of white names
        on dark cells beside dark figures on grey ones), which Tesseract takes for pictures
        or reads as scraps: its pictures and its lines read doubtfully that stand on such a
        fill are each read again twice, by a recognizer that also tries every line inverted
        (Tesseract's own choice, line by line: a dark word in a light box stays dark) and on
        the part flattened (each pixel against its neighbourhood's grey: light-on-dark and
        dark-on-light alike become dark on white). The read with more words read surely
        replaces the page's words there when it reads as text and clearly better
        (SCAN.panel_*); a picture whose own read is text gives way to it. A picture that reads
        as neither stays one (a dark photograph, a pattern), and so does one beside its text
        (a portrait by a quote on one black fill), its text as the page read it."""
        doubtful = [
            (para.order, _padded(line.bbox, gray.size)) for para in paragraphs for line in para
            if line.words and _mean_confidence(line.words) < SCAN.panel_line_confidence
        ]  # fmt: skip
        parts = [(f.order, tuple(int(v) for v in f.bbox), f) for f in figures if f.bbox]
        parts += [(order, box, None) for order, box in doubtful]
        paper = paper_grey(gray)
        parts += [(order, box, None) for order, box in _unread_tints(gray, paper, figures,
                                                                     paragraphs, dpi)]  # fmt: skip
        text_panels: list[tuple[int, int, int, int]] = []
        for order, box, figure in parts:
            if figure is None and any(inside_share(box, f.bbox) >= 0.5 for f in figures
                                      if f.bbox):  # fmt: skip
                continue  # read with its picture
            crop = gray.crop(box)
            if not on_flat_fills(crop, paper):
                continue
            found = self._panel_read(crop, lang=lang, dpi=dpi)
            read = _words(found)
            held = [w for para in paragraphs for line in para for w in line.words
                    if w.bbox and inside_share(w.bbox, box) >= 0.5]  # fmt: skip
            sure, sure_before = _sure_words(read), _sure_words(held)
            better = sure > sure_before and (
                sure >= sure_before + SCAN.panel_gain_words
                or _mean_confidence(read) >= _mean_confidence(held) + SCAN.panel_confidence_gain
            )
            replaces = _reads_as_text(read) and better
            text = [w.bbox for w in read] if replaces else _within(box, (w.bbox for w in held))
            inner = _within(box, (f.bbox for f in figures if f is not figure and f.bbox
                                  and inside_share(f.bbox, box) >= 0.5))  # fmt: skip
            beside = figure is not None and picture_beside(crop, text, dpi, inner)
            picture = _within(box, [beside], sign=-1)[0] if beside else None
            if replaces:
                move_lines(found, box[0], box[1])
                paragraphs = outside_figures(paragraphs, [ReadBlock(kind="figure", bbox=box)])
                if picture:
                    _drop_words_in(picture, found)  # scraps of the picture beside the text
                for line in (line for para in found for line in para):
                    line.confirmed = True  # a second read, better than the page's, stands for it
                for k, para in enumerate(found):
                    # A picture's lines in its place; a line's just after it.
                    para.order = (order[0], k if figure is not None else order[-1] + k / 100)
                    paragraphs.append(para)
            elif figure is None or not _reads_as_text(held):
                continue
            if picture:  # the picture beside the text stays, to its own extent
                figure.bbox = picture
            elif figure is not None:
                figures = [f for f in figures if f is not figure]
                text_panels.append(box)
        paragraphs.sort(key=lambda para: para.order)
        return figures, paragraphs, text_panels

    def _panel_read(self, crop: Image.Image, *, lang: str, dpi: int) -> list[ParaLines]:
        """The better of a panel's two reads (inverted lines, flattened), by words read
        surely. The panel's words stand as the page's own read would: a Dutch word read with
        little confidence by English is still a word (only the fill's edges are scraps)."""
        inverting = self._api_for(lang, psm=self._tesserocr.PSM.SINGLE_BLOCK, invert=True)
        reads = [
            self._recognize(inverting, crop, dpi),
            self._recognize(self._spare("panel"), flattened(crop, dpi), dpi),
        ]
        return max(
            (keep_lines(read_paragraphs(self._tesserocr, api, dpi), _without_marks)
             for api in reads),
            key=lambda paras: _sure_words(_words(paras)),
        )  # fmt: skip

    def _missed_lines(self, gray: Image.Image, binary: Image.Image | None, paragraphs,
                      figures: list[ReadBlock], *, lang: str, dpi: int) -> None:  # fmt: skip
        """Lines Tesseract's line finder skipped (ink far from the lines around it that no line
        read and no figure holds), read again one by one and put back in place when they read
        as words; at most SCAN.missed_max_reads of them a page. Inside a paragraph, between
        two of its lines; then between the page's paragraphs, across its text's width, put
        back as a paragraph of its own after the one above (a form's label "NOM ET ADRESSE DE
        L'ORGANISME ... :" over two dotted lines, which the page's layout left out whole once
        the page was straightened)."""
        if binary is None:
            return
        dark = np.asarray(binary.convert("L")) < SCAN.dark_level
        held = [line.bbox for para in paragraphs for line in para]
        for x0, y0, x1, y1 in held + [f.bbox for f in figures if f.bbox]:
            dark[int(y0) : int(y1), int(x0) : int(x1)] = False
        runs = [(para, above, box) for para in paragraphs for above, box in unread_rows(dark, para)]
        page = ParaLines(
            sorted((ln for para in paragraphs for ln in para), key=lambda ln: ln.bbox[1])
        )
        runs += [(None, above, box) for above, box in unread_rows(dark, page)
                 if not any(inside_share(box, b) > 0 for _, _, b in runs)]  # fmt: skip
        api = self._api_for(lang, psm=self._tesserocr.PSM.SINGLE_LINE)
        for para, above, box in runs[: SCAN.missed_max_reads]:
            pad = int(SCAN.missed_margin_ratio * above.height)
            lines = self._read_alone(api, gray, box, pad, dpi)
            words = [w for line in lines for w in line.words]
            if len(lines) != 1 or sum(map(_lettered, words)) < SCAN.missed_min_words:
                continue
            if statistics.mean(w.confidence for w in words) < SCAN.missed_confidence:
                continue
            if para is not None:
                para.insert(next(k for k, line in enumerate(para) if line is above) + 1, lines[0])
                continue
            k = next(k for k, p in enumerate(paragraphs) if any(line is above for line in p))
            alone = ParaLines([lines[0]])
            alone.order = (*paragraphs[k].order, 1)  # after the paragraph above it
            paragraphs.insert(k + 1, alone)

    def _read_alone(self, api, gray: Image.Image, box, pad: int, dpi: int,
                    scale: float = 1.0) -> list[Line]:  # fmt: skip
        """The lines `api` reads in `box` of the page, `pad` pixels around it, the crop resized
        by `scale`: in the page's pixels."""
        x0, y0, x1, y1 = box
        left, top = max(0, x0 - pad), max(0, y0 - pad)
        crop = gray.crop((left, top, min(gray.width, x1 + pad), min(gray.height, y1 + pad)))
        if scale != 1.0:
            crop = crop.resize((round(crop.width * scale), round(crop.height * scale)))
        found = read_paragraphs(self._tesserocr, self._recognize(api, crop, dpi), dpi)
        if scale != 1.0:
            scale_lines(found, 1 / scale)
        move_lines(found, left, top)
        return [line for part in found for line in part]

    def _doubtful_lines(self, gray: Image.Image, paragraphs, *, lang: str, dpi: int) -> None:
        """Short lines Tesseract read with little confidence (a bold head in a word it does not
        know: "B.1 Hyperparameters" read right at 13, dropped as noise), read again alone at
        another scale (SCAN.reread_scale). Two reads that agree letter for letter, however
        spaced ("(repeat) {(arg-1)} (repeat)" then "(repeat) {(arg-1)}(repeat)"), are the
        line, its confidence the second read's (specks and strokes read as letters do not
        read the same twice), when the second is legible (`reread_agree_confidence`); the
        line is then judged as a confirmed one (`is_illegible`). Not at any confidence: a
        script the languages do not read (Greek read with English) reads as the same Latin
        nonsense twice. A second read that disagrees is taken only when sure
        (`missed_confidence`).
        Only on a page of sure print: one with more than SCAN.reread_max_lines such lines
        holds writing, a script its languages do not read or a picture's marks, which stay as
        they were read (the page is judged on them). Lines of figures alone that would be
        dropped as illegible (a typewritten table's "20-29 0.2650" read at 13 and 61) are read
        again too, up to SCAN.reread_max_figure_lines of them (a table holds many): the same
        digits read twice confirm the line as first read (a second read may part a figure
        where the first did not: "0: 2650")."""

        def mean(line: Line) -> float:
            return statistics.mean(w.confidence for w in line.words)

        short = [(para, k, line) for para in paragraphs for k, line in enumerate(para)
                 if line.words and len(line.words) <= SCAN.reread_max_words]  # fmt: skip
        lettered = [item for item in short if mean(item[2]) < SCAN.reread_below_confidence
                    and any(map(_lettered, item[2].words))]  # fmt: skip
        figures = [item for item in short if mean(item[2]) < SCAN.illegible_confidence
                   and all(map(_figure_word, item[2].words))]  # fmt: skip
        if len(lettered) > SCAN.reread_max_lines:
            lettered = []  # many: writing, a script the languages do not read, a picture's marks
        api = self._api_for(lang, psm=self._tesserocr.PSM.SINGLE_LINE)
        reads = [(item, False) for item in lettered]
        reads += [(item, True) for item in figures[: SCAN.reread_max_figure_lines]]
        for (para, k, line), of_figures in reads:
            box = tuple(int(v) for v in line.bbox)
            pad = int(SCAN.missed_margin_ratio * (line.bbox[3] - line.bbox[1]))
            lines = self._read_alone(api, gray, box, pad, dpi, scale=SCAN.reread_scale)
            words = [w for again in lines for w in again.words]
            if of_figures:  # the same digits twice stand
                if len(lines) == 1 and _digits(words) == _digits(line.words):
                    line.confirmed = True
                continue
            if len(lines) != 1 or not any(map(_lettered, words)):
                continue
            sure = statistics.mean(w.confidence for w in words)
            said = "".join(w.text for w in words)
            agree = said == "".join(w.text for w in line.words)  # however the spaces fell
            if sure < (SCAN.reread_agree_confidence if agree else SCAN.missed_confidence):
                continue
            lines[0].confirmed = agree
            para[k] = lines[0]

    def _column_figures(self, gray: Image.Image, paragraphs, *, dpi: int) -> None:
        """Words on lines of figures read unlike their column's figures (misread_figures) read
        again alone as a figure of the column's shape (Tesseract told to read only its digits
        and signs), at most SCAN.column_max_reads a page: the word takes the read that has the
        shape, read at SCAN.column_read_confidence or more; any other read leaves it as it was
        (a "24" where the print has no point stays "24")."""
        lines = [line for para in paragraphs for line in para]
        suspects = misread_figures(lines)[: SCAN.column_max_reads]
        if not suspects:
            return
        api = self._spare("figures", psm=self._tesserocr.PSM.SINGLE_LINE)
        for word, shape in suspects:
            # The column's signs, and the word's own (a "1.6" over a column of whole numbers
            # may read "1.6" again, never "16" for want of a point).
            signs = set(shape) | set(word.text) if is_figure(word.text) else set(shape)
            allowed = "0123456789" + "".join(sorted(c for c in signs if not c.isalnum()))
            api.SetVariable("tessedit_char_whitelist", allowed)
            box = tuple(int(v) for v in word.bbox)
            pad = int(SCAN.missed_margin_ratio * (box[3] - box[1]))
            again = [w for line in self._read_alone(api, gray, box, pad, dpi,
                                                    scale=SCAN.reread_scale)
                     for w in line.words]  # fmt: skip
            if (
                len(again) == 1
                and figure_shape(again[0].text) == shape
                and again[0].confidence >= SCAN.column_read_confidence
            ):
                word.text, word.confidence, word.known = again[0].text, again[0].confidence, None

    def _leader_lines(self, gray: Image.Image, paragraphs, *, lang: str, dpi: int) -> None:
        """Lines with a dot leader (a contents page's "2.1 Main bounds . . . . 1", a form's
        "Name ........", a table's "0.25 ....... 32"): Tesseract reads the dots as letters and
        mangles the words beside them ("97° Main bognds 266 Ss a ee 1"), which then go as
        noise. The line is read again alone with the leaders' dots whitened; its words up to
        the last leader's end replace those first read there when they are sure
        (`missed_confidence`), or legible and surer than the first read; after it, the surer
        of the two reads stands (a table's figures read well the first time, a page number
        lost to the dots before it). At most SCAN.leader_max_reads lines a page."""
        api = self._api_for(lang, psm=self._tesserocr.PSM.SINGLE_LINE)
        reads = 0
        for para in paragraphs:
            for k, line in enumerate(para):
                if reads >= SCAN.leader_max_reads:
                    return
                x0, y0, x1, y1 = (int(v) for v in line.bbox)
                runs = leader_runs(np.asarray(gray.crop((x0, y0, x1, y1))) < SCAN.dark_level)
                if not runs:
                    continue
                reads += 1
                pad = int(SCAN.missed_margin_ratio * (y1 - y0))
                left, top, end = max(0, x0 - pad), max(0, y0 - pad), x0 + runs[-1][1]
                region = gray.crop(
                    (left, top, min(gray.width, x1 + pad), min(gray.height, y1 + pad))
                )
                for start, stop in runs:
                    region.paste(PAPER, (x0 + start - left, y0 - top, x0 + stop - left, y1 - top))
                lines = self._read_alone(api, region, (0, 0, region.width, region.height), 0, dpi)
                move_lines([lines], left, top)
                again = [w for ln in lines for w in ln.words if any(map(str.isalnum, w.text))]
                before, after = _split_at(again, end)
                if len(lines) != 1 or not before:
                    continue
                first_before, first = _split_at(line.words, end)
                # Sure, or surer than the dots read as letters and legible: the mended line is
                # judged as any other (an index's "\Address 4 \IfPrepare" read at 56 to 91,
                # where the first read was "NAGArONH Oe aes oe" at 0 to 30).
                sure = _mean_confidence(before)
                if sure < SCAN.missed_confidence and (
                    sure < SCAN.illegible_confidence or sure <= _mean_confidence(first_before)
                ):
                    continue
                if not after or (first and _mean_confidence(first) >= _mean_confidence(after)):
                    after = first
                mended = Line(before + after, line.bbox, line.ink)
                mended.size, mended.stroke = line.size, line.stroke
                para[k] = mended

    def _unread_cells(self, gray: Image.Image, ink: InkMeter, paragraphs: list[ParaLines], *,
                      lang: str, dpi: int) -> list[Grid]:  # fmt: skip
        """The page's ruled grids, and their cells that hold ink but no word (a lone "1" or
        "-" Tesseract's line finder passed over, a row it lost) read again one by one as a
        line, put on the page as lines of their own (at most RULED_TABLES.cell_max_reads)."""
        grids = find_grids(gray, dpi)
        api = self._api_for(lang, psm=self._tesserocr.PSM.SINGLE_LINE)
        reads = RULED_TABLES.cell_max_reads
        inset = round(at_dpi(RULED_TABLES.cell_inset_px, dpi))
        margin = round(at_dpi(RULED_TABLES.cell_read_margin_px, dpi))
        for grid in grids:
            x0, y0, x1, y1 = grid.bbox
            mine = [para for para in paragraphs if any(
                x0 <= (w.bbox[0] + w.bbox[2]) / 2 <= x1 and y0 <= (w.bbox[1] + w.bbox[3]) / 2 <= y1
                for line in para for w in line.words if w.bbox)]  # fmt: skip
            if not mine:
                continue  # a frame with nothing read in it: no table of ours
            words = _words(mine)
            for box in unread_cells(grid, words, ink, dpi)[:reads]:
                reads -= 1
                # The ink inside the cell, clear of its rules, on a margin of paper: in the
                # whole cell a lone "1" or "-" reads as nothing or as a glyph of its rules.
                inside = (int(box[0] + inset), int(box[1] + inset), int(box[2] - inset),
                          int(box[3] - inset))  # fmt: skip
                ink_box = _ink_box(gray.crop(inside))
                if ink_box is None:
                    continue
                left, top = inside[0] + ink_box[0], inside[1] + ink_box[1]
                right, bottom = inside[0] + ink_box[2], inside[1] + ink_box[3]
                crop = ImageOps.expand(gray.crop((left, top, right, bottom)), border=margin,
                                       fill=PAPER)  # fmt: skip
                found = read_paragraphs(self._tesserocr, self._recognize(api, crop, dpi), dpi)
                move_lines(found, left - margin, top - margin)
                kept = [
                    Word(text, w.confidence, w.bbox, known=w.known)
                    for para in found for line in para for w in line.words
                    if w.confidence >= RULED_TABLES.cell_min_confidence
                    and (text := w.text.strip(RULE_GLYPHS))
                ]  # fmt: skip
                if kept:
                    _drop_words_in(box, mine)  # the scraps read there before
                    para = ParaLines([Line(kept, _box_of(kept), ink(_box_of(kept)))])
                    para.order = mine[0].order
                    paragraphs.append(para)
        paragraphs[:] = keep_lines(paragraphs, lambda line: bool(line.words))
        paragraphs.sort(key=lambda para: para.order)
        return grids


def _drop_words_in(box, paragraphs: list[ParaLines]) -> None:
    """The words whose centre lies in the box leave their lines."""
    x0, y0, x1, y1 = box

    def inside(w: Word) -> bool:
        return x0 <= (w.bbox[0] + w.bbox[2]) / 2 < x1 and y0 <= (w.bbox[1] + w.bbox[3]) / 2 < y1

    for para in paragraphs:
        for line in para:
            line.words = [w for w in line.words if not inside(w)]


def _ink_box(crop: Image.Image) -> tuple[int, int, int, int] | None:
    """The box of the dark pixels of a crop, or None where it has none."""
    ys, xs = np.nonzero(np.asarray(crop.convert("L")) < RULED_TABLES.dark_below_level)
    if not xs.size:
        return None
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def _box_of(words: list[Word]) -> tuple[int, int, int, int]:
    boxes = [w.bbox for w in words]
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
            max(b[3] for b in boxes))  # fmt: skip
