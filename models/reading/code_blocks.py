"""Code listings on a born-digital page: a block set in a monospaced font (a program, a command
line, a manual's verbatim lines) is read as a "code" block whose text keeps its lines and their
indentation (a line a line; leading and inner spaces from the gaps, in the font's character
widths), and a listing's blocks one under the other are one block again. A reader hears and
copies a listing line by line as it was printed, not as one run-on paragraph, and a line of
code is not taken for a heading or a list item.

Prose set in such a font is no code (a typewriter-style letter, a form's title or a paper's
"To appear in ..." in Courier, a font sample): a listing looks like code, with the signs
programs use. A line of a paragraph that the page's blocks parted from it (a sentence's list
of file names set in typewriter type) keeps the paragraph's line spacing: a listing is set
apart by a space. A block of e-mail addresses or web addresses alone (a paper's authors'
addresses, set in typewriter type) stays text."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import replace

from models.engine import ReadBlock, Word
from models.reading.boxes import union
from models.reading.contents import CONTENTS_LAYOUT
from models.reading.kinds import ADDRESS
from models.reading.params.code import CODE, CodeParams
from models.reading.word_rows import text_rows

_LISTED_KINDS = ("paragraph", "list_item")  # what a listing's lines may have been read as
_SIGNS = frozenset("{}[]()<>=;:\\#$%&*_|~^@/")


def code_blocks(
    blocks: list[ReadBlock], mono: Callable[[Word], bool], *, params: CodeParams = CODE
) -> list[ReadBlock]:
    """`blocks` with the listings among them as "code" blocks (module docstring). `mono`: a
    word is set in a monospaced font. A listing is judged whole: the page's blocks may part
    it ("git checkout -b fix-42" has no sign of code; the lines above it do)."""
    typed = {k: _typewriter_words(block, mono, params) for k, block in enumerate(blocks)}
    numbers = {k: _line_number(block, mono) for k, block in enumerate(blocks)}
    runs: list[tuple[list[int], list[Word]]] = []  # blocks one under the other, their words
    for k, block in enumerate(blocks):
        words = typed[k]
        run = runs[-1] if runs and runs[-1][0][-1] == k - 1 else None
        if words is None and run is not None and (_signs(block) or _next_line(k, run, numbers)):
            # A closing "}"; a numbered listing's next line, its number alone (a blank line)
            # or before what the page's fonts set apart (docstrip's "92 <\tmple>" in italics)
            words = [w for w in block.words if w.bbox]
        if words is None:
            continue
        typed[k] = words
        if run is not None and _continues(run[1], words, params):
            run[0].append(k)
            run[1].extend(words)
        else:
            runs.append(([k], list(words)))
    prose = [
        b for k, b in enumerate(blocks)
        if typed[k] is None and b.bbox and any(c.isalpha() for c in b.text)
    ]  # fmt: skip
    listings = {
        run[0]: words for run, words in runs
        if _looks_like_code(words, params) and not _in_prose(words, prose, params)
    }  # fmt: skip
    taken = {k for run, _ in runs if run[0] in listings for k in run}
    out: list[ReadBlock] = []
    for k, block in enumerate(blocks):
        if k in listings:
            out.append(_code(block, listings[k], params))
        elif k not in taken:
            out.append(block)
    return out


def _typewriter_words(
    block: ReadBlock, mono: Callable[[Word], bool], params: CodeParams
) -> list[Word] | None:
    """The block's words with boxes, its list marker one of them, when it is set in a
    monospaced font and is not addresses alone; else None."""
    if block.kind not in _LISTED_KINDS or block.layout == CONTENTS_LAYOUT:
        return None  # (a contents entry naming macros in typewriter type is no listing)
    words = [w for w in block.words if w.bbox]
    # A listing's line numbers are set in the text font ("4 {"): they do not count.
    code = [w for w in words if not _line_number_word(w, mono)]
    # Signs alone ("}", "\\\\", "&") do not count: pdfTeX's listings draw braces and
    # backslashes from the math symbol font, at the typewriter font's width.
    counted = [w for w in code if any(c.isalnum() for c in w.text)] or code
    chars = sum(len(w.text) for w in counted)
    if not chars or sum(len(w.text) for w in counted if mono(w)) < params.mono_share * chars:
        return None
    if all(ADDRESS.fullmatch(w.text.strip(",;")) for w in words):
        return None
    if block.marker_word and block.marker_word.bbox:  # a list item's marker, read as a word
        words = [block.marker_word, *words]
    elif block.marker:  # a list item's marker left its words: it is the line's first text
        first = min(words, key=lambda w: (w.bbox[1], w.bbox[0]))  # type: ignore[index]
        width = _char_width(words)
        x0 = first.bbox[0] - (len(block.marker) + 1) * width  # type: ignore[index]
        box = (x0, first.bbox[1], x0 + len(block.marker) * width, first.bbox[3])  # type: ignore[index]
        words = [Word(text=block.marker, confidence=first.confidence, bbox=box), *words]
    return words


def _signs(block: ReadBlock) -> bool:
    """Signs alone ("}", "*/"), which any font may draw."""
    return (
        block.kind in _LISTED_KINDS
        and any(w.bbox for w in block.words)
        and not any(c.isalnum() for c in block.text)
    )


def _line_number(block: ReadBlock, mono: Callable[[Word], bool]) -> int | None:
    """The number opening the block's first line when it is set in the text font, as a
    listing's line numbers are; else None."""
    words = [w for w in block.words if w.bbox]
    if block.kind not in _LISTED_KINDS or not any(w.text.isdecimal() for w in words):
        return None  # (no number: no rows to sort, on every block of every page)
    first = text_rows(words)[0][0]
    return int(first.text) if _line_number_word(first, mono) else None


def _line_number_word(word: Word, mono: Callable[[Word], bool]) -> bool:
    """A number in the text font: a listing's line number, no code."""
    return word.text.isdecimal() and not mono(word)


def _next_line(k: int, run: tuple[list[int], list[Word]], numbers: dict) -> bool:
    """Block `k` opens with the number after the last line number of the listing's `run`."""
    last = next((numbers[j] for j in reversed(run[0]) if numbers[j] is not None), None)
    return last is not None and numbers[k] == last + 1


def _in_prose(words: list[Word], prose: list[ReadBlock], params: CodeParams) -> bool:
    """A line of a paragraph set wholly in typewriter type (a sentence's list of file names or
    options) that the page's blocks parted from its paragraph: it keeps the paragraph's line
    spacing with the text above it or below it, where a listing is set apart by a space."""
    x0, y0, x1, y1 = union(w.bbox for w in words)  # type: ignore[misc]
    near = params.flush_gap_ratio * _line_height(words)
    beside = [b for b in prose if b.bbox[0] < x1 and b.bbox[2] > x0]  # type: ignore[index]
    above = [y0 - b.bbox[3] for b in beside if b.bbox[3] <= y0 + near]  # type: ignore[index]
    below = [b.bbox[1] - y1 for b in beside if b.bbox[1] >= y1 - near]  # type: ignore[index]
    return any(gap <= near for gap in (min(above, default=near + 1), min(below, default=near + 1)))


def _line_height(words: list[Word]) -> float:
    return statistics.median(w.bbox[3] - w.bbox[1] for w in words if w.bbox)


def _char_width(words: list[Word]) -> float:
    """A monospaced font's character width: the median of its words' widths per character
    (half a line's height for words drawn without width)."""
    width = statistics.median(
        (w.bbox[2] - w.bbox[0]) / len(w.text) for w in words if w.bbox and w.text
    )
    return width if width > 0 else _line_height(words) / 2


def _looks_like_code(words: list[Word], params: CodeParams) -> bool:
    """The signs programs use, which prose has few of (indentation tells nothing: a typed
    letter's paragraphs, date and signature start at many places)."""
    text = "".join(w.text for w in words)
    return sum(c in _SIGNS for c in text) >= params.code_sign_share * len(text)


def _continues(last: list[Word], words: list[Word], params: CodeParams) -> bool:
    """The next block's lines go on the last listing's: just below it, across the same
    stretch of the page."""
    before, box = union(w.bbox for w in last), union(w.bbox for w in words)
    if before is None or box is None:
        return False
    height = _line_height(words)
    below = box[1] - before[3]
    beside = box[0] < before[2] and box[2] > before[0]
    return beside and -height <= below <= params.join_gap_ratio * height


def _code(block: ReadBlock, words: list[Word], params: CodeParams) -> ReadBlock:
    """A code block of the words: each line's indent and inner gaps as spaces, a blank line
    where the listing leaves one."""
    width = _char_width(words)
    lines = text_rows(words)
    left = min(line[0].bbox[0] for line in lines)  # type: ignore[index]
    middles = [(line[0].bbox[1] + line[0].bbox[3]) / 2 for line in lines]  # type: ignore[index]
    steps = [b - a for a, b in zip(middles, middles[1:], strict=False)]
    pitch = statistics.median(steps) if steps else 0.0
    out: list[str] = []
    for k, line in enumerate(lines):
        if k and pitch and steps[k - 1] >= params.blank_line_ratio * pitch:
            out.append("")
        text = " " * max(0, round((line[0].bbox[0] - left) / width))  # type: ignore[index]
        for j, word in enumerate(line):
            if j:
                gap = word.bbox[0] - line[j - 1].bbox[2]  # type: ignore[index]
                text += " " * max(1, round(gap / width))
            text += word.text
        out.append(text.rstrip())
    return replace(
        block, kind="code", text="\n".join(out), words=[w for line in lines for w in line],
        bbox=union([w.bbox for w in words if w.bbox]), level=None, ordered=False, marker=None,
        marker_word=None,
    )  # fmt: skip
