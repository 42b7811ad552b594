"""A text layer's words and lines as a reader needs them: each word's exponents and indices and
its own text size (from its glyphs), a block's words in order with exponents MuPDF put apart
joined to their word and words hyphenated at a line end mended, an OCR layer's lines joined
again into runs of text, and text a PDF draws twice read once."""

from __future__ import annotations

import itertools
import re
import statistics
import unicodedata
from typing import NamedTuple

import pymupdf

from models.engine import ReadBlock, Word
from models.reading.boxes import union
from models.reading.inline_math import MathGlyph
from models.reading.markers import BULLET, take_marker
from models.reading.math_text import Glyph
from models.reading.params.code import CODE, MONO_FONT, CodeParams
from models.reading.params.text_layer import TEXT_LAYER, TextLayerParams


def _line_glyphs(line: dict, params: TextLayerParams) -> list[tuple[dict, float, str | None]]:
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
        level = abs(shift) < params.script_shift_ratio * body
        if char["c"].isspace() or size > params.script_size_ratio * body or level:
            out.append((char, size, None))
        else:
            out.append((char, size, "sup" if shift < 0 else "sub"))
    return out


# A spacing accent as TeX sets it, a glyph of its own placed over (or under) a letter ("Jim´enez"),
# and the combining mark it stands for.
_COMBINING = {
    "´": "\u0301", "`": "\u0300", "ˆ": "\u0302", "^": "\u0302", "˜": "\u0303", "~": "\u0303",
    "¨": "\u0308", "ˇ": "\u030c", "˘": "\u0306", "˙": "\u0307", "¸": "\u0327", "˚": "\u030a",
    "¯": "\u0304", "˝": "\u030b", "˛": "\u0328",
}  # fmt: skip
_DOTLESS = {"ı": "i", "ȷ": "j"}  # TeX accents a dotless i or j: "na¨ıve" is "naïve"
_LIGATURES = re.compile("[\ufb00-\ufb06]")  # ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ: letters a font draws as one glyph


# Marks only mathematics sets (a vector's arrow, a negating slash): pdfTeX draws one with no
# width before its letter, and MuPDF glues it to the word before the formula ("reads⃗").
_MATH_MARKS = re.compile("[\u20d6\u20d7\u20e1\u0338]")


def expanded(text: str) -> str:
    """A text with its ligature glyphs ("ﬁ") written as their letters ("fi"), and no mark only
    mathematics sets."""
    text = _MATH_MARKS.sub("", text)
    return _LIGATURES.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text)


def _over(accent: dict, letter: dict) -> bool:
    """The accent glyph is set over the letter: its middle lies across the letter's width."""
    middle = (accent["bbox"][0] + accent["bbox"][2]) / 2
    return letter["c"].isalpha() and letter["bbox"][0] < middle < letter["bbox"][2]


def _composed(glyphs: list[tuple[dict, float, str | None]]) -> list[tuple[str, float, str | None]]:
    """A word's glyphs as text: each spacing accent set over the letter before or after it
    joined to it as one character ("´" over "e": "é"), ligatures written as their letters.
    An accent with a width of its own ("don´t", "´1913") stays as it is."""
    units: list[list] = [[c["c"], size, mark] for c, size, mark in glyphs]
    gone: set[int] = set()
    for at, (char, _, _) in enumerate(glyphs):
        mark = _COMBINING.get(char["c"])
        if mark is None:
            continue
        near = [k for k in (at + 1, at - 1) if 0 <= k < len(glyphs) and k not in gone]
        letter = next((k for k in near if _over(char, glyphs[k][0])), None)
        if letter is not None:
            base = _DOTLESS.get(units[letter][0], units[letter][0])
            units[letter][0] = unicodedata.normalize("NFC", base + mark)
            gone.add(at)
    return [(expanded(t), size, mark) for k, (t, size, mark) in enumerate(units) if k not in gone]


def _word_glyphs(inside: list, text: str) -> list[tuple[dict, float, str | None]] | None:
    """A word's glyphs in the order of its text: left to right, or as the page draws them (a
    TeX accent is drawn before its letter but may sit a little right of it); None when the
    glyphs do not spell the word."""
    for key in (lambda item: item[2]["origin"][0], lambda item: item[0]):
        ordered = sorted(inside, key=key)
        if "".join(item[2]["c"] for item in ordered) == text:
            return [(char, size, mark) for _, _, char, size, mark in ordered]
    return None


_Key = tuple[int, int, int]  # a word's text block, line and number on the page
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def without_controls(text: str) -> str:
    """`text` without control characters: a form's check box drawn in a symbol font reads as
    U+0015, which MuPDF's words leave out and its spans keep; HTML may not hold it."""
    return _CONTROL.sub("", text)


def _right_to_left(text: str) -> bool:
    """Written right to left: Arabic or Hebrew letters (their presentation forms too)."""
    return any(unicodedata.bidirectional(c) in ("R", "AL") for c in text)


def page_words(page: pymupdf.Page, **kwargs) -> list[tuple]:
    """The page's words (`get_text("words", sort=False)`, kwargs as a clip), a right-to-left
    word whole: MuPDF cuts Arabic words where their joined letters meet ("ا ﻧﻮ اع" for
    "اﻧﻮاع", its line's text whole). Pieces on one line whose boxes touch (the next one's
    right edge within `rtl_touch_share` of the line's height of the previous one's left) and
    that the line's text holds with no space between them are one word, in MuPDF's order."""
    words = _letters_joined(page.get_text("words", sort=False, **kwargs), TEXT_LAYER)
    if not any(_right_to_left(w[4]) for w in words):
        return words
    blocks = [b for b in page.get_text("dict", sort=False, **kwargs)["blocks"] if b["type"] == 0]
    line_text = {
        (k, i): "".join(span["text"] for span in line["spans"])
        for k, block in enumerate(blocks)
        for i, line in enumerate(block["lines"])
    }
    out: list[tuple] = []
    for word in words:
        x0, y0, x1, y1, text, block, line, _ = word
        if out:
            px0, py0, px1, py1, ptext, pblock, pline, pno = out[-1]
            touch = TEXT_LAYER.rtl_touch_share * (y1 - y0)
            if (
                (block, line) == (pblock, pline)
                and _right_to_left(text)
                and _right_to_left(ptext)
                and abs(px0 - x1) <= touch
                and ptext + text in line_text.get((block, line), "")
            ):
                out[-1] = (min(x0, px0), min(y0, py0), max(x1, px1), max(y1, py1), ptext + text,
                           pblock, pline, pno)  # fmt: skip
                continue
        out.append(word)
    return out


def _letters_joined(words: list[tuple], params: TextLayerParams) -> list[tuple]:
    """Letter-spaced type's letters joined into its words: on a line of mostly lone letters
    (MuPDF makes each letter of "T H E  P U B L I C" a word) whose gaps fall in two sizes, the
    pieces between the wide gaps are one word each. The page's other lines of such pieces at
    that size are parted by the same letter gap ("S U R I N G .", a word's end alone on its
    line; "A W AY."). Lines of single letters spaced evenly (a list of variables, "x y z") have
    one size of gap and stay as they are, unless type of their size is letter-spaced."""
    lines = [list(pieces) for _, pieces in itertools.groupby(words, key=lambda w: (w[5], w[6]))]
    letter_gap: dict[int, float] = {}  # a size -> the least gap of its letter-spaced lines
    for line in lines:
        if len(line) < params.letterspaced_min_pieces or not _lone_letters(line, params):
            continue  # (most lines: the gaps are measured only on lines of lone letters)
        gaps = _gaps(line)
        least = min(gaps)
        if (
            least > 0
            and _even_letters(gaps, least, params)
            and sum(len(_letters(w)) >= 2 for w in _joined(line, least, params)) >= 2
        ):
            size = _size_key(line, params)
            letter_gap[size] = min(letter_gap.get(size, least), least)
    if not letter_gap:
        return words  # no letter-spaced type on the page: nothing to join
    out: list[tuple] = []
    for line in lines:
        gap = letter_gap.get(_size_key(line, params))
        if gap is None or len(line) < 2 or not _lone_letters(line, params):
            out.extend(line)
        else:
            out.extend(_joined(line, gap, params))
    return out


def _joined(line: list[tuple], gap: float, params: TextLayerParams) -> list[tuple]:
    """The line's pieces joined into words across the gaps under
    `letterspaced_word_gap_ratio` times the letter `gap`."""
    out: list[tuple] = []
    word = [line[0]]
    for piece, between in zip(line[1:], _gaps(line), strict=True):
        if between >= params.letterspaced_word_gap_ratio * gap or between < 0:
            out.append(_one_word(word))
            word = []
        word.append(piece)
    out.append(_one_word(word))
    return out


def _even_letters(gaps: list[float], least: float, params: TextLayerParams) -> bool:
    """Gaps in two sizes, the letters' even: some at least `letterspaced_word_gap_ratio`
    times the least, and most of the others (`letterspaced_letter_share`) within
    `letterspaced_gap_spread` of their median (a pair kerned closer aside). A row of glyphs set
    at one pitch has gaps as varied as the glyphs' widths; a formula's, as its signs'."""
    small = [g for g in gaps if g < params.letterspaced_word_gap_ratio * least]
    if not small or len(small) == len(gaps):
        return False
    middle = statistics.median(small)
    even = sum(abs(g - middle) <= params.letterspaced_gap_spread * middle for g in small)
    return even >= params.letterspaced_letter_share * len(small)


def _letters(word: tuple) -> str:
    return "".join(c for c in word[4] if c.isalpha())


def _gaps(line: list[tuple]) -> list[float]:
    return [b[0] - a[2] for a, b in itertools.pairwise(line)]


def _size_key(line: list[tuple], params: TextLayerParams) -> int:
    """The line's type size, rounded to `letterspaced_size_step_pt`: its pieces' median height."""
    height = statistics.median(w[3] - w[1] for w in line)
    return round(height / params.letterspaced_size_step_pt)


def _lone_letters(line: list[tuple], params: TextLayerParams) -> bool:
    """Pieces of `letterspaced_piece_chars` characters at most (letters kerned together, "PAT",
    a letter and its comma), most of them a letter alone."""
    sizes = [sum(map(str.isalnum, w[4])) for w in line]
    return max(sizes) <= params.letterspaced_piece_chars and sizes.count(
        1
    ) >= params.letterspaced_letter_share * len(line)


def _one_word(pieces: list[tuple]) -> tuple:
    first = pieces[0]
    return (first[0], min(p[1] for p in pieces), pieces[-1][2], max(p[3] for p in pieces),
            "".join(p[4] for p in pieces), *first[5:])  # fmt: skip


def _logo_letters(text: str, start: int, end: int) -> bool:
    """text[start:end] is capitals raised or lowered between capitals of one word: a logo's
    (LaTeX's raised A, TeX's lowered E), no exponent or index, which end a word, stand on a
    figure or sit between small letters ("x2", "H2O", "1st", an inline formula's "aibj")."""
    return (
        start > 0
        and end < len(text)
        and text[start:end].isalpha()
        and text[start - 1 : end + 1].isupper()
    )


class WordStyles(NamedTuple):
    """What a word's glyphs tell beyond its text, per word (text block, line, word)."""

    scripts: dict[_Key, list]  # exponents and indices: [[start, end, "sup" | "sub"], ...]
    sizes: dict[_Key, float]  # its own text size in points
    texts: dict[_Key, str]  # its text where its glyphs read otherwise than MuPDF's word
    mono: set[_Key]  # the words set (most of their glyphs) in a monospaced font
    glyphs: dict[_Key, list[MathGlyph]]  # its glyphs in the order of its text, with their fonts


_NARROW, _WIDE = frozenset("il.,:;!'|"), frozenset("mwMW")


def _even_fonts(blocks: list[dict], params: CodeParams) -> set[str]:
    """The fonts whose glyphs all advance alike, narrow and wide ones among them: monospaced
    whatever their descriptor and name say (pdfTeX's bitmap Type 3 fonts have neither)."""
    advances: dict[str, dict[str, float]] = {}
    for block in blocks:
        for line in block.get("lines", ()):
            for span in line["spans"]:
                if span["size"] <= 0:
                    continue
                font = advances.setdefault(span["font"], {})
                for char in span["chars"]:
                    if not char["c"].isspace():
                        font[char["c"]] = (char["bbox"][2] - char["bbox"][0]) / span["size"]
    even = set()
    for name, font in advances.items():
        chars = set(font)
        if len(chars) < params.even_min_glyphs or not (chars & _NARROW and chars & _WIDE):
            continue
        if max(font.values()) <= (1 + params.even_advance_spread) * min(font.values()):
            even.add(name)
    return even


def _monospaced(span: dict, even: set[str]) -> bool:
    """A span set in a monospaced font: its descriptor, its name or its glyphs say so."""
    return (
        bool(span["flags"] & pymupdf.TEXT_FONT_MONOSPACED)
        or bool(MONO_FONT.search(span["font"]))
        or span["font"] in even
    )


def word_styles(
    page: pymupdf.Page, words: list[tuple] | None = None, *, params: TextLayerParams = TEXT_LAYER
) -> WordStyles:
    """Per word (text block, line, word): its exponents and indices ("2t3" with a raised "3",
    from the glyphs' sizes and baselines) as [[start, end, "sup" | "sub"], ...], its own
    text size in points (a heading's, not that of the paragraph MuPDF put it in), its text
    where its glyphs read otherwise than MuPDF's word (spacing accents composed, ligatures
    expanded), and whether most of its glyphs are set in a monospaced font. `words`: the page's
    `get_text("words", sort=False)` when the caller already has it."""
    scripts: dict[_Key, list] = {}
    sizes: dict[_Key, float] = {}
    texts: dict[_Key, str] = {}
    mono: set[_Key] = set()
    mono_glyphs: set[int] = set()  # id() of the glyphs set in a monospaced font
    fonts: dict[int, tuple[str, bool]] = {}  # id() of a glyph -> its font's name, italic
    glyphs_of: dict[_Key, list[MathGlyph]] = {}
    # Words and glyphs come from two extractions whose lines need not be numbered alike: a
    # word's glyphs are those whose centres lie in its box (glyphs bucketed by height).
    buckets: dict[int, list[tuple[int, float, dict, float, str | None]]] = {}
    drawn = 0  # the glyphs' order on the page
    blocks = page.get_text("rawdict", sort=False)["blocks"]
    even = _even_fonts(blocks, CODE)
    for block in blocks:
        for line in block.get("lines", ()):
            for span in line["spans"]:
                if _monospaced(span, even):
                    mono_glyphs.update(id(char) for char in span["chars"])
                italic = bool(span["flags"] & pymupdf.TEXT_FONT_ITALIC)
                fonts.update((id(char), (span["font"], italic)) for char in span["chars"])
            for char, size, mark in _line_glyphs(line, params):
                if not char["c"].isspace():
                    cx = (char["bbox"][0] + char["bbox"][2]) / 2
                    cy = (char["bbox"][1] + char["bbox"][3]) / 2
                    band = int(cy // params.glyph_bucket_pt)
                    drawn += 1
                    buckets.setdefault(band, []).append((drawn, cx, cy, char, size, mark))
    if words is None:
        words = page_words(page)
    band, reach = params.glyph_bucket_pt, params.glyph_in_word_pt
    for x0, y0, x1, y1, text, k, i, n in words:
        inside = [
            (at, cx, char, size, mark)
            for bucket in range(int(y0 // band), int(y1 // band) + 1)
            for at, cx, cy, char, size, mark in buckets.get(bucket, ())
            if x0 - reach <= cx <= x1 + reach and y0 - reach <= cy <= y1 + reach
        ]
        glyphs = _word_glyphs(inside, text)
        if glyphs is None:
            continue
        glyphs_of[(k, i, n)] = [
            MathGlyph(Glyph(char["c"], size, *char["origin"], tuple(char["bbox"]),
                            fonts[id(char)][0]), mark, fonts[id(char)][1])
            for char, size, mark in glyphs
        ]  # fmt: skip
        if 2 * sum(id(char) in mono_glyphs for char, _, _ in glyphs) > len(glyphs):
            mono.add((k, i, n))  # (a "$" of pdfTeX's typewriter type may come from another)
        units = _composed(glyphs)
        read = "".join(t for t, _, _ in units)
        if read != text:
            texts[(k, i, n)] = read
        body = [size for _, size, m in units if not m] or [size for _, size, _ in units]
        sizes[(k, i, n)] = max(set(body), key=body.count)
        kinds = [m for t, _, m in units for _ in t]
        if not any(kinds):
            continue
        runs: list[list] = []
        for at, kind in enumerate(kinds):
            if kind and runs and runs[-1][1] == at and runs[-1][2] == kind:
                runs[-1][1] = at + 1
            elif kind:
                runs.append([at, at + 1, kind])
        runs = [run for run in runs if not _logo_letters(read, run[0], run[1])]
        if runs:
            scripts[(k, i, n)] = runs
    return WordStyles(scripts, sizes, texts, mono, glyphs_of)


_HYPHENS = ("-", "\xad", "¬")  # a hyphen, a soft hyphen, an old OCR's "not" sign


def drawn_twice(
    block: ReadBlock, other: ReadBlock, *, params: TextLayerParams = TEXT_LAYER
) -> bool:
    """The same line or more of text as `other`, in a box overlapping it (a stamp or running
    header a PDF draws twice, a little apart)."""
    if len(block.text) < params.drawn_twice_min_chars or block.text != other.text:
        return False
    if not block.bbox or not other.bbox:
        return False
    return abs(pymupdf.Rect(block.bbox) & pymupdf.Rect(other.bbox)) > 0


def join_text(text: str, line: str) -> str:
    """A line appended to a text: after a space, or mending a word hyphenated at its end."""
    if text.endswith(_HYPHENS) and line[:1].islower():
        return text[:-1] + line
    return f"{text} {line}"


def _shifted(script: list | None, by: int) -> list:
    return [[start + by, end + by, *rest] for start, end, *rest in script or ()]


def attach(prev: Word, word: Word, *, join: str = "") -> None:
    """`word` appended to `prev` (its exponents moved along)."""
    by = len(prev.text) + len(join) - (1 if join in _HYPHENS else 0)
    head = prev.text[:-1] if join in _HYPHENS else prev.text + join
    prev.script = (prev.script or []) + _shifted(word.script, by) or None
    prev.text = head + word.text


LEADER_DOTS = ".·∙⋅…"  # the glyphs a dot leader is drawn with ("…" draws three dots)


def _dots(text: str) -> int:
    """How many leader dots a text of dots alone draws (0 when it holds anything else)."""
    if not text or not set(text) <= set(LEADER_DOTS):
        return 0
    return len(unicodedata.normalize("NFKC", text))


def _without_leader(text: str, params: TextLayerParams) -> str:
    """A word with the dot leader run into it ("Introduction.........") taken off either end."""
    body = text.rstrip(LEADER_DOTS)
    if _dots(text[len(body) :]) >= params.leader_min_dots:
        text = body
    body = text.lstrip(LEADER_DOTS)
    if _dots(text[: len(text) - len(body)]) >= params.leader_min_dots:
        text = body
    return text


def without_leaders(
    entries: list[tuple[tuple[int, int], Word]], *, params: TextLayerParams = TEXT_LAYER
) -> list[tuple[tuple[int, int], Word]]:
    """A block's words without its dot leaders (a table of contents' "Introduction ....... 3":
    the dots go, the entry and its page number stay): a word of dots alone, a run of spaced
    dots on a line, a leader run into a word. An ellipsis ("...") is text."""
    out: list[tuple[tuple[int, int], Word]] = []
    run: list[tuple[tuple[int, int], Word]] = []  # spaced dots of one line

    def close_run() -> None:
        if sum(_dots(w.text) for _, w in run) < params.leader_min_dots:
            out.extend(run)
        run.clear()

    for line, word in entries:
        dots = _dots(word.text)
        if dots and (not run or run[-1][0] == line):
            run.append((line, word))
            continue
        close_run()
        if dots:
            run.append((line, word))
            continue
        text = _without_leader(word.text, params)
        if text != word.text:
            word.text, word.script = text, None
        out.append((line, word))
    close_run()
    return out


_RADICALS = frozenset("√∛∜")


def _line_box(line: dict) -> pymupdf.Rect:
    return pymupdf.Rect(line["bbox"])


def _radical_sign(block: dict) -> bool:
    """A text block of one line that draws radical signs alone."""
    lines = block.get("lines", ())
    text = "".join(span["text"] for line in lines for span in line["spans"]).strip()
    return len(lines) == 1 and bool(text) and set(text) <= _RADICALS


class Radicals(NamedTuple):
    hosts: dict[int, int]  # text block (by index) -> the block it joins
    feet: dict[int, float]  # a sign's block -> the foot of its radicand's line (points)


def radicals_joined(text_blocks: list[dict], *, params: TextLayerParams = TEXT_LAYER) -> Radicals:
    """The text blocks that belong to another. MuPDF sets a radical sign apart, in a block of
    its own, its box above its line (TeX hangs the sign from its bar; MuPDF boxes it by the
    font's ascent): "with √2 inline too" came as three paragraphs, "with", "√" and "2 inline
    too", and a display formula's root stayed a "√" paragraph over the formula. The sign joins
    its radicand's block, its box reaching down to its radicand line's foot (`feet`); that
    block joins the one its line goes on from on the same row (`TextLayerParams.radical_*`)."""
    host: dict[int, int] = {}
    feet: dict[int, float] = {}
    # Each block's first and last line box, once (None: a block without lines).
    firsts = [_line_box(b["lines"][0]) if b.get("lines") else None for b in text_blocks]
    lasts = [_line_box(b["lines"][-1]) if b.get("lines") else None for b in text_blocks]
    for k, block in enumerate(text_blocks):
        if not _radical_sign(block):
            continue
        sign = firsts[k]
        touch = params.radical_touch_ratio * sign.height
        radicand = next(
            (
                j for j, first in enumerate(firsts)
                if j != k and first is not None and abs(first.x0 - sign.x1) <= touch
                and first.y0 - touch <= sign.y1 <= first.y1 + touch
            ),
            None,
        )  # fmt: skip
        if radicand is None:
            continue
        host[k] = radicand
        line = firsts[radicand]
        feet[k] = line.y1
        before = next(
            (
                j for j, last in enumerate(lasts)
                if j not in (k, radicand) and last is not None
                and 0 <= sign.x0 - last.x1 <= params.radical_gap_ratio * line.height
                and abs(last.y1 - line.y1) <= params.radical_row_ratio * line.height
            ),
            None,
        )  # fmt: skip
        if before is not None:
            host[radicand] = before
    # A block joins the block its host joins ("√" -> "2 inline too" -> "with").
    return Radicals({k: _last_host(host, k) for k in host}, feet)


def _last_host(host: dict[int, int], k: int) -> int:
    seen = {k}
    while host.get(k) is not None and host[k] not in seen:
        k = host[k]
        seen.add(k)
    return k


def block_words(
    entries: list[tuple[tuple[int, int], Word]], *, params: TextLayerParams = TEXT_LAYER
) -> list[Word]:
    """A block's words in order, each a word of the text: an exponent MuPDF put apart (a
    raised "2" after "3t", its own word or even its own line) joins the word it is set
    against, and a word hyphenated at a line end is mended, so the block's text is its words
    joined by spaces (and its spans keep exponents and languages)."""
    out: list[Word] = []
    last_line = None
    for line, word in without_leaders(entries, params=params):
        prev = out[-1] if out else None
        first = word.script[0] if word.script else None  # an exponent or index, not a formula
        whole = first and first[:2] == [0, len(word.text)] and first[2] != "math"
        if prev and whole and prev.bbox and word.bbox:
            height = prev.bbox[3] - prev.bbox[1]
            gap = word.bbox[0] - prev.bbox[2]
            low, high = params.script_gap_low_ratio, params.script_gap_high_ratio
            touching = low * height <= gap <= high * height
            if touching and word.bbox[1] < prev.bbox[3] and word.bbox[3] > prev.bbox[1]:
                attach(prev, word)
                continue
        if whole:
            word.script = None  # a marker set small on its own: plain text
        if (
            prev and line != last_line and prev.text.endswith(_HYPHENS)
            and len(prev.text) > params.hyphenated_over_chars
            and prev.text[-2].isalpha() and word.text[:1].islower()
        ):  # fmt: skip
            attach(prev, word, join=prev.text[-1])
        else:
            out.append(word)
        last_line = line
    return out


def _follows(last: ReadBlock, block: ReadBlock, params: TextLayerParams) -> bool:
    """`block` is the next line of `last`'s column: at its size, close under it, across most of
    the narrower one's width."""
    size = last.font_size
    gap = block.bbox[1] - last.bbox[3]
    across = min(last.bbox[2], block.bbox[2]) - max(last.bbox[0], block.bbox[0])
    narrower = min(last.bbox[2] - last.bbox[0], block.bbox[2] - block.bbox[0])
    return (
        abs(size - block.font_size) <= params.joined_size_ratio * size
        and 0 <= gap + params.joined_gap_low_ratio * size <= params.joined_gap_high_ratio * size
        and across >= params.joined_overlap_share * narrower
    )


def joined_lines(
    blocks: list[ReadBlock], *, params: TextLayerParams = TEXT_LAYER
) -> list[ReadBlock]:
    """An OCR layer is written line by line (MuPDF makes each line a block): lines of one
    column that follow closely, at one size, join again; the layout regions then cut the run
    into its paragraphs and headings (models.reading.layout_regions)."""
    out: list[ReadBlock] = []
    for block in blocks:
        last = out[-1] if out else None
        bullet = BULLET.match(block.text) if block.kind == "paragraph" else None
        if bullet:  # a printed bullet (read as "¢", "©", "e") starts a list item, as in OCR
            take_marker(block, bullet)
        elif (
            last is not None and last.kind in ("paragraph", "list_item")
            and block.kind == "paragraph"
            and last.bbox and block.bbox and last.font_size and block.font_size
            and _follows(last, block, params)
        ):  # fmt: skip
            last.text = join_text(last.text, block.text)
            if (
                last.words
                and block.words
                and last.text != " ".join(w.text for w in last.words + block.words)
            ):
                mended = last.words[-1]  # hyphenated across the two lines
                attach(mended, block.words[0], join=mended.text[-1])
                last.words = last.words + block.words[1:]
            else:
                last.words = last.words + block.words
            last.bbox = union((last.bbox, block.bbox))
            last.bold = last.bold and block.bold
            continue
        out.append(block)
    return out
