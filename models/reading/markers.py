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


def number_the_title(block: ReadBlock, *, full_confidence: float) -> None:
    """A numbered section title the engine took for a list item ("1. Introduction" read as
    item "1." of a list): the number is part of the heading again, as sure as its least sure
    word (`full_confidence` where it has none)."""
    confidence = min((w.confidence for w in block.words), default=full_confidence)
    block.words = [Word(text=block.marker, confidence=confidence), *block.words]  # type: ignore[arg-type]
    block.text = f"{block.marker} {block.text}"
    block.marker, block.ordered = None, False


# -- the numbers ordered markers print -------------------------------------------------------------
_ROMAN = {"i": 1, "v": 5, "x": 10}  # roman numerals' values, as far as a list counts (xxxix)
_NUMBER = re.compile(r"^\(?(\d{1,3})[.)]?$")
_LETTERS = re.compile(r"^\(?([a-zA-Z]{1,4})[.)]?$")


def marker_family(marker: str | None) -> str | None:
    """What a printed marker counts in: "1" (numbers: "3.", "(3)"), "a" (lower-case letters
    and roman numerals: "b)", "iv."), "A" (capitals: "B.", "IV."); None for a bullet, a dash
    or no marker. A list whose items change family at one depth is two lists ("a) b)" then
    "4. 5.")."""
    text = (marker or "").strip()
    if _NUMBER.match(text):
        return "1"
    letters = _LETTERS.match(text)
    if not letters:
        return None
    word = letters.group(1)
    if len(word) > 1 and _roman(word) is None:
        return None  # "ab." counts nothing
    if word.islower():
        return "a"
    return "A" if word.isupper() else None


def _roman(word: str) -> int | None:
    values = [_ROMAN.get(c) for c in word.lower()]
    if not values or None in values:
        return None
    total = sum(-v if v < after else v for v, after in zip(values, [*values[1:], 0], strict=True))
    return total if total > 0 else None


def list_numbering(markers: list[str]) -> tuple[str, list[int]]:
    """The numbering a run of one family's markers prints, as HTML's `<ol type>` ("1", "a",
    "A", "i", "I") and each item's number: "iv." is four where the run reads as roman numerals
    (every marker one, and one of them longer than a letter or the first an "i"), else "i."
    is the ninth letter ("h) i) j)")."""
    words = [(_NUMBER.match(m.strip()) or _LETTERS.match(m.strip())).group(1) for m in markers]  # type: ignore[union-attr]
    if words[0].isdigit():
        return "1", [int(w) for w in words]
    romans = [_roman(w) for w in words]
    if None not in romans and (any(len(w) > 1 for w in words) or words[0].lower() == "i"):
        return ("i" if words[0].islower() else "I"), romans  # type: ignore[return-value]
    if any(len(w) > 1 for w in words):  # "ii." among letters: counted on from the first
        first = ord(words[0][0].lower()) - ord("a") + 1
        return ("a" if words[0].islower() else "A"), list(range(first, first + len(words)))
    return ("a" if words[0].islower() else "A"), [ord(w.lower()) - ord("a") + 1 for w in words]
