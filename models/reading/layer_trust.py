"""Whether a page's text layer is to be trusted: text that is not language (shifted font
encodings, private-use glyphs) never is; an earlier OCR run's layer (invisible text, or text
under a page-size image) only when a fresh read of a sample of its lines agrees with it."""

from __future__ import annotations

import functools
import re
import statistics
import unicodedata

import pymupdf
from PIL import Image
from rapidfuzz import fuzz

from models.language import detect_language, language_scores
from models.ocr.lines import read_crops
from models.reading.layer_words import LEADER_DOTS
from models.reading.params.text_layer import (
    INVISIBLE_RENDER_MODE,
    PERCENT,
    POINTS_PER_INCH,
    TEXT_LAYER,
    TextLayerParams,
)

_OCR_FONTS = ("GlyphLessFont", "GlyphLess")
_PRIVATE_USE = re.compile("[\ue000-\uf8ff]")
# Where Windows puts a symbol font's glyphs (Symbol, Wingdings: Word's bullets U+F0B7, its
# equation symbols): signs a page holds beside its words, not a font whose text is encoded away.
_SYMBOL_FONT_CODES = re.compile("[\uf020-\uf0ff]")
# Where Adobe's glyph list puts the pieces tall delimiters are built from (a matrix's brackets,
# a case's brace, U+F8E5-U+F8FE): the drawing of a formula set in a math extension font.
_DELIMITER_PIECES = re.compile("[\uf8e5-\uf8fe]")
# A formula's operators and brackets (Unicode's math symbols, opening and closing punctuation):
# notation, not glyph codes.
_NOTATION_CATEGORIES = frozenset({"Sm", "Ps", "Pe"})
_VOWELS = set("aeiouyàáâäãåèéêëìíîïòóôöõùúûüæœ")


@functools.cache
def _leaders(min_dots: int) -> re.Pattern:
    """A run of at least `min_dots` leader dots, spaced or not."""
    dot = f"[{re.escape(LEADER_DOTS)}]"
    return re.compile(f"{dot}(?:[ \\t]*{dot}){{{min_dots - 1},}}")


def looks_like_language(text: str, *, params: TextLayerParams = TEXT_LAYER) -> bool:
    """Text a reader can use, not glyph codes: few replacement marks, no private-use glyphs
    (a symbol font's signs aside), mostly letters, words of two letters or more, and letters
    in the proportions of a language (a shifted font encoding, "Opnbddchmfr ne sgd", has few
    vowels and none of the short common words)."""
    # A few glyphs without a character (a figure's labels, math italics: "node \ufffd") leave
    # the rest of a good layer good; more, and the font's text is not to be trusted.
    unmapped = text.count("\ufffd") + params.cid_code_weight * text.count("(cid:")
    text = _DELIMITER_PIECES.sub(" ", _SYMBOL_FONT_CODES.sub(" ", text))
    # A page of formulas ("H(X; Y) = H(X) - H(X|Y)") is half operators and brackets: they would
    # outnumber its letters and digits as a font's codes do.
    text = "".join(" " if unicodedata.category(c) in _NOTATION_CATEGORIES else c for c in text)
    # A contents page's dot leaders are drawing, not text: they would outnumber its letters.
    text = _leaders(params.leader_min_dots).sub(" ", text)
    visible = sum(not c.isspace() for c in text) or 1
    if unmapped > params.unmapped_share * visible:
        return False
    if len(_PRIVATE_USE.findall(text)) > params.private_use_share * visible:
        return False
    letters = [c for c in text.lower() if c.isalpha()]
    digits = sum(c.isdigit() for c in text)
    words = re.findall(r"[^\W\d_]{2,}", text)
    # A financial statement is half figures: letters and digits together make the text.
    if (len(letters) + digits) / visible <= params.letters_digits_share:
        return False
    if len(letters) / visible <= params.letters_share or len(words) < params.min_words:
        return False
    if sum("\u00c0" <= c <= "\u00ff" for c in letters) >= params.latin1_letter_share * len(letters):
        return False  # another script's letters in a font encoded over Latin-1
    latin = _latin_letters(letters)
    if len(latin) >= params.latin_share * len(letters) and len(latin) >= params.latin_min_letters:
        vowels = sum(c in _VOWELS for c in latin) / len(latin)
        if not params.vowel_share_low <= vowels <= params.vowel_share_high:
            return False
        if len(words) >= params.common_words_min_words and max(
            language_scores(text).values()
        ) < params.common_words_per_word * len(words):
            return False  # hardly a "the", "de" or "und" in thirty words: not a language
    return True


def _visible_text_fraction(page: pymupdf.Page) -> float:
    """Share of characters drawn visibly (render mode 3, used by OCR layers, is invisible).
    White space counts for nothing: a producer that sets its spaces as invisible text (a
    form's, 10 % of its characters) makes no OCR layer of its visible words."""
    total = visible = 0
    for trace in page.get_texttrace():
        n = sum(not chr(char[0]).isspace() for char in trace.get("chars", ()))
        total += n
        invisible = trace.get("type") == INVISIBLE_RENDER_MODE or trace.get("opacity", 1) == 0
        if not invisible and not any(f in trace.get("font", "") for f in _OCR_FONTS):
            visible += n
    return visible / total if total else 0.0


def _hidden_under_image(page: pymupdf.Page, params: TextLayerParams) -> bool:
    """Most of the text is drawn before an image that covers nearly the whole page: a scan
    laid over an earlier OCR run's text. (Text drawn over a page-size image, as on a slide
    with a background picture, is visible and stays.)"""
    area = abs(page.rect) or 1.0
    text_ops = hidden = pending = 0
    for kind, rect in page.get_bboxlog():
        if kind.endswith("-text"):
            text_ops += 1
            pending += 1
        elif kind == "fill-image" and (
            abs(pymupdf.Rect(rect) & page.rect) >= params.page_image_share * area
        ):
            hidden += pending
            pending = 0
    return text_ops > 0 and hidden >= params.hidden_text_share * text_ops


def is_ocr_layer(page: pymupdf.Page, *, params: TextLayerParams = TEXT_LAYER) -> bool:
    """Invisible text, or text under a page-size image: an earlier OCR run's layer."""
    return _visible_text_fraction(page) < params.visible_text_share or _hidden_under_image(
        page, params
    )


def is_junk_line(text: str, *, params: TextLayerParams = TEXT_LAYER) -> bool:
    """A line an OCR run read from specks, rules or a picture ("a. t>.", "RO", ";"): few
    letters or digits, or a short run that is no number. A line of white space alone is no
    junk: it holds no specks, and its box, drawn over a line's words (a PDF that sets its
    spaces as invisible text of their own), would take those words out with it."""
    chars = "".join(text.split())
    if not chars:
        return False
    alnum = sum(c.isalnum() for c in chars)
    few = alnum < params.junk_alnum_share * len(chars)
    return few or (alnum <= params.junk_max_alnum and not chars.isdigit())


def line_text(line: dict) -> str:
    """A dict line's text, each run of white space one space."""
    return " ".join("".join(span["text"] for span in line["spans"]).split())


def _layer_lines(page: pymupdf.Page) -> list[tuple[str, pymupdf.Rect]]:
    lines = []
    for block in page.get_text("dict", sort=True)["blocks"]:
        for line in block.get("lines", ()):
            text = line_text(line)
            if text:
                lines.append((text, pymupdf.Rect(line["bbox"])))
    return lines


def ocr_layer_agrees(
    page: pymupdf.Page,
    image: Image.Image,
    *,
    dpi: int,
    text: str,
    params: TextLayerParams = TEXT_LAYER,
) -> bool:
    """An earlier OCR run's layer is kept only when it is mostly real lines (not specks read
    as text) and reads as it is drawn (`reads_as_drawn`)."""
    lines = _layer_lines(page)
    chars = sum(len(line) for line, _ in lines) or 1
    junk = sum(len(line) for line, _ in lines if is_junk_line(line, params=params))
    if junk > params.junk_share * chars:
        return False
    return reads_as_drawn(page, image, dpi=dpi, text=text, params=params)


def _latin_letters(letters: list[str]) -> list[str]:
    """The letters (lower case) of the Latin script: ASCII's and the accented vowels."""
    return [c for c in letters if c.isascii() or c in _VOWELS]


def _latin(text: str, params: TextLayerParams) -> bool:
    """Mostly letters of the Latin script (or no letters: figures)."""
    letters = [c for c in text.lower() if c.isalpha()]
    return len(_latin_letters(letters)) >= params.latin_share * len(letters)


def reads_as_drawn(
    page: pymupdf.Page,
    image: Image.Image,
    *,
    dpi: int,
    text: str,
    params: TextLayerParams = TEXT_LAYER,
) -> bool:
    """Tesseract, reading the crops of a sample of the layer's lines afresh, finds the same
    text (case and punctuation count: a lower-cased layer, a layer of misread handwriting or
    a shifted font encoding does not agree)."""
    lines = _layer_lines(page)
    # Lines long enough that agreeing says something (a short word is found in any read), in
    # the Latin script the OCR reads: a slide's Chinese titles beside its LaTeX code cannot
    # agree with an English read, and say nothing of whether the layer is drawn as it reads.
    real = [(line, rect) for line, rect in lines
            if sum(c.isalnum() for c in line) >= params.sample_min_alnum
            and _latin(line, params) and rect.height > 0]  # fmt: skip
    if len(real) < params.sample_min_lines:
        return False
    step = max(1.0, len(real) / params.sample_lines)
    sample = [real[int(i * step)] for i in range(min(params.sample_lines, len(real)))]
    scale = dpi / POINTS_PER_INCH
    boxes = []
    for _, rect in sample:
        box = rect * page.rotation_matrix * scale
        boxes.append((box.x0, box.y0, box.x1, box.y1))
    lang = detect_language(text, default=None) or "en"
    reads = read_crops(image, boxes, dpi=dpi, lang=lang)
    scores = [fuzz.partial_ratio(line, read) / PERCENT if read else 0.0
              for (line, _), read in zip(sample, reads, strict=True)]  # fmt: skip
    agreeing = sum(score >= params.agree_line for score in scores)
    return statistics.fmean(scores) >= params.agree_mean and agreeing >= params.agree_share * len(
        scores
    )
