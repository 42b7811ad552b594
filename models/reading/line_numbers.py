"""Line numbers in a page's margin: a submitted manuscript's numbers beside every line (LaTeX's
lineno), pleading paper's 1 to 28, a bill's or a poem's every fifth line. They are no text of
the page: read into its lines they cut its sentences ("people. The 5 abstract runs"), end its
headings ("1 Introduction 8") and make paragraphs of numbers alone. The reading leaves them out
(as a running head's page number is no text of the body).

A column of line numbers: whole numbers (no sign, no point) aligned on one edge, one above the
other and growing down the page by one step (every line numbered, or every fifth; a few
misread aside; a contents column's page numbers grow unevenly), numbering lines: the height a
unit of numbering takes is about the prose's line pitch, not a paragraph's (paragraph numbers
in a judgment's margin are text a reader cites). They stand in a margin: the text of their
rows all on one side of them (a table's column of years has cells on both), and no other word
of the page starts in their lane or a word space from it (a list's numbers stand a word space
before their text; a table's first column, a numbered question's, a list of tables' entry
numbers stand where the page's text starts). The page needs lines of prose to measure its
line pitch by.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence

from models.engine import BBox
from models.reading.boxes import union
from models.reading.params.line_numbers import LINE_NUMBERS, LineNumberParams
from models.reading.scan_lines import ParaLines, keep_lines

_NUMBER = re.compile(r"[1-9]\d*")


def line_number_words(
    words: Sequence[tuple[BBox, str]], *, params: LineNumberParams = LINE_NUMBERS
) -> set[int]:
    """The indexes of `words` ((box, text) in page order, any unit) that are line numbers."""
    numbers = [
        k for k, (_, text) in enumerate(words)
        if len(text) <= params.max_digits and _NUMBER.fullmatch(text)
    ]  # fmt: skip
    if len(numbers) < params.min_numbers:
        return set()
    height = statistics.median(box[3] - box[1] for box, _ in words)
    rows = _rows(words, params, height)
    pitch = _line_pitch(rows, words, params)
    if pitch is None:
        return set()
    found: set[int] = set()
    for edge in (2, 0):  # set flush right (a left margin's), flush left (a right margin's)
        for column in _columns(numbers, words, edge, params, height):
            if (
                _numbers_lines(column, words, params, pitch)
                and _in_margin(column, words)
                and _lane_clear(column, words, params, height)
            ):
                found.update(column)
    return found


def scan_without_line_numbers(
    paragraphs: list[ParaLines], *, params: LineNumberParams = LINE_NUMBERS
) -> list[ParaLines]:
    """A scan's paragraphs without the line numbers in its margin: their words go, and a line
    or a paragraph they leave empty."""
    words = [w for para in paragraphs for line in para for w in line.words if w.bbox]
    found = line_number_words([(w.bbox, w.text) for w in words], params=params)  # type: ignore[misc]
    if not found:
        return paragraphs
    gone = {id(words[k]) for k in found}

    def keep(line) -> bool:
        if any(id(w) in gone for w in line.words):
            line.words = [w for w in line.words if id(w) not in gone]
            line.bbox = union(w.bbox for w in line.words) or line.bbox
        return bool(line.words)

    return keep_lines(paragraphs, keep)


def _rows(
    words: Sequence[tuple[BBox, str]], params: LineNumberParams, height: float
) -> list[list[int]]:
    """The words in rows: each within `same_row_ratio` of a line height of its row's first."""
    rows: list[list[int]] = []
    for k in sorted(range(len(words)), key=lambda k: _middle(words[k][0])):
        if rows and _middle(words[k][0]) - _middle(words[rows[-1][0]][0]) <= (
            params.same_row_ratio * height
        ):
            rows[-1].append(k)
        else:
            rows.append([k])
    return rows


def _line_pitch(
    rows: list[list[int]], words: Sequence[tuple[BBox, str]], params: LineNumberParams
) -> float | None:
    """The prose's line pitch: the median step between rows of prose one after the other
    (`prose_min_words` words or more), a paragraph's gap left out as no step of lines."""
    middles = [
        statistics.median(_middle(words[k][0]) for k in row)
        for row in rows if _prose(row, words, params)
    ]  # fmt: skip
    steps = sorted(b - a for a, b in zip(middles, middles[1:], strict=False))
    if len(steps) < params.prose_min_rows:
        return None
    usual = statistics.median(steps)
    return statistics.median(s for s in steps if s <= params.max_pitch_ratio * usual)


def _middle(box: BBox) -> float:
    return (box[1] + box[3]) / 2


def _columns(
    numbers: list[int], words: Sequence[tuple[BBox, str]], edge: int,
    params: LineNumberParams, height: float,
) -> list[list[int]]:  # fmt: skip
    """The numbers aligned on one edge (a box's x1 or x0), each column top to bottom."""
    columns: list[list[int]] = []
    for k in sorted(numbers, key=lambda k: words[k][0][edge]):
        if columns and abs(words[k][0][edge] - words[columns[-1][-1]][0][edge]) <= (
            params.align_ratio * height
        ):
            columns[-1].append(k)
        else:
            columns.append([k])
    return [
        sorted(c, key=lambda k: _middle(words[k][0]))
        for c in columns if len(c) >= params.min_numbers
    ]  # fmt: skip


def _numbers_lines(
    column: list[int], words: Sequence[tuple[BBox, str]], params: LineNumberParams, pitch: float
) -> bool:
    """Growing down the page by one step (every line numbered, every fifth; a few misread:
    "17" read "11"), a line's pitch for each unit of numbering. A contents page's page numbers
    grow unevenly and repeat."""
    growing = _longest_growing(column, [int(words[k][1]) for k in column])
    if len(growing) < max(params.min_numbers, params.growing_share * len(column)):
        return False
    values = [int(words[k][1]) for k in growing]
    middles = [_middle(words[k][0]) for k in growing]
    steps = [b - a for a, b in zip(values, values[1:], strict=False)]
    if max(map(steps.count, steps)) < params.even_step_share * len(steps):
        return False
    pitches = [(y1 - y0) / step for step, y0, y1 in zip(steps, middles, middles[1:], strict=False)]
    return statistics.median(pitches) <= params.max_pitch_ratio * pitch


def _prose(row: list[int], words: Sequence[tuple[BBox, str]], params: LineNumberParams) -> bool:
    """A line of prose: `prose_min_words` words or more, most of them words of letters (a
    table's row of figures is none)."""
    worded = sum(sum(c.isalpha() for c in words[k][1]) >= 2 for k in row)
    return len(row) >= params.prose_min_words and worded >= params.prose_word_share * len(row)


def _longest_growing(column: list[int], values: list[int]) -> list[int]:
    """The members of the longest run of strictly growing values, in order (quadratic: a
    column holds a page's lines)."""
    best: list[list[int]] = []
    for k, value in enumerate(values):
        before = [best[j] for j in range(k) if values[j] < value]
        best.append([*max(before, key=len, default=[]), k])
    return [column[k] for k in max(best, key=len, default=[])]


def _in_margin(column: list[int], words: Sequence[tuple[BBox, str]]) -> bool:
    """The text on the numbers' rows is all on one side of them: a margin's numbers (a
    table's column of years has cells on both sides)."""
    x0, x1 = min(words[k][0][0] for k in column), max(words[k][0][2] for k in column)
    taken = set(column)
    rows = [words[k][0] for k in column]
    beside = [
        box for j, (box, _) in enumerate(words)
        if j not in taken and any(box[1] < row[3] and box[3] > row[1] for row in rows)
    ]  # fmt: skip
    return all(b[0] >= x1 for b in beside) or all(b[2] <= x0 for b in beside)


def _lane_clear(
    column: list[int], words: Sequence[tuple[BBox, str]], params: LineNumberParams, height: float
) -> bool:
    """No other word of the page starts in the numbers' lane or within a gap wider than a word
    space of it: a list's numbers stand a word space before their text, a numbered question's
    where the instructions start, a list of tables' where its title starts."""
    taken = set(column)
    gap = params.margin_gap_ratio * height
    x0 = min(words[k][0][0] for k in column) - gap
    x1 = max(words[k][0][2] for k in column) + gap
    return not any(x0 <= box[0] <= x1 for j, (box, _) in enumerate(words) if j not in taken)
