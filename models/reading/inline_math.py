"""Inline formulas of a born-digital page: the words of a line that are mathematics ("λ > 0",
"b ∈ K", "x² + y²", "f(a)" set in TeX's math fonts or as italic letters among signs) made one
formula, rebuilt from their glyphs as TeX (math_text), so a reader hears "x squared plus y
squared" and not "x 2 plus y 2".

Only what the glyphs show without doubt: a word is mathematics when every glyph in it is a
letter of a math font or a single italic letter, a Greek letter, a digit, a sign of mathematics,
a fence, a point or a prime, or an exponent or index of those. A run of such words on one line
is a formula when it holds a variable (a letter of a math font, an italic letter, a Greek letter)
and something that makes it more than a letter: a sign, an exponent or index, a math font, an
opening fence after a letter ("f(a)": an enumeration's italic "(a) a" stays text) or a Greek
letter, with at least two glyphs that are no fence, point or prime. Prose words, a lone variable
and a run whose TeX does not convert stay text. The sentence's punctuation after it ("K,")
stays outside; a point inside a fence the run opened ("I(X; Y)") is the formula's, unless the
fence never closes ("(π, µ and ∂)": the points were the sentence's). A fraction set in the line
(a word over a word, a bar between) is one too.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from typing import NamedTuple

from models.reading.boxes import union
from models.reading.math_text import GREEK, OPERATOR_NAMES, Bar, Glyph, tex_from_glyphs
from models.reading.params.math import MATH, MathParams

Key = tuple[int, int, int]  # a word's text block, line and number on the page

# The fonts that set mathematics only: TeX's math italic, symbols, extension, AMS, blackboard,
# script and fraktur fonts (Computer Modern, Latin Modern, txfonts, pxfonts, Euler), the Symbol
# font pdfTeX's mathptmx and Word take Greek from, and OpenType math fonts.
MATH_FONT = re.compile(
    r"CMMI|CMSY|CMEX|CMBSY|MSAM|MSBM|TXMI|TXSY|TXEX|PXMI|PXSY|PXEX|EUR[MB]|EUS[MB]|EUF[MB]"
    r"|EUEX|RSFS|STANDARDSYM|SYMBOLMT|^SYMBOL$|LMMATH|CAMBRIAMATH|STIXMATH|STIXTWOMATH"
    r"|XITSMATH|ASANAMATH|LATINMODERNMATH|MATHJAX",
)
# Signs of mathematics: relations, operators, arrows, quantifiers, big operators.
SIGNS = frozenset("=<>+−×·⋅±∓≤≥≠≈∈∉∋⊂⊆⊃⊇∪∩→←⇒⇐⇔↔↦∼≃≅≡∝∀∃∑∏∫∮∂∇∞∘⊗⊕∧∨¬≪≫∥∣⊥≺≻≲≳⋆√")
_FENCES = frozenset("()[]{}|‖⟨⟩⌊⌋⌈⌉")
_OPENING = frozenset("([{⟨⌊⌈")
_CLOSING = frozenset(")]}⟩⌋⌉")
_POINTS = frozenset(",.;:")
_PRIMES = frozenset("′″'")


class MathGlyph(NamedTuple):
    glyph: Glyph
    mark: str | None  # "sup" / "sub": set smaller and raised / lowered on its line
    italic: bool  # its font is italic (as MuPDF tells)


class InlineFormula(NamedTuple):
    keys: tuple[Key, ...]  # its words, in order, on one line
    tex: str
    trail: int  # characters at the end of the last word that are the sentence's, not the formula's


def _math_font(glyph: Glyph) -> bool:
    return _is_math_font(glyph.font)


@functools.cache  # a page's glyphs come in a few fonts: each name is matched once
def _is_math_font(name: str) -> bool:
    return bool(MATH_FONT.search(name.split("+")[-1].upper().replace(" ", "")))


class _Word(NamedTuple):
    core: list[MathGlyph]  # the word's glyphs, the sentence's punctuation after it left out
    trail: int
    variable: bool
    structure: bool  # a sign, a script, a math font, a fence or a Greek letter
    solid: int  # glyphs that are no fence, point or prime


def _math_word(glyphs: list[MathGlyph], params: MathParams) -> _Word | None:
    """The word as mathematics, or None when a glyph of it is no mathematics. A glyph smaller
    than the word's full size is an exponent or index too (MuPDF puts a lowered index on a
    line of its own, where it is no smaller than its line)."""

    def sentence_point(at: int) -> bool:
        return glyphs[at].glyph.char in _POINTS and not _math_font(glyphs[at].glyph)

    end = notes = len(glyphs)
    while notes and glyphs[notes - 1].mark:
        notes -= 1
    if notes < end and notes and sentence_point(notes - 1):
        end = notes  # a note's mark after the sentence's point ("∈ ET.¹") is the sentence's
    while end and sentence_point(end - 1):
        end -= 1
    trail = len(glyphs) - end
    core = glyphs[:end]
    if not core:
        return None
    full = max(g.glyph.size for g in core)
    marks = [g.mark or g.glyph.size < params.full_size_ratio * full for g in core]
    letters = [g.glyph.char.isalpha() and not mark for g, mark in zip(core, marks, strict=True)]
    variable = structure = False
    for at, item in enumerate(core):
        char, mark = item.glyph.char, marks[at]
        math_font = _math_font(item.glyph)
        # A letter of a run of letters set upright is a word: an operator's name or prose.
        run_start = at
        while run_start and letters[run_start - 1]:
            run_start -= 1
        run_end = at + 1
        while run_end < len(core) and letters[run_end]:
            run_end += 1
        if char.isalpha() and not mark:
            # A letter alone is a variable when it is a math font's, italic, or a capital
            # Greek one (TeX sets those upright in its text font); letters side by side in a
            # text font are a word (Greek prose too, whose articles "ο", "η" are letters
            # alone), but for an operator's name.
            name = "".join(g.glyph.char for g in core[run_start:run_end])
            alone = run_end - run_start == 1
            if math_font or alone and (item.italic or char in GREEK and char.isupper()):
                variable = True
                structure |= math_font or char in GREEK
            elif name not in OPERATOR_NAMES:
                return None
        elif char in SIGNS or mark:
            structure = True
        elif char in _FENCES:  # what a function is applied to: "f(a)", not an item's "(a)"
            applied = at > 0 and (core[at - 1].glyph.char.isalpha() or bool(marks[at - 1]))
            structure |= char in _OPENING and applied
        elif not (char.isdigit() or char in _POINTS or char in _PRIMES):
            return None
        structure |= math_font and not char.isalnum()
    solid = sum(g.glyph.char not in _FENCES | _POINTS | _PRIMES for g in core)
    return _Word(core, trail, variable, structure, solid)


def inline_formulas(
    words: list[tuple],
    glyphs: dict[Key, list[MathGlyph]],
    bars_in: Callable[[tuple], list[Bar]],
    *,
    params: MathParams = MATH,
) -> dict[Key, InlineFormula]:
    """The inline formulas of a page, by their first word's key. `words`: the page's
    `get_text("words")` tuples; `glyphs`: each word's glyphs in the order of its text (a word
    without them is no mathematics); `bars_in(box)`: the rules drawn in a box in points (an
    inline fraction's bar)."""
    found = {f.keys[0]: f for f in _fractions(words, glyphs, bars_in, params)}
    taken = {key for f in found.values() for key in f.keys}
    run: list[tuple[Key, _Word, tuple]] = []
    # Points the run took in (below): its index -> the word as it was (None: a word of points).
    joins: dict[int, _Word | None] = {}

    def emit(part: list[tuple[Key, _Word, tuple]]) -> None:
        formula = _formula(part, bars_in, params) if part else None
        if formula is not None:
            found[formula.keys[0]] = formula

    def close() -> None:
        if joins and _open_fence(run):
            # The fence never closed: the points were the sentence's ("(π, µ and ∂)").
            part: list[tuple[Key, _Word, tuple]] = []
            for at, (key, math, word) in enumerate(run):
                if at not in joins:
                    part.append((key, math, word))
                    continue
                if joins[at] is not None:
                    part.append((key, joins[at], word))
                emit(part)
                part = []
            emit(part)
        else:
            emit(run)
        run.clear()
        joins.clear()

    for word in words:
        x0, y0, x1, y1, text, block, line, number = word
        key = (block, line, number)
        math = _math_word(glyphs[key], params) if key in glyphs and key not in taken else None
        last, points = (run[-1] if run else None), False
        if last and last[0][:2] == key[:2] and _open_fence(run):
            # "I(X; Z)", "I(Y ; Z)": a point inside the formula's open fence is the formula's.
            if math is None and not last[1].trail and key in glyphs and _points(glyphs[key]):
                math, points = _Word(glyphs[key], 0, False, False, 0), True
                joins[len(run)] = None
            elif math is not None and last[1].trail:
                joins[len(run) - 1] = last[1]
                run[-1] = (last[0], last[1]._replace(core=glyphs[last[0]], trail=0), last[2])
                last = run[-1]
        if (
            math is None
            or (last and (last[0][:2] != key[:2] or last[1].trail))
            or (last and x0 - last[2][2] > params.inline_gap_ratio * (last[2][3] - last[2][1]))
        ):  # (a table's row on one line: its columns are no formula)
            close()
        if math is not None and not (points and not run):  # a point opens no formula
            run.append((key, math, word))
    close()
    return found


def _open_fence(run: list[tuple[Key, _Word, tuple]]) -> bool:
    """A fence the run opens is still open at its end (a closing fence before any opening
    one is the sentence's or a fence opened before the run)."""
    depth = 0
    for _, math, _ in run:
        for g in math.core:
            if g.glyph.char in _OPENING:
                depth += 1
            elif g.glyph.char in _CLOSING:
                depth = max(0, depth - 1)
    return depth > 0


def _points(glyphs: list[MathGlyph]) -> bool:
    """A word of points alone (a semicolon set apart: "I(Y ; Z)")."""
    return bool(glyphs) and all(g.glyph.char in _POINTS for g in glyphs)


def _fractions(
    words: list[tuple],
    glyphs: dict[Key, list[MathGlyph]],
    bars_in: Callable[[tuple], list[Bar]],
    params: MathParams,
) -> list[InlineFormula]:
    """Fractions set in a line ("1/8" as TeX sets it in text, small, over a bar): a word of
    mathematics right over a drawn bar and one right under it, the wider as wide as the bar,
    MuPDF's lines (even blocks) of their own, with a word of the line beside them (figures
    over and under a table's rule have none across the rule). Only pages with such a pair of
    words look for the page's rules."""
    out: list[InlineFormula] = []
    used: set[Key] = set()
    by_top = sorted(words, key=lambda w: w[1])
    tops = [w[1] for w in by_top]
    for upper in words:
        height = upper[3] - upper[1]
        reach = params.fraction_gap_ratio * height
        back = params.fraction_touch_ratio * height
        start, end = bisect_left(tops, upper[3] - back), bisect_right(tops, upper[3] + reach)
        for lower in by_top[start:end]:
            keys = ((upper[5], upper[6], upper[7]), (lower[5], lower[6], lower[7]))
            if used & set(keys) or not all(k in glyphs for k in keys):
                continue
            across = min(upper[2], lower[2]) - max(upper[0], lower[0])
            narrower = min(upper[2] - upper[0], lower[2] - lower[0])
            gap = lower[1] - upper[3]
            if not (
                height > 0
                and across >= params.fraction_overlap_share * narrower
                and -back <= gap <= reach
                and lower is not upper
            ):
                continue
            parts = [_math_word(glyphs[k], params) for k in keys]
            if None in parts or any(p.trail for p in parts):
                continue
            box = union((upper[:4], lower[:4]))
            wide = max(upper[2], lower[2]) - box[0]
            low, high = upper[3] - height / 2, lower[1] + height / 2
            longest = wide / params.fraction_width_share
            bars = [b for b in bars_in(box) if low <= b[2] <= high and b[1] - b[0] <= longest]
            if len(bars) != 1 or not _in_a_line(by_top, tops, box, bars[0][2], params):
                continue
            core = [g.glyph for p in parts for g in p.core]
            tex = tex_from_glyphs(core, bars, params=params)
            if tex is None or not tex.startswith(r"\frac"):
                continue
            used.update(keys)
            out.append(InlineFormula(keys, tex, 0))
    return out


def _in_a_line(
    by_top: list[tuple], tops: list[float], box: tuple, axis: float, params: MathParams
) -> bool:
    """A word stands beside the box, near its left or right, across the height of its bar
    (`axis`): the box is in a line of text."""
    height = box[3] - box[1]
    reach = params.fraction_beside_ratio * height
    for word in by_top[bisect_left(tops, axis - 2 * height) : bisect_right(tops, axis)]:
        left, right = box[0] - word[2], word[0] - box[2]
        if word[1] < axis < word[3] and (0 <= left <= reach or 0 <= right <= reach):
            return True
    return False


def _formula(
    run: list[tuple[Key, _Word, tuple]], bars_in: Callable[[tuple], list[Bar]], params: MathParams
) -> InlineFormula | None:
    parts = [math for _, math, _ in run]
    solid = sum(p.solid for p in parts)
    if not (any(p.variable for p in parts) and any(p.structure for p in parts)):
        return None
    if solid < params.inline_min_glyphs:
        return None
    box = union(w[:4] for _, _, w in run)
    tex = tex_from_glyphs([g.glyph for p in parts for g in p.core], bars_in(box), params=params)
    if tex is None:
        return None
    return InlineFormula(tuple(key for key, _, _ in run), tex, parts[-1].trail)
