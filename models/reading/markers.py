"""The list markers, one set for every reader: printed bullets, the glyphs OCR reads them as,
and the numbers and letters of ordered items."""

from __future__ import annotations

import re

from models.engine import ReadBlock, Word

# Bullets as printed (and as a text layer holds them), and Word's bullets in a symbol font as
# its text layers hold them: Symbol's bullet, Wingdings' square, arrowhead, tick, black square
# and box, at U+F000 + their code.
BULLET_GLYPHS = "•·●▪■◦‣⁃∙\uf0b7\uf0a7\uf0d8\uf0fc\uf06e\uf071"
# 1. 2) (3) a. b) (c) iv.
_ORDINAL = r"\d{1,2}[.)]|\(\d{1,2}\)|[a-z][.)]|\([a-z]\)|[ivx]{1,4}[.)]"

# A bullet as Tesseract reads it: the glyph, or its usual misreadings (*, ¢, ©, a dash before a
# space, "e" or "0" before a capital), then a space.
BULLET = re.compile(rf"^(?:[{BULLET_GLYPHS}*¢©®°«»>]|[-–—](?=\s)|e(?=\s[A-Z])|0(?=\s[A-Z]))\s+")
# An ordered item's number or letter, then a space.
ORDERED = re.compile(rf"^(?:{_ORDINAL})\s+")
# Any list item's marker in a block's text: a printed bullet (a space after it or not), a dash
# or star, or an ordered item's number, before a space.
LIST_MARKER = re.compile(rf"^(?:[{BULLET_GLYPHS}]\s*|(?:[*–—-]|{_ORDINAL})\s+)")
# Printed bullets only: "1." also opens a numbered section's heading.
BULLET_GLYPH = re.compile(rf"^[{BULLET_GLYPHS}]\s*")


def take_marker(block: ReadBlock, marker: re.Match) -> None:
    """`block` a list item opened by `marker` (a match at the start of its text): the marker
    said apart from its text, its word kept aside (`ReadBlock.marker_word`). A region that
    then takes the block's words (a table's numbered rows, a contents page boxed as a table:
    "1. Name, Legal Form ... 2") takes the number with them."""
    block.kind = "list_item"
    block.marker = marker.group(0).strip()
    block.text = block.text[marker.end() :]
    # (a bullet glued to its first word, "•Text", leaves the word with the text)
    if len(block.words) > 1 and block.words[0].text.strip() == block.marker:
        block.marker_word, block.words = block.words[0], block.words[1:]


def number_the_title(block: ReadBlock, *, full_confidence: float) -> None:
    """A numbered section title the engine took for a list item ("1. Introduction" read as
    item "1." of a list): the number is part of the heading again, its own word where the
    marker was read as one, else as sure as its least sure word (`full_confidence` where it
    has none)."""
    confidence = min((w.confidence for w in block.words), default=full_confidence)
    number = block.marker_word or Word(text=block.marker, confidence=confidence)  # type: ignore[arg-type]
    block.words = [number, *block.words]
    block.text = f"{block.marker} {block.text}"
    block.marker, block.ordered, block.marker_word = None, False, None


# -- how ordered markers count --------------------------------------------------------------------
_COUNTER = re.compile(r"^\(?(\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})[.)]?$")


def marker_family(marker: str | None) -> str | None:
    """What a printed marker counts in: "1" (numbers: "3.", "(3)"), "a" (lower-case letters
    and roman numerals: "b)", "iv."), "A" (capitals: "B.", "IV."); None for a bullet, a dash
    or no marker. A list whose items change family at one depth is two lists ("a) b)" then
    "4. 5.")."""
    counter = _COUNTER.match((marker or "").strip())
    if not counter:
        return None
    word = counter.group(1)
    return "1" if word.isdigit() else "a" if word.islower() else "A" if word.isupper() else None
