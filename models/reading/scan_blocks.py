"""A scan's lines -> blocks: scraps, noise, illegible lines and words inside figures leave;
paragraphs split where a list item starts or the text size jumps; list items get their marker;
a short indented paragraph after an item joins it. Plain functions over scan_lines' Line."""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PIL import Image

from models.engine import BBox, ReadBlock, Word
from models.reading.boxes import area, centre_in, inside_share, union
from models.reading.kinds import (
    WEB_ADDRESS,
    WORD_EDGE,
    figure_text,
    is_figure,
    joined_lines,
    markup_line,
    tex_line,
)
from models.reading.markers import BULLET, ORDERED, take_marker
from models.reading.params.reading_order import READING_ORDER
from models.reading.params.scan import SCAN, ScanParams
from models.reading.scan_lines import (
    InkMeter,
    Line,
    ParaLines,
    ink_patches,
    keep_lines,
    text_size,
)


def without_scraps(line: Line) -> bool:
    """A line without its scraps: words read with little confidence or without a letter or a
    digit (the edges of a reversed bar read as "'", ":" or "|"); False when none is left."""
    line.words = [
        w for w in line.words
        if w.confidence >= SCAN.scrap_confidence and any(c.isalnum() for c in w.text)
    ]  # fmt: skip
    return bool(line.words)


def _word_in(word: Word, figure: ReadBlock) -> bool:
    return word.bbox is not None and figure.bbox is not None and centre_in(word.bbox, figure.bbox)


def crossed_by_text(figure: ReadBlock, paragraphs: list[ParaLines]) -> bool:
    """Whether text lines run across the "picture": Tesseract's lines with words inside it and
    more words outside, figure_crossing_lines of them or more, the words inside read as text
    (not scraps). A drawing's labels stand beside it or inside it, not in the lines of the
    text (a faded margin or a shadow over the first words of a typescript's lines is taken for
    a picture). An illustration the text wraps around stays one: the lines beside it begin with
    its strokes read as scraps ("~— Wer went tip-toeing"). A picture holding text Tesseract
    cannot read (handwriting) stays one."""
    if figure.illegible_text:
        return False
    crossing = 0
    for line in (line for para in paragraphs for line in para):
        inside = [w for w in line.words if _word_in(w, figure)]
        crossing += 0 < len(inside) < len(line.words) - len(inside) and _read_as_text(inside)
    return crossing >= SCAN.figure_crossing_lines


def ground_of_text(figure: ReadBlock, paragraphs: list[ParaLines], page: tuple[int, int]) -> bool:
    """A "picture" as large as the page (`page`: its width and height) holding a page of text
    read as such: the ground of a dark page read inverted, whose lines are its text, not a
    picture's labels (all of a dark listing's lines went into the figure as its labels)."""
    if figure.bbox is None or area(figure.bbox) < SCAN.ground_page_share * page[0] * page[1]:
        return False
    inside = [
        line for para in paragraphs for line in para
        if line.words and all(_word_in(w, figure) for w in line.words)
        and _read_as_text(line.words)
    ]  # fmt: skip
    return len(inside) >= SCAN.ground_text_lines


def _read_as_text(words: list[Word]) -> bool:
    """Words read as text, not as a drawing's strokes: their mean confidence a word's."""
    return statistics.mean(w.confidence for w in words) >= SCAN.scrap_confidence


def outside_figures(paragraphs: list[ParaLines], figures: list[ReadBlock]) -> list[ParaLines]:
    """The words read inside an illustration leave the text: those read as text (kinds.
    figure_text: an advertisement's lines, a chart's labels) become the figure's words, the
    rest are strokes of a drawing."""
    if not figures:
        return paragraphs

    def inside(word: Word) -> bool:
        holder = next((f for f in figures if _word_in(word, f)), None)
        if holder is not None:
            holder.words += figure_text([word])
        return holder is not None

    def trim(line: Line) -> bool:
        words = [w for w in line.words if not inside(w)]
        boxes = [w.bbox for w in words if w.bbox]
        if boxes:
            line.bbox = (min(b[0] for b in boxes), min(b[1] for b in boxes),
                         max(b[2] for b in boxes), max(b[3] for b in boxes))  # fmt: skip
        line.words = words
        return bool(words)

    return keep_lines(paragraphs, trim)


def _mean_confidence(line: Line) -> float:
    return sum(w.confidence for w in line.words) / max(len(line.words), 1)


def without_noise(paragraphs: list[ParaLines]) -> list[ParaLines]:
    """Drop lines of doubtful scraps ("SA ar Es te Se"): strokes of a drawing or speckles read as
    letters. Real text has longer words or is read with confidence."""

    def real(line: Line) -> bool:
        words = line.words
        scraps = len(words) >= SCAN.noise_min_words and all(
            len(w.text) <= SCAN.noise_word_letters for w in words
        )
        return not (scraps and _mean_confidence(line) < SCAN.noise_confidence)

    return keep_lines(paragraphs, real)


def read_surely(word: Word) -> bool:
    """A word of two characters or more read at SCAN.panel_word_confidence or more."""
    return len(word.text) >= 2 and word.confidence >= SCAN.panel_word_confidence


def is_illegible(line: Line, *, printed: bool = False, listing: bool = False) -> bool:
    """A line Tesseract could not really read (handwriting, a smudge): doubtful words that
    are mostly not in its dictionary (a figure counts as known: a table's row of figures is
    no handwriting), unless two reads confirmed them (`Line.confirmed`): then only a line
    read with little confidence and no word read surely is (a panel's row "Data.gov $0.9M",
    its figure read at 0, stays). On a `printed` page a doubtful line of computer text
    (kinds.markup_line: a listing's "\\def\\Or#1#2{", a key "short=sup1") is print no
    dictionary holds: only little confidence makes it illegible (a stamp printed sideways,
    read as "UO JASN WepJe|sWy }ENSIBAIUN", is read so, a word or two of it surely); inside a
    `listing` (in_listing), a line of computer text only under SCAN.listing_line_confidence,
    as a line of TeX (kinds.tex_line: "\\documentclass [EJP] {ejpecp}" read right at 33) on
    any printed page; on a printed page, an address (_address_line) never is."""
    words = line.words
    confidence = _mean_confidence(line)
    if printed and _address_line(line):
        return False
    if (listing and markup_line(line.text)) or (printed and tex_line(line.text)):
        return confidence < SCAN.listing_line_confidence
    if line.confirmed:
        return confidence < SCAN.illegible_confidence and not any(map(read_surely, words))
    if printed and markup_line(line.text):
        return confidence < SCAN.illegible_confidence
    longer = [w for w in words if len(w.text) >= SCAN.known_word_letters]
    known = sum(bool(w.known) or is_figure(w.text) for w in longer) / max(len(longer), 1)
    doubtful = confidence < SCAN.doubtful_confidence and known < SCAN.illegible_known_share
    return confidence < SCAN.illegible_confidence or doubtful


# The page without_illegible calls unreadable.
UNREADABLE_FINDING = {
    "code": "UNREADABLE",
    "level": "needs_review",
    # What a person can do; the flow adds a better engine where this server has one.
    "message": "Handwriting or illegible text: not transcribed. Ask for a review to have it "
    "transcribed, or upload a clearer scan.",
}


def unreadable_finding(script: str | None = None, *, printed: bool = False) -> dict:
    """The finding of a page not transcribed: handwriting or illegible text; or print
    (`printed`, "printed": true) the OCR could not read, in a `script` its languages do not
    read where that is known (print is never called handwriting)."""
    if script is None and not printed:
        return dict(UNREADABLE_FINDING)
    if script is None:
        return {
            **UNREADABLE_FINDING,
            "printed": True,
            "message": "Printed text that this server's OCR could not read (a script, a "
            "typeface or signs its languages do not cover): not transcribed. Ask for a review "
            "to have it transcribed, or have an administrator install Tesseract's language for "
            "it and add it to AXIYA_OCR_LANGUAGES, then convert it again.",
        }
    return {
        **UNREADABLE_FINDING,
        "printed": True,
        "script": script,
        "message": f"Printed text in the {script} script, which this server's OCR languages do "
        f"not read: not transcribed. Ask for a review to have it transcribed, or have an "
        f"administrator install Tesseract's language for it and add it to AXIYA_OCR_LANGUAGES, "
        f"then convert it again.",
    }


def _lettered(line: Line) -> bool:
    """A line of letters a reader misses: words, or one long word (a row of Greek capitals
    read as one), not a chart's marks or a lone label; and across the page, not up its margin
    (a journal's "Downloaded from ..." stamp set sideways, read as mirrored nonsense)."""
    letters = sum(c.isalpha() for c in line.text)
    x0, y0, x1, y1 = line.bbox
    return (
        letters >= SCAN.not_read_min_letters
        and (len(line.words) > 1 or letters >= SCAN.not_read_word_letters)
        and y1 - y0 <= SCAN.vertical_ratio * (x1 - x0)
    )


NOT_READ_CODE = "LINES_NOT_READ"
# Blocks whose place is theirs: a line under them is a figure's label, a formula's scrap, a
# table's cell, each with its own finding or description.
_COVERING_KINDS = ("figure", "formula", "table")


def not_read_finding(
    illegibility: Illegibility, blocks: Sequence[ReadBlock], pictures: Sequence[BBox] = (), *,
    page_number: int,
) -> dict | None:  # fmt: skip
    """The finding of a printed page whose illegible lines of letters stay out of its text
    (`blocks`, the floor's restored lines in them): SCAN.not_read_min_lines or more that no
    block holds a word of and no picture (the layout model's `pictures`), figure, formula or
    table covers. It says where: after the text that stands above the first. A page called
    unreadable has its own finding; this one is for the print around lines it cannot read (a
    manual's Greek words, an abstract in Cyrillic), which would otherwise end "0 findings"."""
    if illegibility.unreadable(pictures):
        return None
    covering = [b.bbox for b in blocks if b.bbox and b.kind in _COVERING_KINDS] + list(pictures)
    held = [w.bbox for b in blocks for w in b.words if w.bbox]
    out = [
        box for box in illegibility.lettered
        if not any(centre_in(box, c) for c in covering) and not _held(box, held)
    ]  # fmt: skip
    if len(out) < SCAN.not_read_min_lines:
        return None
    first = min(out, key=lambda box: (box[1], box[0]))
    before = _text_above(blocks, first)
    where = f", the first after “…{before}”" if before else ""
    return {
        "code": NOT_READ_CODE,
        "level": "needs_review",
        "message": (
            f"Page {page_number}: {len(out)} lines could not be read and are not in the text"
            f"{where} (print in a script or signs this server's OCR does not read, handwriting "
            "or a smudge). Compare the page with its image and transcribe them if they are "
            "text; for a script, an administrator can install Tesseract's language and add it "
            "to AXIYA_OCR_LANGUAGES."
        ),
    }


def unread_print_finding(
    binary: Image.Image | None, blocks: Sequence[ReadBlock], pictures: Sequence[BBox] = (), *,
    dpi: float, page_number: int,
) -> dict | None:  # fmt: skip
    """The finding of a page whose print was mostly not read at all: on a copy of the
    binarized page at SCAN.unread_sample_dpi, the patches of ink the text's words (and the
    figures, formulas, tables and `pictures` that cover theirs) do not hold, of a letter's or a
    word's height (a rule, a grid or a picture is taller or thinner), hold most of the page's
    print (SCAN.unread_print_share of it, counted with the ink the words hold) and are many
    (SCAN.unread_min_patches: a word or a line left out is not the page's print). A column of
    words set one a line, scanned upside down, read as three words and said nothing; the
    lines Tesseract found and could not read have their own finding (not_read_finding), this
    one is for the print it did not find at all."""
    if binary is None:
        return None
    factor = max(1, round(dpi / SCAN.unread_sample_dpi))
    ink = np.asarray(binary.convert("L").reduce(factor)) < SCAN.unread_ink_level
    held = np.zeros_like(ink)
    boxes = [w.bbox for b in blocks for w in b.words if w.bbox]
    boxes += [b.bbox for b in blocks if b.bbox and b.kind in _COVERING_KINDS] + list(pictures)
    for x0, y0, x1, y1 in boxes:
        held[max(0, int(y0) // factor - 1) : int(y1) // factor + 2,
             max(0, int(x0) // factor - 1) : int(x1) // factor + 2] = True  # fmt: skip
    lowest, highest = (SCAN.unread_min_height_inch * dpi / factor,
                       SCAN.unread_max_height_inch * dpi / factor)  # fmt: skip
    loose = [
        count for (_, y0, _, y1), count in ink_patches(ink & ~held)
        if lowest <= y1 - y0 <= highest
    ]  # fmt: skip
    unread, read = sum(loose), int((ink & held).sum())
    if len(loose) < SCAN.unread_min_patches or unread < SCAN.unread_print_share * (unread + read):
        return None
    return {
        "code": NOT_READ_CODE,
        "level": "needs_review",
        "message": (
            f"Page {page_number}: most of its print was not read ({unread / (unread + read):.0%} "
            "of its ink is outside the text). The page may be upside down or on its side, "
            "faint, very small or in a script this server's OCR does not read. Compare the page "
            "with its image; a clearer or upright scan may read."
        ),
    }


def _held(box: BBox, held: Sequence[BBox]) -> bool:
    """Most of the line's width in words of the text (`SCAN.not_read_held_share`): the floor
    brought the line back. A word or two of it read surely and brought back is not the line."""
    width = sum(w[2] - w[0] for w in held if centre_in(w, box))
    return width >= SCAN.not_read_held_share * (box[2] - box[0])


def _text_above(blocks: Sequence[ReadBlock], box: BBox) -> str:
    """The last words of the block of text nearest above `box` and beside it on the page."""
    middle = (box[1] + box[3]) / 2
    above = [
        b for b in blocks
        if b.bbox and b.text and b.kind not in _COVERING_KINDS and b.bbox[3] <= middle
        and b.bbox[0] < box[2] and box[0] < b.bbox[2]
    ]  # fmt: skip
    if not above:
        return ""
    words = max(above, key=lambda b: b.bbox[3]).text.split()  # type: ignore[index]
    return " ".join(words[-SCAN.not_read_quote_words :])


def without_dictionary(paragraphs: list[ParaLines], params: ScanParams = SCAN) -> None:
    """A page whose words Tesseract reads surely but its dictionary mostly does not know is in
    a language it has no dictionary for (a Dutch thesis, a Latin sample text, read with
    English): there the dictionary cannot tell a word from a scrap, and its words' `known`
    becomes None, as for an engine without one. Only confidence then judges a heading's words
    (a thesis's "Onderzoeksvraag", read at 89, was no heading for being no English word).
    Words of `dictionary_word_letters` letters or more read at `sure_confidence` or more
    count, `dictionary_min_words` of them at least, fewer than `dictionary_known_share`
    known."""
    words = [w for para in paragraphs for line in para for w in line.words]
    cores = ((w, w.text.strip(WORD_EDGE)) for w in words)
    sure = [
        w for w, core in cores
        if w.confidence >= params.sure_confidence and core.isalpha()
        and len(core) >= params.dictionary_word_letters
    ]  # fmt: skip
    if len(sure) < params.dictionary_min_words:
        return
    if sum(bool(w.known) for w in sure) >= params.dictionary_known_share * len(sure):
        return
    for w in words:
        w.known = None


def sure_share(lines: list[Line]) -> float:
    """The share of a page's words (of a few letters) Tesseract read surely, whether its
    dictionary knows them or not: print in any language reads so, handwriting does not. A
    word of a line of TeX (kinds.tex_line) is read surely at SCAN.doubtful_confidence: its
    control sequences run to one long word ("\\renewcommand{\\partnumfont}{\\normalfont}"), which
    Tesseract reads right at 60 to 80, and no scrap of handwriting reads as one."""
    sure, count = 0, 0
    for line in lines:
        floor = SCAN.doubtful_confidence if tex_line(line.text) else SCAN.sure_confidence
        words = [w for w in line.words if sum(map(str.isalpha, w.text)) >= SCAN.sure_word_letters]
        sure += sum(w.confidence >= floor for w in words)
        count += len(words)
    return sure / max(count, 1)


def _picture_label(box: BBox, pictures: Sequence[BBox]) -> bool:
    inside = sum(inside_share(box, p) for p in pictures)
    return any(centre_in(box, p) for p in pictures) or inside >= SCAN.picture_label_share


@dataclass(frozen=True)
class Illegibility:
    """What tells a page unreadable: its illegible lines (each line's box and characters)
    among all its characters, whether its words mostly read surely (`printed`), whether a
    picture on it holds many words Tesseract cannot read (`picture_text`)."""

    chars: int
    bad: tuple[tuple[BBox, int], ...]
    printed: bool
    picture_text: bool
    # The illegible lines of SCAN.not_read_min_letters letters or more: what not_read_finding
    # says a printed page left out.
    lettered: tuple[BBox, ...] = ()

    def unreadable(self, pictures: Sequence[BBox] = ()) -> bool:
        """Never where the page's words mostly read surely (print: typewriting in a language
        the dictionaries lack reads surely; a newspaper's advertisements, their ornaments read
        as letters, are pictures on a printed page). Else unreadable when a picture holds
        illegible text, or when the illegible lines are a good share of what the page holds.
        Illegible lines inside one of `pictures` (the layout model's: a chart's legend and
        axis labels, their swatches read as symbols), or reaching SCAN.picture_label_share of
        their box into them (a reaction scheme's labels, read across its bonds and arrows) are
        the picture's, no sign of handwriting."""
        if self.printed:
            return False
        if self.picture_text:
            return True
        counted = [n for box, n in self.bad if not _picture_label(box, pictures)]
        many = len(counted) >= SCAN.unreadable_lines
        return many and sum(counted) >= SCAN.unreadable_char_share * max(self.chars, 1)


# A host and its path with no scheme ("tug.org/TUGboat/tb11-2/tb28jeffrey.pdf", a footnote's).
_ADDRESS = re.compile(
    f"{WEB_ADDRESS.pattern}|[\\w-]+(?:\\.[\\w-]+)*\\.[^\\W\\d_]{{2,}}/\\S*", re.IGNORECASE
)


def _address_line(line: Line) -> bool:
    """A line that is mostly a web or mail address (SCAN.address_line_share of its
    characters, SCAN.address_min_chars or more): Tesseract reads one at little confidence
    however right, as no dictionary holds it. A line of a few words (SCAN.address_max_words)
    is judged with its words joined: Tesseract reads spaces into an address ("https:
    //ctan.org/pkg/x", "en.wiktionary .org/wiki/bite")."""
    words = [w.text for w in line.words]
    text = "".join(words) if len(words) <= SCAN.address_max_words else " ".join(words)
    chars = sum(not c.isspace() for c in text)
    found = sum(len(m.group(0)) for m in _ADDRESS.finditer(text))
    return found >= SCAN.address_min_chars and found >= SCAN.address_line_share * chars


def in_listing(para: ParaLines, *, printed: bool) -> bool:
    """A paragraph of a printed page that is a listing: SCAN.listing_sure_lines of its lines
    computer text read with SCAN.doubtful_confidence or more (a sideways stamp read as
    "}ENSIBAIUN" or a chart's marks hold none)."""
    if not printed:
        return False
    sure = [
        line for line in para
        if markup_line(line.text) and _mean_confidence(line) >= SCAN.doubtful_confidence
    ]  # fmt: skip
    return len(sure) >= SCAN.listing_sure_lines


def without_illegible(paragraphs: list[ParaLines], figures: list[ReadBlock], *, printed: bool):
    """Illegible lines leave the text (confident nonsense is worse than nothing; what was read
    surely comes back with models.reading.floor); with what tells whether the page is
    unreadable (Illegibility: a picture Tesseract found holding many words it cannot read is
    handwriting it takes for an image, models.ocr.rereads)."""
    lines = [line for para in paragraphs for line in para]
    bad = []
    for para in paragraphs:
        listing = in_listing(para, printed=printed)
        bad += [line for line in para if is_illegible(line, printed=printed, listing=listing)]
    judged = Illegibility(
        chars=sum(len(line.text) for line in lines),
        bad=tuple(
            (line.bbox, len(line.text)) for line in bad if len(line.text) >= SCAN.writing_min_chars
        ),
        printed=printed,
        picture_text=any(f.illegible_text for f in figures),
        lettered=tuple(line.bbox for line in bad if _lettered(line)),
    )
    if not bad:
        return paragraphs, judged
    dropped = {id(line) for line in bad}
    return keep_lines(paragraphs, lambda line: id(line) not in dropped), judged


def join_lines(lines: list[Line]) -> tuple[str, list[Word]]:
    """Join lines into one text, mending words hyphenated at a line end."""
    return joined_lines([line.text for line in lines]), [w for line in lines for w in line.words]


def blocks_from_lines(lines: list[Line], ink: InkMeter) -> list[ReadBlock]:
    """Split one Tesseract paragraph into blocks: list items start where a bullet starts a line."""
    for line in lines:
        line.ink = ink(line.bbox)
        line.stroke = ink.stroke(line.bbox)
    groups: list[list[Line]] = []
    for i, line in enumerate(lines):
        starts_item = bool(BULLET.match(line.text) or ORDERED.match(line.text))
        # A jump in text size (a title run into the first lines of text) starts a new block.
        ratio = max(line.height, 1) / max(lines[i - 1].height, 1) if i else 1.0
        size_jump = not 1 / SCAN.size_jump_ratio <= ratio <= SCAN.size_jump_ratio
        if not groups or starts_item or size_jump:
            groups.append([line])
        else:
            groups[-1].append(line)
    blocks = []
    for group in groups:
        text, words = join_lines(group)
        x0 = min(line.bbox[0] for line in group)
        y0 = min(line.bbox[1] for line in group)
        x1 = max(line.bbox[2] for line in group)
        y1 = max(line.bbox[3] for line in group)
        block = ReadBlock(
            kind="paragraph",
            text=text,
            bbox=(float(x0), float(y0), float(x1), float(y1)),
            words=words,
            font_size=statistics.median(text_size(line) for line in group),
        )
        block.ink = statistics.median(line.ink for line in group)
        block.stroke = statistics.median(line.stroke for line in group)
        # A "marker" several lines tall is a drop cap the engine misread ("-" for an "F").
        bullet = BULLET.match(text) if not _tall_first_word(words) else None
        ordered = ORDERED.match(text)
        if bullet:
            take_marker(block, bullet)
        elif ordered and len(group) >= 1 and len(text) > ordered.end() + 2:
            take_marker(block, ordered)
            block.ordered = True
        block.order = lines.order
        blocks.append(block)
    return blocks


def _tall_first_word(words: list[Word]) -> bool:
    """The first word stands at least `drop_cap_lines` times as tall as the others' median."""
    heights = [w.bbox[3] - w.bbox[1] for w in words[1:] if w.bbox]
    first = words[0].bbox if words else None
    if not heights or first is None:
        return False
    return first[3] - first[1] >= READING_ORDER.drop_cap_lines * statistics.median(heights)


def _size(block: ReadBlock) -> float:
    return block.font_size or SCAN.fallback_size_px


def join_list_continuations(blocks: list[ReadBlock]) -> list[ReadBlock]:
    """A short indented paragraph right after a list item is the rest of that item."""
    out: list[ReadBlock] = []
    for block in blocks:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.kind == "list_item"
            and block.kind == "paragraph"
            and block.bbox is not None
            and prev.bbox is not None
            and block.bbox[0] > prev.bbox[0] + SCAN.continuation_indent_ratio * _size(block)
            and block.bbox[1] - prev.bbox[3] < SCAN.continuation_gap_ratio * _size(block)
            and block.bbox[0] < prev.bbox[2]
        ):
            prev.text = prev.text + " " + block.text
            prev.words.extend(block.words)
            prev.bbox = union((prev.bbox, block.bbox))
            continue
        out.append(block)
    return out
