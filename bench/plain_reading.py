"""The plain reading of a page, as bench/do_no_harm.py compares ours with it: what a person gets
with the plain tools, and which of its words are text the page plainly holds.

- A born-digital page's plain reading is its text layer (PyMuPDF's `get_text()`), when the layer
  is a reading of the page: at least PLAIN_MIN_WORDS words, not an earlier OCR run's layer
  (invisible, or drawn under a page-size image: models.reading.layer_trust.is_ocr_layer), and
  language, not glyph codes (a shifted font encoding, "Opnbddchmfr ne sgd": layer_trust's
  looks_like_language). Any other page is read by plain Tesseract (300 DPI, `--psm 3`, text only,
  OMP_THREAD_LIMIT=1), as bench.common.plain_tesseract_page reads it, its TSV written by the
  same run.
- Junk: a word of plain Tesseract's that it read with a confidence below JUNK_CONFIDENCE and that
  is no word of its own dictionary (the language's word list in its traineddata) of
  KNOWN_MIN_LETTERS letters or more is no text the page plainly holds: specks, a drawing's
  strokes, a stamp or a margin line turned sideways read as letters ("uotso109", "Saas)"). The
  word list holds nearly every string of two or three letters ("fs", "jt", "Wea"): a shorter
  word tells nothing by being there. The same definition on every corpus; a text layer has no
  junk. Digits are no dictionary words: a number read below JUNK_CONFIDENCE is junk too.
"""

from __future__ import annotations

import csv
import functools
import os
import re
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

import pymupdf

from bench.common import plain_page_png
from bench.quality import normalize_text
from models.ocr.tessdata import find_tessdata
from models.reading.layer_trust import is_ocr_layer, looks_like_language

PLAIN_MIN_WORDS = 20  # a text layer of fewer words is no reading of the page: Tesseract reads it
JUNK_CONFIDENCE = 50  # Tesseract's word confidence (0-100) below which a non-word is junk
KNOWN_MIN_LETTERS = 4  # a dictionary word this long or longer is a word whatever its confidence
TSV_WORD_LEVEL = "5"  # the TSV's rows of single words


# A word hyphenated at a line's end ("pub-" / "lic"): plain Tesseract's text keeps the halves,
# our pages mend them (models.reading.scan_blocks.join_lines) as a reader reads them.
_LINE_END_HYPHEN = re.compile(r"(?<=[^\W\d_])-[ \t]*\n[ \t]*(?=[^\W\d_])")


def mend_hyphens(text: str) -> str:
    """Words hyphenated at a line's end made whole again, where the line goes on in lower case
    (the rule the engine's join_lines follows): "pub-\\nlic" is the word "public"."""
    return _LINE_END_HYPHEN.sub(lambda m: "" if text[m.end()].islower() else m.group(0), text)


# Scripts written without spaces between words (kana, Han, Thai, Lao, Khmer, Myanmar): a "word"
# there is a run up to the next space or line end, which breaks wherever a line does, so one
# reading's line joined to the next made none of the other's words match (pdfjs issue16538's
# Japanese page read whole, counted 58 % kept). Each of their characters is a token instead.
_UNSPACED = (
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
)
_TOKEN = re.compile(rf"[{_UNSPACED}]|(?:(?![{_UNSPACED}])\w)+")


def word_sequence(text: str) -> list[str]:
    """A text's words in order: hyphenated line ends mended, normalized, case folded, `\\w+`
    tokens (single characters in scripts written without spaces)."""
    return _TOKEN.findall(normalize_text(mend_hyphens(text)).casefold())


def words(text: str) -> Counter:
    """A text's words as a multiset (word_sequence's)."""
    return Counter(word_sequence(text))


@functools.cache
def dictionary(lang: str) -> frozenset[str]:
    """Tesseract's own word list for `lang` (its traineddata's word DAWG), case folded."""
    with tempfile.TemporaryDirectory() as tmp:
        prefix = f"{tmp}/{lang}."
        model = Path(find_tessdata(), f"{lang}.traineddata")
        subprocess.run(["combine_tessdata", "-u", str(model), prefix],
                       capture_output=True, check=True)  # fmt: skip
        listed = Path(tmp) / "words"
        subprocess.run(["dawg2wordlist", f"{prefix}lstm-unicharset", f"{prefix}lstm-word-dawg",
                        str(listed)], capture_output=True, check=True)  # fmt: skip
        return frozenset(w.casefold() for w in listed.read_text(encoding="utf-8").split())


def junk_words(tsv: str, lang: str) -> Counter:
    """The tokens of plain Tesseract's words that are junk (the module's definition)."""
    known = dictionary(lang)
    junk: Counter = Counter()
    for row in csv.DictReader(tsv.splitlines(), delimiter="\t", quoting=csv.QUOTE_NONE):
        if row["level"] != TSV_WORD_LEVEL or float(row["conf"]) >= JUNK_CONFIDENCE:
            continue
        junk += Counter(
            t
            for t in words(row["text"] or "").elements()
            if len(t) < KNOWN_MIN_LETTERS or t not in known
        )
    return junk


def tesseract_reading(doc: pymupdf.Document, index: int, workdir: Path,
                      lang: str) -> tuple[str, Counter]:  # fmt: skip
    """(text, junk words) of one page (0-based) as plain Tesseract reads it."""
    png = plain_page_png(doc, index, workdir)
    base = workdir / f"plain-p{index}"
    subprocess.run(["tesseract", str(png), str(base), "--psm", "3", "-l", lang, "txt", "tsv"],
                   capture_output=True, env={**os.environ, "OMP_THREAD_LIMIT": "1"},
                   check=True)  # fmt: skip
    text = base.with_suffix(".txt").read_text(encoding="utf-8")
    tsv = base.with_suffix(".tsv").read_text(encoding="utf-8")
    return text, junk_words(tsv, lang)


def is_reading_layer(page: pymupdf.Page) -> bool:
    """The page's text layer is a reading of it (the module's definition)."""
    layer = page.get_text()
    return (
        len(layer.split()) >= PLAIN_MIN_WORDS
        and not is_ocr_layer(page)
        and looks_like_language(layer)
    )


def plain_reading(doc: pymupdf.Document, index: int, lang: str,
                  workdir: Path) -> tuple[str, str, Counter]:  # fmt: skip
    """(kind, text, junk words): the text layer of a born-digital page, else plain Tesseract's
    reading."""
    page = doc[index]
    if is_reading_layer(page):
        return "text layer", page.get_text(), Counter()
    text, junk = tesseract_reading(doc, index, workdir, lang)
    return "tesseract", text, junk
